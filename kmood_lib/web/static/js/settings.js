// Offer this device's time zone first in the zone picker (the server cannot know it); on the
// first-run page, also pick it.
const select = document.getElementById("timezone");
const hint = document.getElementById("timezone-hint");
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

if (select && zone && select.dataset.current !== zone) {
  const known = Array.from(select.options).some((option) => option.value === zone);
  if (known) {
    const option = document.createElement("option");
    option.value = zone;
    option.textContent = `${zone.replace(/_/g, " ")} (this device)`;
    select.insertBefore(option, select.firstChild);
    if (select.dataset.preferDevice) option.selected = true;  // first run: start from here
    hint.textContent = `This device is set to ${zone}. ${hint.textContent}`;
  }
}
