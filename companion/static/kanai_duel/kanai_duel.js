// Live updates of a duel: every 1.5 s ask the game's version (ETag, 304 when unchanged); when it
// moved on, fetch the board and swap it in, keeping a card this phone had tapped but not sent.
(function () {
  "use strict";
  var PERIOD = 1500;
  var etag = null;
  var busy = false;

  function board() { return document.getElementById("board"); }

  function swap(html) {
    var current = board();
    if (!current) return;
    var checked = {};
    current.querySelectorAll("input[type=radio]:checked").forEach(function (input) {
      checked[input.name] = input.value;
    });
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var fresh = holder.querySelector("#board");
    if (!fresh) return;
    Object.keys(checked).forEach(function (name) {
      var input = fresh.querySelector("input[type=radio][name='" + name + "'][value='" + checked[name] + "']");
      if (input && !input.disabled) input.checked = true;
    });
    current.replaceWith(fresh);
  }

  function tick() {
    var el = board();
    if (!el || busy || document.hidden) return;
    busy = true;
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch(el.dataset.versionUrl, { cache: "no-store", headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 304) return null;
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (data) {
        if (!data || String(data.version) === board().dataset.version) return null;
        return fetch(board().dataset.boardUrl, { cache: "no-store", credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { if (html) swap(html); });
      })
      .catch(function () { /* offline for a moment: try again next tick */ })
      .then(function () { busy = false; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (board()) window.setInterval(tick, PERIOD);
  });
})();
