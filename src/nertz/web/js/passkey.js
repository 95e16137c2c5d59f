// Passkeys between the server's JSON and the browser's WebAuthn calls (server/passkeys.py).
// The server sends the options of navigator.credentials.create/get as JSON, with every
// binary field (challenge, user id, credential ids) in base64url; the browser wants
// them as bytes, and answers a PublicKeyCredential whose binary fields the server wants
// in base64url again. Pure: no page, no navigator; tests/web/passkey.test.mjs runs it.

/** Bytes (an ArrayBuffer or a view) as base64url, without padding. */
export function toBase64url(bytes) {
  const view =
    bytes instanceof ArrayBuffer
      ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = "";
  for (const b of view) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url (padded or not) as an ArrayBuffer; a TypeError names a malformed one. */
export function fromBase64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) {
    throw new TypeError(`not base64url: ${JSON.stringify(text)}`);
  }
  const plain = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  const padded = plain + "=".repeat((4 - (plain.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  return bytes.buffer;
}

function descriptors(list) {
  return (list || []).map((d) => ({ ...d, id: fromBase64url(d.id) }));
}

/** The server's registration options as ``navigator.credentials.create``'s publicKey. */
export function creationOptions(json) {
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
    excludeCredentials: descriptors(json.excludeCredentials),
  };
}

/** The server's sign-in options as ``navigator.credentials.get``'s publicKey. */
export function requestOptions(json) {
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    allowCredentials: descriptors(json.allowCredentials),
  };
}

const BINARY = [
  "clientDataJSON",
  "attestationObject",
  "authenticatorData",
  "signature",
  "userHandle",
];

/** A PublicKeyCredential (from create or get) as the JSON the server reads: its ids
 *  and every binary field of its response in base64url (a missing userHandle stays
 *  out), the transports when the browser tells them. */
export function credentialJSON(credential) {
  const response = {};
  for (const key of BINARY) {
    const value = credential.response[key];
    if (value !== undefined && value !== null) response[key] = toBase64url(value);
  }
  if (typeof credential.response.getTransports === "function") {
    response.transports = credential.response.getTransports();
  }
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults:
      typeof credential.getClientExtensionResults === "function"
        ? credential.getClientExtensionResults()
        : {},
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}
