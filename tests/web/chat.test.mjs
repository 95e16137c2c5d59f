// Muting in the chat (web/js/table/chat.js): a muted person stays muted under a new
// name (the server's ``person`` handle), a line with no handle (a person with no
// device, a line said before a restart) is matched by the names they had, and what an
// older page kept (plain names) still mutes. Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { test } from "node:test";

import { mutedEntries, mutes } from "../../src/nertz/web/js/table/chat.js";

const BOB = { person: "a1b2c3d4e5f60718", names: ["bob"] };

test("a muted person is muted under any name they take", () => {
  assert.ok(mutes(BOB, { person: "a1b2c3d4e5f60718", name: "Bob2" }));
  assert.ok(mutes(BOB, { person: "a1b2c3d4e5f60718", name: "Bob" }));
});

test("another person who takes the muted person's old name is heard", () => {
  assert.ok(!mutes(BOB, { person: "ffffffffffffffff", name: "Bob" }));
});

test("a line with no handle is matched by name, in any case", () => {
  assert.ok(mutes(BOB, { name: "BOB" }));
  assert.ok(!mutes(BOB, { name: "Bob2" }));
  assert.ok(mutes({ person: null, names: ["cy"] }, { person: "0123456789abcdef", name: "Cy" }));
});

test("an older page's list of names still mutes", () => {
  const [entry] = mutedEntries(["bob"]);
  assert.deepEqual(entry, { person: null, names: ["bob"] });
  assert.ok(mutes(entry, { person: "a1b2c3d4e5f60718", name: "Bob" }));
  assert.deepEqual(mutedEntries(undefined), []);
});
