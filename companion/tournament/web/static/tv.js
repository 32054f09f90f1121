// The TV by the door: every page of the standings, then the round's progress, in turn, fetched
// afresh each time.
(function () {
  "use strict";
  var cycle = 1000 * (parseFloat(document.body.dataset.cycle) || 10);
  var i = 0;
  var panel = document.getElementById("panel");
  function show() {
    fetch("/tv/panels", { cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (panels) {
        var pages = panels.pages || [panels.standings];
        var turn = i % (pages.length + 1);
        if (turn < pages.length) {
          panel.innerHTML = pages[turn];
          panel.dataset.panel = "standings";
          panel.dataset.page = String(turn + 1);
        } else {
          panel.innerHTML = panels.progress;
          panel.dataset.panel = "progress";
          panel.dataset.page = "";
        }
        i = turn + 1;
      })
      .catch(function () { /* the director is restarting: try again at the next turn */ });
  }
  show();
  setInterval(show, cycle);
})();
