// Side-by-side judging: keyboard answers and active-time tracking (no dependencies).
(function () {
  "use strict";
  var form = document.getElementById("pref-form");
  if (!form) { return; }
  var seconds = document.getElementById("pref-seconds");
  var strength = document.getElementById("pref-strength");
  var comment = document.getElementById("pref-comment");
  var active = 0, last = Date.now(), lastInput = Date.now(), IDLE = 60000, sent = false;
  function tick() {
    var now = Date.now();
    if (!document.hidden && now - lastInput < IDLE) { active += now - last; }
    last = now;
  }
  setInterval(tick, 1000);
  ["keydown", "mousemove", "scroll", "click"].forEach(function (ev) {
    document.addEventListener(ev, function () { lastInput = Date.now(); }, { passive: true });
  });
  function submit(choice) {
    if (sent) { return; }
    sent = true;
    tick();
    seconds.value = (active / 1000).toFixed(2);
    var input = document.createElement("input");
    input.type = "hidden"; input.name = "choice"; input.value = String(choice);
    form.appendChild(input);
    form.submit();
  }
  form.addEventListener("submit", function () { tick(); seconds.value = (active / 1000).toFixed(2); });
  document.addEventListener("keydown", function (e) {
    if (e.target === comment || e.ctrlKey || e.metaKey || e.altKey) {
      if (e.key === "Escape") { comment.blur(); }
      return;
    }
    var keys = { "1": -1, "ArrowLeft": -1, "2": 0, "ArrowDown": 0, "3": 1, "ArrowRight": 1 };
    if (Object.prototype.hasOwnProperty.call(keys, e.key)) { e.preventDefault(); submit(keys[e.key]); return; }
    if (e.key === "s") { strength.selectedIndex = (strength.selectedIndex + 1) % strength.options.length; }
    if (e.key === "c") { e.preventDefault(); comment.focus(); }
    if (e.key === "e") {
      var all = document.querySelectorAll(".pref-panel details");
      var open = !all[0] || !all[0].open;
      all.forEach(function (d) { d.open = open; });
    }
  });
})();
