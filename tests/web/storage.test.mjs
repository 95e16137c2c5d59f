// What this browser remembers (web/js/storage.js, the one module that touches
// localStorage): a seat taken is there on the next visit, a seat given up or refused is
// gone, a private table's key is kept for the bare URL, and a browser that cannot
// remember (a private window) still works. Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  forgetSeat,
  KEYS_KEPT,
  rememberSeat,
  rememberSheet,
  SHEETS_KEPT,
  saveName,
  savedName,
  seatFor,
  tableKey,
} from "../../src/nertz/web/js/storage.js";

/** A browser's localStorage, as far as the page uses it. */
class Memory {
  constructor() {
    this.items = new Map();
  }
  getItem(k) {
    return this.items.has(k) ? this.items.get(k) : null;
  }
  setItem(k, v) {
    this.items.set(k, String(v));
  }
}

/** localStorage in a private window of some browsers: every write refused. */
class Refusing extends Memory {
  setItem() {
    throw new Error("QuotaExceededError");
  }
}

beforeEach(() => {
  globalThis.localStorage = new Memory();
});

const ANN = { token: "t-ann", seat: 1, partner: null, key: null, at: 1 };

test("a seat taken is remembered for the next visit, table by table", () => {
  assert.equal(seatFor("ABCDEF"), null);
  rememberSeat("ABCDEF", ANN);
  rememberSeat("GHIJKL", { ...ANN, token: "t-other" });
  assert.deepEqual(seatFor("ABCDEF"), ANN);
  assert.equal(seatFor("GHIJKL").token, "t-other");
  // Kept where a page opened later reads it: under nertz.seats, as JSON.
  assert.deepEqual(JSON.parse(localStorage.getItem("nertz.seats")).ABCDEF, ANN);
});

test("a seat given up (or refused, or removed by the host) is forgotten there alone", () => {
  rememberSeat("ABCDEF", ANN);
  rememberSeat("GHIJKL", ANN);
  forgetSeat("ABCDEF");
  assert.equal(seatFor("ABCDEF"), null);
  assert.deepEqual(seatFor("GHIJKL"), ANN);
  forgetSeat("NOSUCH"); // nothing to forget: nothing breaks
  assert.deepEqual(seatFor("GHIJKL"), ANN);
});

test("a seat whose number the server changed is remembered with its new number", () => {
  rememberSeat("ABCDEF", { ...ANN, seat: null }); // make play hands a token over, seat unknown
  rememberSeat("ABCDEF", { ...ANN, seat: 3 });
  assert.equal(seatFor("ABCDEF").seat, 3);
});

test("a private table's key from its link opens it again by the bare URL", () => {
  assert.equal(tableKey("ABCDEF", null), null);
  assert.equal(tableKey("ABCDEF", "secret"), "secret");
  assert.equal(tableKey("ABCDEF", null), "secret");
  assert.equal(tableKey("ABCDEF", ""), "secret");
});

test("only the newest keys are kept: the oldest table's key goes first", () => {
  for (let i = 0; i <= KEYS_KEPT; i++) tableKey(`T${i}`, `k${i}`);
  assert.equal(tableKey("T0", null), null);
  assert.equal(tableKey("T1", null), "k1");
  tableKey("T1", "k1"); // used again: the newest now
  tableKey("NEW", "n");
  assert.equal(tableKey("T1", null), "k1");
  assert.equal(tableKey("T2", null), null);
});

test("the score sheets listed are the newest, each once", () => {
  for (let i = 0; i < SHEETS_KEPT + 2; i++) rememberSheet({ id: `s${i}`, names: [], at: i });
  rememberSheet({ id: "s5", names: ["Ann"], at: 99 });
  const kept = JSON.parse(localStorage.getItem("nertz.sheets"));
  assert.equal(kept.length, SHEETS_KEPT);
  assert.deepEqual(kept[0], { id: "s5", names: ["Ann"], at: 99 });
  assert.equal(kept.filter((s) => s.id === "s5").length, 1);
});

test("a browser that cannot remember still works: it forgets", () => {
  globalThis.localStorage = new Refusing();
  rememberSeat("ABCDEF", ANN);
  saveName("Ann");
  assert.equal(seatFor("ABCDEF"), null);
  assert.equal(savedName(), "");
  delete globalThis.localStorage; // no storage at all
  rememberSeat("ABCDEF", ANN);
  assert.equal(seatFor("ABCDEF"), null);
  assert.equal(tableKey("ABCDEF", "k"), "k"); // the link's key is used all the same
});

test("a damaged entry reads as nothing remembered", () => {
  localStorage.setItem("nertz.seats", "{not json");
  assert.equal(seatFor("ABCDEF"), null);
  rememberSeat("ABCDEF", ANN);
  assert.deepEqual(seatFor("ABCDEF"), ANN);
});
