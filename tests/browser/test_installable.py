"""Installable: the web manifest names the app, its start page and its icons; the
service worker (``/sw.js``, scope ``/``) controls the pages and keeps the client's
shell, so with the network cut the page still opens and says it is offline."""

from __future__ import annotations

import struct
import urllib.request

from playwright.sync_api import Browser, expect

from .conftest import Console, Server


def png_size(url: str) -> tuple[int, int]:
    with urllib.request.urlopen(url, timeout=10) as response:
        head = response.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", url
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_manifest_names_the_app_its_start_and_its_icons(server: Server) -> None:
    manifest = server.get("/manifest.webmanifest")
    assert manifest["name"] == "Nertz"
    assert manifest["start_url"] == "/"
    assert manifest["display"] == "standalone"
    sizes = {icon["sizes"]: icon["src"] for icon in manifest["icons"]}
    for size in (192, 512):
        assert png_size(server.url + sizes[f"{size}x{size}"]) == (size, size)


def test_the_service_worker_controls_the_site_and_offline_the_page_says_so(
    browser: Browser, server: Server
) -> None:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        console = Console()
        console.watch(page)
        page.goto(server.url)
        expect(page.locator("link[rel=manifest]")).to_have_attribute(
            "href", "/manifest.webmanifest"
        )
        # Installed and activated, it takes this page over (clients.claim) and holds
        # the shell.
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=15_000)
        scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
        assert scope == server.url + "/"
        assert page.evaluate("navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")
        page.wait_for_function(
            "caches.keys().then(ks => Promise.all(ks.map(k => caches.open(k)"
            ".then(c => c.match('/static/js/main.js'))))).then(rs => rs.some(Boolean))",
            timeout=15_000,
        )
        expect(page.locator(".offline")).to_be_hidden()
        assert console.errors == [], console.errors

        context.set_offline(True)
        page.reload()  # the shell comes from the cache: the page opens and says why it is bare
        expect(page.locator(".offline")).to_be_visible()
        expect(page.locator(".offline")).to_contain_text("You are offline")
        page.goto(server.url + "/rules")  # any page of the client, not only the home
        expect(page.locator(".offline")).to_be_visible()
        expect(page.locator("h1")).to_have_text("How to play Nertz")

        context.set_offline(False)
        page.goto(server.url)
        expect(page.locator(".offline")).to_be_hidden()
        expect(page.locator(".bot-choice")).to_have_count(4)
    finally:
        context.close()
