"""The ``nertz`` command."""

from __future__ import annotations

import argparse
import random
import secrets
import sys

from rich.console import Console
from rich.table import Table

from nertz.bots import greedy_move
from nertz.engine import Hand, Rules, RulesError, deal, preset
from nertz.server import cli as server_cli
from nertz.sim import cli as sim_cli
from nertz.sim import replay_cli


def _demo_hand(seats: int, rules: Rules, seed: int) -> Hand:
    """Four greedy seats play one hand in virtual time: each acts every 300-900 ms."""
    rng = random.Random(seed)
    hand = Hand(deal(seats, rules, seed), rules)
    hand.start(0)
    due = [rng.randint(300, 900) for _ in range(seats)]
    while not hand.over:
        seat = min(range(seats), key=due.__getitem__)
        now = due[seat]
        move = greedy_move(hand.legal_moves(seat))
        if move is not None:
            hand.play(seat, move, now)
        hand.tick(now)
        due[seat] = now + rng.randint(300, 900)
    return hand


def _show_hand(console: Console, hand: Hand) -> None:
    for layout in hand.seats:
        piles = "  ".join(" ".join(map(str, p)) or "-" for p in layout.work)
        top = str(layout.nertz[-1]) if layout.nertz else "-"
        console.print(
            f"seat {layout.owner + 1}: nertz {top} ({len(layout.nertz)} left)  "
            f"work [{piles}]  stock {len(layout.stock)} waste {len(layout.waste)}"
        )
    middle = "  ".join(f"F{f.number + 1}:{f.cards[-1]}" for f in hand.foundations)
    console.print(f"middle: {middle}")
    table = Table(title=f"hand over: {hand.end_reason.value if hand.end_reason else '?'}")
    for column in ("seat", "to middle", "Nertz left", "bonus", "score"):
        table.add_column(column, justify="right")
    for seat, s in enumerate(hand.scores()):
        name = f"{seat + 1}" + (" (called)" if hand.caller == seat else "")
        table.add_row(name, str(s.middle), str(s.nertz_left), str(s.bonus), str(s.score))
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nertz", description="Nertz by the real rules.")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="watch bots play one hand in the terminal")
    play.add_argument("--seats", type=int, default=4, help="2 to 8 (default 4)")
    play.add_argument("--rules", default="standard", help="preset: standard, bonus, quick, easy")
    play.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    sim_cli.add_parser(sub)
    replay_cli.add_parser(sub)
    server_cli.add_parser(sub)
    args = parser.parse_args(argv)
    console = Console()
    if args.command == "simulate":
        return sim_cli.main(args, console)
    if args.command == "replay":
        return replay_cli.main(args, console)
    if args.command == "serve":
        return server_cli.main(args)
    try:
        rules = preset(args.rules)
    except RulesError as error:
        parser.error(str(error))
    if not 1 <= args.seats <= 8:
        parser.error(f"--seats must be 1 to 8, not {args.seats}")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    console.print(f"[bold]Nertz[/]: {args.seats} greedy bots, rules {args.rules}, seed {seed}")
    _show_hand(console, _demo_hand(args.seats, rules, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
