"""Accounts with passkeys on the real server (issue 26, point 1; ``accounts_api.py``,
``lobby/accounts.py``, ``lobby/passkeys.py``): made and signed in to with a passkey
(a software authenticator, ``authenticator.py``), one name per account from the one
registry of names, a recovery code shown once, sessions in HttpOnly SameSite cookies
that survive a restart, and every forged or replayed answer, guessed code and foreign
page refused with nothing changed."""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from websockets.sync.client import ClientConnection, connect

from nertz.server.door.limits import Limits
from nertz.server.door.requests import RequestError
from nertz.server.http.app import Config, create_app
from nertz.server.http.services import Services, services_of
from nertz.server.lobby.passkeys import Ceremonies, RelyingParty

from ..live_server import eventually, free_port, running
from .authenticator import Authenticator, b64, unb64
from .test_me import ANN, BOT

LIMITS = Limits(recoveries_per_hour=3, accounts_per_day=20, ceremonies_per_minute=200)


@dataclass
class Site:
    """A server whose public URL is ``http://localhost:PORT`` (``--public-url``)."""

    port: int
    origin: str
    services: Services

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def browser(self, device: str | None = None, origin: str | None = None) -> httpx.Client:
        """A browser's requests: its own cookies, the site's ``Origin``, its device."""
        headers = {"Origin": origin or self.origin}
        if device is not None:
            headers["X-Nertz-Device"] = device
        return httpx.Client(base_url=self.url, headers=headers, timeout=10)

    def authenticator(self) -> Authenticator:
        return Authenticator("localhost", self.origin)


@contextlib.contextmanager
def serving(
    db: Path, scheme: str = "http", limits: Limits = LIMITS, port: int = 0, **extra: Any
) -> Iterator[Site]:
    """A server on ``db`` whose public URL is ``SCHEME://localhost:PORT`` (``port``: a
    free one unless given)."""
    port = port or free_port()
    origin = f"{scheme}://localhost:{port}"
    config = Config(
        db=str(db), port=port, public_urls=(origin,), limits=limits, test_hooks=True, **extra
    )
    app = create_app(config)
    with running(config, app=app):
        yield Site(port, origin, services_of(app))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with serving(tmp_path / "accounts.db") as found:
        yield found


def make_account(
    browser: httpx.Client, key: Authenticator, name: str
) -> tuple[dict[str, Any], httpx.Response]:
    """Make an account holding ``name`` with ``key``: its answer's body and the answer."""
    begun = browser.post("/api/account/new", json={"name": name})
    assert begun.status_code == 200, begun.text
    body = begun.json()
    answer = browser.post(
        "/api/account",
        json={"ceremony": body["ceremony"], "credential": key.register(body["publicKey"])},
    )
    assert answer.status_code == 201, answer.text
    return answer.json(), answer


def begin_signin(browser: httpx.Client) -> dict[str, Any]:
    begun = browser.post("/api/account/signin/begin", json={})
    assert begun.status_code == 200, begun.text
    return begun.json()  # type: ignore[no-any-return]


def sign_in(browser: httpx.Client, key: Authenticator) -> httpx.Response:
    begun = begin_signin(browser)
    return browser.post(
        "/api/account/signin",
        json={"ceremony": begun["ceremony"], "credential": key.sign_in(begun["publicKey"])},
    )


def account(browser: httpx.Client) -> dict[str, Any] | None:
    answer = browser.get("/api/account")
    assert answer.status_code == 200, answer.text
    return answer.json()["account"]  # type: ignore[no-any-return]


def error(answer: httpx.Response) -> str:
    return str(answer.json()["error"])


def test_an_account_is_made_with_a_passkey_signs_out_and_in_again(site: Site) -> None:
    with site.browser() as ann, site.browser() as other:
        assert account(ann) is None
        key = site.authenticator()
        made, _ = make_account(ann, key, "Ann")
        assert made["account"]["name"] == "Ann"
        code = made["recovery_code"]
        assert len(code.replace("-", "")) == 20  # shown this once
        shown = account(ann)
        assert shown is not None and shown["name"] == "Ann" and len(shown["passkeys"]) == 1
        assert code not in json.dumps(shown)  # never shown again
        assert account(other) is None  # another browser is not signed in

        assert ann.post("/api/account/signout", json={}).status_code == 200
        assert account(ann) is None
        signed = sign_in(ann, key)
        assert signed.status_code == 200, signed.text
        assert signed.json()["account"]["name"] == "Ann"
        assert account(ann) is not None


def test_the_session_cookie_is_httponly_samesite_and_secure_behind_tls(tmp_path: Path) -> None:
    for scheme in ("http", "https"):
        with serving(tmp_path / f"{scheme}.db", scheme) as site, site.browser() as ann:
            _, answer = make_account(ann, site.authenticator(), "Ann")
            cookie = answer.headers["set-cookie"]
            parts = [p.strip().lower() for p in cookie.split(";")]
            assert parts[0].startswith("nertz_session=") and len(parts[0]) > 40
            assert "httponly" in parts and "samesite=lax" in parts and "path=/" in parts
            assert ("secure" in parts) == (scheme == "https"), cookie


def test_a_sign_in_rotates_the_session_and_sessions_are_bounded(site: Site) -> None:
    with site.browser() as ann:
        key = site.authenticator()
        make_account(ann, key, "Ann")
        old = ann.cookies["nertz_session"]
        assert sign_in(ann, key).status_code == 200
        new = ann.cookies["nertz_session"]
        assert new != old
        with site.browser() as thief:
            thief.cookies.set("nertz_session", old)
            assert account(thief) is None  # the session it replaced has ended
        for _ in range(12):  # twelve more browsers sign in
            with site.browser() as more:
                assert sign_in(more, key).status_code == 200
        shown = account(ann)
        assert shown is None or shown["sessions"] <= 10
        with site.browser() as last:
            assert sign_in(last, key).status_code == 200
            shown = account(last)
            assert shown is not None and shown["sessions"] == 10


def test_forged_and_replayed_webauthn_answers_are_refused_and_change_nothing(
    site: Site,
) -> None:
    key = site.authenticator()
    with site.browser() as ann:
        make_account(ann, key, "Ann")
    with site.browser() as mallory:

        def refused(credential_of: Any, ceremony: dict[str, Any] | None = None) -> str:
            begun = ceremony or begin_signin(mallory)
            answer = mallory.post(
                "/api/account/signin",
                json={"ceremony": begun["ceremony"], "credential": credential_of(begun)},
            )
            assert answer.status_code in (400, 401), answer.text
            assert account(mallory) is None  # not signed in
            return f"{error(answer)}: {answer.json()['reason']}"

        # A wrong origin: a page elsewhere asked the authenticator.
        why = refused(lambda b: key.sign_in(b["publicKey"], origin="http://evil.example"))
        assert why.startswith("bad_passkey") and "origin" in why.lower()
        # A wrong challenge: an answer made for another ceremony.
        other = begin_signin(mallory)["publicKey"]["challenge"]
        why = refused(lambda b: key.sign_in(b["publicKey"], challenge=other))
        assert why.startswith("bad_passkey") and "challenge" in why.lower()
        # A bad signature: another key signs for this credential.
        stranger = ec.generate_private_key(ec.SECP256R1())
        why = refused(lambda b: key.sign_in(b["publicKey"], signer=stranger))
        assert why.startswith("bad_passkey") and "signature" in why.lower()

        # A replayed assertion: a good answer, seen once, sent again.
        begun = begin_signin(mallory)
        good = key.sign_in(begun["publicKey"])
        with site.browser() as ann:
            first = ann.post(
                "/api/account/signin", json={"ceremony": begun["ceremony"], "credential": good}
            )
            assert first.status_code == 200, first.text
        why = refused(lambda b: good, begun)  # the same ceremony: used already
        assert why.startswith("unknown_ceremony")
        why = refused(lambda b: good)  # a new ceremony: not its challenge
        assert why.startswith("bad_passkey") and "challenge" in why.lower()
        # An old counter (a cloned authenticator, or a recorded answer re-signed).
        why = refused(lambda b: key.sign_in(b["publicKey"], count=1))
        assert why.startswith("bad_passkey") and "count" in why.lower()

        # A forged registration (another origin) makes no account: its name stays free.
        begun = mallory.post("/api/account/new", json={"name": "Mallory"}).json()
        forged = site.authenticator().register(begun["publicKey"], origin="http://evil.example")
        answer = mallory.post(
            "/api/account", json={"ceremony": begun["ceremony"], "credential": forged}
        )
        assert answer.status_code == 400 and error(answer) == "bad_passkey"
        assert account(mallory) is None
        make_account(mallory, site.authenticator(), "Mallory")  # the name was never taken


def test_the_recovery_code_signs_in_once_and_guessing_it_hits_a_quota(tmp_path: Path) -> None:
    with serving(tmp_path / "r.db", forwarded_allow_ips="127.0.0.1") as site:
        with site.browser() as ann:
            made, _ = make_account(ann, site.authenticator(), "Ann")
        code = made["recovery_code"]
        with site.browser() as phone:  # a new phone, the passkey lost
            used = phone.post("/api/account/recover", json={"name": "ann", "code": code.lower()})
            assert used.status_code == 200, used.text
            fresh = used.json()["recovery_code"]
            assert fresh != code and account(phone) is not None
            again = phone.post("/api/account/recover", json={"name": "Ann", "code": code})
            assert again.status_code == 401 and error(again) == "bad_recovery"  # used up

        def guess(address: str, name: str = "Ann") -> httpx.Response:
            with site.browser() as guesser:
                wrong = "-".join(secrets.token_hex(2).upper() for _ in range(5))
                return guesser.post(
                    "/api/account/recover",
                    json={"name": name, "code": wrong},
                    headers={"X-Forwarded-For": address},
                )

        answers = [guess("203.0.113.7", "Nobody") for _ in range(4)]  # no such account
        assert [a.status_code for a in answers] == [401, 401, 401, 429]
        assert error(answers[-1]) == "too_many_recoveries"
        assert int(answers[-1].headers["retry-after"]) > 0
        # From many addresses, the account itself is guarded: three tries an hour.
        spread = [guess(f"198.51.100.{n}") for n in range(1, 5)]
        assert spread[-1].status_code == 429 and error(spread[-1]) == "recovery_locked"
        # The right code is refused too while the quota holds (a guesser cannot tell).
        with site.browser() as ann:
            late = ann.post(
                "/api/account/recover",
                json={"name": "Ann", "code": fresh},
                headers={"X-Forwarded-For": "192.0.2.1"},
            )
            assert late.status_code == 429 and account(ann) is None


def test_a_page_of_another_site_changes_nothing(site: Site) -> None:
    key = site.authenticator()
    with site.browser() as ann:
        make_account(ann, key, "Ann")
        cookie = ann.cookies["nertz_session"]
    with site.browser(origin="http://evil.example") as evil:
        evil.cookies.set("nertz_session", cookie)  # even were the cookie sent along
        for method, path, body in [
            ("POST", "/api/account/signout", {}),
            ("PUT", "/api/account/name", {"name": "Pwned"}),
            ("POST", "/api/account/recovery", {}),
            ("POST", "/api/account/new", {"name": "Eve"}),
            ("POST", "/api/account/signin/begin", {}),
        ]:
            answer = evil.request(method, path, json=body)
            assert answer.status_code == 403 and error(answer) == "cross_site", path
    with site.browser() as ann:
        ann.cookies.set("nertz_session", cookie)
        shown = account(ann)
        assert shown is not None and shown["name"] == "Ann"  # still signed in, same name


def test_one_name_per_account_from_the_one_registry_of_names(site: Site) -> None:
    with site.browser() as ann, site.browser() as bea, site.browser() as robo:
        make_account(ann, site.authenticator(), "Ann")
        for taken in ("ANN", "\u0410nn", "Ａｎｎ"):  # case, Cyrillic А, fullwidth
            answer = bea.post("/api/account/new", json={"name": taken})
            assert answer.status_code == 409 and error(answer) == "name_held", taken
        answer = bea.post("/api/account/new", json={"name": "Ben"})  # a bot's given name
        assert answer.status_code == 400 and error(answer) == "bot_name"
        answer = bea.post("/api/account/new", json={"name": "bot expert"})
        assert error(answer) == "bot_name"
        bot = robo.post("/api/bots", json={"name": "Robo"})
        assert bot.status_code == 201, bot.text
        answer = bea.post("/api/account/new", json={"name": "robo"})
        assert answer.status_code == 409 and error(answer) == "name_held"
        answer = robo.post("/api/bots", json={"name": "ann"})  # a bot takes no account's name
        assert answer.status_code == 409 and error(answer) == "name_held"

        # At a table: nobody else sits as Ann; Ann, signed in, does.
        code = bea.post("/api/tables", json={"seats": 3}).json()["code"]
        answer = bea.post(f"/api/tables/{code}/join", json={"name": "ann"})
        assert answer.status_code == 409 and error(answer) == "name_held"
        answer = ann.post(f"/api/tables/{code}/join", json={"name": "Ann"})
        assert answer.status_code == 200, answer.text
        table = site.services.lobby.find(code).table  # the rating work keys by this
        ann_id = account(ann)["id"]  # type: ignore[index]
        assert table.place(answer.json()["seat"]).account == ann_id
        answer = bea.post(f"/api/tables/{code}/join", json={"name": "Bea"})
        assert table.place(answer.json()["seat"]).account is None  # no account: as before

        # A rename releases the old name; the new one is held.
        renamed = ann.put("/api/account/name", json={"name": "Annie"})
        assert renamed.status_code == 200 and renamed.json()["account"]["name"] == "Annie"
        make_account(bea, site.authenticator(), "Ann")
        answer = bea.put("/api/account/name", json={"name": "annie"})
        assert answer.status_code == 409 and error(answer) == "name_held"
        answer = ann.put("/api/account/name", json={"name": "ANNIE"})  # its own, written anew
        assert answer.status_code == 200 and answer.json()["account"]["name"] == "ANNIE"


def test_several_passkeys_and_never_none(site: Site) -> None:
    first, second = site.authenticator(), site.authenticator()
    with site.browser() as ann:
        make_account(ann, first, "Ann")
        shown = account(ann)
        assert shown is not None
        only = shown["passkeys"][0]["id"]
        answer = ann.delete(f"/api/account/passkeys/{only}")
        assert answer.status_code == 409 and error(answer) == "last_passkey"

        begun = ann.post("/api/account/passkeys/begin", json={}).json()
        excluded = [c["id"] for c in begun["publicKey"]["excludeCredentials"]]
        assert excluded == [only_credential(first)]  # the browser won't make it twice
        added = ann.post(
            "/api/account/passkeys",
            json={"ceremony": begun["ceremony"], "credential": second.register(begun["publicKey"])},
        )
        assert added.status_code == 201, added.text
        shown = account(ann)
        assert shown is not None and len(shown["passkeys"]) == 2
        with site.browser() as laptop:
            assert sign_in(laptop, second).status_code == 200
        assert ann.delete(f"/api/account/passkeys/{only}").status_code == 200
        with site.browser() as laptop:
            gone = sign_in(laptop, first)
            assert gone.status_code == 401 and error(gone) == "unknown_passkey"
            assert account(laptop) is None
    with site.browser() as stranger:  # signed out, nothing to manage
        answer = stranger.post("/api/account/passkeys/begin", json={})
        assert answer.status_code == 401 and error(answer) == "not_signed_in"


def only_credential(key: Authenticator) -> str:
    return b64(key.credential_id)


def test_a_restart_keeps_accounts_sessions_and_passkeys(tmp_path: Path) -> None:
    db, port = tmp_path / "kept.db", free_port()
    with serving(db, port=port) as site, site.browser() as ann:
        key = site.authenticator()
        make_account(ann, key, "Ann")
        cookie = ann.cookies["nertz_session"]
    with serving(db, port=port) as site, site.browser() as ann, site.browser() as phone:
        ann.cookies.set("nertz_session", cookie)
        shown = account(ann)  # still signed in
        assert shown is not None and shown["name"] == "Ann"
        assert sign_in(phone, key).status_code == 200  # the passkey was kept
        begun = begin_signin(phone)  # and its counter: an old one is refused
        old = phone.post(
            "/api/account/signin",
            json={
                "ceremony": begun["ceremony"],
                "credential": key.sign_in(begun["publicKey"], count=1),
            },
        )
        assert old.status_code == 400 and error(old) == "bad_passkey"


def _play(site: Site, browser: httpx.Client, name: str) -> str:
    """A one-hand match against a bot that ``browser`` wins (its ace, then Nertz, R27)."""
    made = browser.post(
        "/api/test/tables",
        json={
            "layouts": [ANN, BOT],
            "seats": 2,
            "bots": {"1": "beginner"},
            "options": {"match": "single"},
            "countdown_ms": 100,
        },
    ).json()
    code: str = made["code"]
    seat = browser.post(f"/api/tables/{code}/join", json={"name": name})
    assert seat.status_code == 200, seat.text
    with connect(f"ws://127.0.0.1:{site.port}/ws") as ws:
        ws.send(json.dumps({"type": "hello", "table": code, "token": seat.json()["token"]}))
        ws.send(json.dumps({"type": "ready"}))
        _until(ws, "go")
        ws.send(json.dumps({"type": "play", "seq": 1, "move": "N>F"}))
        ws.send(json.dumps({"type": "call", "seq": 2}))
        _until(ws, "match_end")
    return code


def _until(ws: ClientConnection, kind: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        message = json.loads(ws.recv(max(0.01, deadline - time.monotonic())))
        if message["type"] == "event" and message["e"]["k"] == kind:
            return


def test_a_signed_in_device_brings_its_games_to_the_account(site: Site) -> None:
    laptop, phone = secrets.token_hex(32), secrets.token_hex(32)
    key = site.authenticator()
    with site.browser(laptop) as on_laptop:
        before = _play(site, on_laptop, "Ann")  # played before there was an account
        eventually(lambda: on_laptop.get("/api/me").json()["series"], "the laptop's finished match")
    with site.browser(phone) as on_phone:
        make_account(on_phone, key, "Ann")
        mine = on_phone.get("/api/me").json()
        assert mine["account"]["name"] == "Ann" and mine["series"] == []  # not joined yet
        with site.browser(laptop) as on_laptop:
            assert sign_in(on_laptop, key).status_code == 200  # the laptop signs in
            after = _play(site, on_laptop, "Ann")  # and plays, under the account's name
        codes = eventually(
            lambda: {s["code"] for s in on_phone.get("/api/me").json()["series"]} or None,
            "the laptop's games on the phone",
        )
        assert before in codes
        eventually(
            lambda: after in {s["code"] for s in on_phone.get("/api/me").json()["series"]},
            "the match the laptop played signed in",
        )
        assert on_phone.get("/api/me").json()["figures"]["wins"] == 2
    with site.browser(secrets.token_hex(32)) as stranger:  # without an account: as before
        alone = stranger.get("/api/me").json()
        assert "account" not in alone and alone["series"] == []


def test_accounts_from_one_address_are_a_quota_refused_before_a_passkey_is_made(
    tmp_path: Path,
) -> None:
    limits = Limits(accounts_per_day=2, ceremonies_per_minute=200)
    with serving(tmp_path / "q.db", limits=limits) as site:
        for name in ("Ann", "Bea"):
            with site.browser() as person:
                make_account(person, site.authenticator(), name)
        with site.browser() as third:
            answer = third.post("/api/account/new", json={"name": "Cy"})
            assert answer.status_code == 429 and error(answer) == "too_many_accounts"
            assert "2 new accounts a day" in answer.json()["reason"]
            assert int(answer.headers["retry-after"]) > 0
            assert account(third) is None


def test_ceremonies_in_memory_are_bounded_expire_and_answer_once() -> None:
    now = [0.0]
    ceremonies = Ceremonies(
        RelyingParty.of(("http://localhost:8000",)), cap=2, clock=lambda: now[0], lifetime_s=300
    )
    first, options = ceremonies.signin()
    assert options["rpId"] == "localhost" and len(unb64(options["challenge"])) == 32
    ceremonies.signin()
    with pytest.raises(RequestError) as full:
        ceremonies.signin()  # a third while two are under way: the server-wide cap
    assert full.value.code == "too_many_ceremonies" and full.value.status == 503
    now[0] = 301.0  # both expired: room again, and an expired one answers nothing
    ceremonies.signin()
    assert len(ceremonies) == 1
    with pytest.raises(RequestError) as late:
        ceremonies.take(first, "signin")
    assert late.value.code == "unknown_ceremony"
    fresh, _ = ceremonies.signin()
    assert ceremonies.take(fresh, "signin").kind == "signin"
    with pytest.raises(RequestError) as again:
        ceremonies.take(fresh, "signin")  # once only
    assert again.value.code == "unknown_ceremony"
    assert RelyingParty.of(("http://127.0.0.1:8000",)) == RelyingParty(
        "localhost", ("http://localhost:8000",)
    )  # no browser takes an IP address as RP ID
