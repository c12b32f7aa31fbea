// Settings' sections are one row that scrolls sideways on a phone: the one open is brought
// into the row's view (the page itself is not scrolled).
const nav = document.querySelector(".settings-nav");
const current = nav && nav.querySelector("a[aria-current=page]");

if (current && nav.scrollWidth > nav.clientWidth) {
  const row = nav.getBoundingClientRect();
  const box = current.getBoundingClientRect();
  nav.scrollLeft += box.left - row.left - (row.width - box.width) / 2;
}
