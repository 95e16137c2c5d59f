"""``nertz replay``: a match in the match notation (docs/notation.md), replayed in the
terminal.

    nertz replay match.txt                    each hand's scores, the totals, the winners
    nertz replay match.txt --hand 3           one hand: how it ended and its scores
    nertz replay match.txt --hand 3 --step    each input and the position after it

The file is what ``GET /api/matches/{id}/notation`` gives (``-`` reads standard
input). Each hand is rebuilt by the engine's replay from its deal and inputs (R33), so
the scores are the engine's own (R29-R32). With ``--step`` a terminal waits for Enter
between steps (``q`` stops); otherwise every step is printed. A file that is not a
match stops the command with one line naming the line and what is wrong, exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from nertz.engine import (
    Called,
    CardsMoved,
    EndReason,
    Event,
    Hand,
    HandEnded,
    HandText,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Match,
    MatchText,
    NotationError,
    Player,
    Rotated,
    SaidStuck,
    StockTurned,
    apply,
)
from nertz.engine.match_text import MAX_CHARS

__all__ = ["add_parser", "main", "read_match"]

_LIGHT: dict[str, Any] = {"box": box.SIMPLE_HEAD, "show_edge": False, "padding": (0, 0, 0, 1)}


class _Stop(ValueError):
    """A file or an argument the command cannot use; the message is the one line shown."""


def add_parser(sub: Any) -> None:
    """Register ``replay`` on the ``nertz`` command's subparsers."""
    p = sub.add_parser(
        "replay",
        help="replay a match saved in the match notation: scores, or one hand step by step",
        description="Replay a match in the match notation (docs/notation.md).",
    )
    p.add_argument("file", help="the match's file (GET /api/matches/{id}/notation); - for stdin")
    p.add_argument("--hand", type=int, default=None, help="one hand, by its number in the file")
    p.add_argument(
        "--step",
        action="store_true",
        help="step through the hand (the first unless --hand): each input and what it did",
    )
    p.error = _one_line


def _one_line(message: str) -> NoReturn:
    print(f"nertz replay: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_match(name: str) -> MatchText:
    """The match in file ``name`` (``-``: standard input), read and every hand replayed;
    ``ValueError`` with one line saying what is wrong, and where."""
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_CHARS + 1)
        else:
            with Path(name).open("rb") as file:
                data = file.read(MAX_CHARS + 1)
    except OSError as error:
        raise _Stop(f"{name}: {error.strerror or error}") from None
    if len(data) > MAX_CHARS:
        raise _Stop(f"{name}: larger than {MAX_CHARS} bytes: not a match in the notation")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise _Stop(f"{name}: line {line}: not UTF-8 text") from None
    try:
        return MatchText.parse(text)
    except NotationError as error:
        raise _Stop(f"{name}: {error}") from None


def main(args: argparse.Namespace, console: Console | None = None) -> int:
    """Run ``nertz replay``; returns the exit code."""
    console = console or Console()
    try:
        match = read_match(args.file)
        if args.hand is None and not args.step:
            show_match(console, match)
            return 0
        hand = _chosen(match, args.hand)
    except _Stop as error:
        print(f"nertz replay: error: {error}", file=sys.stderr)
        return 2
    if args.step:
        step(console, match, hand, wait=sys.stdin.isatty() and sys.stdout.isatty())
    else:
        ended = hand.replay(match.rules)
        _show_layouts(console, ended, range(ended.deal.seats))
    show_hand_scores(console, match, hand)
    return 0


def _chosen(match: MatchText, number: int | None) -> HandText:
    if not match.hands:
        raise _Stop("the match has no hands")
    if number is None:
        return match.hands[0]
    for hand in match.hands:
        if hand.number == number:
            return hand
    numbers = ", ".join(str(h.number) for h in match.hands[:20])
    more = " ..." if len(match.hands) > 20 else ""
    raise _Stop(f"--hand: there is no hand {number} in the file (its hands: {numbers}{more})")


def seat_label(seat: int, players: Sequence[Player]) -> str:
    """``1 Ann``, ``2 Ada (expert)``, ``3 Ann & Bob`` (R40), ``4 bot casual``."""
    names = []
    for player in players:
        if player.name is not None:
            names.append(player.name + (f" ({player.bot})" if player.bot else ""))
        elif player.bot is not None:
            names.append(f"bot {player.bot}")
    return f"{seat + 1} " + (" & ".join(names) or "nobody")


def show_match(console: Console, match: MatchText) -> None:
    """Each hand's scores as the engine replays them, the totals and the winners (R32)."""
    labels = [seat_label(s, p) for s, p in enumerate(match.seats)]
    changed = " ".join(f"{k}={_option(v)}" for k, v in match.rules.changed().items())
    console.print(
        f"[bold]{escape(match.title or 'a match')}[/]: {len(match.hands)} hand(s), "
        f"{len(labels)} seats, rules {changed or 'standard'}"
    )
    table = Table(title="scores per hand", **_LIGHT)
    table.add_column("hand", justify="right")
    for label in labels:
        table.add_column(escape(label), justify="right")
    table.add_column("called")
    running = Match(len(labels), match.rules)
    over_after: int | None = None
    for hand in match.hands:
        ended = hand.replay(match.rules)
        scores = ended.scores()
        caller = ended.caller if ended.end_reason is EndReason.CALLED else None
        if not ended.over:  # a deal alone, or a hand cut short: nothing to count (R32)
            table.add_row(str(hand.number), *("-" for _ in scores), _ending(ended))
            continue
        table.add_row(str(hand.number), *(str(s.score) for s in scores), _ending(ended))
        if running.over:
            over_after = over_after or hand.number
        else:
            running.record(scores, caller)
    table.add_section()
    table.add_row("total", *(str(t) for t in running.totals), "")
    console.print(table)
    if running.over:
        winners = ", ".join(escape(labels[s]) for s in running.winners)
        console.print(f"won by {winners} (R32)")
    else:
        console.print("the match is not over after these hands (R32)")
    if over_after is not None:
        console.print(f"the match was over before hand {over_after}: later hands not counted")


def show_hand_scores(console: Console, match: MatchText, hand: HandText) -> None:
    """One hand's scores (R29-R31): cards to the middle, Nertz cards left, bonus."""
    ended = hand.replay(match.rules)
    table = Table(title=f"hand {hand.number}: {_ending(ended, 'called by seat')}", **_LIGHT)
    for column in ("seat", "to middle", "Nertz left", "bonus", "score"):
        table.add_column(column, justify="left" if column == "seat" else "right")
    for seat, s in enumerate(ended.scores()):
        label = escape(seat_label(seat, match.seats[seat]))
        table.add_row(label, str(s.middle), str(s.nertz_left), str(s.bonus), str(s.score))
    console.print(table)


def step(console: Console, match: MatchText, hand: HandText, wait: bool) -> None:
    """Each input of ``hand`` in turn, with what it did and the position after it:
    the acting seat's layout (every seat's when the table rotates or the hand ends) and
    the middle's foundations, each by its top card and that card's owner."""
    state = Hand(hand.deal, match.rules)
    seed = f"seed {hand.deal.seed}" if hand.deal.seed is not None else "a written deal"
    console.print(f"[bold]hand {hand.number}[/] ({seed}), {len(hand.inputs)} inputs")
    _show_layouts(console, state, range(state.deal.seats))
    for index, entry in enumerate(hand.inputs, 1):
        at_ms, seat, text = entry
        outcome = apply(state, entry)
        who = "table " if seat < 0 else f"seat {seat + 1}"
        did = "; ".join(_event(e) for e in outcome.events)
        console.print(
            f"[bold][{index}/{len(hand.inputs)}][/] {at_ms} ms  {who} {escape(text)}"
            + (f"  [dim]{escape(did)}[/]" if did else "")
        )
        everyone = any(isinstance(e, Rotated | HandEnded) for e in outcome.events)
        _show_layouts(console, state, range(state.deal.seats) if everyone else [seat])
        if wait and index < len(hand.inputs):
            answer = console.input("[dim]Enter: next step, q: stop[/] ")
            if answer.strip().lower() == "q":
                return


def _show_layouts(console: Console, state: Hand, seats: Sequence[int] | range) -> None:
    for seat in seats:
        if seat >= 0:
            console.print(f"    seat {seat + 1}  {escape(state.seats[seat].to_text())}")
    tops = "  ".join(f"F{f.number + 1} {f.texts()[-1]}" for f in state.foundations)
    console.print(f"    middle  {tops or '-'}")


def _event(event: Event) -> str:
    if isinstance(event, CardsMoved):
        cards = " ".join(map(str, event.cards))
        pile = event.move.dst + 1
        if event.foundation >= 0:
            return f"{cards} to F{event.foundation + 1}" + (" (a tie, R16)" if event.tie else "")
        if event.move.kind is Kind.UNDER:
            return f"{cards} under work pile {pile} (R19)"
        return f"{cards} onto work pile {pile}"
    if isinstance(event, StockTurned):
        return "turned " + (" ".join(map(str, event.cards)) or "the waste over")
    if isinstance(event, Rotated):
        return "the table rotates (R25)"
    if isinstance(event, HandEnded):
        return f"the hand ends: {event.reason.value}"
    if isinstance(event, Called):
        return "Nertz! (R27)"
    if isinstance(event, SaidStuck):
        return "stuck (R25)"
    if isinstance(event, JokerAnnounced):
        return f"{event.joker} announced as {event.move.announced} (R41)"
    if isinstance(event, JokerStayed):
        return f"{event.joker} stays home: {event.reason}"
    return type(event).__name__.lower()


def _ending(hand: Hand, called: str = "seat") -> str:
    """How the hand ended: who called (R27), ``blocked`` (R26), or ``not over``."""
    if hand.end_reason is EndReason.CALLED and hand.caller is not None:
        return f"{called} {hand.caller + 1}"
    return hand.end_reason.value if hand.end_reason is not None else "not over"


def _option(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
