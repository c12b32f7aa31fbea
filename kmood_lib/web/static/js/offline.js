// The service worker in the pages (SPEC §12): registers it, so the pages open with no
// network, and offers a reload when a new version is ready (never reloads by itself). What
// waits in this device's outbox is shown and sent by outbox_panel.js. The worker is handed
// the words of its own page (shown offline when it has no kept copy) in this page's language.
import { say, serviceWorkerWords } from "./words.js";

let reloadAsked = false;

async function register() {
  if (!("serviceWorker" in navigator)) return;
  let registration;
  try {
    registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch {
    return;  // not a secure context, or refused: the pages work as before
  }
  const offer = () => {
    if (registration.waiting && navigator.serviceWorker.controller) banner(registration.waiting);
  };
  offer();
  navigator.serviceWorker.ready.then((ready) => {
    if (ready.active) ready.active.postMessage({ kind: "words", ...serviceWorkerWords() });
  }).catch(() => {});
  registration.addEventListener("updatefound", () => {
    const fresh = registration.installing;
    if (fresh) fresh.addEventListener("statechange", () => { if (fresh.state === "installed") offer(); });
  });
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloadAsked) location.reload();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") registration.update().catch(() => {});
  });
}

function banner(waiting) {
  if (document.getElementById("update-banner")) return;
  const box = document.createElement("div");
  box.id = "update-banner";
  box.className = "notice update-banner";
  box.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = say("update.ready");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = say("update.reload");
  button.addEventListener("click", () => {
    reloadAsked = true;
    waiting.postMessage("skip-waiting");
  });
  box.append(text, " ", button);
  document.querySelector("main").prepend(box);
}

register();
