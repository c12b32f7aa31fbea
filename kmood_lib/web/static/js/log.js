// The log form's niceties: location from the browser, and the song playing right now.
// The form works without them; nothing here is needed to log an entry.
const form = document.getElementById("entry-form");
const extras = document.getElementById("extras");

function setup() {
  setupFilter();
  if (!form || !extras) return;
  extras.hidden = false;
  setupLocation();
  suggestSong();
}

function setupLocation() {
  const button = document.getElementById("use-location");
  const status = document.getElementById("location-status");
  if (!("geolocation" in navigator)) {
    button.hidden = true;
    return;
  }
  button.addEventListener("click", () => {
    status.textContent = "Finding you…";
    navigator.geolocation.getCurrentPosition(
      (position) => {
        const lat = position.coords.latitude.toFixed(5);
        const lon = position.coords.longitude.toFixed(5);
        document.getElementById("lat").value = lat;
        document.getElementById("lon").value = lon;
        status.textContent = `Location added (${lat}, ${lon}).`;
      },
      () => { status.textContent = "No location: the browser did not share it."; },
      { enableHighAccuracy: false, timeout: 10000, maximumAge: 600000 },
    );
  });
}

async function suggestSong() {
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
  text.textContent = `Playing now: ${song.artist} – ${song.title}`;
  box.hidden = false;
  button.addEventListener("click", () => {
    document.getElementById("song_artist").value = song.artist;
    document.getElementById("song_title").value = song.title;
    document.getElementById("song_album").value = song.album || "";
    document.getElementById("song_source").value = song.source || "manual";
    text.textContent = `Attached: ${song.artist} – ${song.title}`;
    button.hidden = true;
  });
}

// With many activities: a box that narrows the folded list to the names containing its text.
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
    for (const name of more.querySelectorAll(".group-name")) {
      const chips = name.nextElementSibling;
      name.hidden = chips && !chips.querySelector("label:not([hidden])");
    }
  });
}

setup();
