// The replay viewer's hand (docs/protocol.md "Replays"; server/lobby/timeline.py): every
// seat's cards at Go and each change after, with its time since Go. Any moment is
// rebuilt by applying the changes in order from the nearest snapshot before it (one
// kept every SNAPSHOT_EVERY steps), so a jump anywhere applies at most that many.
// Pure: no DOM, no clock; page.js draws what it returns (tests/web/timeline.test.mjs).
import { shortName } from "../cards.js";

/** A snapshot of the table is kept every this many steps. */
export const SNAPSHOT_EVERY = 32;

/** A seat's piles as the server names them: Nertz, work piles 1-4, stock, waste. */
export const SEAT_PILES = ["N", "1", "2", "3", "4", "S", "W"];

const SOURCES = { N: "the Nertz pile", W: "the waste" };

/** "7H 8S" as ["7H", "8S"]; "" is no card. */
export function cardsOf(text) {
  return text ? text.split(" ") : [];
}

/** A card in the middle, "7H@2" or "JK1@2=7H" (R41), as ``{card, owner, as}``. */
export function middleCard(text) {
  const [head, as] = text.split("=");
  const at = head.lastIndexOf("@");
  return { card: head.slice(0, at), owner: Number(head.slice(at + 1)), as: as || null };
}

function startState(hand) {
  return {
    seats: hand.start.seats.map((s) => ({
      piles: Object.fromEntries(SEAT_PILES.map((p) => [p, cardsOf(s[p])])),
      fan: s.fan,
      stuck: false,
    })),
    middle: hand.start.middle.map(cardsOf),
  };
}

function copyState(state) {
  return {
    seats: state.seats.map((s) => ({
      piles: Object.fromEntries(SEAT_PILES.map((p) => [p, s.piles[p].slice()])),
      fan: s.fan,
      stuck: s.stuck,
    })),
    middle: state.middle.map((f) => f.slice()),
  };
}

/** Apply one step's changes to ``state`` (changed in place). A change is
 * ``[seat, pile, keep, "cards"]`` (the pile keeps its first ``keep`` cards, then gets
 * ``cards`` on top; seat -1 and pile "F3" for the middle), ``[seat, "fan", n]`` or
 * ``[seat, "stuck", 0|1]``. */
export function applyStep(state, step) {
  for (const change of step[3]) {
    const [seat, pile, a, b] = change;
    if (pile === "fan") state.seats[seat].fan = a;
    else if (pile === "stuck") state.seats[seat].stuck = a === 1;
    else if (seat < 0) {
      const i = Number(pile.slice(1)) - 1;
      state.middle[i] = (state.middle[i] || []).slice(0, a).concat(cardsOf(b));
    } else {
      const piles = state.seats[seat].piles;
      piles[pile] = piles[pile].slice(0, a).concat(cardsOf(b));
    }
  }
  return state;
}

/** The hand as the server sent it, ready to rebuild any moment: ``times`` (each step's
 * ms since Go) and the snapshots (``snapshots[k]``: the table before step
 * ``k * every``). Throws on steps out of time order: the answer is not a hand. */
export function makeTimeline(hand, every = SNAPSHOT_EVERY) {
  const times = hand.steps.map((s) => s[0]);
  for (let i = 1; i < times.length; i++) {
    if (!(times[i] >= times[i - 1])) throw new Error(`step ${i} is earlier than the one before`);
  }
  const snapshots = [];
  const state = startState(hand);
  hand.steps.forEach((step, i) => {
    if (i % every === 0) snapshots.push(copyState(state));
    applyStep(state, step);
  });
  if (hand.steps.length % every === 0) snapshots.push(copyState(state));
  return { ...hand, times, snapshots, every, count: hand.steps.length };
}

/** How many steps have happened by ``t`` ms since Go (binary search): the moment at
 * ``t`` is the table after that many steps. */
export function stepsBy(tl, t) {
  let lo = 0;
  let hi = tl.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tl.times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The table after the first ``done`` steps (0: at Go), a fresh copy. */
export function stateAfter(tl, done) {
  const n = Math.max(0, Math.min(done, tl.count));
  const k = Math.floor(n / tl.every);
  const state = copyState(tl.snapshots[k]);
  for (let i = k * tl.every; i < n; i++) applyStep(state, tl.steps[i]);
  return state;
}

/** The table at ``t`` ms since Go. */
export function stateAt(tl, t) {
  return stateAfter(tl, stepsBy(tl, t));
}

/** A moment asked for, within the hand: ``{t, clamped}``, ``clamped`` "end" when it was
 * past the hand's end, "start" when before Go (or not a number). */
export function clampTime(tl, t) {
  if (!Number.isFinite(t) || t < 0) return { t: 0, clamped: Number.isFinite(t) ? "start" : null };
  if (t > tl.end_ms) return { t: tl.end_ms, clamped: "end" };
  return { t, clamped: null };
}

/** The time of the step after the moment ``t`` (the next card played), or null. */
export function nextTime(tl, t) {
  const done = stepsBy(tl, t);
  return done < tl.count ? tl.times[done] : null;
}

/** The moment before the last step by ``t`` was played (the previous card played): the
 * time of the step before it (steps of the same millisecond go together), 0 (Go) before
 * the first; null at Go. */
export function previousTime(tl, t) {
  const done = stepsBy(tl, t);
  if (done === 0) return null;
  const before = stepsBy(tl, tl.times[done - 1] - 1);
  return before > 0 ? tl.times[before - 1] : 0;
}

/** Each seat's cards in the middle (R29), counted from their owners. */
export function middleCounts(state, seats) {
  const out = Array(seats).fill(0);
  for (const f of state.middle) for (const c of f) out[middleCard(c).owner] += 1;
  return out;
}

/** Each seat's score so far: cards in the middle less ``penalty`` per Nertz card left
 * (R30). */
export function liveScores(tl, state) {
  const middle = middleCounts(state, tl.seats);
  return state.seats.map((s, i) => middle[i] - tl.penalty * s.piles.N.length);
}

/** A time since Go as "1:02.4". */
export function clock(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  const s = Math.floor(tenths / 10);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}.${tenths % 10}`;
}

function source(text) {
  return SOURCES[text] || `work pile ${text}`;
}

function added(step, seat, pile) {
  const c = step[3].find((x) => x[0] === seat && x[1] === pile);
  return c ? cardsOf(c[3]) : [];
}

/** What step ``i`` did, in words: "Ann: 7♥ from the Nertz pile to F3". */
export function describeStep(tl, i, names) {
  const step = tl.steps[i];
  if (!step) return "";
  const [, seat, move] = step;
  const name = seat >= 0 ? names[seat] || `Seat ${seat + 1}` : "The table";
  const toMiddle = step[3].find((x) => x[0] < 0 && typeof x[3] === "string" && x[3]);
  if (seat < 0) {
    if (toMiddle) {
      const c = middleCard(cardsOf(toMiddle[3]).pop());
      return `A joker landed as the ${shortName(c.as || c.card)} on ${toMiddle[1]} (R41)`;
    }
    if (step[3].some((x) => x[1] === "S")) return "Nobody could play: every stock turned (R25)";
    return "Time passed";
  }
  if (move === "NERTZ") return `${name} called Nertz! (R27)`;
  if (move === "STUCK") return `${name} said stuck (R25)`;
  if (move === "T") {
    const turned = added(step, seat, "W");
    return turned.length
      ? `${name} turned ${turned.map(shortName).join(" ")} from the stock`
      : `${name} turned the waste over`;
  }
  const announced = move.match(/^([NW1-4])>F\d*=(.+)$/);
  if (announced) {
    return `${name} announced the joker on ${source(announced[1])} as the ${shortName(announced[2])} (R41)`;
  }
  const under = move.match(/^([NW1-4])<([1-4])$/);
  if (under) return `${name}: a card from ${source(under[1])} slid under work pile ${under[2]}`;
  const m = move.match(/^([NW1-4])(?:\/(\d+))?>(F\d*|[1-4])/);
  if (!m) return `${name}: ${move}`;
  if (m[3].startsWith("F")) {
    const c = toMiddle ? middleCard(cardsOf(toMiddle[3]).pop()) : null;
    const what = c ? shortName(c.card) : "a card";
    return `${name}: ${what} from ${source(m[1])} to ${toMiddle ? toMiddle[1] : "the middle"}`;
  }
  const moved = added(step, seat, m[3]);
  const what = moved.length
    ? moved
        .slice(-Number(m[2] || 1))
        .map(shortName)
        .join(" ")
    : "a card";
  return `${name}: ${what} from ${source(m[1])} to work pile ${m[3]}`;
}
