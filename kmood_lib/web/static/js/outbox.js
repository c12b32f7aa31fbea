// The offline outbox: entries logged while the server could not be reached, kept in this
// browser's IndexedDB until they are sent. One file for the service worker (importScripts)
// and the pages (a classic script before the modules), so both decide alike.
//
// An item: {client_id, created (ms), body (the JSON for POST /api/entries, the composed
// local time and the device's offset in occurred_at), status: "waiting" | "refused",
// message (the server's words, for a refused one: the pages say what they mean in the
// person's language), refused_status (the HTTP status, for one the server gave no words for),
// saved (refused only its photos: the entry is in the journal)}. Sync sends each item as one
// request with its client_id, oldest first; the server answers a replay with the entry it
// already has, so an item sent twice (a sync cut off, two tabs) is still one entry, and an
// entry deleted since (on another device, after a send whose answer was lost) with 410: it
// is not brought back.
(function (scope) {
  "use strict";

  const DB_NAME = "kmood";
  const STORE = "outbox";
  const LOCK = "kmood-outbox-sync";

  function request(req) {
    return new Promise((resolve, reject) => {
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  function open() {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore(STORE, { keyPath: "client_id" }).createIndex("created", "created");
    };
    return request(req);
  }

  async function run(mode, work) {
    const db = await open();
    try {
      const tx = db.transaction(STORE, mode);
      const result = await work(tx.objectStore(STORE));
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error || new Error("the outbox write was aborted"));
      });
      return result;
    } finally {
      db.close();
    }
  }

  function all() {
    return run("readonly", (store) => request(store.index("created").getAll()));
  }

  function put(item) {
    return run("readwrite", (store) => request(store.put(item)));
  }

  function remove(clientId) {
    return run("readwrite", (store) => request(store.delete(clientId)));
  }

  // A version 4 UUID, also where crypto.randomUUID is missing (it needs a secure context).
  function uuid() {
    if (scope.crypto && crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  const pad = (n) => String(Math.abs(Math.trunc(n))).padStart(2, "0");

  // "2026-12-04" + "21:05" read on this device's clock -> "2026-12-04T21:05:00+01:00": the
  // time the person meant, with the offset this device had for that moment.
  function occurredAt(day, time, given) {
    const [y, m, d] = day.split("-").map(Number);
    const [hh, mm] = (time || "12:00").split(":").map(Number);
    if (/^[+-]\d{2}:\d{2}$/.test(given || "")) return `${day}T${pad(hh)}:${pad(mm)}:00${given}`;
    const offset = -new Date(y, m - 1, d, hh, mm).getTimezoneOffset();
    const sign = offset < 0 ? "-" : "+";
    return `${day}T${pad(hh)}:${pad(mm)}:00${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
  }

  function number(raw) {
    const text = raw.trim().replace(/^(-?\d+),(\d+)$/, "$1.$2");
    return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;  // text: the server names it
  }

  // The log form's fields (FormData or a list of [name, value]) -> an outbox item, the same
  // body the server makes of them (web/entry_form.py), with a fresh client_id and the time
  // read on this device. The form names each metric field's metric (names_of_metrics:
  // {"3": "sleep"} for the field metric_3).
  function fromForm(pairs, now) {
    const fields = new Map();
    const activities = [];
    const photos = [];  // the chosen files themselves (IndexedDB keeps Blobs as they are)
    for (const [name, value] of pairs) {
      if (typeof value !== "string") {
        if (name === "photo" && value.size) photos.push(value);
      } else if (name === "activity") activities.push(value);
      else fields.set(name, value);
    }
    const get = (name) => (fields.get(name) || "").trim();
    // The form's own id: the same attempt, if the server did get it before the line dropped,
    // is then the same entry. The page gives each entry it keeps a fresh one.
    const given = get("client_id").toLowerCase();
    const body = { client_id: /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/.test(given) ? given : uuid() };
    if (/^[1-5]$/.test(get("mood"))) body.mood = Number(get("mood"));
    const typed = (fields.get("new_activities") || "").split(/[,\n]/).map((n) => n.trim());
    body.activities = activities.concat(typed.filter(Boolean));
    body.note_title = get("note_title");
    body.note = (fields.get("note") || "").replace(/\r\n?/g, "\n");
    if (get("date")) body.occurred_at = occurredAt(get("date"), get("time"), get("utc_offset"));
    body.metrics = {};
    let names = {};
    try {
      names = JSON.parse(fields.get("names_of_metrics") || "{}");
    } catch {
      // a form without them: no metrics
    }
    for (const [id, name] of Object.entries(names)) {
      if (get(`metric_${id}`)) body.metrics[name] = number(get(`metric_${id}`));
    }
    if (get("lat") && get("lon")) body.location = { lat: number(get("lat")), lon: number(get("lon")) };
    if (get("song_artist") && get("song_title")) {
      body.song = { artist: get("song_artist"), title: get("song_title"),
                    album: get("song_album") || null, source: get("song_source") || "manual" };
    }
    // Whose it is: a shared device may hold entries of several people, each sent only
    // under its own account.
    const owner = /^\d+$/.test(get("owner")) ? Number(get("owner")) : null;
    const item = { client_id: body.client_id, created: now || Date.now(), body,
                   status: "waiting", message: null, owner };
    if (photos.length) item.photos = photos;
    return item;
  }

  // An entry's photos, sent once the entry is saved (`id`): "sent", "refused" (with the
  // server's words: the entry stays saved without them) or "stop" (tried again next run: the
  // entry's replay finds it, and the same photo twice is one photo).
  async function sendPhotos(fetcher, id, item, token) {
    const form = new FormData();
    item.photos.forEach((blob, i) => form.append("photo", blob, blob.name || `photo-${i + 1}`));
    let response;
    try {
      response = await fetcher(`/api/entries/${id}/photos`, {
        method: "POST", credentials: "same-origin", body: form,
        headers: { Accept: "application/json", "X-CSRF-Token": token },
      });
    } catch {
      return { verdict: "stop" };
    }
    const verdict = decide(response.status);
    if (verdict !== "refused") return { verdict: verdict === "sent" ? "sent" : "stop" };
    let answer = null;
    try { answer = await response.json(); } catch { /* not JSON: the page says the status */ }
    return { verdict, message: refusal(answer), status: response.status };
  }

  // What one answer means for its item and for the rest of the run.
  //   sent: the server has the entry (201 new, 200 a replay) -> drop the item, go on
  //   deleted: 410, the entry was saved once and deleted since (on another device) -> drop
  //     the item as done, go on; the page says so, as a note rather than a refusal
  //   login: 401 -> keep everything, ask the person to log in
  //   stop: anything else (busy, down, no network) -> keep everything, try again later
  //   forbidden: 403 (the token went stale: another tab logged in again) -> a fresh token,
  //     the item once more; then stop
  //   refused: any other 4xx but 408 and 429 (400, 404, 409, 413, 415, 422: this item will
  //     never pass as it is) -> kept with the message, the next one sent; it blocks nothing
  function decide(status) {
    if (status === 200 || status === 201) return "sent";
    if (status === 410) return "deleted";
    if (status === 401) return "login";
    if (status === 403) return "forbidden";
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) return "refused";
    return "stop";
  }

  // The server's own words for a refusal (its JSON error), or null.
  function refusal(answer) {
    const error = answer && answer.error;
    if (!error) return null;
    const fields = Object.entries(error.fields || {}).map(([name, text]) => `${name}: ${text}`);
    return fields.length ? fields.join("; ") : error.message;
  }

  // Who is logged in here, and the token their requests carry.
  async function session(fetcher) {
    const response = await fetcher("/api/me", { credentials: "same-origin",
                                                headers: { Accept: "application/json" } });
    if (response.status === 401) return { login: true };
    if (!response.ok) return { stop: true };
    const me = await response.json();
    return { token: me.csrf_token, user: me.id };
  }

  // The entries of one person (an item without an owner belongs to no one it could be sent as).
  async function mine(owner) {
    return (await all()).filter((item) => item.owner === owner);
  }

  // Send what waits, oldest first; one run at a time across this browser's tabs and its
  // service worker (a Web Lock where there is one; the client_id makes a double harmless
  // where there is none). Returns {sent, deleted, refused, waiting, outcome}.
  async function sync(fetcher) {
    fetcher = fetcher || fetch.bind(scope);
    const body = async () => {
      let items = (await all()).filter((item) => item.status === "waiting");
      const report = { sent: 0, deleted: 0, refused: 0, waiting: items.length, outcome: "done" };
      if (!items.length) return report;
      let me;
      try {
        me = await session(fetcher);
      } catch {
        return { ...report, outcome: "stop" };
      }
      if (me.login || me.stop) return { ...report, outcome: me.login ? "login" : "stop" };
      items = items.filter((item) => item.owner === me.user);  // only this person's
      report.waiting = items.length;
      const batch = uuid();
      let fresh = false;  // a new token fetched after a 403, once a run
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        let response;
        try {
          response = await fetcher("/api/entries", {
            method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", Accept: "application/json",
                       "X-CSRF-Token": me.token,
                       "X-Kmood-Outbox": `${batch} ${i + 1}/${items.length}` },
            body: JSON.stringify(item.body),
          });
        } catch {
          return { ...report, outcome: "stop" };
        }
        let verdict = decide(response.status);
        if (verdict === "forbidden" && !fresh) {
          fresh = true;
          try {
            const again = await session(fetcher);
            if (again.login) return { ...report, outcome: "login" };
            if (again.token && again.user === me.user) {
              me = again;
              i -= 1;  // the same item, with the new token
              continue;
            }
          } catch {
            // no answer: stop below
          }
        }
        if (verdict === "forbidden") verdict = "stop";
        if (verdict === "sent" && item.photos && item.photos.length) {
          let saved = null;
          try { saved = await response.json(); } catch { /* no id: tried again next run */ }
          const photos = saved && Number.isInteger(saved.id)
            ? await sendPhotos(fetcher, saved.id, item, me.token) : { verdict: "stop" };
          if (photos.verdict === "stop") return { ...report, outcome: "stop" };
          if (photos.verdict === "refused") {
            const { photos: _dropped, ...kept } = item;
            await put({ ...kept, status: "refused", saved: true, message: photos.message,
                        refused_status: photos.status });
            report.refused += 1;
            report.waiting -= 1;
            continue;
          }
        }
        if (verdict === "sent" || verdict === "deleted") {
          await remove(item.client_id);
          report[verdict] += 1;
          report.waiting -= 1;
        } else if (verdict === "refused") {
          let answer = null;
          try { answer = await response.json(); } catch { /* not JSON: the page says the status */ }
          await put({ ...item, status: "refused", message: refusal(answer),
                      refused_status: response.status });
          report.refused += 1;
          report.waiting -= 1;
        } else {
          return { ...report, outcome: verdict };
        }
      }
      return report;
    };
    if (scope.navigator && navigator.locks) {
      return navigator.locks.request(LOCK, body);
    }
    return body();
  }

  scope.kmoodOutbox = { all, mine, put, remove, fromForm, occurredAt, decide, sync, uuid };
})(self);
