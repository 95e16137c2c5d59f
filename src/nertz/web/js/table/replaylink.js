// The end panel's way to the replay viewer (/replay/{id}?hand=N): the match's id comes
// with the table once its match is over (GET /api/tables/{code}, with a private table's
// key), asked for when the panel first shows; the link opens the match's first hand.
import { api, h } from "../api.js";

/** Times the id is asked for before the panel goes on without the link. */
const ASKS = 3;

/** Per table code, what this page knows of its id: ``{id, asked, busy}``. The table's
 * id never changes, so it is kept here rather than in the page's state. */
const known = new Map();

function ask(tv, entry) {
  entry.asked += 1;
  entry.busy = true;
  const key = tv.key ? `?key=${encodeURIComponent(tv.key)}` : "";
  api("GET", `/api/tables/${encodeURIComponent(tv.code)}${key}`)
    .then((info) => {
      entry.id = info.match || null;
      if (entry.id) tv.render();
    })
    .catch(() => {})
    .finally(() => {
      entry.busy = false;
    });
}

/** "Watch the replay of this match", or null until the table's id is known. */
export function replayLine(tv) {
  if (!known.has(tv.code)) known.set(tv.code, { id: null, asked: 0, busy: false });
  const entry = known.get(tv.code);
  if (!entry.id && !entry.busy && entry.asked < ASKS) ask(tv, entry);
  if (!entry.id) return null;
  const first = (tv.table.series && tv.table.series.first_hand) || 1;
  return h(
    "p",
    { class: "replay-line" },
    h("a", {
      class: "replay-link",
      href: `/replay/${encodeURIComponent(entry.id)}?hand=${first}`,
      text: "Watch the replay of this match",
    }),
  );
}
