// Live updates of the hall and of a table's page: server-sent events from /events, and the
// sand minute run down between two messages while a table's clock runs.
(function () {
  "use strict";
  var body = document.body;
  var offset = (parseFloat(body.dataset.now) || Date.now() / 1000) - Date.now() / 1000;
  function serverNow() { return Date.now() / 1000 + offset; }

  function ago(when) {
    if (!when) return "not heard from yet";
    var d = Math.max(0, serverNow() - when);
    if (d < 2) return "just now";
    if (d < 60) return Math.floor(d) + " s ago";
    if (d < 3600) return Math.floor(d / 60) + " min ago";
    return Math.floor(d / 3600) + " h ago";
  }
  function clock(s) {
    s = Math.max(0, Math.ceil(s));
    var sec = s % 60;
    return Math.floor(s / 60) + ":" + (sec < 10 ? "0" : "") + sec;
  }
  function tick() {
    document.querySelectorAll(".tile[data-last-seen]").forEach(function (tile) {
      var el = tile.querySelector(".ago");
      var when = parseFloat(tile.dataset.lastSeen);
      if (el && when) el.textContent = ago(when);
    });
    document.querySelectorAll(".sand[data-sand]").forEach(function (bar) {
      var left = parseFloat(bar.dataset.sand) - (serverNow() - parseFloat(bar.dataset.at));
      var minute = parseFloat(bar.dataset.minute) || 60;
      left = Math.max(0, Math.min(minute, left));
      bar.querySelector(".fill").style.width = (100 * left / minute).toFixed(1) + "%";
      bar.querySelector(".sand-text").textContent = clock(left);
    });
  }

  function place(html) {
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var tile = holder.firstElementChild;
    var old = document.getElementById(tile.id);
    if (old) { old.replaceWith(tile); return; }
    var hall = document.getElementById("hall");
    if (!hall) return;
    var empty = document.getElementById("empty");
    if (empty) empty.remove();
    var n = parseInt(tile.dataset.table, 10);
    var after = Array.prototype.find.call(hall.children, function (t) {
      return parseInt(t.dataset.table, 10) > n;
    });
    hall.insertBefore(tile, after || null);
  }

  function apply(message) {
    if (message.now) offset = message.now - Date.now() / 1000;
    if (message.tiles) Object.keys(message.tiles).forEach(function (k) { place(message.tiles[k]); });
    if (message.detail) {
      var detail = document.getElementById("detail");
      if (detail) detail.innerHTML = message.detail;
    }
    if (message.progress) {
      var p = document.getElementById("progress");
      if (p) p.textContent = (message.progress.round ? "Round " + message.progress.round + ": " : "") + message.progress.text;
    }
    tick();
  }

  var detail = document.getElementById("detail");
  var query = detail ? "table=" + encodeURIComponent(detail.dataset.table) : "hall=1";
  if (body.dataset.version !== "") query += "&since=" + encodeURIComponent(body.dataset.version);
  var source = new EventSource("/events?" + query);
  source.addEventListener("update", function (e) { apply(JSON.parse(e.data)); });
  window.companionLive = { source: source, apply: apply };
  tick();
  setInterval(tick, 250);
})();
