/* Rebel Princess entry by counts (no inline script: the CSP allows this site's files only).
 *
 * The counts must add up to the Princes in the deck, so the app fills in what the others' counts
 * force: once the counts tapped reach the total, every player not tapped took 0; once one player
 * alone is left, they took the rest. A filled-in count is marked (data-auto) and follows later
 * taps; tapping it makes it the player's own. Runs in the capture phase, before htmx posts the
 * form for the running score, so the score already includes what was filled in.
 */
(function () {
  "use strict";
  var form = document.querySelector("form#counts-entry");
  if (!form) return;
  var most = parseInt(form.getAttribute("data-most"), 10);
  var players = parseInt(form.getAttribute("data-players"), 10);
  var tapped = {};

  function checked(seat) {
    return form.querySelector("input[name=princes_" + seat + "]:checked");
  }

  function set(seat, value) {
    var row = form.querySelector("[data-count-seat='" + seat + "']");
    form.querySelectorAll("input[name=princes_" + seat + "]").forEach(function (input) {
      input.checked = value !== null && input.value === String(value);
    });
    if (value === null) row.removeAttribute("data-auto"); else row.setAttribute("data-auto", "");
  }

  function fill() {
    var sum = 0, free = [];
    for (var seat = 0; seat < players; seat++) {
      if (tapped[seat]) sum += parseInt(checked(seat).value, 10);
      else free.push(seat);
    }
    free.forEach(function (seat) {
      if (sum === most) set(seat, 0);
      else if (free.length === 1 && sum < most) set(seat, most - sum);
      else set(seat, null);
    });
  }

  function taken() { for (var seat = 0; seat < players; seat++) tapped[seat] = !!checked(seat); }
  taken();  // an edit
  form.addEventListener("draft:restored", taken);  // a draft put back (drafts.js)
  document.addEventListener("change", function (event) {
    var name = event.target && event.target.name;
    if (!name || name.indexOf("princes_") !== 0 || !form.contains(event.target)) return;
    var mine = parseInt(name.slice(8), 10);
    tapped[mine] = true;
    form.querySelector("[data-count-seat='" + mine + "']").removeAttribute("data-auto");
    fill();
  }, true);
})();
