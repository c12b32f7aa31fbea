// Settings → Reminders: "Notify this device" turns Web Push on for this browser. Permission is
// asked only on that tap; the browser's subscription (its push service's address and its
// keys) goes to k-mood, which encrypts each reminder to those keys.
const here = document.getElementById("push-here");
const button = document.getElementById("push-subscribe");
const said = document.getElementById("push-said");
const supported = "serviceWorker" in navigator && "PushManager" in window &&
  "Notification" in window;

if (here && button && supported) {
  button.hidden = false;
  document.getElementById("push-unsupported").hidden = true;
  button.addEventListener("click", () => subscribe().catch((error) => {
    said.textContent = `${here.dataset.failed} ${error.message || error}`;
  }));
}

async function subscribe() {
  button.disabled = true;
  try {
    if (await Notification.requestPermission() !== "granted") {
      said.textContent = here.dataset.denied;
      return;
    }
    const answer = await fetch("/api/push/key", { credentials: "same-origin" });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const { public_key: key } = await answer.json();
    const registration = await navigator.serviceWorker.ready;
    const serverKey = bytesOf(key);
    const earlier = await registration.pushManager.getSubscription();
    if (earlier && !sameBytes(earlier.options.applicationServerKey, serverKey)) {
      await earlier.unsubscribe();  // made for another key (the server's key was changed)
    }
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true, applicationServerKey: serverKey,
    });
    const sent = await fetch("/api/push/subscriptions", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": here.dataset.csrf },
      body: JSON.stringify({ ...subscription.toJSON(), label: deviceName() }),
    });
    if (!sent.ok) {
      const refusal = await sent.json().catch(() => ({}));
      throw new Error((refusal.error && refusal.error.message) || `HTTP ${sent.status}`);
    }
    said.textContent = here.dataset.added;
    location.assign("/settings/reminders#devices");
  } finally {
    button.disabled = false;
  }
}

function sameBytes(buffer, bytes) {
  const held = new Uint8Array(buffer || []);
  return held.length === bytes.length && held.every((b, i) => b === bytes[i]);
}

function bytesOf(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

// "Chrome on Android", "Firefox on Windows", "Safari on iPhone": for the person to tell their
// devices apart in the list (they can remove any).
function deviceName() {
  const agent = navigator.userAgent;
  const browser = /Edg\//.test(agent) ? "Edge" : /Firefox\//.test(agent) ? "Firefox" :
    /Chrome\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : "Browser";
  const system = /Android/.test(agent) ? "Android" : /iPhone/.test(agent) ? "iPhone" :
    /iPad/.test(agent) ? "iPad" : /Windows/.test(agent) ? "Windows" :
    /Mac OS X/.test(agent) ? "Mac" : /Linux/.test(agent) ? "Linux" : "";
  return system ? `${browser} on ${system}` : browser;
}
