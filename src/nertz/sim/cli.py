"""``nertz simulate``: bots play many matches in virtual time; figures at the end.

    nertz simulate --seats expert,casual,casual,racer --matches 1000 --rules standard \\
        --set caller_bonus=10 --seed 7 --jobs 2 --json out.json --plot out.png

Seat specs are ``level``, ``style`` or ``level:style`` (``nertz.bots.seats``). A bad
argument stops the command with one line naming the problem and the allowed values,
and exit code 2. docs/simulate.md documents every figure and the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from nertz.bots import LEVELS, PAIR_SEP, STYLES, SeatSpec, parse_places
from nertz.engine import MAX_SEATS, Match, Rules, RulesError, preset
from nertz.engine.rules import PRESETS

from .runner import MatchResult, Setup, run, spec_text
from .stats import Summary, summarize

__all__ = ["UsageError", "add_parser", "main", "setup_from"]


_LIGHT: dict[str, Any] = {"box": box.SIMPLE_HEAD, "show_edge": False, "padding": (0, 0, 0, 1)}


class UsageError(ValueError):
    """A bad command-line argument; the message is the one line the user sees."""


def add_parser(sub: Any) -> None:
    """Register ``simulate`` on the ``nertz`` command's subparsers."""
    p = sub.add_parser(
        "simulate",
        help="bots play many matches in virtual time; win shares and figures",
        description="Bots play whole matches in virtual time (docs/simulate.md).",
    )
    p.add_argument(
        "--seats",
        default="expert,expert,expert,expert",
        help="comma-separated seat specs, 1 to 8: level, style or level:style "
        f"(levels: {', '.join(LEVELS)}; styles: {', '.join(STYLES)}); with "
        "--set partnerships=on two bots a seat: expert+casual,skilled+skilled",
    )
    p.add_argument("--matches", type=int, default=100, help="matches to play (default 100)")
    p.add_argument(
        "--rules", default="standard", help=f"preset: {', '.join(PRESETS)} (default standard)"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a table option, e.g. caller_bonus=10 (repeat, or separate with commas)",
    )
    p.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    p.add_argument("--json", type=Path, default=None, help="write the figures as JSON here")
    p.add_argument("--plot", type=Path, default=None, help="draw scores and totals to a PNG")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.error = _one_line


def _one_line(message: str) -> NoReturn:
    """argparse's own errors (``--matches abc``) as one line too, exit code 2."""
    print(f"nertz simulate: error: {message}", file=sys.stderr)
    sys.exit(2)


def parse_table(text: str, partnerships: bool) -> tuple[tuple[SeatSpec, ...], tuple[SeatSpec, ...]]:
    """``--seats``: the seat specs, and at a partnership table (R40) each seat's second
    bot: ``expert+casual,skilled+skilled`` (the first of a pair watches the Nertz pile,
    the second turns the stock)."""
    parts = [t for t in (x.strip() for x in text.split(",")) if t]
    if not 1 <= len(parts) <= MAX_SEATS:
        raise UsageError(
            f"--seats: {len(parts)} seat(s) given; a table has 1 to {MAX_SEATS} seats "
            f"(levels: {', '.join(LEVELS)}; styles: {', '.join(STYLES)})"
        )
    if not partnerships and any(PAIR_SEP in p for p in parts):
        raise UsageError(
            "--seats: 'A+B' seats two bots as partners; add --set partnerships=on (R40)"
        )
    try:
        # No person sits in a simulation: every place is a bot.
        seats = [
            [s for s in parse_places(p, partnerships, people=False) if s is not None] for p in parts
        ]
    except ValueError as error:
        raise UsageError(f"--seats: {error}") from None
    return tuple(s[0] for s in seats), tuple(s[1] for s in seats if len(s) > 1)


def parse_rules(name: str, changes: list[str]) -> Rules:
    """A preset with ``option=value`` changes; ``RulesError`` messages pass through."""
    try:
        rules = preset(name)
        options: dict[str, str] = {}
        for item in changes:
            for pair in item.split(","):
                if not pair.strip():
                    continue
                option, sep, value = pair.partition("=")
                if not sep:
                    raise UsageError(f"--set: expected option=value, not {pair.strip()!r}")
                options[option.strip()] = value.strip()
        return rules.with_text(options)
    except RulesError as error:
        raise UsageError(f"--rules/--set: {error}") from None


def setup_from(args: argparse.Namespace) -> Setup:
    """Check every argument; raise ``UsageError`` with a one-line message."""
    rules = parse_rules(args.rules, args.set)
    seats, partners = parse_table(args.seats, rules.partnerships)
    if args.matches < 1:
        raise UsageError(f"--matches must be at least 1, not {args.matches}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    try:
        Match(len(seats), rules)
    except ValueError as error:
        raise UsageError(f"--seats/--set: {error}") from None
    return Setup(seats, rules, args.seed, partners)


def main(args: argparse.Namespace, console: Console | None = None) -> int:
    """Run ``nertz simulate``; returns the exit code."""
    console = console or Console()
    try:
        setup = setup_from(args)
    except UsageError as error:
        print(f"nertz simulate: error: {error}", file=sys.stderr)
        return 2
    rules_text = args.rules + "".join(
        f" {k}={_option_text(v)}" for k, v in setup.rules.changed().items()
    )
    console.print(
        f"[bold]nertz simulate[/]: {args.matches} matches, seats "
        f"{', '.join(setup_seats(setup))}, rules {rules_text}, seed {setup.seed}, "
        f"jobs {args.jobs}"
    )
    results = _run(setup, args.matches, args.jobs, console, quiet=args.quiet)
    summary = summarize(setup, results)
    show(console, summary)
    if args.json:
        args.json.write_text(json.dumps(summary.as_json(), indent=2) + "\n")
        console.print(f"figures written to {args.json}")
    if args.plot:
        from .plot import plot

        plot(setup, results, args.plot, title=f"{', '.join(setup_seats(setup))}; {rules_text}")
        console.print(f"plot written to {args.plot}")
    return 0


def setup_seats(setup: Setup) -> list[str]:
    """Every seat's spec as given (``expert:balanced+casual:balanced`` for partners)."""
    return [spec_text(i, setup.seats, setup.partners) for i in range(len(setup.seats))]


def _run(setup: Setup, matches: int, jobs: int, console: Console, quiet: bool) -> list[MatchResult]:
    if quiet:
        return run(setup, matches, jobs)
    columns = (
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("matches"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("matches", total=matches)
        return run(setup, matches, jobs, progress=lambda _: bar.advance(task))


def show(console: Console, summary: Summary) -> None:
    """The per-seat table and the table figures."""
    # A light box and short figures keep a 4-seat table whole on an 80-column terminal.
    seats = Table(title="per seat (means per hand)", **_LIGHT)
    for column in (
        "seat",
        "win",
        "95% CI",
        "score",
        "middle",
        "N left",
        "calls",
        "lost",
        "ties",
    ):
        seats.add_column(column, justify="left" if column == "seat" else "right", no_wrap=True)
    seats.caption = "lost: foundation races lost (R16); ties: true ties (R16)"
    for s in summary.seats:
        seats.add_row(
            s.label,
            f"{s.win_share:.0%}",
            f"{s.win_low:.0%}-{s.win_high:.0%}",
            f"{s.mean_score:.1f}",
            f"{s.mean_middle:.1f}",
            f"{s.mean_nertz_left:.1f}",
            str(s.calls),
            str(s.races_lost),
            str(s.ties),
        )
    console.print(seats)
    t = summary.table
    table = Table(title="per table", **_LIGHT)
    for column in (
        "matches",
        "hands",
        "hand s",
        "hands/match",
        "rotations/hand",
        "blocked",
    ):
        table.add_column(column, justify="right")
    table.add_row(
        str(t.matches),
        str(t.hands),
        f"{t.mean_hand_s:.1f}",
        f"{t.hands_per_match:.2f}",
        f"{t.rotations_per_hand:.3f}",
        f"{t.blocked_share:.1%}",
    )
    console.print(table)
    if summary.setup.rules.jokers:
        jokers = Table(title="jokers (R41)", **_LIGHT)
        for column in ("seat", "announced", "landed", "stayed home", "answers"):
            jokers.add_column(column, justify="left" if column == "seat" else "right")
        jokers.caption = (
            f"{t.jokers_per_hand:.2f} announced a hand, {t.jokers_stayed_share:.1%} stayed home; "
            "answers: real cards played first onto another seat's announced joker"
        )
        for s in summary.seats:
            jokers.add_row(
                s.label,
                str(s.jokers_announced),
                str(s.jokers_landed),
                str(s.jokers_stayed),
                str(s.answers),
            )
        console.print(jokers)
    if summary.setup.partners:
        console.print(
            "partners (R40): the stock partner turned "
            + ", ".join(
                f"{s.stock_turn_share:.0%}" for s in summary.seats if s.stock_turn_share is not None
            )
            + f" of each seat's stock; {t.partner_clashes} clashes of two hands"
        )
    if t.bad_refusals:
        console.print(f"[red]{t.bad_refusals} unexpected refusals (bot bugs)[/]")


def _option_text(value: object) -> str:
    """An option as ``--set`` takes it: ``on``/``off`` for the switches (R40, R41)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
