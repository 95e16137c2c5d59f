// A table's lifetime as the page shows it (docs/server.md, "Lifetimes"): the ready
// countdown before the first deal (``ready_by``: whoever is not ready then has a bot
// play for them until they play), the next hand's countdown between hands
// (``next_at_ms``), a person away whose place is kept until ``kept_until_ms`` (a bot
// standing in from ``bot_from_ms``), and a table that ended without a result
// (``closed``). Every deadline is a table time kept by the reducer (table/state.js),
// counted down on this page's clock: ``at + st.clock``, so a reload mid-countdown, which
// gets a ``state``, counts on from where it was.
import { h } from "../api.js";

/** A table time on ``performance.now()``'s scale (null stays null). */
export function onPage(st, at) {
  return at == null ? null : at + st.clock;
}

/** Whole seconds left until ``end`` (never below 0). */
function secondsLeft(end, now) {
  return Math.max(0, Math.ceil((end - now) / 1000));
}

/** "1:54": minutes and seconds left. */
function minutes(end, now) {
  const left = secondsLeft(end, now);
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** "Next hand in 23 s" between hands (the latest the next deal comes), or null. */
export function nextHandText(tv, now) {
  const t = tv.table;
  // After a lesson's hand (before the match's first) the practice hand waits for the learner.
  const lesson = t.hand < ((t.series && t.series.first_hand) || 1);
  const at = t.stage === "between" && !lesson ? onPage(tv.st, t.next_at_ms) : null;
  return at === null ? null : `Next hand in ${secondsLeft(at, now)} s`;
}

/** Why a table ended without a result (``closed``), as the status line says it. */
const CLOSED = {
  unstarted: "Table closed: it never started",
  idle: "Table closed: nobody played for a long while",
};

/** The status line's words for the table's lifetime, or null to say the usual. */
export function lifetimeStatus(tv, now) {
  const t = tv.table;
  if (t.closed) return CLOSED[t.closed] || "Table closed: nobody was here";
  const readyEnd = t.stage === "seating" ? onPage(tv.st, t.ready_by_ms) : null;
  if (readyEnd !== null)
    return `Dealing in ${secondsLeft(readyEnd, now)} s — a bot plays for anyone not ready until they play`;
  const next = nextHandText(tv, now);
  return next ? `Hand over · ${next}` : null;
}

/** What a place whose person is away shows ("away, seat kept 1:54"), or null: the
 * place is kept until ``kept_until_ms``; a bot plays it from ``bot_from_ms`` while a hand
 * is on; one the host put a bot in for is kept until they come back. Once the match is
 * over nothing is released: just ``word``. */
export function awayText(tv, place, now, word = "away") {
  if (place.connected) return null;
  if (place.stand_in) return `${word}, a bot plays until they come back`; // kept for them
  if (place.kept_until_ms == null) return null;
  const stage = tv.table.stage;
  if (stage === "over") return word;
  const parts = [word];
  const bot = onPage(tv.st, place.bot_from_ms);
  if (place.takeover) parts.push("a bot plays meanwhile");
  else if (bot !== null && bot > now && stage !== "seating")
    parts.push(`a bot in ${minutes(bot, now)}`);
  parts.push(`seat kept ${minutes(onPage(tv.st, place.kept_until_ms), now)}`);
  return parts.join(", ");
}

/** A line that counts itself down: ``text(now)`` is its words, redrawn by ``tickLifetimes``. */
export function ticking(tag, attrs, text) {
  const el = h(tag, attrs);
  el.tick = text;
  el.textContent = text(performance.now()) || "";
  el.classList.add("ticks");
  return el;
}

/** Who is away at ``seat`` and how long their place is kept, for a seat list: " — away,
 * seat kept 1:54" (at a partnership seat, R40, each partner away by name), or null. */
export function awayLine(tv, seat, word = "away") {
  const places = seat.partners
    ? seat.partners.filter((p) => (p.kept_until_ms != null || p.stand_in) && !p.connected)
    : [seat];
  if (!places.some((p) => awayText(tv, p, 0) !== null)) return null;
  return ticking("span", { class: "away" }, (now) =>
    places
      .map((p) => awayText(tv, p, now, seat.partners ? `${p.name} ${word}` : word))
      .filter(Boolean)
      .map((x) => ` — ${x}`)
      .join(""),
  );
}

/** Count everything down (table.js calls it a few times a second): the status line and
 * every ``ticking`` line on the board. */
export function tickLifetimes(tv, now, renderStatus) {
  if (!tv.table) return;
  if (tv.ui.connected && lifetimeStatus(tv, now)) renderStatus(tv); // never over "Disconnected"
  for (const el of tv.board.querySelectorAll(".ticks")) {
    const text = el.tick(now) || "";
    if (el.textContent !== text) el.textContent = text;
  }
}

/** A close that is the table's end (its match over and gone, or closed): stay on the page. */
export function tableEnded(reason) {
  return /match over|table closed/.test(reason || "");
}
