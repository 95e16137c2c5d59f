"""A passkey authenticator in software, for server tests (the browser tests use
Chromium's virtual one): it answers a ceremony's options as a browser's
``navigator.credentials.create`` and ``get`` would, in the JSON the client sends
(``web/js/passkey.js``), with an ES256 key of its own, and can be told to lie: another
origin, another challenge, another key's signature, an old counter."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Authenticator:
    """One discoverable credential for ``rp_id``, made by ``register``."""

    rp_id: str
    origin: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    count: int = 0
    user_handle: str | None = None

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})

    def _auth_data(self, attested: bool) -> bytes:
        flags = 0x01 | 0x04 | (0x40 if attested else 0)  # user present, verified
        data = hashlib.sha256(self.rp_id.encode()).digest()
        data += bytes([flags]) + self.count.to_bytes(4, "big")
        if attested:
            cid = self.credential_id
            data += b"\0" * 16 + len(cid).to_bytes(2, "big") + cid + self._cose()
        return data

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        body = {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        return json.dumps({**body, "crossOrigin": False}).encode()

    def register(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """The answer to registration ``options`` (``publicKey``)."""
        self.user_handle = options["user"]["id"]
        client = self._client_data("webauthn.create", options["challenge"], origin)
        attestation = cbor2.dumps(
            {"fmt": "none", "attStmt": {}, "authData": self._auth_data(attested=True)}
        )
        cid = b64(self.credential_id)
        return {
            "id": cid,
            "rawId": cid,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def sign_in(
        self,
        options: dict[str, Any],
        *,
        origin: str | None = None,
        challenge: str | None = None,
        signer: ec.EllipticCurvePrivateKey | None = None,
        count: int | None = None,
    ) -> dict[str, Any]:
        """The answer to sign-in ``options`` (``publicKey``); each keyword is a lie."""
        self.count = self.count + 1 if count is None else count
        data = self._auth_data(attested=False)
        client = self._client_data("webauthn.get", challenge or options["challenge"], origin)
        signed = (signer or self.key).sign(
            data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())
        )
        cid = b64(self.credential_id)
        response = {
            "clientDataJSON": b64(client),
            "authenticatorData": b64(data),
            "signature": b64(signed),
        }
        if self.user_handle is not None:
            response["userHandle"] = self.user_handle
        return {
            "id": cid,
            "rawId": cid,
            "type": "public-key",
            "response": response,
            "clientExtensionResults": {},
        }
