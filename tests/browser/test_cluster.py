"""A page whose table runs on another node of a cluster gets there without the player
seeing (docs/cluster.md): two nodes on PostgreSQL and Redis behind a real HAProxy; the
page's first WebSocket is sent to the node that does not run the table, which answers
``route``; the page connects again through the balancer and plays, and never shows the
connection as lost."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect

from ..cluster.conftest import pg_url, postgres_url, redis_clean, redis_url  # noqa: F401
from ..cluster.harness import running
from .conftest import Console
from .helpers import seat_all

FIRST_TO_N2 = """
(() => {
  // Test-only: the page's first WebSocket asks the balancer for node n2 (which does not
  // run the table); every message is kept, and so is any "connection lost" shown.
  const Real = window.WebSocket;
  const log = { urls: [], got: [], lost: false };
  window.__cluster = log;
  function Socket(url, protocols) {
    if (log.urls.length === 0) url = url + (url.includes("?") ? "&" : "?") + "node=n2";
    log.urls.push(url);
    const ws = new Real(url, protocols);
    ws.addEventListener("message", (e) => log.got.push(JSON.parse(e.data).type));
    return ws;
  }
  Object.assign(Socket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  Socket.prototype = Real.prototype;
  window.WebSocket = Socket;
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver(() => {
      if (/Connection lost/.test(document.body.textContent)) log.lost = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
})();
"""


def test_a_page_follows_its_table_to_the_node_that_runs_it_unseen(
    page: Page,
    console: Console,
    pg_url: str,  # noqa: F811
    redis_clean: str,  # noqa: F811
) -> None:
    with running(pg_url, redis_clean, 2) as cluster:
        made = httpx.post(
            f"{cluster.http}/api/tables?node=n1",
            json={"seats": 2, "bots": {"1": "beginner:scorer"}, "countdown_ms": 300},
            timeout=10,
        )
        code = made.json()["code"]
        page.add_init_script(FIRST_TO_N2)
        seat_all([page], f"{cluster.http}/t/{code}", ["Ann"])
        log = page.evaluate("window.__cluster")
        assert "node=n2" in log["urls"][0] and "node=n1" in log["urls"][1], log["urls"]
        assert log["got"][0] == "route" and "state" in log["got"], log["got"]
        assert not log["lost"]
        assert cluster.node("n1").figures()["cluster"]["held"] == 1
        expect(page.locator(".mine")).to_be_visible()
