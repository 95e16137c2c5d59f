// The table page's own state (web/js/table/ui.js), as a player notices it: what is in
// hand and when it is put down, the panels (on a phone the end of a hand shuts the
// chat, which then lies over the panel when asked for), where foundations lie, who is
// told as leaving, and a host's removal. Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { presenceNotice } from "../../src/nertz/web/js/table/presence.js";
import { chatOpen, emptyUi, reduceUi } from "../../src/nertz/web/js/table/ui.js";

/** ``ui`` after each action in turn; every state on the way frozen (a reducer never
 * changes the state it is given). */
function after(ui, ...actions) {
  let out = ui;
  for (const a of actions) out = reduceUi(deepFreeze(out), a);
  return out;
}

function deepFreeze(o) {
  if (o && typeof o === "object" && !(o instanceof Map) && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

const event = (e, st = null, now = 0) => ({ type: "event", e, st, now });
const PLAYING = { stage: "playing" };
const BETWEEN = { stage: "between" };

test("a card picked up is put down by a play, a deal, or a tap on it again", () => {
  const held = after(emptyUi(), { type: "pick", src: "3", depth: 2 });
  assert.deepEqual(held.selected, { src: "3", depth: 2 });
  assert.equal(after(held, { type: "played" }).selected, null);
  assert.equal(after(held, event({ k: "dealt" })).selected, null);
  assert.equal(after(held, { type: "putDown" }).selected, null);
  // Another card picked up instead: only it is in hand.
  assert.deepEqual(after(held, { type: "pick", src: "W", depth: 1 }).selected, {
    src: "W",
    depth: 1,
  });
});

test("a drag takes the card out of the selection, and is let go of at the end", () => {
  const ui = after(
    emptyUi(),
    { type: "pick", src: "N", depth: 1 },
    { type: "dragStart", src: "2", depth: 1, cards: ["5H"] },
  );
  assert.equal(ui.selected, null);
  assert.deepEqual(ui.drag, { src: "2", depth: 1, cards: ["5H"], refused: false });
  assert.equal(after(ui, { type: "dragEnd" }).drag, null);
});

test("a joker sent to the middle puts the selection down while its card is chosen (R41)", () => {
  const ui = after(
    emptyUi(),
    { type: "pick", src: "W", depth: 1 },
    { type: "chooserOpen", src: "W", joker: "JK1", foundation: 3 },
  );
  assert.equal(ui.selected, null);
  assert.deepEqual(ui.chooser, { src: "W", joker: "JK1", foundation: 3 });
  assert.equal(after(ui, { type: "chooserClose" }).chooser, null);
});

test("a card my partner holds is put down here, and a drag of it springs back (R40)", () => {
  const dragging = after(emptyUi(), { type: "dragStart", src: "N", depth: 1, cards: ["7C"] });
  assert.equal(after(dragging, { type: "pickRefused" }).drag.refused, true);
  const choosing = after(emptyUi(), {
    type: "chooserOpen",
    src: "N",
    joker: "JK2",
    foundation: null,
  });
  const refused = after(choosing, { type: "pickRefused" });
  assert.equal(refused.chooser, null);
  assert.equal(refused.drag, null);
});

test("a hold that lapsed puts the selected card down, not one being dragged (R40)", () => {
  const held = after(emptyUi(), { type: "pick", src: "1", depth: 1 });
  assert.equal(after(held, { type: "holdLapsed" }).selected, null);
  const dragging = after(emptyUi(), { type: "dragStart", src: "1", depth: 1, cards: ["4S"] });
  assert.deepEqual(after(dragging, { type: "holdLapsed" }), dragging);
});

test("on a phone the end of a hand shuts the chat; asked for, it opens over the panel", () => {
  const phone = true;
  let ui = after(emptyUi(), { type: "chat", stage: "playing", narrow: phone, on: true });
  assert.equal(chatOpen(ui, PLAYING, phone), true);
  // The hand ends: the panel after it needs the whole width, the chat shuts.
  assert.equal(chatOpen(ui, BETWEEN, phone), false);
  ui = after(ui, { type: "chat", stage: "between", narrow: phone, on: true });
  assert.equal(chatOpen(ui, BETWEEN, phone), true);
  // Shut again over the panel, it stays open for the next hand's play.
  ui = after(ui, { type: "chat", stage: "between", narrow: phone, on: false });
  assert.equal(chatOpen(ui, BETWEEN, phone), false);
  assert.equal(chatOpen(ui, { stage: "countdown" }, phone), true);
});

test("on a wide screen the chat stands open between hands beside the panel", () => {
  const ui = emptyUi();
  assert.equal(chatOpen(ui, BETWEEN, false), true);
  assert.equal(chatOpen(ui, PLAYING, false), false); // collapsed during play until opened
  // As this browser left it last time (storage.js keeps it).
  const kept = emptyUi({ chat: { play: true, rest: false } });
  assert.equal(chatOpen(kept, PLAYING, false), true);
  assert.equal(chatOpen(kept, BETWEEN, false), false);
  // Nobody to talk to at a practice table, and nothing before the table is known.
  assert.equal(chatOpen(ui, { stage: "between", practice: {} }, false), false);
  assert.equal(chatOpen(ui, null, false), false);
});

test("the panel after a hand, closed to look at the table, comes back with the next", () => {
  const closed = after(emptyUi(), { type: "closePanel" });
  assert.equal(closed.overlayHidden, true);
  assert.equal(after(closed, event({ k: "hand_end" })).overlayHidden, false);
  assert.equal(after(closed, event({ k: "dealt" })).overlayHidden, false);
  assert.equal(after(closed, event({ k: "moved" })).overlayHidden, true);
});

test("the score strip opens and closes; a dialog is remembered until it closes", () => {
  const open = after(emptyUi(), { type: "toggleStrip" });
  assert.equal(open.stripOpen, true);
  assert.equal(after(open, { type: "toggleStrip" }).stripOpen, false);
  const host = after(emptyUi(), { type: "dialog", kind: "host" });
  assert.equal(host.dialog, "host");
  assert.equal(after(host, { type: "dialog", kind: null }).dialog, null);
});

test("each foundation keeps its place in the middle; a finished one frees its place", () => {
  const f = (number, finished = false) => ({ number, finished });
  let ui = after(emptyUi(), { type: "shown", foundations: [f(1), f(2), f(3)] });
  assert.deepEqual(
    [...ui.slots],
    [
      [1, 0],
      [2, 1],
      [3, 2],
    ],
  );
  ui = after(ui, { type: "shown", foundations: [f(1), f(2, true), f(3), f(4)] });
  assert.deepEqual(
    [...ui.slots],
    [
      [1, 0],
      [3, 2],
      [4, 1],
    ],
  );
  // A new hand: the middle starts empty.
  assert.equal(after(ui, event({ k: "dealt" })).slots.size, 0);
});

test("the countdown ends at Go, and a state mid-countdown counts one second", () => {
  const counting = after(emptyUi(), event({ k: "countdown", go_in_ms: 3000 }, null, 1000));
  assert.equal(counting.countdownEnd, 4000);
  assert.equal(after(counting, event({ k: "go" })).countdownEnd, null);
  assert.equal(after(emptyUi(), { type: "state", stage: "countdown", now: 50 }).countdownEnd, 1050);
  assert.equal(after(emptyUi(), { type: "state", stage: "playing", now: 50 }).countdownEnd, null);
  const banner = after(emptyUi(), { type: "flash", text: "Go!", kind: "go", ms: 900, now: 100 });
  assert.deepEqual(banner.banner, { text: "Go!", kind: "go", until: 1000 });
});

test("a person removed by the host holds nothing and the table stops counting", () => {
  const ui = after(
    emptyUi({ seat: { token: "t", seat: 1 } }),
    { type: "connection", status: "open" },
    { type: "pick", src: "N", depth: 1 },
    event({ k: "countdown", go_in_ms: 3000 }),
    { type: "removed" },
  );
  assert.equal(ui.removed, true);
  assert.equal(ui.selected, null);
  assert.equal(ui.countdownEnd, null);
  assert.equal(ui.connected, null); // final: no "reconnecting" over it
});

test("the seat this page plays follows the number the server gives it", () => {
  const ui = after(emptyUi({ seat: { token: "t", seat: null, key: "k" } }), {
    type: "seatNumber",
    seat: 2,
  });
  assert.deepEqual(ui.seat, { token: "t", seat: 2, key: "k" });
  assert.equal(after(emptyUi(), { type: "seatNumber", seat: 2 }).seat, null); // watching
});

test("a person who leaves is named in the notice, from when they joined", () => {
  const seats = [
    { seat: 0, name: "Ann" },
    { seat: 1, name: "Bob" },
  ];
  const st = { me: 0, partner: null, table: { seats } };
  let ui = emptyUi();
  const joined = { k: "seat", seat: 1, name: "Bob" };
  assert.equal(presenceNotice(st, ui.known, joined), "Bob joined");
  ui = after(ui, event(joined, st));
  seats[1] = { seat: 1, name: null }; // the reducer has the seat emptied
  const left = { k: "seat", seat: 1, name: null };
  assert.equal(presenceNotice(st, ui.known, left), "Bob left: seat 2 is waiting for a player");
  // Away and back: the return is news; a first connection after joining is not.
  seats[1] = { seat: 1, name: "Cy" };
  ui = after(ui, event({ k: "seat", seat: 1, name: "Cy" }, st));
  const back = { k: "connected", seat: 1, connected: true };
  assert.equal(presenceNotice(st, ui.known, back), null);
  const away = { k: "connected", seat: 1, connected: false };
  assert.equal(presenceNotice(st, ui.known, away), "Cy is away");
  ui = after(ui, event(away, st));
  assert.equal(presenceNotice(st, ui.known, back), "Cy is back");
  // My own comings and goings are not news to me.
  assert.equal(presenceNotice(st, ui.known, { k: "seat", seat: 0, name: "Ann" }), null);
});

test("an action the page does not know is an error, not ignored", () => {
  assert.throws(() => reduceUi(emptyUi(), { type: "selcted" }), /no action "selcted"/);
});

test("no module of the table page sets a field of the page or of its UI state", () => {
  const dir = new URL("../../src/nertz/web/js/table/", import.meta.url);
  const found = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".js"))) {
    const code = readFileSync(new URL(name, dir), "utf8").replace(
      /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g,
      "",
    );
    // ``tv.x = …`` or ``this.tv.x = …`` (``tv.status.textContent = …`` draws, and is
    // no field of the page), and anything under ``tv.ui``.
    const sets = /\btv\.(?:[A-Za-z_]+|ui(?:\.[A-Za-z_]+)+)\s*(?:=(?!=)|\+=|-=|\+\+|--)/g;
    for (const m of code.matchAll(sets)) found.push(`${name}: ${m[0]}`);
  }
  assert.deepEqual(found, []);
});
