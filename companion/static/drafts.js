/* Never lose an entry (one mechanism for every game; no inline script: the CSP allows this
 * site's files only).
 *
 * Drafts. <form data-draft="<game>:<form>" data-draft-at="<round or turn>">: every tap
 * or keystroke is kept on this phone (localStorage) until the entry is saved (the server answered
 * with a redirect) or discarded. Reopening the form — a reload, Back/Forward, the language switch,
 * a closed tab, the page after "no network" — puts the entry back, with a notice and a Discard
 * button. A draft belongs to one round/turn (data-draft-at); an entry the server refused (below)
 * comes back on the same form of the same game whatever the round, to be fixed.
 * Hidden fields (the version, the idempotency key, the CSRF token) are never restored: they are
 * the page's own.
 *
 * The outbox. <form data-draft data-queue> is sent with fetch: a redirect means stored (the draft
 * is forgotten, the page follows); any other answer is the server's own page (a refusal), shown
 * by sending the form again the ordinary way (nothing was stored). With no network, the save is
 * kept on this phone, in order, with its idempotency key and version, and sent when the network
 * is back ("online", on every page load, and every few seconds): each exactly once (a save whose
 * answer was lost is sent again with the same key, which the server recognises). A queued save
 * the server refuses on arrival (someone changed the game meanwhile, or the entry is invalid)
 * leaves the outbox with the server's reason and comes back as a draft on its form.
 * A save stored is shown with the page its fetch brought back (the redirect's page, or the
 * page the server answered the save with when it had it drawn): with a service worker, that
 * page is not asked of the server a second time (showSaved, sw.js).
 *
 * The texts are the page's own (translated): <div id="draft-texts" data-text-*> in base.html.
 */
(function () {
  "use strict";
  var PREFIX = "draft:", OUTBOX = "companion-outbox", SENT = "companion-sent";
  var WEEK = 7 * 24 * 3600 * 1000;
  var SKIP = {hidden: 1, submit: 1, button: 1, reset: 1, file: 1, password: 1, image: 1};

  function storage() {
    try { var s = window.localStorage; s.getItem("x"); return s; } catch (e) { return null; }
  }
  var store = storage();
  function read(key) {
    if (!store) return null;
    try { return JSON.parse(store.getItem(key) || "null"); } catch (e) { return null; }
  }
  function write(key, value) {
    if (!store) return;
    try { store.setItem(key, JSON.stringify(value)); } catch (e) { /* full: the form still works */ }
  }
  function remove(key) { if (store) store.removeItem(key); }

  function session() {
    try { var s = window.sessionStorage; s.getItem("x"); return s; } catch (e) { return null; }
  }
  var tab = session();
  var JUST = "companion-just-saved", SUBMITTED = "companion-submitted";
  /* A save just stored, shown at ``url``: the page there offers its Undo. */
  function justSaved(url) {
    if (tab) tab.setItem(JUST, JSON.stringify({t: Date.now(), url: url || location.href}));
  }

  var textsEl = document.getElementById("draft-texts");
  function text(name) { return (textsEl && textsEl.getAttribute("data-text-" + name)) || ""; }

  /* ---- the fields of a form --------------------------------------------------------------- */

  function kept(el) {
    return el.name && el.name !== "csrf_token" && !SKIP[el.type] && el.tagName !== "BUTTON"
      && el.tagName !== "FIELDSET" && el.tagName !== "OUTPUT";
  }

  /* {name: [values]}: a radio group's or boxes' checked values, a field's text, a list's choices. */
  function fieldsOf(form) {
    var state = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!kept(el)) return;
      var list = state[el.name] || (state[el.name] = []);
      if (el.type === "radio" || el.type === "checkbox") { if (el.checked) list.push(el.value); }
      else if (el.type === "select-multiple") {
        Array.prototype.forEach.call(el.options, function (o) { if (o.selected) list.push(o.value); });
      } else list.push(el.value);
    });
    return state;
  }

  function apply(form, state) {
    var seen = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!kept(el) || !(el.name in state)) return;
      var values = state[el.name];
      if (el.type === "radio" || el.type === "checkbox") el.checked = values.indexOf(el.value) >= 0;
      else if (el.type === "select-multiple") {
        Array.prototype.forEach.call(el.options, function (o) { o.selected = values.indexOf(o.value) >= 0; });
      } else {
        var i = seen[el.name] || 0;
        seen[el.name] = i + 1;
        if (i < values.length) el.value = values[i];
      }
    });
  }

  function same(a, b) {
    var names = Object.keys(a).concat(Object.keys(b));
    return names.every(function (n) { return (a[n] || []).join("\u0000") === (b[n] || []).join("\u0000"); });
  }

  /* A draft's name: the address its form posts to (the game, and the round where the address
   * has one) and the form's own name. */
  function nameOf(form) {
    var path = form.action;
    try { path = new URL(form.action, location.href).pathname; } catch (e) { /* as written */ }
    return path + "|" + form.dataset.draft;
  }
  function keyOf(form) { return PREFIX + nameOf(form); }

  /* ---- the outbox ------------------------------------------------------------------------- */

  function outbox() { return read(OUTBOX) || []; }
  function saveOutbox(items) { if (items.length) write(OUTBOX, items); else remove(OUTBOX); }

  /* The reason a page the server drew gives for a refusal: its first alert, else its errors. */
  function reasonOf(html) {
    try {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var box = doc.querySelector("main [role=alert], main .problems, main .errors, main .warning");
      if (box) {
        // Its heading ("Not saved:") goes: the phone's own line says so already.
        var heading = box.querySelector(":scope > p:first-child");
        if (heading && box.querySelector("li")) heading.remove();
        // (its paragraphs and lines said apart: a space after each)
        box.querySelectorAll("p, li, div, br, h2, h3").forEach(function (el) { el.after(" "); });
        return box.textContent.replace(/\s+/g, " ").trim().slice(0, 400);
      }
    } catch (e) { /* no reason to give */ }
    return "";
  }

  /* Send one save: "stored" (a redirect, to .url, with the .page it led to), "refused"
   * (.reason), or "offline". The save asks for its page in the answer (OUTBOX_HEADER): where the
   * server has it drawn already it answers 200 with the page and its address (PAGE_HEADER),
   * else 303 to it, which this fetch follows. */
  function send(item) {
    var headers = {"Content-Type": "application/x-www-form-urlencoded"};
    headers[OUTBOX_HEADER] = "page";
    return fetch(item.url, {
      method: "POST", body: item.body, credentials: "same-origin", redirect: "follow",
      headers: headers
    }).then(function (response) {
      var named = response.status === 200 && response.headers.get(PAGE_HEADER);
      if ((response.redirected && response.ok) || named) {
        var url = response.url;
        if (named) {
          try {
            url = new URL(named, location.href).href;
            if (new URL(url).origin !== location.origin) url = "";  // (this site's pages only)
          } catch (e) { url = ""; }
        }
        // The page it leads to said its flash message to this fetch: keep it for the page shown.
        if (url) return response.text().then(function (html) {
          keepFlash(html);
          return {status: "stored", url: url, page: {html: html, headers: response.headers}};
        });
      }
      if (response.status >= 500 || response.status === 429) return {status: "offline"};
      if (response.status === 200) {
        // Not stored, not refused: the next step of an entry (a Réveillez action's next
        // question), whose page names the address that shows it again.
        return response.text().then(function (html) {
          var next = null;
          try {
            var doc = new DOMParser().parseFromString(html, "text/html");
            var here = doc.querySelector("[data-replace-url]");
            next = here && !doc.querySelector("main [role=alert], main .problems")
              ? new URL(here.getAttribute("data-replace-url"), location.href).href : null;
          } catch (e) { next = null; }
          return next ? {status: "stored", url: next, step: true}
            : {status: "refused", reason: reasonOf(html) || text("refused")};
        });
      }
      return response.text().then(function (html) {
        return {status: "refused", reason: reasonOf(html) || text("refused")};
      });
    }, function () { return {status: "offline"}; });
  }

  /* ---- the page a save led to --------------------------------------------------------------
   * The fetch that sent a save has its page already (the page its redirect led to, or the save's
   * own answer). Where a service worker controls this page, that page is kept for it (the cache
   * NEXT, with the time it was kept) and the worker answers the one navigation that follows from
   * it (sw.js), so the phone does not download the page a second time. Its flash messages are
   * taken out (keepFlash has them: the page opened says them once, as after a page loaded from
   * the server, which has said them already to the fetch). Without a worker, or if keeping
   * fails, the page is asked of the server, as before. */
  var OUTBOX_HEADER = "Companion-Outbox", PAGE_HEADER = "Companion-Page";
  var NEXT = "companion-next", KEPT_AT = "Companion-Kept-At", NEXT_FOR = 30000;
  var FLASH_BOX = /<div class="flash" role="status">(?:<p>[^<]*<\/p>)*<\/div>/;
  var DROPPED = {"content-encoding": 1, "content-length": 1, "set-cookie": 1};

  function keptFor(page) {
    var html = page.html.replace(FLASH_BOX, "");
    if (html.indexOf('class="flash"') >= 0) return null;  // (not the shape expected: not kept)
    var headers = new Headers();
    page.headers.forEach(function (value, name) { if (!DROPPED[name.toLowerCase()]) headers.set(name, value); });
    headers.set(KEPT_AT, String(Date.now()));
    return new Response(html, {status: 200, headers: headers});
  }

  function showSaved(result) {
    var go = function () { location.assign(result.url); };
    var worker = navigator.serviceWorker;
    if (!result.page || !window.caches || !worker || !worker.controller) { go(); return; }
    var kept;
    try { kept = keptFor(result.page); } catch (e) { kept = null; }
    if (!kept) { go(); return; }
    caches.open(NEXT).then(function (cache) {
      return cache.keys().then(function (old) {
        // (a page kept and not opened in time, by this tab or another: gone)
        return Promise.all(old.map(function (request) {
          return cache.match(request).then(function (found) {
            var at = found ? Number(found.headers.get(KEPT_AT)) : 0;
            if (!(Date.now() - at < NEXT_FOR)) return cache.delete(request);
          });
        }));
      }).then(function () { return cache.put(result.url, kept); });
    }).then(go, go);
  }

  /* The flash messages of a page fetched (a save's redirect), said again by the page opened. */
  var FLASH = "companion-flash";
  function keepFlash(html) {
    try {
      var doc = new DOMParser().parseFromString(html, "text/html"), said = [];
      doc.querySelectorAll("main .flash p").forEach(function (p) { said.push(p.textContent); });
      if (said.length) window.sessionStorage.setItem(FLASH, JSON.stringify(said));
    } catch (e) { /* nothing to say again */ }
  }
  function sayFlash() {
    var said;
    try {
      said = JSON.parse(window.sessionStorage.getItem(FLASH) || "null");
      window.sessionStorage.removeItem(FLASH);
    } catch (e) { return; }
    var main = document.querySelector("main");
    if (!said || !main || main.querySelector(".flash")) return;
    var box = document.createElement("div");
    box.className = "flash";
    box.setAttribute("role", "status");
    said.forEach(function (words) {
      var p = document.createElement("p");
      p.textContent = words;
      box.appendChild(p);
    });
    main.insertBefore(box, main.firstChild);
  }

  var flushing = false;
  function flush() {
    if (flushing || !window.fetch) return;
    var items = outbox(), next = null;
    for (var i = 0; i < items.length; i++) if (!items[i].refused) { next = items[i]; break; }
    if (!next) { showOutbox(); return; }
    flushing = true;
    showOutbox("sending");
    send(next).then(function (result) {
      flushing = false;
      var now = outbox().filter(function (it) { return it.id !== next.id; });
      if (result.status === "offline") { showOutbox(); return; }
      if (result.status === "stored") {
        saveOutbox(now);
        remove(PREFIX + next.draft);
        write(SENT, {t: Date.now()});
        if (!result.step) justSaved(result.url);
        if (samePage(next.page) && !now.some(function (it) { return !it.refused; })) {
          showSaved(result);  // the game as stored, with the "sent" notice
          return;
        }
        showOutbox("sent");
      } else {
        next.refused = result.reason;
        now.push(next);
        // The taps made after a refused one were made on it: none of them is sent.
        if (next.tap) now.forEach(function (it) { if (it.draft === next.draft) it.refused = result.reason; });
        saveOutbox(now);
        var draft = read(PREFIX + next.draft);
        if (draft) { draft.refused = result.reason; write(PREFIX + next.draft, draft); }
        forms.forEach(function (f) { if (nameOf(f) === next.draft) f.draftRestore(); });
        showOutbox();
      }
      flush();
    });
  }

  function samePage(url) {
    try { return new URL(url, location.href).pathname === location.pathname; } catch (e) { return false; }
  }

  /* The outbox's status, at the top of the page: waiting / sending / sent / refused. */
  var bar = null, sentAt = 0;
  function showOutbox(state) {
    var items = outbox();
    var waiting = items.filter(function (it) { return !it.refused; });
    var refused = items.filter(function (it) { return it.refused; });
    var main = document.querySelector("main");
    if (!main) return;
    if (!bar) {
      bar = document.createElement("div");
      bar.className = "outbox";
      bar.setAttribute("role", "status");
      bar.setAttribute("data-outbox", "");
      main.insertBefore(bar, main.firstChild);
    }
    bar.textContent = "";
    var sent = read(SENT);
    if (sent) {
      remove(SENT);
      if (Date.now() - sent.t < 60000) sentAt = Date.now();
    }
    if (!state && !waiting.length && Date.now() - sentAt < 10000) state = "sent";
    bar.dataset.outbox = waiting.length ? (state === "sending" ? "sending" : "waiting")
      : (refused.length ? "refused" : (state === "sent" ? "sent" : ""));
    if (waiting.length) {
      line(state === "sending" ? text("sending") : text("queued"));
    } else if (state === "sent") line(text("sent"));
    var said = {};
    refused.forEach(function (it) {
      if (said[it.draft]) return;  // (taps refused together: said once)
      said[it.draft] = 1;
      // By its form, the form's own notice gives the reason: the bar does not say it again.
      var here = samePage(it.page) && forms.some(function (f) { return f.isConnected && nameOf(f) === it.draft; });
      var p = line(here ? text("refused") : text("refused") + " " + it.refused);
      p.className = "refused";
      if (!samePage(it.page)) {
        var a = document.createElement("a");
        a.href = it.page;
        a.textContent = text("open");
        p.appendChild(document.createTextNode(" "));
        p.appendChild(a);
      }
    });
    bar.hidden = !bar.firstChild;
    if (taps) taps.show();
  }
  function line(words) {
    var p = document.createElement("p");
    p.textContent = words;
    bar.appendChild(p);
    return p;
  }

  /* ---- each form -------------------------------------------------------------------------- */

  /* This page is the server's answer to a save it refused (a 4xx): its problems say why. */
  function refusedNow() {
    var nav = window.performance && performance.getEntriesByType
      && performance.getEntriesByType("navigation")[0];
    return !!(nav && nav.responseStatus >= 400);
  }
  /* A refusal answered, fixed or discarded: its outbox line and its draft's old reason go (a
   * newer refusal replaces an older one; banners never stack up on every page). */
  function forgetRefusal(draft) {
    var items = outbox(), kept = items.filter(function (it) { return !(it.refused && it.draft === draft); });
    if (kept.length !== items.length) saveOutbox(kept);
    var d = read(PREFIX + draft);
    if (d && d.refused) { d.refused = ""; write(PREFIX + draft, d); }
  }

  var forms = [];

  /* A draft kept before its page moved (Rebel Princess's /g/… pages now live under
   * /rebel-princess/g/…): the same form at an address this one ends with. It is taken over. */
  function movedDraft(form, key) {
    if (!store || read(key)) return;
    var name = nameOf(form), bar = name.indexOf("|"), path = name.slice(0, bar);
    for (var i = store.length - 1; i >= 0; i--) {
      var k = store.key(i), old = k && k.indexOf(PREFIX) === 0 ? k.slice(PREFIX.length) : "";
      var oldBar = old.indexOf("|"), oldPath = old.slice(0, oldBar);
      if (oldBar > 0 && old.slice(oldBar) === name.slice(bar) && oldPath.charAt(0) === "/"
          && oldPath.length < path.length && path.slice(-oldPath.length) === oldPath) {
        write(key, read(k));
        store.removeItem(k);
        return;
      }
    }
  }

  /* What the server drew in a form: its fields' defaults (a live swap may have carried a tap
   * over onto the fresh form, which is the player's, not the server's). */
  function drawnOf(form) {
    var state = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!kept(el)) return;
      var list = state[el.name] || (state[el.name] = []);
      if (el.type === "radio" || el.type === "checkbox") { if (el.defaultChecked) list.push(el.value); }
      else if (el.type === "select-multiple") {
        Array.prototype.forEach.call(el.options, function (o) { if (o.defaultSelected) list.push(o.value); });
      } else if (el.tagName === "SELECT") {
        var chosen = Array.prototype.filter.call(el.options, function (o) { return o.defaultSelected; })[0]
          || el.options[0];
        list.push(chosen ? chosen.value : "");
      } else list.push(el.defaultValue);
    });
    return state;
  }

  function setUp(form, swapped) {
    var key = keyOf(form), at = form.dataset.draftAt || "";
    movedDraft(form, key);
    if (!swapped && refusedNow()) forgetRefusal(nameOf(form));
    var drawn = swapped ? drawnOf(form) : fieldsOf(form);  // what the server drew
    var notice = form.querySelector("[data-draft-notice]");
    if (!notice) {
      notice = document.createElement("div");
      notice.className = "draft";
      notice.setAttribute("data-draft-notice", "");
      notice.setAttribute("role", "status");
      notice.appendChild(document.createElement("p"));
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "small";
      discard.setAttribute("data-draft-discard", "");
      discard.textContent = text("discard");
      notice.appendChild(discard);
      var savebar = form.querySelector(".savebar");
      if (savebar) savebar.insertBefore(notice, savebar.firstChild);
      else form.insertBefore(notice, form.firstChild);
    }
    notice.hidden = true;
    var words = notice.querySelector("p");
    // By the Save button the notice takes one line; a tap on it opens the whole of it.
    words.setAttribute("role", "button");
    words.setAttribute("tabindex", "0");
    words.setAttribute("aria-expanded", "false");
    function toggle() {
      var open = !notice.hasAttribute("data-open");
      notice.toggleAttribute("data-open", open);
      words.setAttribute("aria-expanded", open ? "true" : "false");
    }
    words.addEventListener("click", toggle);
    words.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
    });

    function say(draft, moved) {
      notice.hidden = false;
      notice.dataset.draftNotice = draft.refused ? "refused" : "restored";
      if (moved) notice.dataset.draftMoved = "";
      else notice.removeAttribute("data-draft-moved");
      words.textContent = draft.refused ? text("refused") + " " + draft.refused + " "
        + (moved ? text("moved") : text("fix"))
        : (queued() ? text("queued") : text("restored"));
    }
    function queued() {
      return outbox().some(function (it) { return it.draft === nameOf(form) && !it.refused; });
    }

    function keep(force) {
      var now = fieldsOf(form), draft = read(key) || {};
      if (!force && same(now, drawn) && !draft.refused) { remove(key); return; }
      write(key, {t: Date.now(), at: at, fields: now, refused: draft.refused || ""});
    }
    var quiet = false;
    form.addEventListener("input", function () { if (!quiet) keep(false); });
    form.addEventListener("change", function () { if (!quiet) keep(false); });

    /* Put the draft back when it is not what is on screen already. */
    form.draftRestore = function () {
      var draft = read(key);
      if (!draft || !draft.fields) return;
      if (draft.at !== at) {
        // Drawn for something else now (the round was stored meanwhile: this is its edit form):
        // a refused entry is said, with its Discard, but never put over what is stored.
        if (draft.refused) say(draft, true);
        return;
      }
      if (!same(draft.fields, fieldsOf(form))) {
        quiet = true;
        apply(form, draft.fields);
        form.dispatchEvent(new CustomEvent("draft:restored", {bubbles: true}));
        form.dispatchEvent(new Event("change", {bubbles: true}));  // running scores ask again
        quiet = false;
        say(draft);
      } else if (draft.refused || queued()) say(draft);
    };

    notice.querySelector("[data-draft-discard]").addEventListener("click", function () {
      remove(key);
      saveOutbox(outbox().filter(function (it) { return it.draft !== nameOf(form); }));
      quiet = true;
      form.reset();
      apply(form, drawn);
      form.dispatchEvent(new CustomEvent("draft:restored", {bubbles: true}));
      form.dispatchEvent(new Event("change", {bubbles: true}));
      quiet = false;
      notice.hidden = true;
      showOutbox();
    });

    if (form.hasAttribute("data-queue")) {
      form.addEventListener("submit", function (event) {
        if (event.defaultPrevented || !window.fetch || !window.URLSearchParams) return;
        if (form.getAttribute("data-queue") === "offline" && navigator.onLine !== false
            && !outbox().some(function (it) { return !it.refused; })) {
          keep(true);  // online: sent the ordinary way (each step's answer is the next question)
          if (tab) tab.setItem(SUBMITTED, JSON.stringify({draft: nameOf(form), t: Date.now()}));
          return;
        }
        event.preventDefault();
        keep(true);
        var data;
        try { data = new FormData(form, event.submitter || null); } catch (e) { data = new FormData(form); }
        var body = new URLSearchParams();
        data.forEach(function (value, name) { if (typeof value === "string") body.append(name, value); });
        var item = {id: Date.now() + "-" + Math.random().toString(36).slice(2), url: form.action,
                    body: body.toString(), draft: nameOf(form), page: location.href, t: Date.now()};
        var save = form.querySelector("[data-action=save]");
        var release = function () { if (save) save.disabled = false; };
        var earlier = outbox().filter(function (it) { return !it.refused; }).length;
        var sending = earlier ? Promise.resolve({status: "offline"}) : send(item);
        sending.then(function (result) {
          if (result.status === "stored") {
            remove(key);
            if (!result.step) justSaved(result.url);
            saveOutbox(outbox().filter(function (it) { return it.draft !== item.draft; }));
            showSaved(result);
          } else if (result.status === "offline") {
            // Kept on this phone, in order; a second Save of the same form replaces its first.
            var items = outbox().filter(function (it) { return it.draft !== item.draft; });
            items.push(item);
            saveOutbox(items);
            release();
            say(read(key) || {});
            showOutbox();
          } else {
            // Refused: the server's page says why (sent again the ordinary way; nothing was stored).
            saveOutbox(outbox().filter(function (it) { return it.draft !== item.draft; }));
            var d = read(key);
            if (d) { d.refused = ""; write(key, d); }
            if (event.submitter && event.submitter.name) {
              var extra = document.createElement("input");
              extra.type = "hidden";
              extra.name = event.submitter.name;
              extra.value = event.submitter.value;
              form.appendChild(extra);
            }
            HTMLFormElement.prototype.submit.call(form);
          }
        });
      });
    } else {
      // Sent the ordinary way: the next page tells whether it was stored (a redirect).
      form.addEventListener("submit", function () {
        keep(true);
        if (tab) tab.setItem(SUBMITTED, JSON.stringify({draft: nameOf(form), t: Date.now()}));
      });
    }
    forms.push(form);
    form.draftRestore();
  }

  /* ---- taps (the trick screen) -------------------------------------------------------------
   * <div data-queue="taps" data-text-*> by #trick-entry: each card tap of the deck (a form
   * data-form="play" there) is a small POST that htmx swaps in. With no network (or while
   * earlier saves still wait) the tap is kept in the outbox instead, with the version the round
   * will be at by then (each tap stored adds one), its card greyed out; the taps are sent in
   * order when the network is back, and the screen is drawn again by the server. A tap whose
   * answer was lost is kept too and sent again: the server knows a tap by its version and card,
   * and stores it once. One the server refuses says why, with the taps not recorded (the ones
   * after it were made on it: they are not sent) and a Discard button. Undo takes back the last
   * tap still on this phone; the other taps (a power, a fix, Confirm) need the server's rules:
   * with no network they say so. */
  var taps = null;

  function setUpTaps(box) {
    var name = location.pathname + "|taps", words = box.querySelector("p");
    var discard = box.querySelector("[data-taps-discard]");
    function mine() { return outbox().filter(function (it) { return it.draft === name; }); }
    function cards(list) { return list.map(function (it) { return it.label || it.card; }).join(" · "); }
    var asked = "";
    box.show = function () {
      var items = mine();
      var waiting = items.filter(function (it) { return !it.refused; });
      var refused = items.filter(function (it) { return it.refused; })
        .sort(function (a, b) { return a.t - b.t; });
      waiting.concat(refused).forEach(function (it) {
        var b = document.querySelector('#trick-entry [data-play="' + it.card + '"]');
        if (b && !b.disabled) { b.disabled = true; b.setAttribute("data-pending", ""); }
      });
      discard.hidden = !refused.length;
      discard.style.display = refused.length ? "" : "none";
      // Undo takes back the last tap still on this phone, even before any card is stored.
      var undo = document.querySelector("#trick-entry [data-action=undo]");
      if (undo && waiting.length && navigator.onLine === false) {
        if (undo.disabled) { undo.disabled = false; undo.setAttribute("data-undo-kept", ""); }
      } else if (undo && undo.hasAttribute("data-undo-kept")) {
        undo.disabled = true;
        undo.removeAttribute("data-undo-kept");
      }
      if (refused.length) {
        box.dataset.taps = "refused";
        words.textContent = text("refused") + " " + refused[0].refused + " "
          + box.getAttribute("data-text-lost") + " " + cards(refused);
      } else if (waiting.length) {
        box.dataset.taps = "waiting";
        words.textContent = box.getAttribute("data-text-waiting") + " " + cards(waiting);
      } else if (asked) {
        box.dataset.taps = "network";
        words.textContent = asked;
      } else box.dataset.taps = "";
      box.hidden = !box.dataset.taps;
    };
    function keepTap(form, card, label, body) {
      var waiting = mine().filter(function (it) { return !it.refused; }).length;
      body.set("card", card);
      body.set("version", String((parseInt(body.get("version"), 10) || 0) + waiting));
      body.delete("csrf_token");
      var token = form.querySelector("[name=csrf_token]");
      if (token) body.set("csrf_token", token.value);
      var items = outbox();
      items.push({id: Date.now() + "-" + Math.random().toString(36).slice(2), url: form.action,
                  body: body.toString(), draft: name, page: location.href, t: Date.now(),
                  tap: 1, card: card, label: label});
      saveOutbox(items);
      asked = "";
      showOutbox();
    }
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.closest || !form.closest("#trick-entry") || !window.URLSearchParams) return;
      var waiting = mine().filter(function (it) { return !it.refused; });
      var earlier = outbox().some(function (it) { return !it.refused; });
      if (navigator.onLine !== false && !earlier) return;  // htmx sends it
      event.preventDefault();
      event.stopImmediatePropagation();
      var action = form.getAttribute("data-form"), by = event.submitter;
      if (action === "undo" && waiting.length && navigator.onLine === false) {
        var last = waiting[waiting.length - 1];
        saveOutbox(outbox().filter(function (it) { return it.id !== last.id; }));
        var b = document.querySelector('#trick-entry [data-play="' + last.card + '"][data-pending]');
        if (b) { b.disabled = false; b.removeAttribute("data-pending"); }
        showOutbox();
        return;
      }
      if (action !== "play" || !by || by.name !== "card") {
        asked = box.getAttribute("data-text-network");
        box.show();
        return;
      }
      var body = new URLSearchParams();
      new FormData(form).forEach(function (value, key) { if (typeof value === "string") body.append(key, value); });
      keepTap(form, by.value, by.getAttribute("aria-label") || by.value, body);
      by.disabled = true;
      by.setAttribute("data-pending", "");
      if (navigator.onLine !== false) flush();
    }, true);
    // A tap that went and got no answer (the network dropped): kept, to be sent again.
    document.body.addEventListener("htmx:sendError", function (event) {
      var form = event.detail && event.detail.elt, config = event.detail && event.detail.requestConfig;
      if (!form || !form.closest || !form.closest("#trick-entry")) return;
      if (form.getAttribute("data-form") !== "play" || !config || !config.formData) {
        asked = box.getAttribute("data-text-network");  // a fix, a power, Cancel: the server's
        box.show();
        return;
      }
      var body = new URLSearchParams();
      config.formData.forEach(function (value, key) { if (typeof value === "string") body.append(key, value); });
      var card = body.get("card");
      if (!card) return;
      var chip = document.querySelector('#trick-entry [data-play="' + card + '"]');
      keepTap(form, card, (chip && chip.getAttribute("aria-label")) || card, body);
    });
    discard.addEventListener("click", function () {
      saveOutbox(outbox().filter(function (it) { return it.draft !== name; }));
      location.reload();  // the round as the server has it
    });
    window.addEventListener("online", function () { asked = ""; box.show(); });
    // htmx drew the screen again: the taps still waiting stay greyed out.
    document.body.addEventListener("htmx:afterSwap", function () { box.show(); });
    return box;
  }

  /* The drafts of a week ago are forgotten. */
  if (store) {
    var now = Date.now();
    for (var i = store.length - 1; i >= 0; i--) {
      var k = store.key(i);
      if (k && k.indexOf(PREFIX) === 0) {
        var d = read(k);
        if (!d || now - (d.t || 0) > WEEK) store.removeItem(k);
      }
    }
  }
  /* A form sent the ordinary way and answered with a redirect was stored: its draft is done. */
  function afterSubmit() {
    if (!tab) return;
    var sent = null;
    try { sent = JSON.parse(tab.getItem(SUBMITTED) || "null"); } catch (e) { sent = null; }
    tab.removeItem(SUBMITTED);
    var nav = window.performance && performance.getEntriesByType
      && performance.getEntriesByType("navigation")[0];
    if (sent && Date.now() - sent.t < 60000 && nav && nav.redirectCount > 0) {
      forgetRefusal(sent.draft);
      remove(PREFIX + sent.draft);
      justSaved();
    }
  }

  /* Right after a save, an Undo by the thumb for a few seconds: it sends the page's own undo
   * form (form[data-undo], which also works without this script). */
  function offerUndo() {
    if (!tab) return;
    var just = null;
    try { just = JSON.parse(tab.getItem(JUST) || "null"); } catch (e) { just = null; }
    tab.removeItem(JUST);
    var form = document.querySelector("form[data-undo]");
    if (!just || Date.now() - just.t > 30000 || !samePage(just.url) || !form) return;
    var own = form.querySelector("button");
    if (own && own.disabled) return;
    var toast = document.createElement("div");
    toast.className = "undo-toast";
    toast.setAttribute("role", "status");
    toast.setAttribute("data-undo-toast", "");
    var p = document.createElement("p");
    p.textContent = text("saved");
    var undo = document.createElement("button");
    undo.type = "button";
    undo.className = "small";
    undo.setAttribute("data-action", "undo-now");
    undo.textContent = "\u21b6 " + text("undo");
    toast.appendChild(p);
    toast.appendChild(undo);
    document.body.appendChild(toast);
    undo.addEventListener("click", function () {
      undo.disabled = true;
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
    setTimeout(function () { toast.hidden = true; }, 8000);
  }

  /* A save the server refused (the page answers it with a 4xx): its first problem is scrolled
   * to and focused, and the Save bar says so (a tap there goes back to it). Never on a page
   * drawn for a GET: nothing was refused then. */
  function showProblems() {
    var nav = window.performance && performance.getEntriesByType
      && performance.getEntriesByType("navigation")[0];
    if (!nav || !(nav.responseStatus >= 400)) return;
    var first = document.querySelector("main [role=alert], main .problems, main ul.errors");
    if (!first) return;
    if (!first.hasAttribute("tabindex")) first.setAttribute("tabindex", "-1");
    var go = function () {
      first.scrollIntoView({block: "center"});
      first.focus({preventScroll: true});
      // What fixes it (the buttons right after the error) comes above the Save bar too.
      var fix = first.nextElementSibling, bar = document.querySelector("form[data-draft] .savebar");
      if (!fix || !bar || bar.contains(first) || fix.contains(bar)) return;
      var over = fix.getBoundingClientRect().bottom - (bar.getBoundingClientRect().top - 8);
      var room = first.getBoundingClientRect().top - 8;
      if (over > 0 && room > 0) window.scrollBy(0, Math.min(over, room));
    };
    var bar = document.querySelector("form[data-draft] .savebar");
    if (!bar || bar.querySelector("[data-problems-summary]") || bar.contains(first)) { go(); return; }
    var summary = document.createElement("button");
    summary.type = "button";
    summary.className = "problems-summary";
    summary.setAttribute("data-problems-summary", "");
    summary.textContent = text("problems");
    summary.addEventListener("click", go);
    bar.insertBefore(summary, bar.firstChild);
    go();  // with the bar at its full height
  }

  /* A refused save whose entry is gone (discarded, stored, a week old): nothing left to fix. */
  function forgetOrphans() {
    var items = outbox(), kept = items.filter(function (it) {
      return !it.refused || it.tap || read(PREFIX + it.draft);
    });
    if (kept.length !== items.length) saveOutbox(kept);
  }

  function start() {
    afterSubmit();
    forgetOrphans();
    showProblems();
    sayFlash();
    document.querySelectorAll("form[data-draft]").forEach(setUp);
    var tapBox = document.querySelector("[data-queue=taps]");
    if (tapBox) taps = setUpTaps(tapBox);
    showOutbox();
    offerUndo();
    flush();
    // Set up: a Save tapped from now on is known as sent (what a test or a look can read).
    document.documentElement.setAttribute("data-drafts", "ready");
  }
  // After htmx has set the page up (its DOMContentLoaded handler), so that a restored entry's
  // running score is asked for.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { setTimeout(start, 0); });
  } else setTimeout(start, 0);
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { forms.forEach(function (f) { f.draftRestore(); }); showOutbox(); flush(); }
  });
  /* A part of the page swapped in live (the duel's board): its forms are new ones, set up like
   * the page's own, so a tap made after the swap is kept too (the old form's list goes). */
  document.addEventListener("board:swapped", function (event) {
    forms = forms.filter(function (f) { return f.isConnected; });
    var root = event.target;
    if (!root || !root.querySelectorAll) return;
    root.querySelectorAll("form[data-draft]").forEach(function (form) {
      if (forms.indexOf(form) < 0) setUp(form, true);
    });
  });
  window.addEventListener("online", flush);
  setInterval(function () { if (outbox().some(function (it) { return !it.refused; })) flush(); }, 4000);
})();
