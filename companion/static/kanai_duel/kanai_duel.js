// Live updates of a duel: every 1.5 s ask the game's version through the page's /live address
// (one indexed query; 304 while unchanged); when it moved on, fetch the board and swap it in,
// keeping a card this phone had tapped but not sent.
(function () {
  "use strict";
  var PERIOD = 1500;
  var url = document.body.dataset.liveUrl, seen = document.body.dataset.liveVersion;
  var busy = false, timer = null;

  function board() { return document.getElementById("board"); }

  function swap(html) {
    var current = board();
    if (!current) return false;
    var checked = {};
    current.querySelectorAll("input[type=radio]:checked").forEach(function (input) {
      checked[input.name] = input.value;
    });
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var fresh = holder.querySelector("#board");
    if (!fresh) return false;
    Object.keys(checked).forEach(function (name) {
      var input = fresh.querySelector("input[type=radio][name='" + name + "'][value='" + checked[name] + "']");
      if (input && !input.disabled) input.checked = true;
    });
    current.replaceWith(fresh);
    // The pick form in it is a new one: drafts.js keeps its taps from now on.
    fresh.dispatchEvent(new CustomEvent("board:swapped", {bubbles: true}));
    return true;
  }

  function tick() {
    var el = board();
    if (!el || busy || document.hidden) return;
    busy = true;
    fetch(url, { cache: "no-store", headers: { "If-None-Match": '"' + seen + '"' }, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 410) { window.clearInterval(timer); location.reload(); return null; }  // closed: the page says why
        if (response.status === 404) {  // the game is gone: said, asked no more
          window.clearInterval(timer);
          document.dispatchEvent(new CustomEvent("live:gone"));
        }
        return response.status === 200 ? response.text() : null;
      })
      .then(function (version) {
        if (!version || version === seen) return null;
        return fetch(board().dataset.boardUrl, { cache: "no-store", credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { if (html && swap(html)) seen = version; });
      })
      .catch(function () { /* offline for a moment: try again next tick */ })
      .then(function () { busy = false; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (board() && url) timer = window.setInterval(tick, PERIOD);
  });
})();
