"""The match notation (``engine/match_text.py``, docs/notation.md): a match written and
read back is the same match, replays to the same states, and bad or huge text is
refused with the line and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.bots import greedy_move
from nertz.engine import (
    Card,
    Deal,
    Hand,
    HandText,
    MatchText,
    Move,
    NotationError,
    Player,
    Rules,
    apply,
    deal,
)
from nertz.engine.match_text import (
    MAGIC,
    MAX_CHARS,
    MAX_HAND_INPUTS,
    MAX_HANDS,
    MAX_LINE,
)

SEATS = ((Player("Ann"),), (Player("Ada", "expert:racer"),), (Player(None, "casual"),))


def played(hand: Hand, seats: int, start: int = 5, step: int = 97) -> Hand:
    """Greedy seats play ``hand`` to its end in virtual time (R8-R28)."""
    hand.start(start)
    now = start
    while not hand.over:
        for seat in range(seats):
            now += step + seat
            move = greedy_move(hand.legal_moves(seat))
            if move is not None:
                hand.play(seat, move, now)
            hand.tick(now)
    return hand


def a_match(seeds: list[int]) -> MatchText:
    return play_match(seeds, Rules(), "Friday")[0]


def play_match(seeds: list[int], rules: Rules, title: str | None) -> tuple[MatchText, list[Hand]]:
    """Greedy seats play a hand from each seed; the match and the hands as played."""
    hands = [
        played(Hand(deal(3, rules, seed), rules), 3, start=number * 1000)
        for number, seed in enumerate(seeds, 1)
    ]
    texts = tuple(HandText(n, hand.deal, tuple(hand.log)) for n, hand in enumerate(hands, 1))
    return MatchText(rules, SEATS, texts, title), hands


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(
    seeds=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=3),
    draw=st.sampled_from([3, 1]),
    pile=st.sampled_from([13, 11]),
)
def test_a_match_written_and_read_back_replays_to_the_same_states(
    seeds: list[int], draw: int, pile: int
) -> None:
    """Export, import, replay: the same hands, input by input (R33: the seed deals
    the same cards), ending where the hands played ended, and the text reads back to
    the same text."""
    rules = Rules(draw=draw, nertz_pile=pile)
    match, hands = play_match(seeds, rules, "Friday")
    text = str(match)
    again = MatchText.parse(text)
    assert again == match and str(again) == text
    for hand, read in zip(hands, again.hands, strict=True):
        one, other = Hand(hand.deal, rules), Hand(read.deal, rules)
        assert one.snapshot() == other.snapshot()
        for entry, same in zip(hand.log, read.inputs, strict=True):
            assert apply(one, entry).ok and apply(other, same).ok
            assert one.snapshot() == other.snapshot()
        assert other.snapshot() == hand.snapshot() and other.over
        assert read.replay(rules).scores() == hand.scores()


def test_the_text_is_what_the_spec_shows() -> None:
    match = a_match([7])
    lines = str(match).splitlines()
    assert lines[:6] == [
        MAGIC,
        'title "Friday"',
        "rules draw=3 nertz_pile=13 penalty=2 caller_bonus=0 target=100 match=race"
        " rounds_to_win=5 gap_to_win=100 tie_break=share jokers=off partnerships=off"
        " duplicate=off tie_window_ms=40 fair_races=on landing_ms=250 idle_rotate_s=30"
        " max_rotations=1"
        " joker_announce_ms=1500",
        'seat 1 "Ann"',
        'seat 2 "Ada" bot=expert:racer',
        "seat 3 - bot=casual",
    ]
    assert lines[6:8] == ["hand 1 seed 7", "1000 GO"]
    assert lines[8] == "1097 1 N>F"  # ms, seat 1 (1-based), the move as the engine writes it


def test_a_written_deal_names_and_partners_round_trip() -> None:
    """A hand dealt by hand (layouts, a foundation already in the middle), jokers
    announced (R41), a partnership table (R40) and names that need escaping."""
    rules = Rules(jokers=True, partnerships=True, match="single")
    layouts = [
        "nertz: 4D 2S JK1; work: KS QH / 7D / - / 2C; stock: 9H 8C; waste: -",
        "nertz: 5C 3S; work: 9D / 8S / 7H / 6C; stock: AD; waste: -",
    ]
    dealt = Deal.from_layouts(layouts, ["ah@0  2h@1"])
    hand = Hand(dealt, rules)
    hand.start(0)
    assert hand.play(0, Move.announce(4, Card.parse("3H"), 0), 10).ok  # the joker as 3H
    assert hand.tick(10 + rules.joker_announce_ms).ok  # ... lands on F1 (R41)
    assert hand.play(1, Move.parse("T"), 1600).ok
    assert hand.play(1, Move.parse("W>F"), 1700).ok
    assert [" ".join(f.texts()) for f in hand.foundations] == ["AH@0 2H@1 JK1@0=3H", "AD@1"]
    log = tuple(hand.log)
    seats = (
        (Player('Zoë "Z" \\o/'), Player(None, "expert")),
        (Player("Bob\tTab"), Player("Cy", "skilled:racer")),
    )
    match = MatchText(rules, seats, (HandText(4, dealt, log),))
    text = str(match)
    assert 'seat 1 "Zoë \\"Z\\" \\\\o/" & - bot=expert' in text
    assert 'seat 2 "Bob\\u0009Tab" & "Cy" bot=skilled:racer' in text
    assert "hand 4 deal\nlayout 1 nertz: 4D 2S JK1; work: KS QH / 7D / - / 2C;" in text
    assert "middle AH@0 2H@1\n0 GO\n10 1 N>F1=3H\n1510 TICK\n" in text  # its cards written out
    again = MatchText.parse(text)
    assert again == match and str(again) == text
    assert again.hands[0].replay(rules).snapshot() == hand.snapshot()


def test_comments_and_blank_lines_are_skipped() -> None:
    text = str(a_match([3]))
    head, rest = text.split("hand 1", 1)
    noisy = f"# saved by hand\n\n{head}\n   # the first hand\nhand 1{rest}\n\n"
    assert str(MatchText.parse(noisy)) == text


def bad(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        MatchText.parse(text)
    return caught.value


GOOD = str(a_match([11, 12]))
HEAD = "\n".join(GOOD.splitlines()[:6]) + "\n"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", None, ["empty", MAGIC]),
        ("nertz-match 2\n", 1, ["'nertz-match 2'", MAGIC]),
        ("{}\n", 1, ["begins 'nertz-match 1'"]),
        (f"{MAGIC}\nrules draw=2\n", 2, ["'draw'", "3 or 1"]),
        (f"{MAGIC}\nrules colour=red\n", 2, ["'colour'", "options are"]),
        (f"{MAGIC}\nrules draw=1 draw=3\n", 2, ["'draw'", "twice"]),
        (f"{MAGIC}\nhand 1 seed 3\n", 2, ["'seat' line"]),
        (f"{MAGIC}\nseat 1 Ann\n", 2, ["quoted name"]),
        (f'{MAGIC}\nseat 2 "Ann"\n', 2, ["seat 1"]),
        (f'{MAGIC}\nseat 1 "Ann\n', 2, ["not closed"]),
        (f'{MAGIC}\nseat 1 "Ann" bot=Expert!\n', 2, ["bot=expert:racer", "'Expert!'"]),
        (f'{MAGIC}\nseat 1 "Ann" & "Bob"\n', 2, ["one", "partnerships"]),
        (f'{MAGIC}\nrules partnerships=on\nseat 1 "Ann"\n', 3, ["R40", "two"]),
        (f'{MAGIC}\nseat 1 "{"x" * 65}"\n', 2, ["1 to 64"]),
        (f"{HEAD}hand 1 seed\n", 7, ["hand <number> seed <seed>"]),
        (f"{HEAD}hand 1 seed {2**64}\n", 7, ["0 to"]),
        (f"{HEAD}hand 1 deal\nlayout 1 nertz: AS AS\n", 8, ["layout of seat 2"]),
        (f"{HEAD}hand 1 deal\nlayout 2 nertz: AS\n", 8, ["expected layout 1"]),
        (f"{HEAD}5 GO\n", 7, ["'hand' line", "'5 GO'"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n3 1 T\n", 9, ["3 ms", "5 ms", "time goes forward"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n9 4 T\n", 9, ["no seat 4"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n9 1 X>Y\n", 9, ["not a move", "'X>Y'"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n9 1 n>f\n", 9, ["'n>f'", "written 'N>F'"]),
        (f"{HEAD}hand 1 seed 3\n5 go\n", 8, ["GO|TICK"]),
        (f"{HEAD}hand 1 seed 3\n5s GO\n", 8, ["whole ms", "'5s'"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n9 1 NERTZ\n", 9, ["seat 1's NERTZ is refused", "R27"]),
        (f"{HEAD}hand 1 seed 3\n5 1 T\n", 8, ["seat 1's T is refused", "Go (R8)"]),
        (f"{HEAD}hand 2 seed 3\nhand 2 seed 4\n", 8, ["hand 2 comes after hand 2"]),
        (f"{HEAD}hand 1 seed 3\n5 GO\n6 GO\n", 9, ["the table's GO is refused"]),
    ],
)
def test_bad_text_is_refused_with_its_line_and_what_is_wrong(
    text: str, line: int | None, words: list[str]
) -> None:
    error = bad(text)
    assert error.line == line, str(error)
    assert str(error).startswith(f"line {line}: " if line else error.reason)
    for word in words:
        assert word in str(error), str(error)


def test_a_deal_the_rules_do_not_allow_is_named_at_its_hand() -> None:
    """R41: a deal with jokers under rules without them."""
    text = f"{HEAD}hand 1 deal\nlayout 1 nertz: JK1\nlayout 2 nertz: AS\nlayout 3 nertz: 2S\n5 GO\n"
    error = bad(text)
    assert error.line == 7 and "jokers off" in error.reason


def test_huge_text_is_refused_before_it_is_read() -> None:
    error = bad(MAGIC + "\n" + "#" * MAX_CHARS)
    assert error.line is None and f"at most {MAX_CHARS}" in str(error)
    error = bad(f'{MAGIC}\ntitle "{"x" * MAX_LINE}"\n')
    assert error.line == 2 and f"at most {MAX_LINE}" in str(error)
    hands = "".join(f"hand {n} seed {n}\n" for n in range(1, MAX_HANDS + 2))
    error = bad(HEAD + hands)
    assert error.line == 7 + MAX_HANDS and f"at most {MAX_HANDS} hands" in str(error)
    ticks = "5 GO\n" + "6 TICK\n" * MAX_HAND_INPUTS
    error = bad(f"{HEAD}hand 1 seed 1\n{ticks}")
    assert error.line == 8 + MAX_HAND_INPUTS and f"more than {MAX_HAND_INPUTS}" in str(error)


def test_values_that_no_text_could_hold_are_refused() -> None:
    rules = Rules()
    with pytest.raises(ValueError, match="1 to 8 seats"):
        MatchText(rules, ())
    with pytest.raises(ValueError, match="partnership"):
        MatchText(Rules(partnerships=True), SEATS)
    with pytest.raises(ValueError, match="bot=expert:racer"):
        Player("Ann", "Expert Racer")
    dealt = deal(3, rules, 5)
    forged = Deal(deal(3, rules, 6).starts, (), 5)
    with pytest.raises(ValueError, match="not those its seed deals"):
        MatchText(rules, SEATS, (HandText(1, forged),))
    with pytest.raises(ValueError, match="time goes forward"):
        MatchText(rules, SEATS, (HandText(1, dealt, ((5, -1, "GO"), (4, 0, "T"))),))
    with pytest.raises(ValueError, match="hands go in order"):
        MatchText(rules, SEATS, (HandText(2, dealt), HandText(2, dealt)))


def test_the_example_of_the_spec_reads_and_replays_to_the_scores_it_gives() -> None:
    spec = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text()
    example = spec.split("```text\n", 1)[1].split("```", 1)[0]
    match = MatchText.parse(example)
    assert str(match) == example
    hand = match.hands[0].replay(match.rules)
    assert hand.over and hand.caller == 0
    assert [s.score for s in hand.scores()] == [12, 0]


def test_rules_that_cannot_decide_the_match_are_refused() -> None:
    """R32: a gap match needs two seats."""
    error = bad(f'{MAGIC}\nrules match=gap\nseat 1 "Ann"\n')
    assert error.line is None and "two seats" in error.reason
