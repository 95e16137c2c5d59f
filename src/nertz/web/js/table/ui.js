// The table page's own state, beside the table's (table/state.js): what this page shows
// and remembers of itself: the card picked up or dragged, the joker chooser (R41), the
// score strip, the panel after a hand, which dialog is open, the chat's panel, the
// banner and the countdown, where each foundation lies in the middle, who was who (for
// the notices of table/presence.js), the connection, and the seat this page plays (kept
// in this browser by storage.js). A pure reducer, as state.js: no DOM, no clock (an
// action that needs the time carries ``now``), tested by ``tests/web/ui.test.mjs``.
//
// Drawing (render.js, panels.js, chooser.js) and input (input.js) read ``tv.ui`` and
// send actions through ``tv.dispatch``; none of them writes a field of it.
import { knownAfter } from "./presence.js";

/** The chat's panel is remembered open or shut apart during play, between hands, and
 * between hands on a narrow screen (a phone upright: there it would lie over the panel
 * after a hand, so each visit starts with it shut). */
export const CHAT_MODES = ["play", "rest", "narrow"];
const PLAYING = ["countdown", "playing"];

/** A page's state before the table's first ``state``: ``seat`` is the seat record it
 * plays (null: watching), ``chat`` the chat's remembered ``{play, rest}``. */
export function emptyUi({ seat = null, chat = {} } = {}) {
  return {
    seat,
    connected: undefined, // true; false while the connection is lost; null once final
    removed: false, // the host removed this page's person: the table stops here
    selected: null, // { src, depth }: picked up by a tap or a key
    drag: null, // { src, depth, cards, refused }: being dragged
    lastTap: null, // { card, at }: the first tap of a double tap
    chooser: null, // { src, joker, foundation }: a joker being announced (R41)
    stripOpen: false, // the score strip's details
    overlayHidden: false, // the panel after a hand closed ("Look at the table")
    dialog: null, // the dialog this page opened: "rules", "host" or "invite"
    chat: { play: chat.play ?? false, rest: chat.rest ?? true, narrow: false },
    banner: null, // { text, kind, until }
    countdownEnd: null, // when Go comes (this page's clock)
    slots: new Map(), // foundation number -> its place in the middle
    known: { names: {}, away: [] }, // names seen by place ("seat/partner"), places away
  };
}

/** Which of the chat's remembered states applies: during play, between hands, or
 * between hands on a narrow screen. */
export function chatMode(stage, narrow) {
  return PLAYING.includes(stage) ? "play" : narrow ? "narrow" : "rest";
}

/** Whether the chat's panel is open at table ``t`` (null before the first ``state``)
 * on a screen that is ``narrow`` or not. A practice table is one person's: no chat. */
export function chatOpen(ui, t, narrow) {
  return !!t && !t.practice && ui.chat[chatMode(t.stage, narrow)];
}

/** Foundations get a place in the middle in the order they start; a finished one gives
 * its place up (it is set aside) for the next new one. */
function placeFoundations(slots, foundations) {
  const out = new Map(slots);
  for (const f of foundations) {
    if (f.finished) {
      out.delete(f.number);
    } else if (!out.has(f.number)) {
      const used = new Set(out.values());
      let i = 0;
      while (used.has(i)) i++;
      out.set(f.number, i);
    }
  }
  return out;
}

/** What a table event (applied by state.js to ``st``) changes on this page. */
function onEvent(ui, e, st, now) {
  const known = e.k === "seat" || e.k === "connected" ? knownAfter(ui.known, st, e) : ui.known;
  switch (e.k) {
    case "dealt": // a new hand: its panel shows, its foundations are placed afresh
      return { ...ui, known, overlayHidden: false, slots: new Map(), selected: null };
    case "countdown":
      return { ...ui, known, countdownEnd: now + e.go_in_ms };
    case "go":
      return { ...ui, known, countdownEnd: null };
    case "hand_end":
      return { ...ui, known, overlayHidden: false };
    default:
      return known === ui.known ? ui : { ...ui, known };
  }
}

/** The state after ``action`` (each kind below says what a person did or saw). */
export function reduceUi(ui, action) {
  switch (action.type) {
    // ---------------------------------------------------------- the table's messages
    case "state": // a full state: a countdown under way ends in a second at most
      return {
        ...ui,
        countdownEnd: action.stage === "countdown" ? action.now + 1000 : ui.countdownEnd,
      };
    case "event":
      return onEvent(ui, action.e, action.st, action.now);
    case "seatNumber": // the server placed this page's seat (a ``state``'s ``seat``)
      return ui.seat ? { ...ui, seat: { ...ui.seat, seat: action.seat } } : ui;
    case "removed": // the host removed this page's person: nothing more to play or count
      return {
        ...ui,
        removed: true,
        connected: null,
        selected: null,
        drag: null,
        countdownEnd: null,
      };
    case "connection": // "open", "lost", or "ended" (what the page shows is final)
      return {
        ...ui,
        connected: { open: true, lost: false, ended: null }[action.status],
      };

    // ---------------------------------------------------------- cards in hand
    case "pick":
      return { ...ui, selected: { src: action.src, depth: action.depth } };
    case "putDown":
      return { ...ui, selected: null };
    case "tap": // a tap on a card (or elsewhere: ``card`` null) starts a double tap
      return { ...ui, lastTap: action.card ? { card: action.card, at: action.at } : null };
    case "dragStart":
      return {
        ...ui,
        drag: { src: action.src, depth: action.depth, cards: action.cards, refused: false },
        selected: null,
      };
    case "dragEnd":
      return { ...ui, drag: null };
    case "played": // a play went out: the card is no longer in hand
      return { ...ui, selected: null };
    case "pickRefused": // R40: my partner holds that card: put it down, let go of a drag
      return {
        ...ui,
        selected: null,
        chooser: null,
        drag: ui.drag ? { ...ui.drag, refused: true } : null,
      };
    case "holdLapsed": // R40: a resting hand lets go (a card being dragged is still held)
      return ui.drag ? ui : { ...ui, selected: null };
    case "chooserOpen":
      return {
        ...ui,
        chooser: { src: action.src, joker: action.joker, foundation: action.foundation },
        selected: null,
      };
    case "chooserClose":
      return ui.chooser ? { ...ui, chooser: null } : ui;
    case "shown": // the foundations as drawn: each keeps its place in the middle
      return { ...ui, slots: placeFoundations(ui.slots, action.foundations) };

    // ---------------------------------------------------------- panels and dialogs
    case "toggleStrip":
      return { ...ui, stripOpen: !ui.stripOpen };
    case "closePanel": // "Look at the table": the panel after a hand until the next deal
      return { ...ui, overlayHidden: true };
    case "dialog": // a dialog opened (its kind), or closed (null)
      return { ...ui, dialog: action.kind };
    case "chat": // the chat opened or shut, for the stage and screen it was done on
      return {
        ...ui,
        chat: { ...ui.chat, [chatMode(action.stage, action.narrow)]: action.on },
      };
    case "flash":
      return {
        ...ui,
        banner: { text: action.text, kind: action.kind, until: action.now + action.ms },
      };
    default:
      throw new Error(`table/ui.js: no action ${JSON.stringify(action.type)}`);
  }
}
