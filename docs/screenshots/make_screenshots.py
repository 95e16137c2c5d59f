"""Regenerate the README's screenshots (``make screenshots``): a real server on a free
port, Debian's Chromium, a table against three bots mid-hand, the hand-end breakdown,
the table on a phone held sideways and upright, the score sheet with R31's worked hands,
a joker table (R41), a partnership table (R40), the end of a match in a series, the
invite dialog, a player's own history (/me and a match page), the guided first hand
(``/learn``) after a wrong move and the table chat.

``make_screenshots.py series invite`` writes only those (any of ``jokers``,
``partners``, ``series``, ``invite``, ``me``,
``guided``, ``chat``)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from nertz.server.http.app import Config, create_app

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, ROOMY, Server  # noqa: E402
from tests.browser.helpers import seat_all, seat_in, settle  # noqa: E402

ME = (
    "nertz: 8C 3S JD 4H 9S 2D QC 6H 5C 10D 7S 2H AH; work: 6S / 9C / KC / 4C; "
    "stock: 2C 3C 7H 8D 10S 9H AC 5D 4S 3H KD; waste: -"
)
BOTS = [
    "nertz: 2C 7D QS 9H 4D KS 5H 10C 3D JS 6C AS AD; work: 8H / JC / 5S / 10H; "
    "stock: 2S 3C 4H 6D 7C 8S 9D QH AC 2D KC; waste: -",
    "nertz: 5D 8S 3H 10S 2C JH 6S 9D 4C QD 7H KH AC; work: 9S / 4D / QC / 7S; "
    "stock: 3S 5C 6H 8D 2H 10C JS KD 4S 9C AH; waste: -",
    "nertz: 6C 9D JS 2S 4H 10H 7C 3C QH 5S 8H KC AS; work: 3D / 10D / 6D / JC; "
    "stock: 2H 4S 5H 7D 8C 9S QS KS 2D 3H AD; waste: -",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# R41: Ann has a joker pinned on a work pile (a red 7 lies on it: it stands for a black 8)
# and one on her Nertz pile; Bert has two at the ends of his work piles.
ANN = (
    "nertz: 8C 3S JD 4H 9S 2D QC 6H 5C 10D 7S 2H JK1; work: 9H JK2 7D / 9C / KC / 4C; "
    "stock: 2C 3C 7H 8D 10S AC 5D 4S 3H KD; waste: -"
)
BEN = (
    "nertz: 5D 8S 3H 10S 2C JH 6S 9D 4C QD 7H KH 3C; work: AH / JK1 / JK2 / 7S; "
    "stock: 3S 5C 6H 8D 2H 10C JS KD 4S 9C AC; waste: -"
)


def two_people(browser: Browser, url: str, *names: str) -> list[Page]:
    """A page for each person, seated at ``url`` (at a partnership table, side by side),
    all ready, and play started."""
    pages = [
        browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720}) for _ in names
    ]
    seat_all(pages, url, list(names))
    return pages


def jokers(browser: Browser, api: Server) -> None:
    """A joker table from Ann's seat: Bert's joker landed on F1 as the 2♥, his second
    announced as the 3♥ and counting down, Ann's pinned joker, and her chooser open."""
    code = api.table(
        [ANN, BEN, BOTS[1], BOTS[2]],
        bots={"2": "casual:balanced", "3": "casual:scorer"},
        countdown_ms=300,
        options={"jokers": "on", "joker_announce_ms": "3000"},
    )
    ann, ben = two_people(browser, f"{api.url}/t/{code}", "Ann", "Bert")
    ben.keyboard.press("1")
    ben.keyboard.press("f")  # the ace of hearts starts F1
    ben.wait_for_selector('.fslot .card[aria-label^="foundation F1: ace of hearts"]')
    for pile, card in (("2", "2 of hearts on F1"), ("3", "3 of hearts on F1")):
        ben.keyboard.press(pile)
        ben.keyboard.press("f")
        ben.click(f'.chooser button[aria-label="{card}"]')
        if pile == "2":  # the first lands when its window ends
            ann.wait_for_selector('.fslot .card[aria-label^="foundation F1: joker as 2"]')
    ann.wait_for_selector('.fslot[data-drop="F1"] .announce')
    ann.keyboard.press("0")
    ann.keyboard.press("f")  # Ann's own joker: the chooser
    ann.wait_for_selector(".chooser button.choice")
    ann.wait_for_timeout(600)
    settle(ann)
    ann.screenshot(path=str(HERE / "jokers.png"))
    ann.close()
    ben.close()


def partners(browser: Browser, api: Server) -> None:
    """A partnership table (R40) from Bob's page: Ann and Bob share seat 1 against two
    pairs of bots, and Ann has picked up her Nertz card (Bob sees it held by her)."""
    code = api.table(
        [ME, *BOTS[:2]],
        bots={"1": "skilled:balanced+casual:racer", "2": "casual:scorer+skilled:balanced"},
        countdown_ms=300,
        options={"partnerships": "on"},
    )
    ann, bob = two_people(browser, f"{api.url}/t/{code}", "Ann", "Bob")  # paired at seat 1
    bob.keyboard.press("0")
    bob.keyboard.press("f")  # Bob sends the ace of hearts to the middle
    bob.wait_for_timeout(2500)
    ann.click('.mine [data-src="N"]')  # Ann picks up the next Nertz card
    bob.wait_for_selector(".mine .held-by")
    bob.wait_for_timeout(300)
    settle(bob)
    bob.screenshot(path=str(HERE / "partners.png"))
    ann.close()
    bob.close()


def series(browser: Browser, api: Server) -> None:
    """The end of a one-hand match from Bert's page: Ann called and won, the series stands
    1-0, Ann has pressed "Play again" and the table waits for Bert."""
    ann_hand = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
    code = api.table(
        [ann_hand, BOTS[0], BOTS[1]],
        bots={"2": "casual:scorer"},
        countdown_ms=300,
        options={"match": "single"},
    )
    ann, ben = two_people(browser, f"{api.url}/t/{code}", "Ann", "Bert")
    ann.dblclick('.mine [data-src="N"]')
    ann.wait_for_selector('.fslot .card[aria-label^="foundation F1: ace of hearts"]')
    ann.keyboard.press("n")
    ann.click(".again-btn")
    ben.wait_for_selector("text=plays again")
    ben.wait_for_timeout(300)
    ben.screenshot(path=str(HERE / "series.png"))
    ann.close()
    ben.close()


def invite(browser: Browser, api: Server) -> None:
    """The invite dialog at a private table: the code to type, the link, Copy invite and
    the QR code, and the watch link."""
    made = api.post("/api/tables", {"seats": 3, "public": False, "bots": {"2": "casual"}})
    ann = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    ann.goto(f"{api.url}{made['link']}")
    ann.fill("#join-name", "Ann")
    ann.click("text=Take a seat")
    ann.wait_for_selector(".ready-btn")
    ann.click(".overlay .invite-open")
    ann.wait_for_selector("dialog .qr-box svg")
    ann.wait_for_timeout(300)
    ann.screenshot(path=str(HERE / "invite.png"))
    ann.close()


def my_games(browser: Browser, api: Server) -> None:
    """Ann's "My games" (/me) after a series of two one-hand matches with Bert and a
    bot: she called and won the first, Bert the second; then match 1 hand by hand."""
    ann_hand = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
    ben_hand = "nertz: AD; work: KS / QD / 8D / 3S; stock: 4H 5H 6H; waste: -"
    code = api.table(
        [ann_hand, ben_hand, BOTS[1]],
        bots={"2": "casual:scorer"},
        countdown_ms=300,
        options={"match": "single"},
    )
    ann, ben = two_people(browser, f"{api.url}/t/{code}", "Ann", "Bert")
    for caller in (ann, ben):
        caller.dblclick('.mine [data-src="N"]')
        caller.wait_for_selector('.fslot .card[aria-label*="ace of"]')
        caller.keyboard.press("n")
        for page in (ann, ben):
            page.wait_for_selector(".again-btn")
        if caller is ann:
            for page in (ann, ben):
                page.click(".again-btn")
            for page in (ann, ben):
                page.wait_for_selector("text=Play!")
    ann.goto(f"{api.url}/me")
    ann.wait_for_selector(".series-block")
    ann.screenshot(path=str(HERE / "me.png"))
    ann.click("text=Match 1")
    ann.wait_for_selector("svg.chart")
    ann.screenshot(path=str(HERE / "match.png"))
    ann.close()
    ben.close()


def guided(browser: Browser, api: Server) -> None:
    """The guided first hand at step 3, just after a wrong move and its explanation."""
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page.goto(f"{api.url}/learn")
    page.click("#start-lesson")
    page.wait_for_selector(".status:text('Play!')")
    for step, target in [(2, ".middle"), (3, '[data-drop="F1"]'), (3, '.mine [data-pile="2"]')]:
        settle(page)
        page.click('.mine [data-src="N"]')
        page.click(target)
        page.wait_for_selector(f".lesson .step-no:text('Step {step} of')")
    page.wait_for_selector(".lesson .wrong")
    page.wait_for_timeout(3500)  # the refusal's toast fades; the lesson's words stay
    settle(page)
    page.screenshot(path=str(HERE / "learn.png"))
    page.close()


def chat(browser: Browser, api: Server) -> None:
    """Ann's page mid-hand with the chat open beside the table (above her own layout):
    Bert's markup shown as text, and his reaction on his seat."""
    code = api.table([ME, BOTS[0], BOTS[1]], bots={"2": "casual:scorer"}, countdown_ms=300)
    ann, ben = two_people(browser, f"{api.url}/t/{code}", "Ann", "Bert")
    for page in (ann, ben):
        page.click(".chat-btn")
    lines = [
        (ben, "gl hf!"),
        (ann, "you too"),
        (ben, "<b>bold?</b> no: chat is plain text"),
        (ann, "that 2♠ was mine 😤"),
    ]
    for n, (page, text) in enumerate(lines, start=1):
        page.fill(".chat-input", text)
        page.press(".chat-input", "Enter")  # during play the keys go back to the cards
        ann.wait_for_selector(f'.chat-line[data-n="{n}"]')
    ann.keyboard.press("0")
    ann.keyboard.press("f")
    ben.click('.react-btn[data-what="😂"]')
    ann.wait_for_selector('.opp[data-seat="1"] .reaction')
    settle(ann)
    ann.screenshot(path=str(HERE / "chat.png"))
    ann.close()
    ben.close()


EXTRA = {
    "jokers": jokers,
    "partners": partners,
    "series": series,
    "invite": invite,
    "me": my_games,
    "guided": guided,
    "chat": chat,
}
"""The shots that can be made alone (``make_screenshots.py NAME ...``)."""


def every_shot(browser: Browser, api: Server) -> None:
    """The table mid-hand, the hand-end breakdown, the phones and the score sheet, then
    each of ``EXTRA``."""
    bots = {"1": "skilled:balanced", "2": "casual:racer", "3": "skilled:scorer"}
    page = browser.new_page(bypass_csp=True, viewport={"width": 1280, "height": 720})
    code = api.table([ME, *BOTS], bots=bots, countdown_ms=300)
    seat_in(page, f"{api.url}/t/{code}", "Tess")
    for key in ["0", "f", "0", "f", " ", "2", "f"]:
        page.keyboard.press(key)
        page.wait_for_timeout(500)
    page.wait_for_timeout(4000)
    page.keyboard.press("0")
    settle(page)
    page.screenshot(path=str(HERE / "table.png"))
    # A small hand that ends soon: the breakdown and the chart.
    small = api.table(
        [
            "nertz: 5D 2H AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H",
            "nertz: 3S 2S AS; work: 8H / 7C / QD / 10H; stock: 4S 5S",
            "nertz: 4D 9D 3D; work: AD / 2D / KH / 5C; stock: 6C 7D",
        ],
        bots={"1": "beginner:scorer", "2": "beginner:scorer"},
        options={"caller_bonus": "10"},
    )
    seat_in(page, f"{api.url}/t/{small}", "Tess")
    for key, card in [("f", "2 of hearts"), ("f", "5 of diamonds"), ("1", None)]:
        page.keyboard.press("0")
        page.keyboard.press(key)
        if card:
            page.wait_for_function(
                f"document.querySelector('.mine [data-src=N]')?.ariaLabel === '{card}'"
            )
        page.wait_for_timeout(1500)
    page.keyboard.press("n")
    page.wait_for_selector(".hand-end", timeout=10_000)
    settle(page)
    page.screenshot(path=str(HERE / "hand-end.png"))
    for name, shot, phone in (
        (
            "Phoebe",
            "phone.png",
            browser.new_page(
                bypass_csp=True, viewport={"width": 844, "height": 390}, has_touch=True
            ),
        ),
        (
            "Uma",
            "phone-portrait.png",
            browser.new_page(
                bypass_csp=True,
                viewport={"width": 390, "height": 844},
                has_touch=True,
                is_mobile=True,
            ),
        ),
    ):
        code = api.table([ME, *BOTS], bots=bots, countdown_ms=300)
        seat_in(phone, f"{api.url}/t/{code}", name)
        phone.keyboard.press("0")
        phone.keyboard.press("f")
        phone.wait_for_timeout(5000)
        settle(phone)
        phone.screenshot(path=str(HERE / shot))
    sheet = api.post(
        "/api/sheets",
        {"names": ["Ann", "Bob", "Cat", "Dan", "Eve"], "options": {"target": "35"}},
    )
    hands = [
        ([18, 3, 14, 22, 22], [4, 6, 0, 3, 1], 2),
        ([20, 9, 11, 25, 16], [0, 5, 3, 2, 2], 0),
    ]
    for middle, left, caller in hands:
        api.post(
            f"/api/sheets/{sheet['id']}/hands",
            {"middle": middle, "nertz_left": left, "caller": caller},
        )
    page.goto(f"{api.url}/sheet/{sheet['id']}")
    page.wait_for_selector("svg.chart")
    page.screenshot(path=str(HERE / "score-sheet.png"), full_page=True)
    for shot in EXTRA.values():
        shot(browser, api)


def main() -> None:
    only = sys.argv[1:]
    started = time.time()
    port = free_port()
    tmp = HERE / ".shots.db"
    for old in HERE.glob(".shots.db*"):
        old.unlink()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(Config(db=str(tmp), port=port, test_hooks=True, limits=ROOMY)),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    api = Server(f"http://127.0.0.1:{port}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if only:
            for name in only:
                EXTRA[name](browser, api)
        else:
            every_shot(browser, api)
        browser.close()
    server.should_exit = True
    thread.join(10)
    for old in HERE.glob(".shots.db*"):
        old.unlink()
    written = [p for p in sorted(HERE.glob("*.png")) if p.stat().st_mtime >= started]
    print("wrote", ", ".join(str(p.relative_to(HERE.parent.parent)) for p in written))


if __name__ == "__main__":
    main()
