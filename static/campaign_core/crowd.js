// Completion page: copy the worker's code to the clipboard (with a fallback for browsers without the API).
(function () {
  const button = document.getElementById("copy-code");
  if (!button) return;
  button.addEventListener("click", async function () {
    const code = button.dataset.copy;
    try {
      await navigator.clipboard.writeText(code);
    } catch (err) {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById("completion-code"));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      document.execCommand("copy");
    }
    document.getElementById("copy-done").hidden = false;
  });
})();
