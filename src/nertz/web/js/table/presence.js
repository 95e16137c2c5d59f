// Presence: who joins, leaves, goes away and comes back, told as short notices
// (docs/protocol.md, the ``seat`` and ``connected`` events). At a partnership seat (R40)
// the other partner is told in words of their own.
import { nameOf } from "./state.js";

/** The name of the place an event is about: one partner's at a partnership seat. */
function placeName(tv, e) {
  const s = tv.table.seats[e.seat];
  if (s.partners && e.partner !== undefined && e.partner !== null)
    return s.partners[e.partner].name;
  return s.name ? nameOf(tv.st, e.seat) : null;
}

function mine(tv, e) {
  return (
    e.seat === tv.me &&
    (e.partner === undefined || e.partner === null || e.partner === tv.st.partner)
  );
}

/** The notice for a ``seat`` or ``connected`` event, or null (this page's own). Names
 * are remembered as people join, so a leave can say who left. */
export function presenceNotice(tv, e) {
  tv.names = tv.names || {};
  const key = `${e.seat}/${e.partner ?? 0}`;
  if (mine(tv, e)) return null;
  const partnerOfMine = e.seat === tv.me && tv.st.partner !== null;
  if (e.k === "seat") {
    if (e.bot) return null;
    if (e.name) {
      tv.names[key] = e.name;
      return partnerOfMine ? `Your partner ${e.name} joined` : `${e.name} joined`;
    }
    const who = tv.names[key] || `The player at seat ${e.seat + 1}`;
    return `${who} left: seat ${e.seat + 1} is waiting for a player`;
  }
  if (e.k === "connected") {
    const who = placeName(tv, e) || tv.names[key];
    tv.away = tv.away || new Set();
    const wasAway = tv.away.has(key);
    if (e.connected) tv.away.delete(key);
    else tv.away.add(key);
    // A first connection after joining is not news (the join was); a return is.
    if (!who || (e.connected && !wasAway)) return null;
    tv.names[key] = who;
    if (partnerOfMine)
      return e.connected
        ? `Your partner ${who} is back`
        : `Your partner ${who} is away: a bot will stand in`;
    return e.connected ? `${who} is back` : `${who} is away`;
  }
  return null;
}
