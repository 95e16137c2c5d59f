"""Views: the only way state leaves the engine; hidden cards are counts only."""

import json

import pytest

from nertz.engine import Hand, Rules, deal, spectator_view, view

from .helpers import make_hand, play


def test_a_seat_sees_counts_not_face_down_cards_even_its_own_r4_r6() -> None:
    """R4, R6: the Nertz pile shows its top and its size; the stock only its size."""
    hand = make_hand("nertz: 9C 4D KH; work: 8S / - / - / -; stock: AH 2H 3H 4H; waste: -")
    mine = view(hand, 0)["seats"][0]
    assert mine["nertz_top"] == "KH" and mine["nertz_count"] == 3
    assert mine["stock_count"] == 4 and mine["waste"] == [] and mine["waste_count"] == 0
    text = json.dumps(view(hand, 0))
    for hidden in ("9C", "4D", "AH", "2H", "3H", "4H"):
        assert f'"{hidden}"' not in text


def test_the_waste_shows_the_cards_of_the_last_turn_r21() -> None:
    hand = make_hand("nertz: KS; work: -; stock: 2C 3C 4C 5C 6C 7C 8C")
    play(hand, 0, "T")
    play(hand, 0, "T")
    seat = view(hand, 0)["seats"][0]
    assert seat["waste"] == ["5C", "4C", "3C"] and seat["waste_count"] == 6  # 3C on top
    assert play(hand, 0, "W>1").ok  # the 3C into the empty space
    assert view(hand, 0)["seats"][0]["waste"] == ["5C", "4C"]
    assert play(hand, 0, "W>2").ok and play(hand, 0, "W>3").ok
    assert view(hand, 0)["seats"][0]["waste"] == ["6C"]  # the last turn is gone


def test_a_dealt_hand_leaks_nothing_face_down_to_anyone() -> None:
    hand = Hand(deal(4, Rules(), seed=99))
    hand.start(0)
    for seat in range(4):
        out = view(hand, seat)
        assert out["you"] == seat
        for i, layout in enumerate(hand.seats):
            public = out["seats"][i]
            assert set(public) >= {"nertz_top", "nertz_count", "stock_count", "work"}
            shown = json.dumps(public)
            for card in layout.nertz[:-1] + layout.stock:
                assert f'"{card}"' not in shown
    assert "seed" not in json.dumps(spectator_view(hand))


def test_views_are_json_ready_and_carry_the_rules_and_scores() -> None:
    hand = make_hand("nertz: 2H AH; work: 5C", "nertz: 3S; work: 4D", rules=Rules(draw=1))
    play(hand, 0, "N>F")
    out = json.loads(json.dumps(view(hand, 1)))
    assert out["rules"]["draw"] == 1
    assert out["foundations"] == [
        {
            "number": 1,
            "suit": "H",
            "top": "AH",
            "top_as": None,
            "count": 1,
            "owners": [0],
            "finished": False,
        }
    ]
    assert [s["middle"] for s in out["seats"]] == [1, 0]
    assert out["scores"][0]["score"] == 1 - 2 * 1
    assert "T" not in out["legal"] and "STUCK" in out["legal"]


def test_a_view_for_a_seat_that_is_not_there_is_refused() -> None:
    with pytest.raises(ValueError, match="no seat 5"):
        view(make_hand("nertz: 2H"), 5)
