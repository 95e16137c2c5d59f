// This browser's identity (server/devices.py): a secret made once here and kept in
// its storage, sent in a header when it takes a seat and when it asks for its own
// history (/me). Never in a URL: it would reach logs and shared links.
import { deviceSecretKept, keepDeviceSecret } from "./storage.js";

const SECRET = /^[A-Za-z0-9_-]{22,128}$/;

/** The secret, made on first use: 256 random bits as hex. */
export function deviceSecret() {
  let secret = deviceSecretKept();
  if (typeof secret !== "string" || !SECRET.test(secret)) {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    secret = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    keepDeviceSecret(secret);
  }
  return secret;
}

/** The header that names this browser to the server. */
export function deviceHeaders() {
  return { "X-Nertz-Device": deviceSecret() };
}

/** Whether this browser has ever made its secret (then the server may know it). */
export function hasDevice() {
  return typeof deviceSecretKept() === "string";
}
