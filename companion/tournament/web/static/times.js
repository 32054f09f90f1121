// Each <time class="when" data-at="EPOCH-SECONDS"> in the reader's own time and language
// (a file of its own: the pages' Content Security Policy runs no inline script).
document.querySelectorAll("time.when").forEach(function (e) {
  e.textContent = new Date(1000 * parseFloat(e.dataset.at)).toLocaleString();
});
