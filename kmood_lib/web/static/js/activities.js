// Settings → Activities: a box that narrows the list, "Select all" per group, the count of
// what is selected, the bar of actions shown only once something is ticked, and the group
// field shown only for a move. The page works without it (the bar then always shows).
import { number, say } from "./words.js";

const form = document.getElementById("bulk");
const picks = Array.from(document.querySelectorAll("input[name=ids][form=bulk]"));
const picked = document.getElementById("picked");
const action = document.getElementById("bulk-action");
const toGroup = document.getElementById("to-group");
const toGroupHint = document.getElementById("to-group-hint");
const filter = document.querySelector(".list-filter");

// Ticked ones the filter hides are still part of the action: the count says so.
function count() {
  const ticked = picks.filter((box) => box.checked);
  const hidden = ticked.filter((box) => box.closest("li").hidden || box.closest("section").hidden);
  form.hidden = ticked.length === 0;
  picked.hidden = false;
  const selected = say("activities.selected", { n: ticked.length });
  picked.textContent = ticked.length === 0 ? ""
    : hidden.length ? say("activities.selected_not_shown", {
      selected, not_shown: say("activities.not_shown", { n: hidden.length }) })
    : selected;
  form.querySelector("button[type=submit]").disabled = ticked.length === 0;
}

function showGroupField() {
  toGroup.hidden = toGroupHint.hidden = action.value !== "group";
}

function narrow() {
  const wanted = filter.value.trim().toLocaleLowerCase();
  for (const section of document.querySelectorAll(".pick-group")) {
    let shown = 0;
    for (const item of section.querySelectorAll(".picks li")) {
      const match = !wanted || item.querySelector("label").textContent
        .toLocaleLowerCase().includes(wanted);
      item.hidden = !match;
      shown += match ? 1 : 0;
    }
    section.hidden = shown === 0;
    const count = section.querySelector(".count");
    const all = Number(count.dataset.all);
    count.textContent = wanted ? say("activities.shown_of_all", { shown, all }) : number(all);
  }
}

if (form) {
  for (const box of picks) box.addEventListener("change", count);
  for (const button of document.querySelectorAll(".pick-all")) {
    button.hidden = false;
    button.addEventListener("click", () => {
      const shown = Array.from(button.closest(".pick-group").querySelectorAll(
        ".picks li:not([hidden]) input[name=ids]"));
      const all = shown.every((box) => box.checked);
      for (const box of shown) box.checked = !all;
      count();
    });
  }
  action.addEventListener("change", showGroupField);
  filter.hidden = false;
  filter.addEventListener("input", () => {
    narrow();
    count();
  });
  count();
  showGroupField();
}
