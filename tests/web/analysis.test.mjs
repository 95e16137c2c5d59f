// The replay viewer's analysis in words (web/js/replay/analysis.js, docs/analysis.md).
import assert from "node:assert/strict";
import { test } from "node:test";

import { missedWords, moveWords, summaryLines } from "../../src/nertz/web/js/replay/analysis.js";

test("moves in the engine's notation read as words", () => {
  assert.equal(moveWords("N>F"), "the Nertz card to the middle");
  assert.equal(moveWords("W>F3"), "the waste card to the middle");
  assert.equal(moveWords("2>F"), "the end card of work pile 2 to the middle");
  assert.equal(moveWords("N>2"), "the Nertz card onto work pile 2");
  assert.equal(moveWords("3/2>1"), "the last 2 cards of work pile 3 onto work pile 1");
  assert.equal(moveWords("W<2"), "slide the waste card under work pile 2");
  assert.equal(moveWords("N>F3=7H"), "announce the Nertz card as the 7H for the middle");
  assert.equal(moveWords("T"), "turn the stock");
  assert.equal(moveWords("NERTZ"), "call Nertz");
  assert.equal(moveWords("what"), "what"); // unknown text is shown as it came
});

test("a missed play says the card, where it lay, how long and how it ended", () => {
  const m = { card: "AS", source: "Nertz pile", from_ms: 1500, waited_ms: 3200, ended: "taken" };
  assert.equal(
    missedWords(m),
    "AS on the Nertz pile: waited 3.2 s from 0:01.5 (another player took its place)",
  );
});

test("the summary says what working the Nertz pile first would have left (R29)", () => {
  const base = {
    to_middle: 9,
    nertz_left: 4,
    races_won: 2,
    races_lost: 1,
    missed_count: 3,
    nertz_first: { first_left: 1, could_have_played: 3, first_called: false },
  };
  const lines = summaryLines(base);
  assert.equal(lines[0], "Cards to the middle: 9. Nertz cards left: 4.");
  assert.equal(lines[1], "Races won: 2, lost: 1.");
  assert.match(lines[2], /waited 2 s or more for the middle: 3/);
  assert.equal(
    lines[3],
    "Working the Nertz pile first at the same pace would have left 1 Nertz card (3 fewer).",
  );
  const out = summaryLines({ ...base, nertz_first: { ...base.nertz_first, first_called: true } });
  assert.match(out[3], /emptied it: Nertz!/);
  const none = summaryLines({
    ...base,
    missed_count: 0,
    nertz_first: { first_left: 4, could_have_played: 0, first_called: false },
  });
  assert.match(none[2], /No card waited/);
  assert.match(none[3], /would not have left fewer/);
});
