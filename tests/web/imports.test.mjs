// The client's modules as a graph (web/js): no module imports itself through others (a
// cycle makes the order modules run in depend on which page is opened first), and one
// module alone, storage.js, touches localStorage. Run with ``node --test tests/web/``.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const JS = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/nertz/web/js");

/** Every .js file under ``dir``, as absolute paths. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".js") ? [join(dir, d.name)] : [],
  );
}

/** A module's source without its comments (an import named in a comment is none). */
function code(path) {
  return readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
}

/** The modules ``path`` imports, statically or by ``import()``, as absolute paths. */
function importsOf(path) {
  const text = code(path);
  const found = [
    ...text.matchAll(/\bfrom\s*"([^"]+)"/g),
    ...text.matchAll(/\bimport\s*"([^"]+)"/g),
    ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ];
  return found.map((m) => resolve(dirname(path), m[1]));
}

/** The import graph: module -> the modules it imports (names relative to web/js). */
function graph() {
  const out = new Map();
  for (const path of files(JS)) {
    out.set(
      relative(JS, path),
      importsOf(path).map((p) => relative(JS, p)),
    );
  }
  return out;
}

/** The first cycle found, as the modules along it (the first repeated at the end), or null. */
function cycle(edges) {
  const state = new Map(); // module -> "open" while on the path, "done" after
  const path = [];
  const visit = (m) => {
    if (state.get(m) === "done") return null;
    if (state.get(m) === "open") return [...path.slice(path.indexOf(m)), m];
    state.set(m, "open");
    path.push(m);
    for (const next of edges.get(m) || []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(m, "done");
    return null;
  };
  for (const m of edges.keys()) {
    const found = visit(m);
    if (found) return found;
  }
  return null;
}

test("the graph is read: the router imports every page", () => {
  const edges = graph();
  for (const page of [
    "home.js",
    "learn.js",
    "table.js",
    "me.js",
    "rules.js",
    "sheet.js",
    "daily.js",
    "ratings.js",
  ]) {
    assert.ok(edges.get("main.js").includes(page), page);
  }
  for (const [m, targets] of edges) {
    for (const t of targets) assert.ok(edges.has(t), `${m} imports ${t}, which is not there`);
  }
});

test("no module of the client imports itself through others (no cycle)", () => {
  const found = cycle(graph());
  assert.equal(found, null, `an import cycle: ${found && found.join(" → ")}`);
});

test("a cycle is found when there is one", () => {
  const edges = new Map([
    ["a.js", ["b.js"]],
    ["b.js", ["c.js"]],
    ["c.js", ["a.js"]],
  ]);
  assert.deepEqual(cycle(edges), ["a.js", "b.js", "c.js", "a.js"]);
  assert.equal(
    cycle(
      new Map([
        ["a.js", ["b.js"]],
        ["b.js", []],
      ]),
    ),
    null,
  );
});

test("localStorage is touched by storage.js alone", () => {
  const touching = files(JS)
    .filter((path) => /\blocalStorage\b/.test(code(path)))
    .map((path) => relative(JS, path));
  assert.deepEqual(touching, ["storage.js"]);
});
