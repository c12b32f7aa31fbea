// The outbox in the pages (SPEC §12): on the log page, keeps an entry in this device's outbox
// when the server cannot be reached, shows what waits (and what the service worker reports it
// sent) and sends it when it can; on the log-out page, asks what to do with what still waits;
// on the offline page (sw.js shows it for a page that needs the server), says how many wait.
// The service worker itself is registered by offline.js.
import { say, sayDay } from "./words.js";

const outbox = self.kmoodOutbox;
const me = Number(document.body.dataset.user);  // whose pages these are
const form = document.querySelector("#entry-form[data-outbox]");
const panel = document.getElementById("outbox");

// --- the log page --------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, "0");

// When an entry was kept here, on this device's clock: "Sat 6 Dec 2025, 21:05".
function when(ms) {
  const d = new Date(ms);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return say("date.day_time", { date: sayDay(d), time });
}

function localMinute(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function moodLabel(level) {
  const label = document.querySelector(`label[for=mood-${level}] span`);
  return label ? label.textContent : String(level);
}

let lastReport = null;

async function show(report) {
  if (report) lastReport = report;
  if (!panel) return countWaiting();
  const items = await outbox.mine(me);
  panel.hidden = items.length === 0;
  document.getElementById("outbox-count").textContent = String(items.length);
  const list = document.getElementById("outbox-items");
  list.replaceChildren(...items.map(item));
  const status = document.getElementById("outbox-status");
  const outcome = lastReport && lastReport.outcome;
  const login = document.getElementById("outbox-login");
  login.hidden = outcome !== "login";
  status.textContent = !items.length ? ""
    : outcome === "login" ? say("outbox.session_ended")
    : outcome === "stop" || !navigator.onLine ? say("outbox.unreachable")
    : "";
  markOnlineOnly(outcome === "stop" || !navigator.onLine);
}

function item(entry) {
  const li = document.createElement("li");
  li.className = entry.status === "refused" ? "entry refused" : "entry";
  const head = document.createElement("p");
  const strong = document.createElement("strong");
  strong.dir = "auto";  // the person's own name for the mood
  strong.textContent = moodLabel(entry.body.mood);
  const at = entry.body.occurred_at;
  const moment = at ? `${at.slice(0, 10)} ${at.slice(11, 16)}` : localMinute(entry.created);
  head.append(strong, ` · ${moment}`);
  if (moment !== localMinute(entry.created)) {  // back-dated: say when it was kept too
    const saved = document.createElement("small");
    saved.className = "muted";
    saved.textContent = ` ${say("outbox.kept_here", { when: when(entry.created) })}`;
    head.append(saved);
  }
  li.append(head);
  const pictures = (entry.photos || []).length;
  const what = [entry.body.note_title, (entry.body.activities || []).join(", "),
                pictures ? say("outbox.photos", { n: pictures }) : ""]
    .filter(Boolean).join(" — ");
  if (what) {
    const p = document.createElement("p");
    p.dir = "auto";
    p.textContent = what;
    li.append(p);
  }
  const line = firstLine(entry.body.note);
  if (line) {
    const note = document.createElement("p");
    note.className = "note-line";
    note.dir = "auto";
    note.textContent = line;
    li.append(note);
  }
  if (entry.status === "refused") {
    const why = document.createElement("p");
    why.className = "refusal";
    // saved: the entry is in the journal, only its photos were refused (add others on its
    // edit page); there is nothing left here to fix and send
    const reason = entry.message || say("outbox.refused_status", { status: entry.refused_status });
    why.textContent = say(entry.saved ? "outbox.saved_without_photos" : "outbox.refused",
                          { reason });
    const discard = button(say(entry.saved ? "outbox.dismiss" : "outbox.discard"), async () => {
      await outbox.remove(entry.client_id);
      show();
    });
    discard.classList.add("link");
    const actions = document.createElement("p");
    actions.className = "actions";
    if (!entry.saved) actions.append(button(say("outbox.edit"), () => editItem(entry)));
    actions.append(discard);
    li.append(why, actions);
  }
  return li;
}

// A note's first line with words on it: enough to tell one waiting entry from another.
function firstLine(note) {
  return (note || "").split("\n").map((line) => line.trim()).find(Boolean) || "";
}

function button(text, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "secondary";
  b.textContent = text;
  b.addEventListener("click", onClick);
  return b;
}

// A refused entry back into the form, every field of it, to be fixed. It stays in the outbox
// as it was until the fixed one is saved: Save then puts it back in its place and sends it.
let editing = null;

function setField(name, value) {
  if (form.elements[name]) form.elements[name].value = value == null ? "" : String(value);
}

async function editItem(entry) {
  const body = entry.body;
  const mood = form.querySelector(`input[name=mood][value="${body.mood}"]`);
  if (mood) mood.checked = true;
  const known = new Set();
  for (const box of form.querySelectorAll("input[name=activity]")) {
    box.checked = (body.activities || []).includes(box.value);
    if (box.checked) known.add(box.value);
  }
  setField("new_activities", (body.activities || []).filter((a) => !known.has(a)).join(", "));
  setField("note_title", body.note_title);
  setField("note", body.note);
  if (body.occurred_at) {
    setField("date", body.occurred_at.slice(0, 10));
    setField("time", body.occurred_at.slice(11, 16));
    setField("utc_offset", body.occurred_at.slice(19));  // its own offset, kept
  }
  let names = {};
  try { names = JSON.parse(form.elements.names_of_metrics.value || "{}"); } catch { /* none */ }
  for (const [id, name] of Object.entries(names)) {
    setField(`metric_${id}`, (body.metrics || {})[name]);  // a metric gone since is left out
  }
  setField("lat", body.location && body.location.lat);
  setField("lon", body.location && body.location.lon);
  for (const part of ["artist", "title", "album", "source"]) {
    setField(`song_${part}`, body.song && body.song[part]);
  }
  setField("client_id", entry.client_id);
  editing = entry;
  opened = ["", ""];  // its date and time are its own, never "now"
  form.scrollIntoView({ block: "start" });
}

// Save after Edit: the fixed entry takes the refused one's place in the outbox (the same id,
// the same time kept) and is sent at once; refused again, it stays with the new message.
async function resend(event) {
  event.preventDefault();
  const item = outbox.fromForm(Array.from(new FormData(form)), editing.created);
  if (!item.photos && editing.photos) item.photos = editing.photos;  // files cannot be refilled
  editing = null;
  await outbox.put(item);
  blank();
  await sync();
}

// The form ready for the next entry: empty, a fresh id, "now".
function blank() {
  form.reset();
  form.elements.client_id.value = outbox.uuid();
  opened = [form.elements.date.value, form.elements.time.value] = deviceNow();
}

function markOnlineOnly(offline) {
  for (const link of document.querySelectorAll(".entries a[href$='/edit'], .entries a[href$='/delete']")) {
    link.classList.toggle("online-only", offline);
    if (offline) link.setAttribute("aria-disabled", "true");
    else link.removeAttribute("aria-disabled");
  }
}

// The date and time the form opened with: left as they are, they mean "now".
let opened = ["", ""];

function deviceNow() {
  const now = new Date();
  return [`${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`,
          `${pad(now.getHours())}:${pad(now.getMinutes())}`];
}

// Date and time left as they were mean "now": the moment Save is pressed on this device, with
// this device's offset (the server is told it, so it reads them the same way).
function stampTime() {
  if (form.elements.date.value === opened[0] && form.elements.time.value === opened[1]) {
    [form.elements.date.value, form.elements.time.value] = deviceNow();
  }
  const offset = -new Date(`${form.elements.date.value}T${form.elements.time.value || "12:00"}`)
    .getTimezoneOffset();
  const pad = (n) => String(Math.trunc(Math.abs(n))).padStart(2, "0");
  form.elements.utc_offset.value = `${offset < 0 ? "-" : "+"}${pad(offset / 60)}:${pad(offset % 60)}`;
}

async function keep(event) {
  event.preventDefault();
  const item = outbox.fromForm(Array.from(new FormData(form)));
  if (!item.body.mood) {
    form.reportValidity();
    return;
  }
  await outbox.put(item);
  blank();  // the next entry is another entry
  try {
    const registration = await navigator.serviceWorker.ready;
    await registration.sync.register("kmood-outbox");
  } catch {
    // no Background Sync here: the page sends it on load, when online, when shown
  }
  await show({ outcome: "stop" });
  const notice = document.getElementById("outbox-notice");
  notice.hidden = false;
}

async function sync() {
  if (!navigator.onLine) return show();
  let report;
  try {
    report = await outbox.sync();
  } catch {
    report = { outcome: "stop" };
  }
  await show(report);
  if (report.sent && form) {
    document.getElementById("outbox-sent").hidden = false;
  }
  if (report.deleted && form) {
    document.getElementById("outbox-deleted").hidden = false;
  }
}

function setupLogPage() {
  // One id per page view and entry: a copy of this page kept for offline use must not hand
  // the same id to every entry logged from it.
  form.elements.client_id.value = outbox.uuid();
  // A blank form says "now": this device's now (a copy kept for offline use was made earlier).
  // A form shown again with its errors keeps what was typed: its date and time are not "now".
  if ("now" in form.dataset) {
    opened = [form.elements.date.value, form.elements.time.value] = deviceNow();
  }
  form.addEventListener("submit", (event) => {
    if (editing) return resend(event);
    stampTime();
    if (!navigator.onLine) keep(event);  // else the post goes out; the worker catches a failure
  });
  // Sent to "/?done=queued" by the worker: the server says so itself when it renders the page;
  // a copy kept for offline use has no notice, so the page says it.
  if (new URLSearchParams(location.search).get("done") === "queued" &&
      !document.querySelector("main > .notice")) {
    document.getElementById("outbox-notice").hidden = false;
  }
  addEventListener("online", sync);
  addEventListener("offline", () => show());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") sync();
  });
}

// --- the log-out page ----------------------------------------------------------------------

async function setupLogout() {
  const logout = document.getElementById("logout-form");
  if (!logout) return;
  const items = await outbox.mine(me);
  const waiting = items.length;
  if (!waiting) return;
  const choice = document.getElementById("outbox-choice");
  document.getElementById("outbox-waiting").textContent = say("outbox.waiting", { n: waiting });
  choice.hidden = false;
  logout.addEventListener("submit", async (event) => {
    if (!document.getElementById("discard-outbox").checked) return;
    event.preventDefault();
    for (const item of items) await outbox.remove(item.client_id);  // only this person's
    logout.submit();
  });
}

// --- the offline page ---------------------------------------------------------------------

const TAB_OF_SECTION = { entries: "/entries", calendar: "/calendar", stats: "/stats",
                      insights: "/stats", settings: "/settings", admin: "/settings" };

// Shown under the address of the page that could not open: its tab marked, a way to try it
// again, and how many of this person's entries wait here.
async function setupOfflinePage() {
  const waiting = document.getElementById("offline-waiting");
  if (!waiting) return;
  const tab = TAB_OF_SECTION[location.pathname.split("/")[1]];
  for (const link of document.querySelectorAll(".tabs a")) {
    link.setAttribute("aria-current", link.getAttribute("href") === tab ? "page" : "false");
  }
  const retry = document.getElementById("offline-retry");
  if (location.pathname !== "/offline") {
    retry.href = location.href;
    retry.hidden = false;
  }
  await countWaiting();
}

async function countWaiting() {
  const waiting = document.getElementById("offline-waiting");
  if (!waiting) return;
  const n = (await outbox.mine(me)).length;
  waiting.textContent = !n ? say("outbox.nothing_waiting") : say("outbox.waiting", { n });
  waiting.hidden = false;
}

// What the service worker reports after sending the outbox itself (Background Sync).
function listen() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.kind === "outbox") show(event.data.report);
  });
}

if (outbox) {
  listen();
  if (form && panel) setupLogPage();
  setupLogout();
  setupOfflinePage();
  sync();
}
