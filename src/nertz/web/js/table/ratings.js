// A rated table's ratings (issue 26, point 4): each place's rating beside its name from
// seating on, and at the match's end the change each person was rated by. The server
// reads them from the store (GET /api/tables/{code}/ratings, with a private table's
// key); the page asks when the seating changes and, once the match is over, again
// until the changes are stored (the store rates a match as it writes it).
import { api, h } from "../api.js";

/** Asks at the match's end before the panel goes on without the changes. */
const END_ASKS = 20;
/** Between two asks at the match's end (ms). */
const END_GAP_MS = 1000;

/** Per table code: ``{places, seating, busy, endAsks, changed, timer}``; ``places`` maps a
 * seat to its rows (two at a partnership seat). Kept across renders, like replaylink.js. */
const known = new Map();

function entryOf(tv) {
  if (!known.has(tv.code))
    known.set(tv.code, {
      places: new Map(),
      seating: null,
      busy: false,
      endAsks: 0,
      changed: false, // the match is rated: its changes are in ``places``
      timer: null,
    });
  return known.get(tv.code);
}

/** Who sits where, as text: a new seating is a reason to ask again. */
function seatingOf(t) {
  return t.seats.map((s) => `${s.seat}:${s.name || ""}:${s.bot || ""}`).join("|");
}

function ask(tv, entry) {
  entry.busy = true;
  const key = tv.key ? `?key=${encodeURIComponent(tv.key)}` : "";
  api("GET", `/api/tables/${encodeURIComponent(tv.code)}/ratings${key}`)
    .then((body) => {
      const places = new Map();
      for (const p of body.places) places.set(p.seat, [...(places.get(p.seat) || []), p]);
      entry.places = places;
      entry.changed = body.places.some((p) => "change" in p);
      tv.render();
    })
    .catch(() => {})
    .finally(() => {
      entry.busy = false;
    });
}

/** Ask the server when there is something new to learn: called on every render. */
function refresh(tv) {
  const t = tv.table;
  const entry = entryOf(tv);
  if (entry.busy) return entry;
  const seating = seatingOf(t);
  if (seating !== entry.seating) {
    entry.seating = seating;
    ask(tv, entry);
  } else if (t.stage === "over" && !entry.changed && entry.endAsks < END_ASKS && !entry.timer) {
    entry.endAsks += 1;
    entry.timer = setTimeout(() => {
      entry.timer = null;
      ask(tv, entry);
    }, END_GAP_MS);
  }
  return entry;
}

/** "Rated" in the score strip at a rated table, else null. */
export function ratedLabel(tv) {
  if (!tv.table.rated) return null;
  return h("span", {
    class: "rated-label",
    title: "A rated match: its result changes each person's rating",
    text: "Rated",
  });
}

/** The seat's rating beside its name ("1500?", a bot's fixed one), or null. */
export function ratingTag(tv, seat) {
  if (!tv.table.rated) return null;
  const rows = refresh(tv).places.get(seat);
  if (!rows) return null;
  const text = rows.map((p) => p.shown).join(" & ");
  return h("span", { class: "tag rating", title: "Rating", text });
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

/** The match end's ratings: each person's before, after and change, once rated. */
export function ratingLine(tv) {
  if (!tv.table.rated) return null;
  const entry = refresh(tv);
  const rows = [...entry.places.values()].flat();
  const people = rows.filter((p) => !p.bot && "change" in p);
  if (!people.length) {
    const waiting = entry.endAsks < END_ASKS;
    return h("p", {
      class: "rating-changes",
      text: waiting ? "Ratings: being rated…" : "Ratings: see each player's page.",
    });
  }
  return h(
    "p",
    { class: "rating-changes" },
    "Ratings: ",
    ...people.flatMap((p, i) => [
      i ? " · " : "",
      h("b", { text: p.seat === tv.me ? "You" : p.name }),
      ` ${p.before} → ${p.after} `,
      h("span", {
        class: p.change >= 0 ? "rating-change up" : "rating-change down",
        text: `(${signed(p.change)})`,
      }),
    ]),
  );
}
