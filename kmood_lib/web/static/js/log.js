// The log and edit form's niceties: the date line saying what it holds, templates filled in
// place, the folded activities' filter, location from the browser, the song playing right now.
// The form works without them; nothing here is needed to log an entry.
import { decimal, say, sayDay, sayInto } from "./words.js";

const form = document.getElementById("entry-form");
const extras = document.getElementById("extras");

function setup() {
  setupWhen();
  setupFilter();
  setupGroups();
  setupTemplates();
  if (!form || !extras) return;
  extras.hidden = false;
  setupLocation();
  suggestSong();
}

// A template fills the title (when empty) and the note in place — no page load, so it works
// offline too; the note already typed is kept, the template's added below it.
function setupTemplates() {
  const offered = document.getElementById("templates");
  if (!form || !offered) return;
  offered.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-note]");
    if (!link) return;
    event.preventDefault();
    const title = form.elements.note_title;
    const note = form.elements.note;
    if (!title.value.trim()) title.value = link.dataset.title;
    note.value = note.value.trim() ? `${note.value.replace(/\s+$/, "")}\n\n${link.dataset.note}`
      : link.dataset.note;
    link.closest("details").open = false;
    note.focus();
  });
}

// The line at the top that opens the date and time says what they hold: "Now" on a new
// entry until the person changes them (Save then stamps this device's now), else the day and
// time ("Yesterday, 21:15"). A waiting entry put back into the form brings its own. Until
// then it is the server's line (which also knows an imported entry that had no time).
function setupWhen() {
  const text = document.getElementById("when-text");
  if (!form || !text) return;
  const { date, time } = form.elements;
  const blank = "now" in form.dataset;
  let changed = !blank;
  const show = () => {
    text.textContent = changed ? describe(date.value, time.value) : say("log.now");
  };
  for (const field of [date, time]) {
    field.addEventListener("input", () => { changed = true; show(); });
    field.addEventListener("change", () => { changed = true; show(); });
  }
  form.addEventListener("reset", () => {
    changed = !blank;
    setTimeout(show);
  });
  const waiting = document.getElementById("outbox");
  if (waiting) {
    waiting.addEventListener("click", () => {
      const before = [date.value, time.value];
      setTimeout(() => {
        if (date.value !== before[0] || time.value !== before[1]) changed = true;
        show();
      });
    });
  }
}

function describe(day, time) {
  const [y, m, d] = day.split("-").map(Number);
  if (!y || !m || !d) return day || say("log.no_date");
  const picked = new Date(y, m - 1, d);
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const ago = Math.round((today - picked) / 86400000);
  const name = ago === 0 ? say("log.today") : ago === 1 ? say("log.yesterday") : sayDay(picked);
  return time ? say("date.day_time", { date: name, time }) : name;
}

function setupLocation() {
  const button = document.getElementById("use-location");
  const status = document.getElementById("location-status");
  if (!("geolocation" in navigator)) {
    button.hidden = true;
    return;
  }
  button.addEventListener("click", () => {
    status.textContent = say("log.finding_you");
    navigator.geolocation.getCurrentPosition(
      (position) => {
        const lat = position.coords.latitude.toFixed(5);
        const lon = position.coords.longitude.toFixed(5);
        document.getElementById("lat").value = lat;
        document.getElementById("lon").value = lon;
        status.textContent = say("log.location_added", {
          lat: decimal(position.coords.latitude, 5), lon: decimal(position.coords.longitude, 5) });
      },
      () => { status.textContent = say("log.no_location"); },
      { enableHighAccuracy: false, timeout: 10000, maximumAge: 600000 },
    );
  });
}

async function suggestSong() {
  if (!navigator.onLine) return;  // offline: the entry's song is what is known now, nothing
  let answer;
  try {
    const response = await fetch("/api/now-playing", { credentials: "same-origin" });
    if (!response.ok) return;
    answer = await response.json();
  } catch {
    return;  // offline or slow: no suggestion, nothing else changes
  }
  const song = answer && answer.song;
  if (!song) return;
  const box = document.getElementById("now-playing");
  const text = document.getElementById("now-playing-text");
  const button = document.getElementById("attach-song");
  sayInto(text, "log.playing_now", { song: songName(song) });
  box.hidden = false;
  button.addEventListener("click", () => {
    document.getElementById("song_artist").value = song.artist;
    document.getElementById("song_title").value = song.title;
    document.getElementById("song_album").value = song.album || "";
    document.getElementById("song_source").value = song.source || "manual";
    sayInto(text, "log.attached", { song: songName(song) });
    button.hidden = true;
  });
}

// A song's artist and title, as their names are written (not the page's words).
function songName(song) {
  const name = document.createElement("span");
  name.dir = "auto";
  name.textContent = `${song.artist} – ${song.title}`;
  return name;
}

// With many activities: a box that narrows the folded list to the names containing its text
// (opening the groups that hold a match while it has text).
function setupFilter() {
  const box = document.querySelector(".chip-filter");
  if (!box) return;
  box.hidden = false;
  const more = box.closest("details");
  box.addEventListener("input", () => {
    const wanted = box.value.trim().toLocaleLowerCase();
    for (const label of more.querySelectorAll(".chips label")) {
      const match = !wanted || label.textContent.toLocaleLowerCase().includes(wanted);
      label.hidden = !match;
    }
    for (const group of more.querySelectorAll("details.activity-group")) {
      const any = group.querySelector(".chips label:not([hidden])");
      group.hidden = !any;
      if (wanted && any) group.open = true;
      else if (!wanted) group.open = remembered()[group.dataset.remember] !== false;
    }
  });
}

// Groups and the folded list stay as the person left them, on this device (a group holding a
// ticked activity is shown open whatever was remembered).
const REMEMBERED = "kmood.open-groups";

function remembered() {
  try {
    const value = JSON.parse(localStorage.getItem(REMEMBERED) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function remember(key, isOpen) {
  const state = remembered();
  delete state[key];
  state[key] = isOpen;
  const keys = Object.keys(state);
  for (const old of keys.slice(0, Math.max(0, keys.length - 200))) delete state[old];
  try {
    localStorage.setItem(REMEMBERED, JSON.stringify(state));
  } catch {
    // storage full or refused: groups still open and close, they are just not remembered
  }
}

// Only what the person opens or closes is remembered (a click on the summary, by touch, mouse
// or keyboard): not what the page or the filter does, nor a group shown open for its ticks.
function setupGroups() {
  const state = remembered();
  for (const group of document.querySelectorAll("#entry-form details[data-remember]")) {
    const key = group.dataset.remember;
    if (typeof state[key] === "boolean" && !group.querySelector("input:checked")) {
      group.open = state[key];
    }
    group.querySelector("summary").addEventListener("click", () => {
      setTimeout(() => remember(key, group.open));  // once the click has opened or closed it
    });
  }
}

setup();
