// The TV by the door: standings and the round's progress in turn, fetched afresh each time.
(function () {
  "use strict";
  var cycle = 1000 * (parseFloat(document.body.dataset.cycle) || 10);
  var order = ["standings", "progress"];
  var i = 0;
  var panel = document.getElementById("panel");
  function show() {
    fetch("/tv/panels", { cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (panels) {
        var name = order[i % order.length];
        panel.innerHTML = panels[name];
        panel.dataset.panel = name;
        i += 1;
      })
      .catch(function () { /* the director is restarting: try again at the next turn */ });
  }
  show();
  setInterval(show, cycle);
})();
