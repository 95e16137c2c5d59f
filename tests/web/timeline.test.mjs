// The replay viewer's timeline (web/js/replay/timeline.js) against the engine: a hand
// as the server sends it (tests/data/replay_hand.json, written by
// tests/data/make_replay_hand.py: three seats with jokers, R41) rebuilt at moments of
// it must be the table the engine had then, whichever snapshot the jump starts from;
// stepping goes card by card; a moment past the end is clamped. Run with
// ``node --test tests/web/`` (``make test`` does).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  applyStep,
  clampTime,
  clock,
  describeStep,
  liveScores,
  makeTimeline,
  middleCounts,
  nextTime,
  previousTime,
  stateAfter,
  stateAt,
  stepsBy,
} from "../../src/nertz/web/js/replay/timeline.js";

const DATA = JSON.parse(readFileSync(new URL("../data/replay_hand.json", import.meta.url), "utf8"));
const NAMES = ["Ann", "Bert", "Cleo"];

/** A rebuilt state in the engine's terms (tests/stored_match.py ``engine_table``). */
function asEngine(state) {
  return {
    seats: state.seats.map((s) => ({ ...s.piles, fan: s.fan, stuck: s.stuck })),
    middle: state.middle,
  };
}

test("every moment rebuilt is the engine's table at that moment", () => {
  const tl = makeTimeline(DATA.timeline);
  assert.ok(DATA.moments.length > 20 && tl.count > 100, "a real hand, many moments");
  for (const { t, table } of DATA.moments) {
    assert.deepEqual(asEngine(stateAt(tl, t)), table, `at ${t} ms`);
  }
});

test("a jump from any snapshot is the same as every step applied from Go", () => {
  const tl = makeTimeline(DATA.timeline);
  const small = makeTimeline(DATA.timeline, 5);
  const one = makeTimeline(DATA.timeline, 1);
  let walked = stateAfter(tl, 0);
  for (let done = 1; done <= tl.count; done++) {
    walked = applyStep(walked, tl.steps[done - 1]);
    const jumped = stateAfter(tl, done);
    assert.deepEqual(jumped, walked, `after ${done} steps`);
    assert.deepEqual(stateAfter(small, done), walked);
    assert.deepEqual(stateAfter(one, done), walked);
  }
  // A snapshot is never changed by what is rebuilt from it.
  stateAfter(tl, 3).seats[0].piles.N.length = 0;
  assert.notEqual(stateAfter(tl, 3).seats[0].piles.N.length, 0);
});

test("the jokers announced land in the middle standing for their card (R41)", () => {
  const tl = makeTimeline(DATA.timeline);
  const end = stateAt(tl, tl.end_ms);
  const jokers = end.middle.flat().filter((c) => c.startsWith("JK"));
  assert.ok(jokers.length > 0, "the recorded hand has a joker in the middle");
  for (const c of jokers) assert.match(c, /^JK[12]@\d=(10|[2-9AJQK])[CDHS]$/);
});

test("next and previous step card by card, and the end scores are the hand's", () => {
  const tl = makeTimeline(DATA.timeline);
  let t = 0;
  let seen = 0;
  for (;;) {
    const next = nextTime(tl, t);
    if (next === null) break;
    assert.ok(next > t);
    assert.ok(stepsBy(tl, next) > stepsBy(tl, t));
    assert.equal(stepsBy(tl, previousTime(tl, next)), stepsBy(tl, t));
    t = next;
    seen += 1;
  }
  assert.equal(stepsBy(tl, t), tl.count);
  assert.ok(seen > 50);
  assert.equal(previousTime(tl, 0), null);
  const end = stateAt(tl, tl.end_ms);
  assert.deepEqual(
    liveScores(tl, end),
    tl.scores.map((s) => s.score),
  );
  assert.deepEqual(
    middleCounts(end, tl.seats),
    tl.scores.map((s) => s.middle),
  );
});

test("a moment past the end or before Go is clamped and says so", () => {
  const tl = makeTimeline(DATA.timeline);
  assert.deepEqual(clampTime(tl, tl.end_ms + 1), { t: tl.end_ms, clamped: "end" });
  assert.deepEqual(clampTime(tl, 1e12), { t: tl.end_ms, clamped: "end" });
  assert.deepEqual(clampTime(tl, -5), { t: 0, clamped: "start" });
  assert.deepEqual(clampTime(tl, Number.NaN), { t: 0, clamped: null });
  assert.deepEqual(clampTime(tl, 1234), { t: 1234, clamped: null });
  assert.equal(clock(62_480), "1:02.4");
  assert.equal(clock(0), "0:00.0");
});

test("each step is said in words: who, which card, from where to where", () => {
  const tl = makeTimeline(DATA.timeline);
  const said = tl.steps.map((_, i) => describeStep(tl, i, NAMES));
  const toMiddle = tl.steps.findIndex((s) => s[1] >= 0 && /^[NW1-4]>F\d*$/.test(s[2]));
  assert.match(
    said[toMiddle],
    /^(Ann|Bert|Cleo): (joker|(10|[2-9AJQK])[♣♦♥♠]) from (the Nertz pile|the waste|work pile [1-4]) to F\d+$/,
  );
  const turn = tl.steps.findIndex((s) => s[2] === "T");
  assert.match(said[turn], /^(Ann|Bert|Cleo) turned (.+ from the stock|the waste over)$/);
  const announce = tl.steps.findIndex((s) => s[2].includes("="));
  assert.match(said[announce], /^(Ann|Bert|Cleo) announced the joker on .+ as the .+ \(R41\)$/);
  for (const text of said) assert.ok(text && !text.includes("undefined"), text);
});

test("steps out of time order are no hand", () => {
  const broken = structuredClone(DATA.timeline);
  broken.steps[5][0] = -1;
  assert.throws(() => makeTimeline(broken), /step 5 is earlier than the one before/);
});
