"""The WebAuthn ceremonies of accounts (``accounts.py``), through ``webauthn``
(py_webauthn): making a passkey (registration) and signing in with one
(authentication), each in two requests.

The first request makes a ceremony: a challenge of 256 random bits the server made,
kept in memory (``Ceremonies``) under a random id for ``CEREMONY_S`` seconds, and
the options the browser hands to ``navigator.credentials.create`` or ``get``. The
second brings the ceremony's id and the browser's answer; the ceremony is taken out at
once, whatever the answer (a challenge is good for one answer only: a replayed answer
finds no ceremony), then the answer is checked by the library: the challenge, the
origin, the relying party, the user's presence and verification, the signature, and
for a sign-in the authenticator's counter.

The relying party is the server's public URL (``Site.base``, ``--public-url``): its
host is the RP ID and its origin the one a page must come from. Browsers accept no IP
address as RP ID, so a server known only by an IP address (``make play`` without
``--public-url``) is ``localhost`` on the same port: open it at
``http://localhost:PORT`` to use passkeys.

Passkeys are discoverable (resident): signing in needs no name, the authenticator
offers the accounts it holds for this site.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from nertz.server.door.requests import RequestError
from nertz.server.door.site import is_ip_address
from nertz.server.lobby.accounts import NewPasskey, Passkey

__all__ = [
    "CEREMONY_S",
    "Ceremonies",
    "Ceremony",
    "RelyingParty",
    "credential_id_of",
]

CEREMONY_S = 300
"""How long a ceremony's challenge is good for (and the browser's ``timeout``)."""
RP_NAME = "Nertz"


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """Who the passkeys are for: the RP ID (a host name) and the origins a ceremony may
    come from."""

    id: str
    origins: tuple[str, ...]

    @classmethod
    def of(cls, urls: tuple[str, ...]) -> RelyingParty:
        """The relying party of the site's public URLs (the first names it): an IP
        address is ``localhost`` on the same port and scheme."""
        first = urlsplit(urls[0])
        host = first.hostname or "localhost"
        if is_ip_address(host):
            port = f":{first.port}" if first.port else ""
            return cls("localhost", (f"{first.scheme}://localhost{port}",))
        origins = tuple(
            url
            for url in urls
            if (urlsplit(url).hostname or "") == host
            or (urlsplit(url).hostname or "").endswith("." + host)
        )
        return cls(host, origins)


@dataclass(frozen=True, slots=True)
class Ceremony:
    """One ceremony under way: what it is for, its challenge, and until when."""

    kind: str
    """``"register"`` (a new account), ``"add"`` (another passkey) or ``"signin"``."""
    challenge: bytes
    expires: float
    account: str | None = None
    """The new account's id (register) or the signed-in account's (add)."""
    name: str | None = None
    """The name a new account will hold (register)."""
    shared: bool = False
    """Also kept in a cluster's Redis (``cluster/ceremonies.py``): answered on another
    node, it is used up here too."""


def credential_id_of(credential: dict[str, Any]) -> str:
    """The credential id an answer names (base64url, as stored), or ``bad_passkey``."""
    raw = credential.get("rawId", credential.get("id"))
    if not isinstance(raw, str) or not raw or len(raw) > 1400:
        raise RequestError("bad_passkey", "the passkey's answer names no credential id")
    try:
        return bytes_to_base64url(base64url_to_bytes(raw))
    except ValueError:
        raise RequestError("bad_passkey", "the credential id is not base64url") from None


def _refused(error: Exception) -> RequestError:
    return RequestError("bad_passkey", f"the passkey's answer was refused: {error}")


class Ceremonies:
    """The ceremonies under way, in memory: at most ``cap``, each for ``CEREMONY_S``
    (an expired one is dropped when room is needed or it is asked for), each answered
    once."""

    def __init__(
        self,
        party: RelyingParty,
        cap: int,
        clock: Callable[[], float] = time.monotonic,
        lifetime_s: float = CEREMONY_S,
    ) -> None:
        self.party, self.cap, self.clock, self.lifetime_s = party, cap, clock, lifetime_s
        self._open: dict[str, Ceremony] = {}

    def __len__(self) -> int:
        return len(self._open)

    def _keep(self, ceremony: Ceremony) -> str:
        now = self.clock()
        if len(self._open) >= self.cap:
            self._open = {k: c for k, c in self._open.items() if c.expires > now}
        if len(self._open) >= self.cap:
            raise RequestError(
                "too_many_ceremonies",
                "too many passkey sign-ins are under way on this server; try again in a minute",
                503,
            )
        ceremony_id = secrets.token_urlsafe(16)
        self._open[ceremony_id] = ceremony
        return ceremony_id

    def _expires(self) -> float:
        return self.clock() + self.lifetime_s

    def register(
        self, kind: str, account: str, name: str, existing: list[str]
    ) -> tuple[str, dict[str, Any]]:
        """A registration ceremony for ``account`` (a new one holding ``name``, or the
        signed-in one adding a passkey: its ``existing`` credential ids are excluded).
        Returns its id and the options for ``navigator.credentials.create``."""
        challenge = secrets.token_bytes(32)
        options = generate_registration_options(
            rp_id=self.party.id,
            rp_name=RP_NAME,
            user_name=name,
            user_id=account.encode(),
            user_display_name=name,
            challenge=challenge,
            timeout=int(self.lifetime_s * 1000),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in existing
            ],
        )
        ceremony = Ceremony(kind, challenge, self._expires(), account, name)
        return self._keep(ceremony), json.loads(options_to_json(options))

    def signin(self) -> tuple[str, dict[str, Any]]:
        """A sign-in ceremony: its id and the options for ``navigator.credentials.get``
        (no credentials listed: the authenticator offers its own for this site)."""
        challenge = secrets.token_bytes(32)
        options = generate_authentication_options(
            rp_id=self.party.id,
            challenge=challenge,
            timeout=int(self.lifetime_s * 1000),
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        ceremony = Ceremony("signin", challenge, self._expires())
        return self._keep(ceremony), json.loads(options_to_json(options))

    def peek(self, ceremony_id: str) -> Ceremony | None:
        """The ceremony under way of that id, left in place."""
        return self._open.get(ceremony_id)

    def mark_shared(self, ceremony_id: str) -> None:
        """The ceremony is kept in the cluster's Redis too (``Ceremony.shared``)."""
        found = self._open.get(ceremony_id)
        if found is not None:
            self._open[ceremony_id] = replace(found, shared=True)

    def take(
        self,
        ceremony_id: str,
        kind: str,
        elsewhere: Ceremony | None = None,
        asked_elsewhere: bool = False,
    ) -> Ceremony:
        """The ceremony ``ceremony_id`` of ``kind``, taken out (it answers once);
        ``unknown_ceremony`` if there is none (never made, answered already, or
        expired). On a cluster, ``elsewhere`` is the ceremony as another node kept it
        in Redis, and ``asked_elsewhere`` says Redis answered: a ceremony shared from
        here that Redis no longer holds was answered on another node."""
        ceremony = self._open.pop(ceremony_id, None)
        if ceremony is not None and ceremony.shared and asked_elsewhere and elsewhere is None:
            ceremony = None  # used up on another node
        ceremony = ceremony or elsewhere
        if ceremony is None or ceremony.kind != kind or ceremony.expires <= self.clock():
            raise RequestError(
                "unknown_ceremony",
                "that passkey request is unknown, used already or expired; start again",
            )
        return ceremony

    def verify_registration(self, ceremony: Ceremony, credential: dict[str, Any]) -> NewPasskey:
        """The passkey a registration answer made, checked against ``ceremony``; else
        ``bad_passkey`` saying why."""
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=ceremony.challenge,
                expected_rp_id=self.party.id,
                expected_origin=list(self.party.origins),
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise _refused(error) from None
        return NewPasskey(
            bytes_to_base64url(verified.credential_id),
            bytes(verified.credential_public_key),
            verified.sign_count,
        )

    def verify_signin(
        self, ceremony: Ceremony, credential: dict[str, Any], passkey: Passkey
    ) -> int:
        """Check a sign-in answer made with ``passkey`` against ``ceremony``: the
        authenticator's new counter; else ``bad_passkey`` saying why. A counter that
        did not grow (a cloned authenticator, or the answer again) is refused."""
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        if handle:
            try:
                same = base64url_to_bytes(handle) == passkey.account.encode()
            except (ValueError, TypeError):
                same = False
            if not same:
                raise RequestError("bad_passkey", "that passkey belongs to another account")
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=ceremony.challenge,
                expected_rp_id=self.party.id,
                expected_origin=list(self.party.origins),
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as error:
            raise _refused(error) from None
        return int(verified.new_sign_count)
