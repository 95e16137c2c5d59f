"""Bots in seats: a table's bots are ``nertz.bots.Driver`` s made from their specs
(docs/bots.md); a partnership seat's pair is ``A+B`` (R40)."""

from __future__ import annotations

import pytest

from nertz.engine import Rules
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table


def test_a_table_seats_its_bots_by_spec() -> None:
    table = Table("BOTS", Rules(partnerships=True), Settings(seats=2, bots={0: "demon:racer+"}))
    first, second = table.place(0, 0), table.place(0, 1)
    assert first.bot == "demon:racer" and first.driver is not None
    assert first.driver.spec == "demon:racer" and first.driver.partner == 0
    assert second.bot is None and second.driver is None  # a person's place (R40)


def test_a_bad_spec_names_the_choices() -> None:
    with pytest.raises(ValueError, match="levels are"):
        Table("BOTS", Rules(), Settings(seats=2, bots={0: "wizard"}))
