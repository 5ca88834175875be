/* Rebel Princess round entry on a phone (no inline script: the CSP allows this site's files only).
 *
 * - By cards: every tap is kept as a draft by drafts.js (the one mechanism of every form).
 * - The running score is asked for again whenever the taps on screen were not the ones it was
 *   computed for: a restored draft, a page back from the back-forward cache (pageshow).
 * - By cards, the Save bar: the running score's details open as a sheet above it (▴).
 * - By numbers: a ± toggle per score (phones' number pads have no minus key); the warning about
 *   an impossible total is scrolled to and focused, and a changed score takes back "Save anyway".
 */
(function () {
  "use strict";
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

  function same(a, b) {
    var keys = Object.keys(a).concat(Object.keys(b));
    return keys.every(function (k) { return (a[k] || "") === (b[k] || ""); });
  }

  /* Ask the server for the running score of the taps on screen (htmx posts on "change"). */
  function refresh(form) {
    form.dispatchEvent(new Event("change", {bubbles: true}));
  }

  /* The draft itself is kept by drafts.js (one mechanism for every form). */
  function cardsEntry(form) {
    // The browser may have put back taps of its own (form restoration) without asking for
    // their score: ask whenever the taps on screen are not the ones the page was drawn with.
    var ask = function () { if (!same(stateOf(form), defaultsOf(form))) refresh(form); };
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

  var cards = document.getElementById("cards-entry");
  if (cards) { cardsEntry(cards); saveBar(cards); }
  var numbers = document.getElementById("numbers-entry");
  if (numbers) numbersEntry(numbers);
})();
