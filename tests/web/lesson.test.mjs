// A lesson table's hand and a play that cannot go out, in the table reducer
// (web/js/table/state.js; issue 23). Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { emptyState, notPlayable, receive } from "../../src/nertz/web/js/table/state.js";

const DATA = JSON.parse(
  readFileSync(new URL("../data/table_events.json", import.meta.url), "utf8"),
);
const NOW = 5000;

/** A page holding the recorded table's state while its first hand is played. */
function playing() {
  const first = DATA.matches[0].person.find(
    (m) => m.type === "state" && m.table.stage === "playing",
  );
  const st = emptyState();
  receive(st, structuredClone(first), NOW);
  return { st, v: first.v };
}

function handEnd(st, v, hand) {
  const seats = st.table.seats.length;
  const scores = Array.from({ length: seats }, () => ({
    middle: 1,
    nertz_left: 0,
    bonus: 0,
    score: 1,
  }));
  const e = {
    k: "hand_end",
    hand,
    reason: "called",
    caller: 0,
    scores,
    totals: Array(seats).fill(0),
    lost: [],
    next_at_ms: null,
    next_in_ms: null,
  };
  receive(st, { type: "event", v: v + 1, e }, NOW);
}

test("a lesson's hand, before the match's first, is not in the match's history", () => {
  const { st, v } = playing();
  st.table.series.first_hand = 2; // a lesson table: the match is the hands after it
  handEnd(st, v, 1);
  assert.deepEqual(st.table.history, []);
  assert.deepEqual(st.table.totals, Array(st.table.seats.length).fill(0));
  assert.equal(st.table.stage, "between");
});

test("a play after the hand is over is refused as the server would: hand_over (R28)", () => {
  const { st, v } = playing();
  assert.equal(notPlayable(st), null);
  handEnd(st, v, st.table.hand);
  assert.deepEqual(notPlayable(st), { code: "hand_over", reason: "The hand is over (R28)." });
  st.table.stage = "countdown"; // the next deal: the server answers "wait for Go" (R8)
  st.model.phase = "waiting";
  assert.equal(notPlayable(st), null);
});
