// A table's lifetime as the page shows it (docs/server.md, "Lifetimes"): the ready
// countdown before the first deal (``ready_by``: whoever is not ready then has a bot
// play for them until they play) and a table that ended without a result (``closed``).

/** When the ready countdown ends, on ``performance.now()``'s scale (null: none runs):
 * from a ``state`` (the table's ``ready_by_ms`` against its ``now_ms``) or a
 * ``ready_by`` event (``in_ms`` from now). */
export function readyEndOf(msg, now) {
  if (msg.type === "state") {
    const at = msg.table.ready_by_ms;
    return at == null ? null : now + at - (msg.now_ms ?? 0);
  }
  return msg.in_ms == null ? null : now + msg.in_ms;
}

/** The status line's words for the table's lifetime, or null to say the usual. */
export function lifetimeStatus(table, readyEnd, now) {
  if (table.closed) return table.closed === "unstarted" ? "Table closed: it never started" : "Table closed: nobody was here";
  if (table.stage === "seating" && readyEnd !== null) {
    const left = Math.max(0, Math.ceil((readyEnd - now) / 1000));
    return `Dealing in ${left} s — a bot plays for anyone not ready until they play`;
  }
  return null;
}

/** A close that is the table's end (its match over and gone, or closed): stay on the page. */
export function tableEnded(reason) {
  return /match over|table closed/.test(reason || "");
}
