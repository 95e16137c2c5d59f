// The table reducer (web/js/table/state.js) against the server: recorded matches
// (tests/data/table_events.json, written by tests/data/make_table_events.py) are
// replayed message by message as a page receives them, and at every ``state`` the
// server sent (its own view at that version) the reducer must already have the same
// table. Run with ``node --test tests/web/`` (``make test`` does).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  emptyState,
  nameOf,
  playedName,
  receive,
  shown,
  wasteFan,
} from "../../src/nertz/web/js/table/state.js";

const DATA = JSON.parse(
  readFileSync(new URL("../data/table_events.json", import.meta.url), "utf8"),
);
const NOW = 5000;

/** The reducer's model in the shape of the engine's view, the fields a page keeps. */
function modelAsView(m) {
  if (!m) return null;
  return {
    phase: m.phase,
    rules: m.rules,
    seats: m.seats.map((s) => ({
      seat: s.seat,
      nertz_top: s.nertz_top,
      nertz_count: s.nertz_count,
      work: s.work,
      stock_count: s.stock_count,
      waste_count: s.waste_count,
      waste: wasteFan(s),
      middle: s.middle,
      stuck: s.stuck,
    })),
    foundations: m.foundations.map(({ tie, ...f }) => f),
    announcements: m.announcements.map(({ deadline, ...a }) => a),
    caller: m.caller,
    rotations: m.rotations,
    end: m.end,
  };
}

/** The server's view without what a page works out for itself (``legal``, ``pinned``,
 * ``scores``, its clock). */
function serverView(view) {
  if (!view) return null;
  const { legal, you, now_ms, scores, ...rest } = view;
  return { ...rest, seats: rest.seats.map(({ pinned, ...s }) => s) };
}

/** Holds (R40) are not versioned: a page that reconnected missed the ones that changed
 * while it was away, until the next ``hold`` of each place or a ``state``. */
function takeHolds(st, msg) {
  msg.table.seats.forEach((s, n) => {
    if (s.holding) st.table.seats[n].holding = [...s.holding];
  });
}

function replay(messages, check) {
  const st = emptyState();
  let compared = 0;
  let away = false;
  for (const [i, msg] of messages.entries()) {
    if (msg.type === "reconnected") {
      away = true; // the recording's mark (tests/server/recorded_matches.py)
      continue;
    }
    if (msg.type === "state" && st.table) {
      // Compared, not adopted: the reducer keeps its own table from the first state on.
      if (away) takeHolds(st, msg);
      away = false;
      check(st, msg, i);
      compared += 1;
      continue;
    }
    const out = receive(st, msg, NOW);
    assert.equal(
      out.resync,
      false,
      `message ${i} (${JSON.stringify(msg).slice(0, 120)}) asked for a resync`,
    );
  }
  return { st, compared };
}

for (const match of DATA.matches) {
  for (const page of ["person", "spectator"].filter((p) => match[p].length)) {
    test(`${match.name}: the ${page}'s page keeps the server's table, event by event`, () => {
      const { st, compared } = replay(match[page], (st, msg, i) => {
        const where = `${match.name}, ${page}, message ${i} (v ${msg.v})`;
        assert.equal(st.v, msg.v, where);
        assert.deepEqual(st.table, msg.table, `${where}: the table`);
        assert.deepEqual(modelAsView(st.model), serverView(msg.view), `${where}: the view`);
        assert.equal(st.me, msg.seat ?? null, where);
      });
      assert.ok(compared >= 3, `${match.name}: only ${compared} states to compare with`);
      assert.equal(st.table.stage, "over");
      assert.deepEqual(st.matchEnd.winners, st.table.winners);
    });
  }
}

test("a gap in the versions asks for a resync, and the next state ends it", () => {
  const messages = DATA.matches[0].person;
  const st = emptyState();
  receive(st, messages[0], NOW);
  const events = messages.filter((m) => m.type === "event" && m.v > st.v);
  assert.equal(receive(st, events[1], NOW).resync, true); // events[0] never came
  assert.equal(st.resyncing, true);
  assert.deepEqual(receive(st, events[2], NOW).events, []); // waits for the state
  receive(st, { ...messages[0], v: events[1].v }, NOW);
  assert.equal(st.resyncing, false);
  assert.equal(receive(st, events[1], NOW).events.length, 0); // already seen
  assert.deepEqual(receive(st, events[2], NOW).events, [events[2].e]);
});

test("my move shows at once, as the server then settles it", () => {
  // Every move of mine the server accepted, predicted on the table before its ack.
  const match = DATA.matches[0];
  const st = emptyState();
  let predicted = 0;
  for (const msg of match.person) {
    if (msg.type === "state" && st.table) continue; // as above: the reducer's own table
    const mine =
      msg.type === "ack" &&
      msg.events.map((ev) => ev.e).find((e) => e.k === "moved" && e.seat === st.me);
    if (mine && st.model && msg.events[0].v === st.v + 1 && !mine.move.includes("=")) {
      const guess = shown(st.model, st.me, [{ move: mine.move }]);
      receive(st, msg, NOW);
      const seat = (m) => ({ ...modelAsView(m).seats[st.me], nertz_top: null });
      assert.deepEqual(seat(guess), seat(st.model), `the move ${mine.move}`);
      predicted += 1;
      continue;
    }
    receive(st, msg, NOW);
  }
  assert.ok(predicted > 20, `only ${predicted} moves predicted`);
});

test("a partnership seat is named as its two people (R40)", () => {
  const match = DATA.matches.find((m) => m.name === "partners");
  const st = emptyState();
  receive(st, match.person[0], NOW);
  const seat = st.table.seats[st.me];
  assert.equal(seat.partners.length, 2);
  // Bots go by the people's names the server gives them, never by their spec.
  assert.match(nameOf(st, st.me), /^You & [A-Z][a-z]+$/);
  assert.match(nameOf(st, 1 - st.me), /^[A-Z][a-z]+ & [A-Z][a-z]+$/);
});

test("once a match is over the page knows when the host may start the next", () => {
  const match = DATA.matches.find((m) => m.name === "series");
  const st = emptyState();
  let end = null;
  for (const msg of match.person) {
    receive(st, msg, NOW);
    if (msg.type === "event" && msg.e.k === "match_end") {
      end = msg.e;
      // Counted on this page's clock from when the end arrived (here, NOW).
      assert.equal(st.hostStartAt, NOW + end.host_wait_ms);
    }
    if (msg.type === "state" && msg.host_start_ms !== undefined) {
      // A reload: the same moment, from the table's clock in the state.
      assert.equal(st.hostStartAt, NOW + msg.host_start_ms - msg.now_ms);
    }
    if (msg.type === "event" && msg.e.k === "next_match") assert.equal(st.hostStartAt, null);
  }
  assert.ok(end && end.host_wait_ms === 60000, "the series ended a match");
});

test("a person away carries their place's countdown until they are back", () => {
  const st = emptyState();
  const seat = (n) => ({
    seat: n,
    name: `P${n}`,
    bot: null,
    connected: true,
    ready: false,
    takeover: false,
  });
  const table = {
    stage: "between",
    hand: 1,
    seats: [seat(0), seat(1)],
    totals: [1, -4],
    next_at_ms: 40000,
  };
  receive(st, { type: "state", v: 5, table, seat: 0, now_ms: 10000 }, NOW);
  assert.equal(st.clock, NOW - 10000); // a table time ``at`` is ``at + clock`` on the page
  const away = {
    k: "connected",
    seat: 1,
    connected: false,
    kept_until_ms: 130000,
    bot_from_ms: 40000,
  };
  receive(st, { type: "event", v: 6, e: away }, NOW);
  assert.deepEqual(
    [st.table.seats[1].kept_until_ms, st.table.seats[1].bot_from_ms],
    [130000, 40000],
  );
  receive(st, { type: "event", v: 7, e: { k: "connected", seat: 1, connected: true } }, NOW);
  assert.equal("kept_until_ms" in st.table.seats[1], false);
  assert.equal("bot_from_ms" in st.table.seats[1], false);
  receive(st, { type: "event", v: 8, e: { k: "dealt", hand: 2, table: null } }, NOW);
  assert.equal("next_at_ms" in st.table, false); // the wait between hands is over
});

test("a finished match keeps the names of who played it, whatever the seats become", () => {
  const st = emptyState();
  const seat = (n, name) => ({
    seat: n,
    name,
    bot: null,
    connected: true,
    ready: false,
    takeover: false,
  });
  const table = {
    stage: "playing",
    hand: 1,
    seats: [seat(0, "Ann"), seat(1, "Cat")],
    totals: [0, 0],
    series: { match: 1, wins: [0, 0], first_hand: 1 },
  };
  receive(st, { type: "state", v: 5, table, seat: 0, now_ms: 10000 }, NOW);
  const end = {
    k: "match_end",
    totals: [-4, 1],
    winners: [1],
    host_wait_ms: 60000,
    names: ["Ann", "Cat"],
  };
  receive(st, { type: "event", v: 6, e: end }, NOW);
  assert.deepEqual([st.table.series.names, st.table.series.winners], [[["Ann", "Cat"]], [[1]]]);
  // The host's bot stands in for Cat: her place, her name, no countdown to a release.
  receive(
    st,
    {
      type: "event",
      v: 7,
      e: { k: "connected", seat: 1, connected: false, kept_until_ms: 130000 },
    },
    NOW,
  );
  receive(
    st,
    { type: "event", v: 8, e: { k: "takeover", seat: 1, bot: true, stand_in: "skilled" } },
    NOW,
  );
  assert.equal(st.table.seats[1].stand_in, "skilled");
  assert.equal("kept_until_ms" in st.table.seats[1], false);
  assert.equal(playedName(st, 1), "Cat");
  // Cat is removed and Dan takes the seat: the finished match is still Cat's.
  receive(st, { type: "event", v: 9, e: { k: "seat", seat: 1, name: null, bot: null } }, NOW);
  assert.equal("stand_in" in st.table.seats[1], false);
  receive(st, { type: "event", v: 10, e: { k: "seat", seat: 1, name: "Dan", bot: null } }, NOW);
  assert.deepEqual([playedName(st, 0), playedName(st, 1), nameOf(st, 1)], ["You", "Cat", "Dan"]);
});
