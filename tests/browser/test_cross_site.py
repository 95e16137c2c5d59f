"""Cross-site requests in Chromium (issue 24, 5): a page of another site, served from a
second origin, cannot seat its visitor, create tables in the visitor's name or open a
WebSocket; a name rebound to the server gets nothing; the site's own pages still work."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserType, Page

from ..live_server import free_port
from .conftest import CHROMIUM, CHROMIUM_ARGS, Console, Server

FOREIGN = """<!doctype html><meta charset="utf-8"><title>Free cards</title>
<form id="join" method="post" enctype="text/plain" action="{http}/api/tables/{code}/join">
  <input name='{{"name": "Visitor", "x": "' value='"}}'>
</form>
<script>
window.results = {{}};
(async () => {{
  const body = JSON.stringify({{seats: 2}});
  try {{
    await fetch("{http}/api/tables", {{method: "POST", mode: "no-cors",
      headers: {{"Content-Type": "text/plain"}}, body}});
    results.plain = "sent";
  }} catch (e) {{ results.plain = "failed"; }}
  try {{
    await fetch("{http}/api/tables", {{method: "POST",
      headers: {{"Content-Type": "application/json"}}, body}});
    results.json = "answered";
  }} catch (e) {{ results.json = "refused"; }}
  await new Promise((done) => {{
    const ws = new WebSocket("{ws}");
    ws.onopen = () => {{ results.ws = "open"; ws.close(); done(); }};
    ws.onclose = () => {{ results.ws = results.ws || "refused"; done(); }};
  }});
  results.done = true;
}})();
</script>"""


class _Foreign(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def foreign(server: Server) -> Iterator[tuple[str, str]]:
    """Another site (127.0.0.2, its own port) whose page attacks ``server`` at a new
    public table: (the page's URL, the table's code)."""
    code = server.post("/api/tables", {"seats": 2})["code"]
    ws = server.url.replace("http://", "ws://") + "/ws"
    page = FOREIGN.format(http=server.url, code=code, ws=ws).encode()
    handler = type("Foreign", (_Foreign,), {"page": page})
    site = http.server.ThreadingHTTPServer(("127.0.0.2", free_port()), handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.2:{site.server_address[1]}/", code
    finally:
        site.shutdown()
        site.server_close()


def refusals(server: Server, code: str) -> float:
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as answer:
        text = answer.read().decode()
    for line in text.splitlines():
        if line.startswith(f'nertz_refusals_total{{code="{code}"}}'):
            return float(line.split()[-1])
    return 0.0


def test_a_foreign_page_can_neither_seat_its_visitor_nor_create_tables_nor_connect(
    page: Page, server: Server, foreign: tuple[str, str]
) -> None:
    url, code = foreign
    before = refusals(server, "cross_site")
    page.goto(url)
    page.wait_for_function("window.results.done === true", timeout=15_000)
    results = page.evaluate("window.results")
    assert results["json"] == "refused"  # its preflight is refused: the POST never leaves
    assert results["ws"] == "refused"
    assert refusals(server, "cross_site") == before + 1  # the text/plain fetch
    with page.expect_navigation():
        page.evaluate("document.getElementById('join').submit()")
    assert json.loads(page.inner_text("body"))["error"] == "cross_site"
    assert refusals(server, "cross_site") == before + 2
    seats = server.get(f"/api/tables/{code}")["seats"]
    assert [s["name"] for s in seats] == [None, None]  # no "Visitor" sat down


def test_the_sites_own_pages_work_under_their_policy(browser: Browser, server: Server) -> None:
    """The site's own pages, opened under their Content-Security-Policy (the other
    browser tests bypass it for Playwright's eval), show no violation, and from them a
    change and a WebSocket are the site's own: served."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        console = Console()
        console.watch(page)
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Policy" in m.text else None)
        code = server.post("/api/tables", {"seats": 2})["code"]
        for path in ("/", f"/t/{code}", "/rules", "/sheet", "/learn"):
            page.goto(server.url + path)
            page.wait_for_load_state("networkidle")
        page.goto(server.url + "/")
        made = page.evaluate(
            """async () => {
              const r = await fetch("/api/tables", {method: "POST",
                headers: {"Content-Type": "application/json"}, body: JSON.stringify({seats: 2})});
              const opened = await new Promise((done) => {
                const ws = new WebSocket(location.origin.replace("http", "ws") + "/ws");
                ws.onopen = () => { ws.close(); done(true); };
                ws.onclose = () => done(false);
              });
              return {status: r.status, opened};
            }"""
        )
        assert made == {"status": 201, "opened": True}
        assert violations == [] and console.errors == [], (violations, console.errors)
    finally:
        context.close()


def test_a_name_rebound_to_the_server_gets_nothing(
    browser_type: BrowserType, server: Server
) -> None:
    """DNS rebinding: a name of the attacker's made to point at the server (here by
    Chromium's resolver rules) is not the server's Host: every page is refused."""
    port = server.url.rsplit(":", 1)[1]
    rules = "--host-resolver-rules=MAP rebind.test 127.0.0.1"
    browser = browser_type.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, rules])
    try:
        page = browser.new_page()
        answer = page.goto(f"http://rebind.test:{port}/")
        assert answer is not None and answer.status == 421
        assert "unknown_host" in page.inner_text("body")
        own = page.goto(f"{server.url}/")
        assert own is not None and own.status == 200
    finally:
        browser.close()
