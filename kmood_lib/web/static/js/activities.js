// Settings → Activities: a box that narrows the list, "Select all" per group, the count of
// what is selected, the bar of actions shown only once something is ticked, and the group
// field shown only for a move. The page works without it (the bar then always shows).
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
  picked.textContent = ticked.length === 0 ? ""
    : `${ticked.length} selected` + (hidden.length ? ` (${hidden.length} not shown by the filter)` : "");
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
    count.textContent = wanted ? `${shown} of ${count.dataset.all}` : count.dataset.all;
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
