/* Rebel Princess round entry on a phone (no inline script: the CSP allows this site's files only).
 *
 * - By cards: every tap is kept as a draft in this phone's storage, so a reload, a dropped tab or
 *   a Back from "How this card works" loses nothing; the draft comes back with a notice and a
 *   Discard button. The score pad forgets the drafts of rounds saved since (data-drafts).
 * - The running score is asked for again whenever the taps on screen were not the ones it was
 *   computed for: a restored draft, a page back from the back-forward cache (pageshow).
 * - By cards, the Save bar: the running score's details open as a sheet above it (▴).
 * - By numbers: a ± toggle per score (phones' number pads have no minus key); the warning about
 *   an impossible total is scrolled to and focused, and a changed score takes back "Save anyway".
 */
(function () {
  "use strict";
  var PREFIX = "rp-draft:";
  var WEEK = 7 * 24 * 3600 * 1000;

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }  // private mode, blocked
  }

  function read(key) {
    var store = storage();
    if (!store) return null;
    try { return JSON.parse(store.getItem(key) || "null"); } catch (e) { return null; }
  }

  /* The taps of a by-cards form: each radio group's checked value, each box, each select. */
  function stateOf(form) {
    var state = {};
    form.querySelectorAll("input[type=radio]:checked, input[type=checkbox], select").forEach(function (el) {
      if (!el.name) return;
      state[el.name] = el.type === "checkbox" ? el.checked : el.value;
    });
    return state;
  }

  function defaultsOf(form) {
    var state = {};
    form.querySelectorAll("input[type=radio], input[type=checkbox], select").forEach(function (el) {
      if (!el.name) return;
      if (el.type === "checkbox") state[el.name] = el.defaultChecked;
      else if (el.type === "radio") { if (el.defaultChecked) state[el.name] = el.value; }
      else {
        var chosen = Array.prototype.find.call(el.options, function (o) { return o.defaultSelected; });
        state[el.name] = chosen ? chosen.value : (el.options[0] ? el.options[0].value : "");
      }
    });
    return state;
  }

  function apply(form, state) {
    form.querySelectorAll("input[type=radio], input[type=checkbox], select").forEach(function (el) {
      if (!el.name || !(el.name in state)) {
        if (el.type === "radio" && el.name) el.checked = false;
        return;
      }
      if (el.type === "checkbox") el.checked = !!state[el.name];
      else if (el.type === "radio") el.checked = el.value === state[el.name];
      else el.value = state[el.name];
    });
  }

  function same(a, b) {
    var keys = Object.keys(a).concat(Object.keys(b));
    return keys.every(function (k) { return (a[k] || "") === (b[k] || ""); });
  }

  /* Ask the server for the running score of the taps on screen (htmx posts on "change"). */
  function refresh(form) {
    form.dispatchEvent(new Event("change", {bubbles: true}));
  }

  function forget(code, keep) {
    var store = storage();
    if (!store) return;
    var now = Date.now();
    for (var i = store.length - 1; i >= 0; i--) {
      var key = store.key(i);
      if (!key || key.indexOf(PREFIX) !== 0) continue;
      var draft = read(key);
      var mine = code && key.indexOf(PREFIX + code + ":") === 0;
      if ((mine && keep.indexOf(key.slice(PREFIX.length + code.length + 1)) < 0)
          || !draft || now - (draft.t || 0) > WEEK) store.removeItem(key);
    }
  }

  function cardsEntry(form) {
    var key = PREFIX + form.dataset.draft;
    var notice = form.querySelector("[data-draft-notice]");
    var store = storage();

    form.addEventListener("change", function () {
      if (!store) return;
      var state = stateOf(form);
      try {
        if (same(state, defaultsOf(form))) store.removeItem(key);
        else store.setItem(key, JSON.stringify({t: Date.now(), card: form.dataset.draftCard, taps: state}));
      } catch (e) { /* storage full or blocked: the form still works */ }
    });

    var draft = read(key);
    var restored = false;
    if (draft && draft.taps && draft.card === form.dataset.draftCard
        && !same(draft.taps, stateOf(form))) {
      apply(form, draft.taps);
      restored = true;
      if (notice) notice.hidden = false;
    }
    if (notice) {
      notice.querySelector("[data-draft-discard]").addEventListener("click", function () {
        if (store) store.removeItem(key);
        form.reset();
        notice.hidden = true;
        refresh(form);
      });
    }
    // The browser may also have put back taps of its own (form restoration) without asking
    // for their score: ask whenever the taps on screen are not the ones the page was drawn with.
    var stale = restored || !same(stateOf(form), defaultsOf(form));
    var ask = function () { if (stale) refresh(form); stale = false; };
    // After htmx has set the form up (its own DOMContentLoaded handler runs first).
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", function () { setTimeout(ask, 0); });
    } else setTimeout(ask, 0);
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) refresh(form);  // back from the back-forward cache
    });
  }

  /* The Save bar's two sheets: the running score's details (▴) and "The rest…" (a <details>);
   * one open at a time. The details stay open across redraws of #live (the class is on the bar). */
  function saveBar(form) {
    var bar = form.querySelector(".savebar");
    var toggle = form.querySelector("[data-sheet-toggle]");
    var rest = form.querySelector(".restpick");
    if (!bar || !toggle) return;
    var show = function (open) {
      bar.classList.toggle("sheet-open", open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    };
    toggle.addEventListener("click", function () {
      var open = !bar.classList.contains("sheet-open");
      show(open);
      if (open && rest) rest.open = false;
    });
    if (rest) rest.addEventListener("toggle", function () { if (rest.open) show(false); });
  }

  function numbersEntry(form) {
    form.querySelectorAll("[data-sign-for]").forEach(function (button) {
      var input = document.getElementById(button.dataset.signFor);
      if (!input) return;
      button.hidden = false;
      var show = function () {
        button.setAttribute("aria-pressed", /^\s*[-\u2212]/.test(input.value) ? "true" : "false");
      };
      button.addEventListener("click", function () {
        var value = input.value.trim();
        input.value = /^[-\u2212]/.test(value) ? value.slice(1) : "-" + value;
        show();
        input.dispatchEvent(new Event("input", {bubbles: true}));
        input.focus();
      });
      input.addEventListener("input", show);
      show();
    });
    var warning = document.getElementById("total-warning");
    if (warning) {
      warning.scrollIntoView({block: "center"});
      warning.focus({preventScroll: true});
      // "Save anyway" confirms these scores only: a changed score is checked again.
      form.addEventListener("input", function (e) {
        if (!e.target.matches("[data-score]")) return;
        var confirm = form.querySelector("input[name=confirm]");
        if (confirm) confirm.remove();
        warning.classList.add("stale");
        var save = form.querySelector("[data-action=save]");
        if (save && save.dataset.label) save.textContent = save.dataset.label;
      });
    }
  }

  var pad = document.querySelector("[data-drafts-of]");
  if (pad) forget(pad.dataset.draftsOf, (pad.dataset.drafts || "").split(" "));
  var cards = document.querySelector("form[data-draft]");
  if (cards) { cardsEntry(cards); saveBar(cards); }
  var numbers = document.getElementById("numbers-entry");
  if (numbers) numbersEntry(numbers);
})();
