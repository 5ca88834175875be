/* Set-up: show the target for the number of names typed so far (the names of the "starts"
 * choices are filled in by app.js). */
(function () {
  function update() {
    var count = 0;
    document.querySelectorAll("[data-name-seat]").forEach(function (input) {
      if (input.value.trim()) count++;
    });
    document.querySelectorAll("#rv-target [data-players]").forEach(function (span) {
      span.hidden = count >= 2 && +span.dataset.players !== count;
    });
  }
  document.addEventListener("input", function (e) { if (e.target.matches("[data-name-seat]")) update(); });
  update();
})();
