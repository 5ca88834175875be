/* The offline copy (sw.js), never in the way of the page: once the page has loaded and the phone
 * is idle, register the service worker and ask it to store this page's static files and — from
 * the second page on (a page the worker already controls) — the offline pages and the rulings in
 * this page's language (one download, the first time only). So a first visit downloads the page
 * and the worker, not the ~48 kB copy. <html data-offline-assets> says the page's files are stored
 * ("first-page": the copy comes with the next page), <html data-offline-rulings> the language of
 * the copy stored. */
(function () {
  if (!("serviceWorker" in navigator) || !window.MessageChannel) return;
  var first = !navigator.serviceWorker.controller;  // this phone's first page here
  function store() {
    navigator.serviceWorker.register("/sw.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      var channel = new MessageChannel(), assets = [];
      document.querySelectorAll("link[rel=stylesheet][href], script[src]").forEach(function (e) {
        assets.push(e.href || e.src);
      });
      channel.port1.onmessage = function (e) {
        if (e.data && e.data.assets) document.documentElement.dataset.offlineAssets = first ? "first-page" : "stored";
        if (e.data && e.data.stored) document.documentElement.dataset.offlineRulings = e.data.stored;
      };
      registration.active.postMessage({store: first ? "assets" : "offline",
                                       lang: document.documentElement.lang,
                                       assets: assets}, [channel.port2]);
    }).catch(function () {});
  }
  function whenIdle() {
    if (window.requestIdleCallback) requestIdleCallback(store, {timeout: 5000});
    else setTimeout(store, 1000);
  }
  function afterLoad() { setTimeout(whenIdle, 1000); }
  if (document.readyState === "complete") afterLoad(); else window.addEventListener("load", afterLoad);
})();

/* The "keep the screen on" toggle (Wake Lock API), remembered on this phone. */
(function () {
  var toggle = document.querySelector("[data-wake-lock]");
  if (!toggle || !("wakeLock" in navigator)) return;
  toggle.hidden = false;
  var lock = null, wanted = localStorage.getItem("companion-awake") === "1";
  function show() { toggle.setAttribute("aria-pressed", wanted ? "true" : "false"); }
  async function acquire() {
    if (!wanted || document.visibilityState !== "visible" || lock) return;
    try { lock = await navigator.wakeLock.request("screen"); lock.addEventListener("release", function () { lock = null; }); }
    catch (e) { wanted = false; show(); }
  }
  toggle.addEventListener("click", function () {
    wanted = !wanted; localStorage.setItem("companion-awake", wanted ? "1" : "0"); show();
    if (wanted) acquire(); else if (lock) { lock.release(); lock = null; }
  });
  document.addEventListener("visibilitychange", acquire);
  show(); acquire();
})();

/* Behaviours declared in the HTML with data attributes, so no page needs an inline script (the
 * Content-Security-Policy allows scripts from this site only). */
(function () {
  /* <form data-once>: a second tap on Save while the first is on its way does nothing. */
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-once]")) return;
    var save = form.querySelector("[data-action=save]");
    if (save) setTimeout(function () { save.disabled = true; }, 0);
  });
  /* <input data-autosubmit>: a choice that applies at once (a filter). */
  document.addEventListener("change", function (e) {
    if (e.target.matches && e.target.matches("[data-autosubmit]") && e.target.form) e.target.form.submit();
  });
  /* [data-rest="seat"]: give every card nobody has yet to that player, in one tap. */
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-rest]"); if (!b) return;
    document.querySelectorAll(".cardrow").forEach(function (row) {
      if (!row.querySelector("input:checked")) { var r = row.querySelector("input[value='" + b.dataset.rest + "']"); if (r) r.checked = true; }
    });
    var pop = b.closest("details");  // the pop-up of "The rest…" has done its job
    if (pop) pop.open = false;
    if (b.form) b.form.dispatchEvent(new Event("change", {bubbles: true}));
  });
  /* The set-up form labels the "first leader" choices with the names as they are typed. */
  document.addEventListener("input", function (e) {
    if (!e.target.matches || !e.target.matches("[data-name-seat]")) return;
    var form = e.target.form, seat = e.target.dataset.nameSeat;
    var select = (form && form.dataset.nameTarget) || "#first_leader";
    var opt = document.querySelector(select + " option[value='" + seat + "']");
    var label = (form && form.dataset.playerLabel) || "{n}";
    if (opt) opt.textContent = e.target.value || label.replace("{n}", +seat + 1);
  });
})();

/* <form data-keep-typed> (the set-ups): what was typed is kept for this tab when the form is sent
 * and put back on Back to it (a refusal such as "one moment" must not cost the typed names: the
 * name fields have autocomplete off, so the browser itself keeps nothing). */
(function () {
  var KEY = "companion-typed:";
  function fields(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && el.name !== "csrf_token" && (el.type === "text" || el.tagName === "TEXTAREA");
    });
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-keep-typed]")) return;
    var typed = {};
    fields(form).forEach(function (el) { if (el.value) typed[el.name] = el.value; });
    try { sessionStorage.setItem(KEY + location.pathname, JSON.stringify(typed)); } catch (err) { /* kept nowhere */ }
  });
  function restore() {
    var nav = window.performance && performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    if (!nav || nav.type !== "back_forward") return;
    var typed;
    try { typed = JSON.parse(sessionStorage.getItem(KEY + location.pathname) || "null"); } catch (err) { return; }
    if (!typed) return;
    document.querySelectorAll("form[data-keep-typed]").forEach(function (form) {
      fields(form).forEach(function (el) {
        if (!el.value && typed[el.name]) {
          el.value = typed[el.name];
          el.dispatchEvent(new Event("input", {bubbles: true}));  // the first-leader labels follow
        }
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", restore);
  else restore();
})();

/* The Save bar never hides what is entered (a 360×740 phone): after a tap in a form with a
 * sticky Save bar, the row tapped and the next one are scrolled above the bar when they are under
 * it (never the tapped row off the top). */
(function () {
  function rowOf(el) { return el.closest(".cardrow, .countrow, .field, fieldset, tr, li") || el; }
  document.addEventListener("change", function (e) {
    var form = e.target.form, bar = form && form.querySelector(".savebar");
    if (!bar || !e.target.closest || bar.contains(e.target)) return;
    var row = rowOf(e.target), next = row.nextElementSibling;
    var want = next && next.offsetParent !== null && !next.contains(bar) ? next : row;
    var floor = bar.getBoundingClientRect().top - 8, bottom = want.getBoundingClientRect().bottom;
    if (bottom <= floor) return;
    var room = Math.max(row.getBoundingClientRect().top - 8, 0);
    window.scrollBy(0, Math.min(bottom - floor, room));
  });
})();

/* <a data-back>: go back one page (the link's own address is the fallback without history). */
document.addEventListener("click", function (e) {
  var back = e.target.closest && e.target.closest("a[data-back]");
  if (back && history.length > 1) { e.preventDefault(); history.back(); }
});

/* What a pushed message tells (companion.play.push): the game's version, then — on a viewer's
 * page — after a line break, the page's live part as drawn for every viewer in its language. */
var companionLive = {
  told: function (text) {
    var cut = text.indexOf("\n");
    return cut < 0 ? {version: text, part: null} : {version: text.slice(0, cut), part: text.slice(cut + 1)};
  },
  /* A version ("<game>-<seconds>") later than `seen`: a message older than the page (a stream
   * opened just before the change reached the proxy) never puts an older part over a newer one. */
  newer: function (version, seen) {
    var a = parseFloat(version.split("-")[1]), b = parseFloat(String(seen).split("-")[1]);
    return !isNaN(a) && (isNaN(b) || a > b);
  },
  /* This page's own CSRF token and fresh form keys put in the forms of `el` (a drawing pushed for
   * every viewer holds another request's). */
  own: function (el) {
    var token = null;
    try { token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"]; } catch (err) { token = null; }
    el.querySelectorAll("input[name=csrf_token]").forEach(function (input) { if (token) input.value = token; });
    el.querySelectorAll("input[name=key]").forEach(function (input) {
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      input.value = Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
    });
  },
  /* `part`'s content replaced by `html` (made this page's own), its scripts run once and htmx
   * told: true when done. */
  swap: function (part, html) {
    part.innerHTML = html;
    companionLive.own(part);
    part.querySelectorAll("script[src]").forEach(function (script) {
      var src = script.getAttribute("src");
      if (document.querySelector("head script[src='" + src + "']")) return;
      var run = document.createElement("script");
      run.src = src;
      document.head.appendChild(run);
    });
    if (window.htmx) window.htmx.process(part);
    part.dispatchEvent(new CustomEvent("live:swapped", {bubbles: true}));
    return true;
  }
};

/* Live: a page opened through a game's link asks every second whether the game changed (a 304 while
 * nothing did) and reloads when it did — unless the player is typing or tapping in a form, which
 * must never be lost: then it waits until the form is left alone. A page that swaps in its own
 * fresh part ([data-live-board], the duel's board) is left to do so: a reload on top of the swap
 * would redraw the page twice and drop a card tapped in between. */
(function () {
  var body = document.body, url = body.dataset.liveUrl, seen = body.dataset.liveVersion;
  /* The game is gone (its group deleted, its link replaced: /live answers 404): the page
   * says so, once, at its top, and no longer asks (live:gone, from this check or the duel's). */
  document.addEventListener("live:gone", function () {
    var main = document.querySelector("main");
    if (!main || document.querySelector("[data-live-gone]")) return;
    var box = document.createElement("div");
    box.className = "problems";
    box.setAttribute("role", "alert");
    box.setAttribute("data-live-gone", "");
    var p = document.createElement("p");
    p.textContent = body.dataset.liveGoneText || "";
    box.appendChild(p);
    var home = document.createElement("a");
    home.href = "/";
    home.className = "btn small";
    home.textContent = body.dataset.liveGoneHome || "";
    box.appendChild(home);
    main.insertBefore(box, main.firstChild);
  });
  if (!url || !window.fetch || document.querySelector("[data-live-board]")) return;
  var busy = false, leaving = false, timer = null;
  document.addEventListener("input", function (e) { if (e.target.form) busy = true; });
  document.addEventListener("change", function (e) { if (e.target.form) busy = true; });
  // A form sent or a link followed: the next page is on its way; a reload now would cancel it
  // and draw this page again instead (the save is stored, but the phone stays behind).
  window.addEventListener("beforeunload", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });
  function check() {
    if (document.visibilityState !== "visible" || leaving) return;
    fetch(url, {headers: {"If-None-Match": '"' + seen + '"'}, cache: "no-store"}).then(function (r) {
      if (r.status === 410) { location.reload(); return null; }  // closed: the page says why
      if (r.status === 404 && timer !== null) {
        clearInterval(timer);
        timer = null;
        document.removeEventListener("visibilitychange", check);
        document.dispatchEvent(new CustomEvent("live:gone"));
      }
      if (r.status !== 200) return null;
      return r.text();
    }).then(changed).catch(function () {});
  }
  function changed(version) {
    if (!version || version === seen || leaving) return;
    if (busy || document.querySelector("form[data-once] [data-action=save]:disabled")) return;
    seen = version;
    location.reload();
  }
  /* Pushed (the stream below): each message is the game's version ("closed": the link was
   * replaced, "gone": the game deleted), and the poll slows to once every 30 s as a catch-up; the
   * stream fails or drops: polling every second again until it is back. */
  function poll(every) { if (timer !== null) clearInterval(timer); timer = setInterval(check, every); }
  document.addEventListener("live:stream", function (e) {
    if (timer === null) return;
    poll(e.detail === "down" ? 1000 : 30000);
    if (e.detail === "again") check();
  });
  document.addEventListener("live:pushed", function (e) {
    if (timer === null) return;
    if (e.detail === "closed") { location.reload(); return; }
    if (e.detail === "gone") {
      clearInterval(timer); timer = null;
      document.dispatchEvent(new CustomEvent("live:gone"));
      return;
    }
    var told = companionLive.told(e.detail);
    if (told.part !== null && !busy && !leaving && companionLive.newer(told.version, seen)) {
      var part = document.querySelector("[data-live-part]");
      if (part && companionLive.swap(part, told.part)) {
        seen = body.dataset.liveVersion = told.version;
        return;
      }
    }
    changed(told.version);
  });
  poll(1000);
  document.addEventListener("visibilitychange", check);
})();

/* The stream of a page that follows a game behind a proxy that pushes (data-push-url: an
 * EventSource on nginx's Nchan, companion.play.push): it tells the page's live parts on `document`
 * "live:stream" (detail "open": the first stream of this page, "again": a stream after one that
 * failed, "down": it failed or dropped) and "live:pushed" (detail: the message). A stream opens
 * with the channel's newest message (the proxy keeps it), so a first one needs no question; one
 * opened again asks once (the proxy forgets a message after 10 minutes). A failed stream is tried
 * again after 2, 4 … 60 s; it stops once the game is gone. Without it (make run, Caddy, an old
 * browser) the pages poll /live, as they do meanwhile. */
(function () {
  var body = document.body, push = body.dataset.pushUrl, stream = null, wait = 2000, over = false;
  var opened = false;
  if (!push || !body.dataset.liveUrl || !window.EventSource) return;
  function tell(name, detail) {
    if (name === "live:stream") body.dataset.stream = detail;  // (what a test or a look can read)
    document.dispatchEvent(new CustomEvent(name, {detail: detail}));
  }
  function listen() {
    if (over) return;
    stream = new EventSource(push);
    stream.onopen = function () { wait = 2000; tell("live:stream", opened ? "again" : "open"); opened = true; };
    stream.onmessage = function (e) { tell("live:pushed", e.data); };
    stream.onerror = function () {
      stream.close(); stream = null;
      if (over) return;
      tell("live:stream", "down");
      setTimeout(listen, wait);
      wait = Math.min(wait * 2, 60000);
    };
  }
  document.addEventListener("live:gone", function () { over = true; if (stream) stream.close(); });
  listen();
})();

/* [data-replace-url]: a page answered to a POST gives the address (a GET) that shows it again, so
 * that Back to it and reloading it never ask to send the form again ("Confirm form resubmission",
 * or an error page on a phone). */
(function () {
  var here = document.querySelector("[data-replace-url]");
  if (here && window.history && history.replaceState) history.replaceState(history.state, "", here.dataset.replaceUrl);
})();

/* The colour scheme: the phone's setting, or this phone's choice (light or dark) kept a year in
 * the "theme" cookie, which the server writes on <html data-theme> (no flash of the other
 * scheme). Applied here too for a page from the offline copy, stored under another choice. */
(function () {
  var root = document.documentElement;
  function chosen() { var m = document.cookie.match(/(?:^|;\s*)theme=(light|dark)(?:;|$)/); return m ? m[1] : "auto"; }
  function apply(theme) { if (theme === "auto") delete root.dataset.theme; else root.dataset.theme = theme; }
  apply(chosen());
  var pick = document.querySelector("[data-theme-pick]");
  if (!pick) return;
  function show() {
    var theme = chosen();
    pick.querySelectorAll("[data-theme-set]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.themeSet === theme ? "true" : "false");
    });
  }
  pick.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-theme-set]"); if (!b) return;
    var theme = b.dataset.themeSet, secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = "theme=" + (theme === "auto" ? "; max-age=0" : theme + "; max-age=31536000") + "; path=/; SameSite=Lax" + secure;
    apply(theme); show();
  });
  pick.hidden = false;
  show();
})();

/* <time datetime="…Z" data-local="style">: the server writes the time in UTC (and says so);
 * here it becomes the phone's own time zone, in the page's language (companion/web/local_time.py). */
(function () {
  if (!window.Intl || !Intl.DateTimeFormat) return;
  var styles = {
    "day-time": {day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"},
    "date": {day: "numeric", month: "short", year: "numeric"},
    "date-time": {day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit"},
    "time": {hour: "2-digit", minute: "2-digit", second: "2-digit"}
  };
  var lang = document.documentElement.lang === "en" ? "en-GB" : document.documentElement.lang || undefined;
  var formats = {};
  function format(style, when) {
    if (!formats[style]) {
      var options = Object.assign({hourCycle: "h23"}, styles[style]);
      if (!("hour" in options)) delete options.hourCycle;
      formats[style] = new Intl.DateTimeFormat(lang, options);
    }
    return formats[style].format(when);
  }
  function localise(root) {
    (root || document).querySelectorAll("time[data-local][datetime]").forEach(function (t) {
      var when = new Date(t.getAttribute("datetime"));
      if (!styles[t.dataset.local] || isNaN(when)) return;
      try { t.textContent = format(t.dataset.local, when); t.title = t.getAttribute("datetime"); } catch (e) { /* the UTC text stays */ }
    });
  }
  localise();
  document.addEventListener("htmx:afterSwap", function (e) { localise(e.target); });
})();

/* The phone's time zone in the "tz" cookie, for what the server writes without a page around it
 * (the play sent to BG Stats): companion/web/local_time.py. */
(function () {
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone || !/^[A-Za-z][\w+\/-]{0,63}$/.test(zone)) return;
    var kept = document.cookie.match(/(?:^|;\s*)tz=([^;]*)/);
    if (kept && kept[1] === zone) return;
    document.cookie = "tz=" + zone + "; max-age=31536000; path=/; SameSite=Lax" +
      (location.protocol === "https:" ? "; Secure" : "");
  } catch (e) { /* no zone: BG Stats gets UTC */ }
})();

// drafts.js (drafts, the outbox of saves made with no network, Undo after a save) is loaded only
// where it has work: a page with an entry form, or a phone with drafts or saves kept on it. A
// first visit to a set-up page or home then stays light.
(function () {
  function keptOnThisPhone() {
    try {
      var s = window.localStorage;
      if (s.getItem("companion-outbox") || s.getItem("companion-sent")) return true;
      for (var i = 0; i < s.length; i++) if ((s.key(i) || "").indexOf("draft:") === 0) return true;
    } catch (e) { return false; }
    return false;
  }
  function load() {
    var src = document.body && document.body.getAttribute("data-drafts-src");
    if (!src || document.querySelector("script[data-drafts]")) return;
    if (!document.querySelector("[data-draft],[data-queue],[data-undo]") && !keptOnThisPhone()) return;
    var script = document.createElement("script");
    script.src = src;
    script.setAttribute("data-drafts", "");
    document.head.appendChild(script);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
