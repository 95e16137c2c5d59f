"""An account as people use it (issue 26, point 1 and the account page of point 4):
Chromium with a virtual authenticator (the DevTools WebAuthn domain) makes an account
with a passkey from the home page's entry, keeps its recovery code, signs out and in,
signs in on a second browser that holds a copy of the passkey, signs in on a third
with the recovery code (and gets a new one), adds a passkey and renames the account.

Browsers take no IP address as a passkey's relying party, so the server's public URL
is ``http://localhost:PORT`` (``--public-url``) and the pages are opened there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from nertz.server.http.app import Config

from ..live_server import free_port, running
from .conftest import ROOMY, Console
from .test_accessibility import scan

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    url = f"http://localhost:{port}"
    config = Config(db=str(tmp_path / "accounts.db"), port=port, public_urls=(url,), limits=ROOMY)
    with running(config):
        yield url


class Person:
    """One browser (its own context, so its own cookies and storage), its page, a
    console that must stay clean, and a virtual authenticator."""

    def __init__(self, browser: Browser) -> None:
        self.context: BrowserContext = browser.new_context(
            bypass_csp=True, viewport={"width": 1000, "height": 800}
        )
        self.page: Page = self.context.new_page()
        self.console = Console()
        self.console.watch(self.page)
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.send("WebAuthn.enable")
        found = self.cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
        self.authenticator: str = found["authenticatorId"]

    def credentials(self) -> list[dict[str, Any]]:
        found = self.cdp.send("WebAuthn.getCredentials", {"authenticatorId": self.authenticator})
        return list(found["credentials"])

    def hold(self, credential: dict[str, Any]) -> None:
        """Put a copy of ``credential`` in this browser's authenticator (a passkey
        synced to another device)."""
        self.cdp.send(
            "WebAuthn.addCredential",
            {"authenticatorId": self.authenticator, "credential": credential},
        )

    def close(self) -> None:
        assert self.console.errors == [], self.console.errors
        self.context.close()


@pytest.fixture
def people(browser: Browser) -> Iterator[list[Person]]:
    made = [Person(browser) for _ in range(3)]
    yield made
    for person in made:
        person.close()


def signed_in_as(page: Page, name: str) -> None:
    expect(page.locator("h1")).to_have_text(f"Your account — {name}", timeout=10_000)


def test_an_account_follows_its_player_from_browser_to_browser(
    site: str, people: list[Person], tmp_path: Path
) -> None:
    ann, laptop, phone = people
    page = ann.page
    page.goto(site)
    entry = page.locator("a.account-link")
    expect(entry).to_have_text("Sign in or make an account")
    entry.click()
    page.wait_for_url(f"{site}/account")

    page.fill("#account-name", "Ann")
    page.click("text=Make it with a passkey")
    code_box = page.locator(".recovery-code")
    expect(code_box).to_have_text(re.compile(r"^([A-Z2-9]{4}-){4}[A-Z2-9]{4}$"), timeout=10_000)
    code = code_box.inner_text()
    page.screenshot(path=str(tmp_path / "recovery-code.png"))
    scan(page, "the recovery code")  # axe, WCAG 2.1 AA, as every page
    page.click(".kept-code")
    signed_in_as(page, "Ann")
    assert len(ann.credentials()) == 1  # a discoverable passkey, on this device
    expect(page.locator(".passkey")).to_have_count(1)
    expect(page.locator(".remove-passkey")).to_be_disabled()  # never the last one

    page.goto(site)  # the home page's entry names the account
    expect(page.locator("a.account-link")).to_have_text("Account: Ann")
    page.screenshot(path=str(tmp_path / "home.png"))
    expect(page.locator("#name")).to_have_value("Ann")

    page.goto(f"{site}/account")
    page.click(".sign-out")
    expect(page.locator(".sign-in-passkey")).to_be_visible()
    page.screenshot(path=str(tmp_path / "signed-out.png"))
    scan(page, "the account page signed out")
    page.click(".sign-in-passkey")  # no name asked: the passkey says whose it is
    signed_in_as(page, "Ann")

    # A second browser with a copy of the passkey (synced): signs in with it.
    laptop.hold(ann.credentials()[0])
    laptop.page.goto(f"{site}/account")
    laptop.page.click(".sign-in-passkey")
    signed_in_as(laptop.page, "Ann")

    # A third, with no passkey at all: the recovery code, used up and replaced.
    phone.page.goto(f"{site}/account")
    phone.page.fill("#recover-name", "ann")
    phone.page.fill("#recover-code", code.lower())
    phone.page.click("text=Sign in with the code")
    fresh = phone.page.locator(".recovery-code")
    expect(fresh).to_be_visible(timeout=10_000)
    assert fresh.inner_text() != code
    phone.page.click(".kept-code")
    signed_in_as(phone.page, "Ann")

    # That browser adds a passkey of its own, then the account is renamed there.
    phone.page.click(".add-passkey")
    expect(phone.page.locator(".passkey")).to_have_count(2, timeout=10_000)
    assert len(phone.credentials()) == 1
    expect(phone.page.locator(".remove-passkey").first).to_be_enabled()
    phone.page.fill("#rename", "Annie")
    phone.page.click("text=Rename")
    signed_in_as(phone.page, "Annie")
    phone.page.screenshot(path=str(tmp_path / "account.png"))
    scan(phone.page, "the account page signed in")

    page.reload()  # the first browser sees the new name
    signed_in_as(page, "Annie")

    # The first passkey removed (from the phone): the laptop's copy signs in no more.
    phone.page.locator(".passkey").first.locator(".remove-passkey").click()
    expect(phone.page.locator(".passkey")).to_have_count(1)
    expect(phone.page.locator(".remove-passkey")).to_be_disabled()  # now the last one
    laptop.page.reload()
    laptop.page.click(".sign-out")
    laptop.page.click(".sign-in-passkey")
    expect(laptop.page.locator(".sign-in .error")).to_have_text(
        "this passkey is no account's here (was it removed?)"
    )
    expected = "console error: Failed to load resource: the server responded with a status of 401"
    assert [e for e in laptop.console.errors if e.startswith(expected)]  # the refusal itself
    laptop.console.errors = [e for e in laptop.console.errors if not e.startswith(expected)]
