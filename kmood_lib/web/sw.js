// k-mood's service worker, served as /sw.js (never cached by the browser's HTTP cache, so an
// upgrade is seen at the next visit). The server fills in VERSION and SHELL: the hash of this
// release's static files and their versioned URLs.
//
// - The shell (CSS, scripts, icons) is cached per version; a new version installs beside the
//   old one and waits until the person reloads from the banner; then the old caches go.
// - Pages: network first. A good answer for the log page is kept (labels and activities as
//   of that visit); with no network, any page falls back to that copy.
// - The log form's post: sent as it is; if the server cannot be reached or cannot save it
//   just now (5xx), the entry goes into the outbox (IndexedDB, shared with the pages) and the
//   person lands on the log page, where it shows under "Waiting to sync".
"use strict";

const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const SHELL_CACHE = `kmood-shell-${VERSION}`;
const PAGES_CACHE = "kmood-pages";  // outlives versions: the last log page seen
const LOG_PAGE = "/";

importScripts(SHELL.find((url) => url.startsWith("/static/js/outbox.js")));

self.addEventListener("install", (event) => {
  event.waitUntil(Promise.all([
    caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)),
    keepLogPage(fetch(LOG_PAGE, { credentials: "same-origin" })).catch(() => {}),
  ]));
});

// The log page as this person last saw it, for the next time there is no network. Sent
// elsewhere instead (the session is over: a redirect to the log-in page), the copy is
// forgotten: nobody else must see it, or log from it under its owner's name.
async function keepLogPage(answer) {
  const response = await answer;
  if (response.ok && !response.redirected &&
      (response.headers.get("Content-Type") || "").startsWith("text/html")) {
    const cache = await caches.open(PAGES_CACHE);
    await cache.put(LOG_PAGE, response.clone());
  } else if (response.redirected || response.type === "opaqueredirect" ||
             response.status === 401) {
    await forgetLogPage();
  }
  return response;
}

// Logging out, or a session that ended: the kept page holds that person's day and name.
function forgetLogPage() {
  return caches.delete(PAGES_CACHE);
}

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("kmood-shell-") && name !== SHELL_CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data === "skip-waiting") self.skipWaiting();
  if (event.data === "sync") event.waitUntil(syncAndTell());
});

self.addEventListener("sync", (event) => {
  if (event.tag === "kmood-outbox") event.waitUntil(syncAndTell());
});

async function syncAndTell() {
  const report = await self.kmoodOutbox.sync();
  for (const client of await self.clients.matchAll({ type: "window" })) {
    client.postMessage({ kind: "outbox", report });
  }
  if (report.outcome === "stop") throw new Error("not reachable yet");  // Background Sync retries
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && request.method === "GET") {
    event.respondWith(page(request, url));
  } else if (request.method === "POST" && url.pathname === "/logout") {
    event.respondWith(forgetLogPage().then(() => fetch(request)));
  } else if (request.mode === "navigate" && request.method === "POST" && url.pathname === "/entries") {
    event.respondWith(logEntry(request));
  } else if (request.method === "GET" && url.pathname.startsWith("/static/")) {
    event.respondWith(shellFile(request));
  }
});

async function page(request, url) {
  try {
    const answer = fetch(request);
    // Kept only as it opens plain: a copy of "/?done=logged" would say "Entry logged." offline.
    return await (url.pathname === LOG_PAGE && !url.search ? keepLogPage(answer) : answer);
  } catch {
    const copy = await caches.match(LOG_PAGE, { cacheName: PAGES_CACHE });
    return copy || offlinePage();
  }
}

function offlinePage() {
  return new Response(
    "<!doctype html><html lang=en><meta charset=utf-8>" +
    "<meta name=viewport content='width=device-width, initial-scale=1'>" +
    "<title>Offline · k-mood</title><body style='font:16px/1.5 system-ui;margin:2rem'>" +
    "<h1>k-mood is not reachable</h1><p>This device has no copy of the log page yet: open " +
    "it once while the server is reachable, and logging works offline from then on.</p>",
    { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

async function logEntry(request) {
  const copy = request.clone();
  let response;
  try {
    response = await fetch(request);
  } catch {
    return keep(copy);  // the server could not be reached
  }
  // It could not save it just now (busy past its timeout, a full disk, a fault): kept here and
  // sent later. Had it been saved after all, its client_id makes the later send the same entry.
  return response.status >= 500 ? keep(copy) : response;
}

async function keep(request) {
  const fields = Array.from(await request.formData());
  const item = self.kmoodOutbox.fromForm(fields);
  // The same id with other content is another entry posted from a copy of the page that kept
  // its first id (its script did not run): it must not overwrite the one kept before.
  const before = (await self.kmoodOutbox.all()).find((old) => old.client_id === item.client_id);
  if (before && JSON.stringify(before.body) !== JSON.stringify(item.body)) {
    item.client_id = item.body.client_id = self.kmoodOutbox.uuid();
  }
  await self.kmoodOutbox.put(item);
  try {
    await self.registration.sync.register("kmood-outbox");
  } catch {
    // no Background Sync (Firefox, Safari): the page syncs on load, online and when shown
  }
  return Response.redirect("/?done=queued", 303);
}

async function shellFile(request) {
  const cached = await caches.match(request, { cacheName: SHELL_CACHE });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && new URL(request.url).searchParams.has("v")) {
    const cache = await caches.open(SHELL_CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}
