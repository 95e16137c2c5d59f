// Presence: who joins, leaves, goes away and comes back, told as short notices
// (docs/protocol.md, the ``seat`` and ``connected`` events). At a partnership seat (R40)
// the other partner is told in words of their own. Names are remembered as people join
// (``known``, in the page's UI state: table/ui.js), so a leave can say who left.
import { nameOf } from "./state.js";

/** The name of the place an event is about: one partner's at a partnership seat. */
function placeName(st, e) {
  const s = st.table.seats[e.seat];
  if (s.partners && e.partner !== undefined && e.partner !== null)
    return s.partners[e.partner].name;
  return s.name ? nameOf(st, e.seat) : null;
}

/** Whether an event is about this page's own place (then it is not news here). */
function mine(st, e) {
  return (
    e.seat === st.me && (e.partner === undefined || e.partner === null || e.partner === st.partner)
  );
}

/** The key of a place in ``known``. */
function placeKey(e) {
  return `${e.seat}/${e.partner ?? 0}`;
}

/** The notice for a ``seat`` or ``connected`` event, or null (this page's own), from
 * the table ``st`` (the event applied) and the names and absences ``known`` before it. */
export function presenceNotice(st, known, e) {
  const key = placeKey(e);
  if (mine(st, e)) return null;
  const partnerOfMine = e.seat === st.me && st.partner !== null;
  if (e.k === "seat") {
    if (e.bot) return null;
    if (e.name) return partnerOfMine ? `Your partner ${e.name} joined` : `${e.name} joined`;
    const who = known.names[key] || `The player at seat ${e.seat + 1}`;
    return `${who} left: seat ${e.seat + 1} is waiting for a player`;
  }
  if (e.k === "connected") {
    const who = placeName(st, e) || known.names[key];
    const wasAway = known.away.includes(key);
    // A first connection after joining is not news (the join was); a return is.
    if (!who || (e.connected && !wasAway)) return null;
    if (partnerOfMine)
      return e.connected
        ? `Your partner ${who} is back`
        : `Your partner ${who} is away: a bot will stand in`;
    return e.connected ? `${who} is back` : `${who} is away`;
  }
  return null;
}

/** ``known`` after a ``seat`` or ``connected`` event: the name of who joined (a person,
 * not a bot), who is away now, and the name of one whose absence or return was told. */
export function knownAfter(known, st, e) {
  if (mine(st, e)) return known;
  const key = placeKey(e);
  if (e.k === "seat") {
    if (e.bot || !e.name) return known;
    return { ...known, names: { ...known.names, [key]: e.name } };
  }
  if (e.k === "connected") {
    const who = placeName(st, e) || known.names[key];
    const wasAway = known.away.includes(key);
    let away = known.away;
    if (e.connected) away = away.filter((k) => k !== key);
    else if (!wasAway) away = [...away, key];
    const told = who && !(e.connected && !wasAway);
    return { names: told ? { ...known.names, [key]: who } : known.names, away };
  }
  return known;
}
