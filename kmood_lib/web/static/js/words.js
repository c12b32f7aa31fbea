// The words the scripts show, in the page's language (SPEC §13). The server puts them into
// every page as a JSON data block (#kmood-words, from kmood_lib/web/script_words.py): each a
// message with {placeholders}, or for a count its forms by CLDR plural category, picked here
// with Intl.PluralRules. Numbers are written the language's way; a value that is a DOM node
// (someone's song, a time zone) goes in as that node, with its own dir or translate.
const block = document.getElementById("kmood-words");
const page = block ? JSON.parse(block.textContent) : {};
const words = page.words || {};
const locale = page.locale || "en";
const plurals = new Intl.PluralRules(locale);
const numbers = new Intl.NumberFormat(locale);

function message(key, values) {
  const found = words[key];
  if (found === undefined) return key;  // a page from before this script: the key at least
  if (typeof found === "string") return found;
  return found[plurals.select(values.n)] ?? found.other ?? Object.values(found).pop();
}

function value(name, values) {
  const given = values[name];
  if (given === undefined || given === null) return `{${name}}`;
  if (typeof given === "number") return numbers.format(given);
  return given instanceof Node ? given : String(given);
}

// The message as parts: text, and the nodes given as values.
function parts(key, values = {}) {
  return message(key, values).split(/\{(\w+)\}/)
    .map((part, index) => (index % 2 ? value(part, values) : part))
    .filter((part) => part !== "");
}

// The message `key` in the page's language, its {values} filled in: say("outbox.waiting", {n: 2}).
export function say(key, values = {}) {
  return parts(key, values).map((part) => (part instanceof Node ? part.textContent : part)).join("");
}

// The same into an element, replacing what it held; node values are put in as they are.
export function sayInto(element, key, values = {}) {
  element.replaceChildren(...parts(key, values));
}

// A count, the language's way: 1 234 in Polish.
export function number(n) {
  return numbers.format(n);
}

// A number with exactly `places` decimals, the language's way: 52,52000 in German.
export function decimal(number, places) {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: places,
                                         maximumFractionDigits: places }).format(number);
}

// A local day as the log form writes it: "Sat 6 Dec 2025" (the names are the server's).
export function sayDay(day) {
  return say("date.day", {
    weekday: (page.weekdays || [])[(day.getDay() + 6) % 7] ?? "",
    day: String(day.getDate()),
    month: (page.months || [])[day.getMonth()] ?? "",
    year: String(day.getFullYear()),
  });
}

// What the service worker says when it has no page to show (sw.js): handed to it by the pages.
export function serviceWorkerWords() {
  const own = Object.fromEntries(Object.entries(words).filter(([key]) => key.startsWith("sw.")));
  return { lang: page.lang || "en", dir: page.dir || "ltr", words: own };
}
