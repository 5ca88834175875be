// Live updates of a duel: every 1.5 s ask the game's version through the page's /live address
// (one indexed query; 304 while unchanged); when it moved on, fetch the board and swap it in,
// keeping a card this phone had tapped but not sent. Behind a proxy that pushes (app.js's stream:
// "live:stream", "live:pushed") a pushed version fetches the board at once and the question is
// asked only every 30 s, as a catch-up, while the stream is open. A viewer's message brings the
// board itself (drawn once for every viewer: companion.play.push), swapped in with no fetch.
(function () {
  "use strict";
  var PERIOD = 1500, CATCH_UP = 30000;
  var url = document.body.dataset.liveUrl, seen = document.body.dataset.liveVersion;
  var busy = false, timer = null, every = PERIOD, wanted = null, leaving = false;
  // A card sent (drafts.js sends it with fetch, then opens the page its answer leads to) or a
  // link followed: the next page is on its way with the version the save makes, and a board
  // fetched for it meanwhile would be drawn for nothing (app.js's live pages wait too). A page
  // still here after a while was not left (kept offline in the outbox, a download, a
  // navigation given up): it follows the game again.
  function away() {
    leaving = true;
    window.setTimeout(function () { leaving = false; }, 8000);
  }
  document.addEventListener("submit", function (e) { if (e.target.closest("#board")) away(); });
  window.addEventListener("beforeunload", away);
  window.addEventListener("pageshow", function () { leaving = false; });

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

  function stop() { if (timer !== null) window.clearInterval(timer); timer = null; }

  function gone() { stop(); document.dispatchEvent(new CustomEvent("live:gone")); }

  // The board of `version` fetched and swapped in (one fetch at a time; a version told meanwhile
  // is fetched after it).
  function fetchBoard(version) {
    if (!version || version === seen || leaving || !board()) return null;
    if (busy) { wanted = version; return null; }
    busy = true;
    return fetch(board().dataset.boardUrl, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) { if (html && swap(html)) seen = version; })
      .catch(function () { /* offline for a moment: the next tick or message tries again */ })
      .then(function () {
        busy = false;
        var next = wanted;
        wanted = null;
        if (next) fetchBoard(next);
      });
  }

  function tick() {
    var el = board();
    if (!el || busy || leaving || document.hidden) return;
    busy = true;
    fetch(url, { cache: "no-store", headers: { "If-None-Match": '"' + seen + '"' }, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 410) { stop(); location.reload(); return null; }  // closed: the page says why
        if (response.status === 404) gone();  // the game is gone: said, asked no more
        return response.status === 200 ? response.text() : null;
      })
      .catch(function () { return null; /* offline for a moment: try again next tick */ })
      .then(function (version) { busy = false; fetchBoard(version); });
  }

  document.addEventListener("live:stream", function (e) {
    every = e.detail === "down" ? PERIOD : CATCH_UP;
    if (timer === null) return;
    window.clearInterval(timer);
    timer = window.setInterval(tick, every);
    if (e.detail === "again") tick();  // what changed while the stream was not there
  });
  document.addEventListener("live:pushed", function (e) {
    if (timer === null) return;
    if (e.detail === "closed") { stop(); location.reload(); return; }
    if (e.detail === "gone") { gone(); return; }
    // A viewer's message brings the board drawn for every viewer: swapped in, nothing fetched.
    var live = window.companionLive, told = live ? live.told(e.detail) : {version: e.detail, part: null};
    if (told.part !== null && !busy && !leaving && live.newer(told.version, seen) && swap(told.part)) {
      live.own(board());
      seen = told.version;
      return;
    }
    fetchBoard(told.version);
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (board() && url) timer = window.setInterval(tick, every);
  });
})();

// The Share button comes with the board once the duel is over. A board put in with innerHTML does
// not run its scripts: the button's own (share.js) is run here, once.
document.addEventListener("board:swapped", function (e) {
  var script = e.target.querySelector(".share-result script[src]");
  if (!script || window.companionShare) return;
  var run = document.createElement("script");
  run.src = script.src;
  document.head.appendChild(run);
});
