/* Small helpers for every page: register the service worker (offline rulings and games) and the
 * "keep the screen on" toggle (Wake Lock API), remembered on this phone. */
(function () {
  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () { navigator.serviceWorker.register("/sw.js").catch(function () {}); });
  }
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
