// Passkeys between the server's JSON and WebAuthn's bytes (web/js/passkey.js): the
// options the server sends become what navigator.credentials wants, and the browser's
// answer becomes the JSON the server checks (server/passkeys.py), byte for byte.
// Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  creationOptions,
  credentialJSON,
  fromBase64url,
  requestOptions,
  toBase64url,
} from "../../src/nertz/web/js/passkey.js";

const bytes = (...values) => new Uint8Array(values);

test("base64url round-trips every byte, without padding or + and /", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const text = toBase64url(all);
  assert.doesNotMatch(text, /[+/=]/);
  assert.deepEqual(new Uint8Array(fromBase64url(text)), all);
  assert.equal(toBase64url(bytes(0xfb, 0xff)), "-_8");
  assert.deepEqual(new Uint8Array(fromBase64url("-_8=")), bytes(0xfb, 0xff)); // padded too
  assert.equal(toBase64url(new Uint8Array(0)), "");
  assert.equal(toBase64url(all.subarray(1, 3)), "AQI"); // a view: only its own bytes
});

test("a malformed base64url is refused by name", () => {
  assert.throws(() => fromBase64url("not base64!"), /not base64url: "not base64!"/);
  assert.throws(() => fromBase64url(undefined), TypeError);
});

test("registration options: challenge, user id and excluded ids become bytes", () => {
  const json = {
    challenge: "AQID",
    rp: { id: "localhost", name: "Nertz" },
    user: { id: "YWJj", name: "Ann", displayName: "Ann" },
    pubKeyCredParams: [{ type: "public-key", alg: -7 }],
    excludeCredentials: [{ type: "public-key", id: "BAU" }],
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    timeout: 300000,
  };
  const options = creationOptions(json);
  assert.deepEqual(new Uint8Array(options.challenge), bytes(1, 2, 3));
  assert.deepEqual(new Uint8Array(options.user.id), bytes(97, 98, 99));
  assert.equal(options.user.name, "Ann");
  assert.deepEqual(new Uint8Array(options.excludeCredentials[0].id), bytes(4, 5));
  assert.equal(options.excludeCredentials[0].type, "public-key");
  assert.deepEqual(options.authenticatorSelection, json.authenticatorSelection);
  assert.equal(json.challenge, "AQID"); // the server's JSON is left as it was
});

test("sign-in options: no credentials listed stays an empty list", () => {
  const options = requestOptions({ challenge: "AQID", rpId: "localhost" });
  assert.deepEqual(new Uint8Array(options.challenge), bytes(1, 2, 3));
  assert.deepEqual(options.allowCredentials, []);
  assert.equal(options.rpId, "localhost");
});

test("an answer becomes JSON with every binary field in base64url", () => {
  const made = credentialJSON({
    id: "CQo",
    rawId: bytes(9, 10).buffer,
    type: "public-key",
    authenticatorAttachment: "platform",
    response: {
      clientDataJSON: bytes(1).buffer,
      attestationObject: bytes(2, 3).buffer,
      getTransports: () => ["internal"],
    },
    getClientExtensionResults: () => ({ credProps: { rk: true } }),
  });
  assert.deepEqual(JSON.parse(JSON.stringify(made)), {
    id: "CQo",
    rawId: "CQo",
    type: "public-key",
    authenticatorAttachment: "platform",
    response: { clientDataJSON: "AQ", attestationObject: "AgM", transports: ["internal"] },
    clientExtensionResults: { credProps: { rk: true } },
  });
  const signed = credentialJSON({
    id: "CQo",
    rawId: bytes(9, 10).buffer,
    type: "public-key",
    response: {
      clientDataJSON: bytes(1).buffer,
      authenticatorData: bytes(4).buffer,
      signature: bytes(5, 6).buffer,
      userHandle: null, // an authenticator may give none
    },
  });
  assert.deepEqual(JSON.parse(JSON.stringify(signed)).response, {
    clientDataJSON: "AQ",
    authenticatorData: "BA",
    signature: "BQY",
  });
  assert.deepEqual(signed.clientExtensionResults, {});
});
