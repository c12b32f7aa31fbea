// k-mood's service worker, served as /sw.js (never cached by the browser's HTTP cache, so an
// upgrade is seen at the next visit). The server fills in VERSION and SHELL: the hash of this
// release's static files and their versioned URLs.
//
// - The shell (CSS, scripts, icons) is cached per version; a new version installs beside the
//   old one and waits until the person reloads from the banner; then the old caches go.
// - Pages: network first. A good answer for the log page is kept (labels and activities as
//   of that visit); with no network, the log page opens from that copy. Any other page
//   (History, Year, Stats, Settings...) opens the kept offline page instead, under its own
//   address: it says the connection is missing, counts what waits and links to Log, rather
//   than show a log form where History was asked for.
// - The log form's post: sent as it is; if the server cannot be reached or cannot save it
//   just now (5xx), the entry goes into the outbox (IndexedDB, shared with the pages) and the
//   person lands on the log page, where it shows under "Waiting to sync".
// - Web Push: a reminder the worker pushed is shown as a notification (its words are the
//   reminder's, in the person's language, made on the server; one tag per reminder, so a
//   later one replaces it); a tap opens the log page for the day the reminder was for, in a
//   window of k-mood's that is open if there is one.
// - Its own words (the page it shows offline with no kept copy) are the pages' language: each
//   page hands them over (offline.js), kept in a cache of their own; until then, the English
//   the server filled in as WORDS (kmood_lib/web/script_words.py).
"use strict";

const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const WORDS = __WORDS__;
const SHELL_CACHE = `kmood-shell-${VERSION}`;
const PAGES_CACHE = "kmood-pages";  // outlives versions: the last log page seen, the offline page
const LOG_PAGE = "/";
const OFFLINE_PAGE = "/offline";
const WORDS_CACHE = "kmood-words";  // the words the pages handed over: no one's data
const WORDS_KEY = "/sw-words";  // their key in it (never fetched)

importScripts(SHELL.find((url) => url.startsWith("/static/js/outbox.js")));

self.addEventListener("install", (event) => {
  event.waitUntil(Promise.all([
    caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)),
    keepPage(LOG_PAGE, fetch(LOG_PAGE, { credentials: "same-origin" })).catch(() => {}),
    keepOfflinePage().catch(() => {}),  // this version's, with this version's files
  ]));
});

// The log page as this person last saw it (or the offline page), for the next time there is
// no network. Sent elsewhere instead (the session is over: a redirect to the log-in page),
// the copies are forgotten: nobody else must see them, or log from them under their owner's
// name.
async function keepPage(path, answer) {
  const response = await answer;
  if (response.ok && !response.redirected &&
      (response.headers.get("Content-Type") || "").startsWith("text/html")) {
    const cache = await caches.open(PAGES_CACHE);
    await cache.put(path, response.clone());
  } else if (response.redirected || response.type === "opaqueredirect" ||
             response.status === 401) {
    await forgetLogPage();
  }
  return response;
}

function keepOfflinePage() {
  return keepPage(OFFLINE_PAGE, fetch(OFFLINE_PAGE, { credentials: "same-origin" }));
}

// The offline page kept beside the log page, once a session (logging out forgets both).
async function keepOfflinePageOnce() {
  if (!await caches.match(OFFLINE_PAGE, { cacheName: PAGES_CACHE })) await keepOfflinePage();
}

// Logging out, or a session that ended: the kept pages hold that person's day and name.
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
  if (event.data && event.data.kind === "words") event.waitUntil(keepWords(event.data));
});

// The words a page handed over, for its language: kept unless they are the ones kept already.
async function keepWords({ lang, dir, words }) {
  if (typeof lang !== "string" || typeof dir !== "string" || typeof words !== "object" ||
      !words) return;
  const text = JSON.stringify({ lang, dir, words });
  const cache = await caches.open(WORDS_CACHE);
  const kept = await cache.match(WORDS_KEY);
  if (kept && await kept.text() === text) return;
  await cache.put(WORDS_KEY, new Response(text, {
    headers: { "Content-Type": "application/json" } }));
}

// The words to say, in the language a page last handed over (else the server's English).
async function ownWords() {
  try {
    const kept = await caches.match(WORDS_KEY, { cacheName: WORDS_CACHE });
    if (kept) {
      const handed = await kept.json();
      return { ...handed, words: { ...WORDS.words, ...handed.words } };
    }
  } catch {
    // unreadable: the English ones
  }
  return WORDS;
}

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

self.addEventListener("push", (event) => {
  event.waitUntil(showPushed(event.data));
});

async function showPushed(data) {
  let said = {};
  try {
    said = (data && data.json()) || {};
  } catch {
    said = {};  // not JSON: still a reminder to log
  }
  const icon = SHELL.find((url) => url.startsWith("/static/icons/icon-192.png"));
  await self.registration.showNotification(String(said.title || "k-mood"), {
    body: String(said.body || ""), tag: String(said.tag || "kmood-reminder"), renotify: true,
    icon, badge: icon, data: { url: ownPath(said.url) },
  });
}

// A path of k-mood's own, whatever a push said: a notification never leads elsewhere.
function ownPath(url) {
  try {
    const target = new URL(String(url || LOG_PAGE), self.location.origin);
    return target.origin === self.location.origin ? target.pathname + target.search : LOG_PAGE;
  } catch {
    return LOG_PAGE;
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const opening = openFromNotification(ownPath(event.notification.data && event.notification.data.url));
  event.waitUntil(opening);
});

// The log page for the reminder's day: in a window of k-mood's already open (brought to the
// front), else a new one. Never in a window on the log page: what is typed there stays.
async function openFromNotification(path) {
  const target = new URL(path, self.location.origin).href;
  const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const mine = open.find((client) => {
    const at = new URL(client.url);
    return at.origin === self.location.origin && at.pathname !== LOG_PAGE;
  });
  if (!mine) return self.clients.openWindow(target);
  let shown = mine;
  try {
    shown = (await mine.navigate(target)) || mine;
  } catch {
    return self.clients.openWindow(target);  // a window this worker does not control
  }
  try {
    await shown.focus();
  } catch {
    // focusing needs the tap itself; the window shows the day either way
  }
  return shown;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && request.method === "GET") {
    event.respondWith(page(request, url, event));
  } else if (request.method === "POST" && url.pathname === "/logout") {
    event.respondWith(forgetLogPage().then(() => fetch(request)));
  } else if (request.mode === "navigate" && request.method === "POST" && url.pathname === "/entries") {
    event.respondWith(logEntry(request));
  } else if (request.method === "GET" && url.pathname.startsWith("/static/")) {
    event.respondWith(shellFile(request));
  }
});

async function page(request, url, event) {
  const logPage = url.pathname === LOG_PAGE;
  try {
    const answer = fetch(request);
    // Kept only as it opens plain: a copy of "/?done=logged" would say "Entry logged." offline.
    if (!logPage || url.search) return await answer;
    const response = await keepPage(LOG_PAGE, answer);
    if (response.ok && !response.redirected) event.waitUntil(keepOfflinePageOnce().catch(() => {}));
    return response;
  } catch {
    const copy = await caches.match(logPage ? LOG_PAGE : OFFLINE_PAGE, { cacheName: PAGES_CACHE });
    if (!copy) return offlinePage(logPage, await ownWords());
    // The offline page under the address asked for: a 503, as the server would answer.
    return logPage ? copy : new Response(copy.body, { status: 503, headers: copy.headers });
  }
}

// No kept copy (never opened while reachable, or logged out since): the words alone.
function offlinePage(logPage, { lang, dir, words }) {
  const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const say = (key) => escape(words[key] || WORDS.words[key]);
  const text = logPage ? say("sw.no_log_copy")
    : `${say("sw.needs_server")} <a href="/">${say("sw.log")}</a>`;
  return new Response(
    `<!doctype html><html lang="${escape(lang)}" dir="${escape(dir)}"><meta charset=utf-8>` +
    "<meta name=viewport content='width=device-width, initial-scale=1'>" +
    `<title>${say("sw.title")} · k-mood</title>` +
    "<body style='font:16px/1.5 system-ui;margin:2rem'>" +
    `<h1>${say("sw.heading")}</h1><p>${text}</p>`,
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

// A script's `import "./words.js"` asks for the file without its version: this version's.
async function shellFile(request) {
  const cached = await caches.match(request, { cacheName: SHELL_CACHE }) ||
    (new URL(request.url).search ? undefined
      : await caches.match(request, { cacheName: SHELL_CACHE, ignoreSearch: true }));
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && new URL(request.url).searchParams.has("v")) {
    const cache = await caches.open(SHELL_CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}
