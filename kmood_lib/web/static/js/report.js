// The report's two conveniences (the page works without them): a button that opens the
// browser's print dialog (where "Save as PDF" is), and one that copies a new shared link.
const print = document.getElementById("print-report");
if (print) {
  print.hidden = false;
  print.addEventListener("click", () => window.print());
}

const copy = document.getElementById("copy-link");
if (copy && navigator.clipboard) {
  copy.hidden = false;
  copy.addEventListener("click", async () => {
    const said = document.getElementById("copy-said");
    try {
      await navigator.clipboard.writeText(copy.dataset.copy);
      said.textContent = copy.dataset.copied;
    } catch {
      said.textContent = "";  // refused (no permission): the link is there to select
    }
  });
}
