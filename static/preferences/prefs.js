// Preference judging: keyboard answers, back to earlier answers, active-time tracking (no dependencies).
(function () {
  "use strict";
  var page = document.getElementById("pref-page");
  var form = document.getElementById("pref-form");
  var seconds = document.getElementById("pref-seconds");
  var strength = document.getElementById("pref-strength");
  var comment = document.getElementById("pref-comment");
  var IDLE = 60000, active = 0, last = Date.now(), lastInput = Date.now(), sent = false;

  // Active time counts only while the tab is visible and the person did something in the last minute.
  function tick() {
    var now = Date.now();
    if (!document.hidden && now - lastInput < IDLE) { active += now - last; }
    last = now;
  }
  setInterval(tick, 1000);
  document.addEventListener("visibilitychange", tick);
  ["keydown", "mousemove", "mousedown", "wheel", "scroll", "click"].forEach(function (ev) {
    document.addEventListener(ev, function () { tick(); lastInput = Date.now(); }, { passive: true, capture: true });
  });

  function go(url) {
    if (url && !sent) { sent = true; window.location.href = url; }
  }

  function submit(choice) {
    if (sent || !form) { return; }
    sent = true;
    tick();
    seconds.value = (active / 1000).toFixed(2);
    var input = document.createElement("input");
    input.type = "hidden"; input.name = "choice"; input.value = String(choice);
    form.appendChild(input);
    form.submit();
  }
  if (form) {
    form.addEventListener("submit", function () { sent = true; tick(); seconds.value = (active / 1000).toFixed(2); });
  }

  var answers = { "1": -1, "ArrowLeft": -1, "2": 0, "ArrowDown": 0, "3": 1, "ArrowRight": 1 };
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) {
      if (e.key === "Escape") { t.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) { return; }
    if (form && Object.prototype.hasOwnProperty.call(answers, e.key)) { e.preventDefault(); submit(answers[e.key]); return; }
    if (e.key === "Backspace" || e.key === "k") { e.preventDefault(); go(page && page.dataset.back); return; }
    if (e.key === "n") { go(page && page.dataset.forward); return; }
    if (!form) { return; }
    if (e.key === "s") { strength.selectedIndex = (strength.selectedIndex + 1) % strength.options.length; }
    if (e.key === "c") { e.preventDefault(); comment.focus(); }
    if (e.key === "e") {
      var all = document.querySelectorAll(".pref-panel details");
      var open = !all[0] || !all[0].open;
      all.forEach(function (d) { d.open = open; });
    }
  });
})();
