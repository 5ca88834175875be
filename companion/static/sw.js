/* Service worker: the rulings and the games you opened keep working with no network.
 *
 * - A page registers it only once the page is idle (app.js), so a first visit loads the page
 *   first; installing stores nothing.
 * - The offline copy: once idle, a page posts {store: "offline", lang, assets} — or, the first
 *   page this phone opens here, {store: "assets", assets}: its static files only, so that a first
 *   visit does not carry the copy (app.js). If this phone has
 *   no copy in that language yet, the worker fetches /offline/pages-<lang>.json, the offline pages
 *   and every rulings page of every game in one answer (see companion/routes/pwa.py), fills each
 *   page back into its HTML and stores it under its own address with the page's own headers (the
 *   same look, the same Content-Security-Policy). A Round card's "How this card works" address is
 *   stored as a redirect to its entry. The page's own static files are stored too (they come
 *   from the browser's cache: their address carries a content hash). The page gets back the
 *   language stored.
 * - Searching the rulings offline: the bundle also holds each game's search index (no page text:
 *   the worker adds the text of each stored page, so the download does not carry it twice) and
 *   the script that searches it (rulings_search.js); the index is stored under SEARCH. A search
 *   with no network gets the stored search page of its game, and that script shows the results.
 * - Pages (GET navigations): network first; a good answer is cached, so the score pad of a game you
 *   opened is there when the Wi-Fi drops. With no network: the cached copy (for a rulings search,
 *   the stored search page), else the offline page.
 * - The page a save led to (drafts.js, showSaved): the fetch that sent the save brought it back
 *   already, and drafts.js keeps it in the cache NEXT, with the time it was kept, just before it
 *   opens it. The next navigation to that address is answered from it, once (it is deleted
 *   then; the offline copy is updated from it as from the network), so the phone does not
 *   download the page twice. A page kept more than NEXT_FOR ago, or asked for by anything but a
 *   navigation (or a reload), is deleted and the network asked. A reload, Back and Forward
 *   afterwards ask the server, as before.
 * - Static files carry a content hash in their URL: cache first.
 * - Anything else (saving a round, the API) goes to the network only. A save of an entry form is
 *   sent by drafts.js with fetch (not a navigation): with no network it fails here and drafts.js
 *   keeps it on the phone to send later. A form posted the ordinary way with no network gets a
 *   page saying that nothing was saved (the entry itself is kept by drafts.js as a draft).
 */
const VERSION = "__VERSION__";
const CACHE = "companion-" + VERSION;
const STORED = "/offline/pages.json?stored";  // not an address: the language of the copy stored
const SEARCH = "/offline/search.json?stored";  // not an address: the offline search index
const NEXT = "companion-next";  // the page a save led to, for the one navigation that follows
const KEPT_AT = "Companion-Kept-At";  // (when drafts.js kept it, in ms)
const NEXT_FOR = 30000;
const SLOT = "\u0000";
const ARTICLE = /<article[^>]*data-entry[^>]*>([\s\S]*?)<\/article>/;
const ENTITIES = {amp: "&", lt: "<", gt: ">", quot: "\""};

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith("companion-") && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

/* A page of the bundle back from its frame: text and slot numbers alternate between markers. */
function fill(frame, values) {
  return frame.split(SLOT).map((part, i) => (i % 2 ? values[Number(part)] : part)).join("");
}

/* The text of a stored rulings entry (its <article>), for the offline search index. */
function articleText(html) {
  const found = ARTICLE.exec(html);
  if (!found) return "";
  return found[1].replace(/<[^>]*>/g, " ")
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&(amp|lt|gt|quot);/g, (_, name) => ENTITIES[name])
    .replace(/\s+/g, " ").trim();
}

async function storeAssets(cache, assets) {
  for (const address of assets || []) {
    const url = new URL(address, self.location.href);
    if (url.origin !== self.location.origin || !url.pathname.startsWith("/static/")) continue;
    if (!(await cache.match(url.href))) await cache.add(url.href).catch(() => {});
  }
}

let storing = null;  // one download at a time, however many pages ask

async function storeOffline(lang) {
  const cache = await caches.open(CACHE);
  const stored = await cache.match(STORED);
  if (stored && (await stored.text()) === lang) return lang;
  const response = await fetch("/offline/pages-" + encodeURIComponent(lang) + ".json",
                               {cache: "no-store"});
  if (!response.ok) throw new Error("offline copy: " + response.status);
  const bundle = await response.json();
  const texts = {};
  await Promise.all(bundle.pages.map(([path, frame, values]) => {
    const html = fill(bundle.frames[frame], values);
    texts[path] = articleText(html);
    return cache.put(path, new Response(html, {headers: bundle.headers}));
  }));
  await storeAssets(cache, bundle.assets);
  const search = bundle.search || {stop: "", index: {}, weigh_summary: []};
  const index = {};
  for (const [page, rows] of Object.entries(search.index)) {
    index[page] = rows.map((row) => row.concat([texts[row[0]] || ""]));
  }
  await cache.put(SEARCH, new Response(JSON.stringify({stop: search.stop, index,
                                                      weighSummary: search.weigh_summary}),
                                       {headers: {"Content-Type": "application/json"}}));
  await Promise.all(Object.entries(bundle.redirects).map(([from, to]) =>
    cache.put(from, Response.redirect(new URL(to, self.location.href).href, 302))));
  await cache.put(STORED, new Response(bundle.lang));
  return bundle.lang;
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  const copy = data.store === "offline" && data.lang;
  if (!copy && data.store !== "assets") return;
  const reply = event.ports[0];
  event.waitUntil((async () => {
    let lang = "", assets = false;
    try {
      await storeAssets(await caches.open(CACHE), data.assets);
      assets = true;
      if (copy) {
        storing = storing || storeOffline(String(data.lang));
        lang = await storing;
      }
    } catch (error) {
      lang = "";  // the next page that is idle tries again
    } finally {
      if (copy) storing = null;
    }
    if (reply) reply.postMessage({stored: lang, assets: assets});
  })());
});

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) cache.put(request, response.clone());
    return response;
  } catch (error) {
    const url = new URL(request.url);
    return (await cache.match(request, {ignoreVary: true}))
      || (url.searchParams.has("q") && await cache.match(url.pathname, {ignoreVary: true}))
      || (await cache.match("/offline", {ignoreVary: true}))
      || Response.error();
  }
}

/* The page a save led to, kept by drafts.js for this navigation: answered once, else null. */
async function savedPage(request) {
  const next = await caches.open(NEXT);
  const kept = await next.match(request.url, {ignoreVary: true});
  if (!kept) return null;
  await next.delete(request.url, {ignoreVary: true});
  const age = Date.now() - Number(kept.headers.get(KEPT_AT));
  if (request.mode !== "navigate" || request.cache === "reload" || request.cache === "no-cache"
      || !(age >= 0 && age <= NEXT_FOR)) return null;
  const headers = new Headers(kept.headers);
  headers.delete(KEPT_AT);
  const page = new Response(await kept.blob(), {status: 200, headers});
  await (await caches.open(CACHE)).put(request, page.clone());
  return page;
}

async function pageOf(request) {
  let page = null;
  try {
    page = await savedPage(request);
  } catch (error) {
    page = null;  // (no cache to read: the network, as before)
  }
  return page || networkFirst(request);
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
    event.respondWith(pageOf(request));
  }
});
