/* qrelsmith judging page: keyboard-first, no page reloads, never loses a judgment.
 *
 * Untrusted document text is only ever inserted with textContent / text nodes, never
 * parsed as HTML. Every submit carries a client-generated token, so a retried or doubled
 * submit records one judgment. Unsent judgments wait in localStorage until the server
 * has them.
 */
(function () {
  "use strict";

  var IDLE_MS = 60000;
  var boot = JSON.parse(document.getElementById("judge-initial").textContent);
  var urls = boot.urls;
  var scale = boot.scale;
  var csrf = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
  var queueKey = "qrelsmith-queue:" + urls.submit;
  var NOTES = {
    shared_queue: "Shared queue: the total is your judgments plus the pairs still open to you. " +
      "It goes down when colleagues judge pairs first.",
    my_topics: "Your topics: the total is your judgments plus the pairs of your topics still open to you.",
    batch: "Your batch of pairs."
  };

  var state = boot.state;          // {current, next, progress, blocked}
  var shown = null;                // payload on screen
  var revisiting = false;          // shown is an earlier judgment
  var inFlight = false;
  var leaving = false;             // navigating away (batch finished): accept no more keys
  var retryDelay = 1000;
  var activeMs = 0;
  var lastTick = Date.now();
  var lastActivity = Date.now();

  function $(id) { return document.getElementById(id); }

  function newToken() {
    if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* ---- active time: counts only while the tab is visible and the person is not idle ---- */
  function tick() {
    var now = Date.now();
    if (document.visibilityState === "visible" && now - lastActivity < IDLE_MS) {
      activeMs += now - lastTick;
    }
    lastTick = now;
  }
  setInterval(tick, 1000);
  document.addEventListener("visibilitychange", function () { tick(); });
  ["keydown", "mousemove", "mousedown", "wheel", "touchstart", "scroll"].forEach(function (name) {
    window.addEventListener(name, function () { tick(); lastActivity = Date.now(); }, { passive: true, capture: true });
  });

  /* ---- rendering (textContent only) ---- */
  function setText(id, text) { $(id).textContent = text || ""; }

  function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function renderHighlighted(el, text, terms) {
    el.textContent = "";
    if (!terms || !terms.length) { el.textContent = text; return; }
    var pattern = new RegExp("(^|[^\\p{L}\\p{N}])(" + terms.map(escapeRegExp).join("|") + ")(?=$|[^\\p{L}\\p{N}])", "giu");
    var last = 0, match;
    while ((match = pattern.exec(text)) !== null) {
      var start = match.index + match[1].length;
      if (start > last) { el.appendChild(document.createTextNode(text.slice(last, start))); }
      var mark = document.createElement("mark");
      mark.textContent = match[2];
      el.appendChild(mark);
      last = start + match[2].length;
      if (match[0].length === 0) { pattern.lastIndex++; }
    }
    if (last < text.length) { el.appendChild(document.createTextNode(text.slice(last))); }
  }

  var lastAssigned = null;

  function renderProgress(progress) {
    if (!progress) { return; }
    // The total is exact (done + still open to me): in a shared queue it can shrink, and the page says why.
    setText("progress-note", NOTES[progress.basis] || "");
    if (lastAssigned !== null && progress.assigned < lastAssigned && progress.basis === "shared_queue") {
      setText("progress-note", "Total down from " + lastAssigned + " to " + progress.assigned +
        ": colleagues judged pairs from the shared queue. " + NOTES.shared_queue);
    }
    lastAssigned = progress.assigned;
    $("progress").title = NOTES[progress.basis] || "";
    setText("progress-done", String(progress.done));
    setText("progress-assigned", String(progress.assigned));
    $("progress-bar").max = Math.max(progress.assigned, 1);
    $("progress-bar").value = progress.done;
    var body = $("topic-progress");
    body.textContent = "";
    $("topic-progress-block").hidden = !(progress.topics && progress.topics.length);  // crowd batches have none
    (progress.topics || []).forEach(function (t) {
      var row = document.createElement("tr");
      [t.qid, t.title, t.done + " / " + t.assigned].forEach(function (value) {
        var cell = document.createElement("td");
        cell.textContent = value;
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
  }

  function show(payload, isRevisit) {
    shown = payload;
    revisiting = !!isRevisit;
    activeMs = 0;
    lastTick = Date.now();
    $("finished").hidden = true;
    $("work").hidden = false;
    $("judge-app").classList.remove("ended");
    setText("topic-qid", payload.qid);
    setText("topic-title", payload.topic.title);
    setText("topic-description", payload.topic.description);
    setText("topic-narrative", payload.topic.narrative);
    $("topic-description-block").hidden = !payload.topic.description;
    $("topic-narrative-block").hidden = !payload.topic.narrative;
    // Topic guidelines were rendered (sanitised) by the server into hidden blocks: show this topic's.
    var hasGuide = false;
    document.querySelectorAll("#topic-guidelines .topic-guide").forEach(function (block) {
      block.hidden = block.dataset.qid !== payload.qid;
      hasGuide = hasGuide || !block.hidden;
    });
    $("topic-guidelines-block").hidden = !hasGuide;
    setText("doc-docno", payload.docno);
    setText("doc-title", payload.doc.title);
    renderHighlighted($("doc-text"), payload.doc.text, payload.terms);
    $("doc-text").scrollTop = 0;
    $("revisit-flag").hidden = !revisiting;
    $("comment").value = (payload.judgment && payload.judgment.comment) || "";
    var chosen = payload.judgment ? payload.judgment.grade : null;
    document.querySelectorAll("#label-buttons .label[data-grade]").forEach(function (b) {
      b.classList.toggle("chosen", chosen !== null && String(chosen) === b.dataset.grade);
    });
    $("skip-button").classList.toggle("chosen", !!(payload.judgment && payload.judgment.skipped));
    $("judge-app").dataset.item = String(payload.item);
  }

  function showFinished() {
    shown = null;
    revisiting = false;
    $("work").hidden = true;
    $("judge-app").classList.add("ended");
    var panel = state.blocked ? $("blocked") : state.closed ? $("closed") : $("finished");
    if (panel === $("finished") && state.progress) {
      var n = state.progress.done;
      setText("finished-summary", "You made " + n + (n === 1 ? " judgment." : " judgments."));
    }
    if (panel.hidden) {
      panel.hidden = false;
      panel.querySelector("h2").focus();
    }
  }

  function showCurrent() {
    if (state.current) { show(state.current, false); } else { showFinished(); }
  }

  function setBusy(busy) {
    inFlight = busy;
    $("judge-app").classList.toggle("busy", busy);
    document.querySelectorAll("#label-buttons button").forEach(function (b) { b.disabled = busy; });
  }

  function status(text, isError) {
    setText("status", text);
    $("status").classList.toggle("error", !!isError);
  }

  /* ---- the queue: judgments stay here until the server confirms them ---- */
  function loadQueue() {
    try { return JSON.parse(localStorage.getItem(queueKey) || "[]"); } catch (e) { return []; }
  }
  function saveQueue(queue) {
    try { localStorage.setItem(queueKey, JSON.stringify(queue)); } catch (e) { /* private mode: memory only */ }
  }
  var queue = loadQueue();

  function leave(url) {
    leaving = true;
    setBusy(true);
    window.location.assign(url);
  }

  function applyState(data) {
    if (data.redirect) { leave(data.redirect); return; }
    var onScreen = shown && !revisiting ? shown.item : null;
    state = { current: data.current, next: data.next, progress: data.progress, blocked: data.blocked, closed: data.closed };
    renderProgress(state.progress);
    if (revisiting) { return; }
    if (!state.current) { showFinished(); return; }
    if (onScreen !== state.current.item) { show(state.current, false); }
  }

  function flush() {
    if (leaving) { return; }
    if (!queue.length) { setBusy(false); return; }
    setBusy(true);
    var entry = queue[0];
    fetch(urls.submit, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(entry)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (response.status >= 500 || response.status === 0) { throw new Error("server " + response.status); }
        queue.shift();
        saveQueue(queue);
        retryDelay = 1000;
        if (response.ok) {
          status("Saved.", false);
          if (!queue.length) { applyState(data); }
        } else {
          status("Not saved: " + (data.detail || response.status), true);
          if (data.redirect) { leave(data.redirect); return; }
          refresh();
        }
        flush();
      });
    }).catch(function () {
      status("Connection lost — your judgment is kept and will be sent again.", true);
      setTimeout(flush, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    });
  }

  function refresh() {
    fetch(urls.state, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) { revisiting = false; shown = null; applyState(data); })
      .catch(function () { status("Connection lost.", true); });
  }

  function submit(fields) {
    if (inFlight || leaving || !shown) { return; }
    tick();
    var entry = {
      item: shown.item,
      grade: fields.grade,
      skipped: !!fields.skipped,
      skip_reason: fields.skip_reason || "",
      comment: $("comment").value,
      active_seconds: Math.round(activeMs) / 1000,
      client_token: newToken()
    };
    queue.push(entry);
    saveQueue(queue);
    var wasRevisit = revisiting;
    revisiting = false;
    // Advance at once to the preloaded pair; the server's answer corrects it if needed.
    if (wasRevisit) {
      showCurrent();
    } else if (state.next) {
      state.current = state.next;
      state.next = null;
      show(state.current, false);
    } else {
      state.current = null;
      showFinished();
    }
    status("Saving…", false);
    flush();
  }

  function back() {
    if (inFlight) { return; }
    var before = revisiting && shown && shown.judgment ? shown.judgment.id : "";
    fetch(urls.back + (before ? "?before=" + encodeURIComponent(before) : ""), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.previous) { show(data.previous, true); status("Earlier judgment — press a label key to revise it.", false); }
        else { status("No earlier judgment.", false); }
      })
      .catch(function () { status("Connection lost.", true); });
  }

  function forward() {
    if (revisiting) { revisiting = false; showCurrent(); status("", false); }
  }

  /* ---- dialogs ---- */
  function openDialog(d) {
    // Escape closes a dialog without touching returnValue: clear it so an old "skip" is not replayed.
    if (!d.open) { d.returnValue = ""; d.showModal(); }
  }

  $("help-button").addEventListener("click", function () { openDialog($("help-dialog")); });
  $("skip-button").addEventListener("click", function () { if (shown && !inFlight) { openDialog($("skip-dialog")); } });
  $("skip-dialog").addEventListener("close", function () {
    if ($("skip-dialog").returnValue !== "skip") { return; }
    var form = $("skip-form");
    var other = form.elements.other.value.trim();
    var reason = other || (form.querySelector("input[name=reason]:checked") || {}).value || "cannot judge";
    form.elements.other.value = "";
    submit({ grade: null, skipped: true, skip_reason: reason });
  });
  document.querySelectorAll("#label-buttons .label[data-grade]").forEach(function (button) {
    button.addEventListener("click", function () { submit({ grade: parseInt(button.dataset.grade, 10) }); });
  });
  $("comment").addEventListener("keydown", function (e) {
    if (e.key === "Enter" || e.key === "Escape") { e.preventDefault(); $("comment").blur(); }
  });

  var gradeByKey = {};
  scale.forEach(function (g) { gradeByKey[String(g.key).toLowerCase()] = g.grade; });

  document.addEventListener("keydown", function (e) {
    var target = e.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) { return; }
    if ($("help-dialog").open || $("skip-dialog").open) { return; }
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    var key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (Object.prototype.hasOwnProperty.call(gradeByKey, key)) {
      e.preventDefault();
      if (!e.repeat) { submit({ grade: gradeByKey[key] }); }
    } else if (key === "ArrowLeft" || key === "k" || key === "Backspace") {
      e.preventDefault(); back();
    } else if (key === "ArrowRight" || key === "j") {
      e.preventDefault(); forward();
    } else if (key === "s") {
      e.preventDefault(); if (shown && !inFlight) { openDialog($("skip-dialog")); }
    } else if (key === "c") {
      e.preventDefault(); $("comment").focus();
    } else if (key === "?") {
      e.preventDefault(); openDialog($("help-dialog"));
    }
  });

  /* ---- start ---- */
  // On a phone the topic details start folded so the document starts on the first screen.
  if (window.matchMedia && window.matchMedia("(max-width: 800px)").matches) { $("topic-details").open = false; }
  renderProgress(state.progress);
  showCurrent();
  if (queue.length) { status("Sending judgments saved earlier…", false); flush(); }
})();
