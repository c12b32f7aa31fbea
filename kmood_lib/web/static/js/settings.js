// Offer this device's time zone first in the zone picker (the server cannot know it); on the
// first-run page, also pick it.
import { say, sayInto } from "./words.js";

const select = document.getElementById("timezone");
const hint = document.getElementById("timezone-hint");
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

// A zone's name is a code, the same in every language.
function zoneName() {
  const name = document.createElement("span");
  name.translate = false;
  name.textContent = zone;
  return name;
}

if (select && zone && select.dataset.current !== zone) {
  const known = Array.from(select.options).some((option) => option.value === zone);
  if (known) {
    const option = document.createElement("option");
    option.value = zone;
    // An option holds text only: the zone's name in it is marked a code with the whole.
    option.translate = false;
    option.textContent = say("timezone.this_device", { zone: zone.replace(/_/g, " ") });
    select.insertBefore(option, select.firstChild);
    if (select.dataset.preferDevice) option.selected = true;  // first run: start from here
    const said = document.createElement("span");
    sayInto(said, "timezone.device_is_set", { zone: zoneName() });
    hint.prepend(said, " ");
  }
}
