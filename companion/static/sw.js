/* Service worker: the rulings and the games you opened keep working with no network.
 *
 * - On install it caches the offline page, the rulings index and every rulings entry, listed by
 *   /offline.json (with the static files they need).
 * - Pages (GET navigations): network first; a good answer is cached, so the score pad of a game you
 *   opened is there when the Wi-Fi drops. With no network: the cached copy, else the offline page.
 * - Static files carry a content hash in their URL: cache first.
 * - Anything else (saving a round, the API) goes to the network only; a save made with no network
 *   gets a page saying that nothing was saved.
 */
const VERSION = "__VERSION__";
const CACHE = "companion-" + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const list = await (await fetch("/offline.json", {cache: "no-store"})).json();
    await cache.addAll(list.urls);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("companion-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) cache.put(request, response.clone());
    return response;
  } catch (error) {
    return (await cache.match(request, {ignoreVary: true}))
      || (await cache.match("/offline", {ignoreVary: true}))
      || Response.error();
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, {ignoreVary: true});
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone());
  return response;
}

async function notSaved(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const cache = await caches.open(CACHE);
    const page = await cache.match("/offline?action=save", {ignoreVary: true});
    return page || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  if (request.method !== "GET") {
    if (request.mode === "navigate") event.respondWith(notSaved(request));
    return;
  }
  if (url.pathname.startsWith("/static/")) event.respondWith(cacheFirst(request));
  else if (request.mode === "navigate" || request.headers.get("accept")?.includes("text/html")) {
    event.respondWith(networkFirst(request));
  }
});
