// Passkeys (SPEC §14): adding one in Settings, signing in with one from the login page. The
// server makes each ceremony's options (a challenge kept for this browser) and checks the
// answer; here the options go to the browser's WebAuthn and its answer back, base64url.
// Without WebAuthn (an old browser, or not a secure context) the buttons stay hidden.
import { say } from "./words.js";

const supported = window.PublicKeyCredential !== undefined && window.isSecureContext;

function bytes(text) {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(plain + "===".slice((plain.length + 3) % 4)), (c) => c.charCodeAt(0));
}

function text(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function withBytes(list) {
  return (list || []).map((item) => ({ ...item, id: bytes(item.id) }));
}

// The answer as py_webauthn reads it: every buffer base64url.
function answer(credential) {
  const response = credential.response;
  const sent = {
    id: credential.id, rawId: text(credential.rawId), type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    response: { clientDataJSON: text(response.clientDataJSON) },
  };
  if (response.attestationObject) {
    sent.response.attestationObject = text(response.attestationObject);
    sent.response.transports = response.getTransports ? response.getTransports() : [];
  } else {
    sent.response.authenticatorData = text(response.authenticatorData);
    sent.response.signature = text(response.signature);
    if (response.userHandle) sent.response.userHandle = text(response.userHandle);
  }
  return sent;
}

// A redirect is never followed: it is a session that ended (to the login page), no answer.
async function post(url, body, headers) {
  return fetch(url, {
    method: "POST", credentials: "same-origin", body: JSON.stringify(body), redirect: "manual",
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
  });
}

// What a refusal's status says to the person.
function refusal(status, words) {
  return say(words[status] || words.other);
}

function show(element, message) {
  element.textContent = message;
  element.hidden = !message;
}

// The browser's own refusal (the person cancelled, or took too long) is no error to show.
function cancelled(error) {
  return error && (error.name === "NotAllowedError" || error.name === "AbortError");
}

const signIn = document.getElementById("passkey-sign-in");
if (signIn && supported) {
  const said = document.getElementById("passkey-sign-in-error");
  const token = { "X-Form-Token": signIn.dataset.formToken };
  signIn.hidden = false;
  signIn.closest(".sign-in-choices").hidden = false;  // (without single sign-on, all it holds)
  signIn.addEventListener("click", async () => {
    show(said, "");
    signIn.disabled = true;
    try {
      const begun = await post("/login/passkey/options", {}, token);
      if (!begun.ok) throw new Error(String(begun.status || 403));
      const { ceremony, options } = await begun.json();
      const credential = await navigator.credentials.get({ publicKey: {
        ...options, challenge: bytes(options.challenge),
        allowCredentials: withBytes(options.allowCredentials),
      } });
      const done = await post("/login/passkey", {
        ceremony, credential: answer(credential), next: signIn.dataset.next,
      }, token);
      if (!done.ok) throw new Error(String(done.status || 403));
      window.location.assign((await done.json()).next);
    } catch (error) {
      if (!cancelled(error)) {
        show(said, refusal(error.message, {
          429: "passkey.too_many", 403: "passkey.reload", other: "passkey.failed" }));
      }
      signIn.disabled = false;
    }
  });
}

const add = document.getElementById("passkey-add");
if (add && supported) {
  const said = document.getElementById("passkey-add-error");
  const csrf = { "X-CSRF-Token": add.dataset.csrf };
  add.hidden = false;
  document.getElementById("passkeys-unsupported").hidden = true;
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    show(said, "");
    const button = add.querySelector("button");
    button.disabled = true;
    try {
      const password = add.elements.password ? add.elements.password.value : undefined;
      const begun = await post("/settings/passkeys/new", { name: add.elements.name.value, password },
                               csrf);
      if (!begun.ok) throw new Error(String(begun.status || 401));
      const { ceremony, options } = await begun.json();
      const credential = await navigator.credentials.create({ publicKey: {
        ...options, challenge: bytes(options.challenge),
        user: { ...options.user, id: bytes(options.user.id) },
        excludeCredentials: withBytes(options.excludeCredentials),
      } });
      const done = await post("/settings/passkeys", { ceremony, credential: answer(credential) },
                              csrf);
      if (!done.ok) throw new Error(String(done.status || 401));
      window.location.assign("/settings?done=passkey_added#passkeys");
    } catch (error) {
      if (error && error.name === "InvalidStateError") show(said, say("passkey.known"));
      else if (!cancelled(error)) {
        show(said, refusal(error.message, {
          422: "passkey.name", 403: "passkey.password", 409: "passkey.conflict",
          401: "passkey.signed_out", other: "passkey.not_added" }));
      }
      button.disabled = false;
    }
  });
}
