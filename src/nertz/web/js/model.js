// The table as this browser knows it: the server's view (docs/engine.md, "What a seat
// sees") kept current by applying the public events (docs/protocol.md, "Events").
// Face-down cards are counts only; the waste is remembered card by card from the
// turns this browser saw (a view shows only the last turn's fan), and a card that was
// never seen is ``null`` (then the client asks for a resync).
//
// Jokers (R41): a foundation whose top is a joker carries ``top_as`` (the card it stands
// for); ``announcements`` lists the jokers announced for the middle whose window is
// open, each with ``deadline`` (this page's clock, ``performance.now()``) for its countdown.
import { cardText, parse } from "./cards.js";

/** A seat of a view, with the waste remembered as ``wasteAll`` and ``fan``. */
function seatFromView(s) {
  const fan = s.waste.length;
  const wasteAll = Array(Math.max(0, s.waste_count - fan)).fill(null).concat(s.waste);
  return { ...s, work: s.work.map((p) => [...p]), wasteAll, fan, nertzKnown: true };
}

/** The model of a view; ``leftMs`` turns an announcement's ``until_ms`` into the ms
 * left of its window (the server's state says its clock, ``now_ms``). */
export function fromView(view, leftMs = () => 0) {
  if (!view) return null;
  return {
    phase: view.phase,
    rules: view.rules,
    seats: view.seats.map(seatFromView),
    foundations: view.foundations.map((f) => ({ ...f, owners: [...f.owners] })),
    announcements: (view.announcements || []).map((a) => ({ ...a, deadline: performance.now() + leftMs(a.until_ms) })),
    caller: view.caller,
    rotations: view.rotations,
    end: view.end,
  };
}

export function wasteTop(seat) {
  return seat.wasteAll.length ? seat.wasteAll[seat.wasteAll.length - 1] : null;
}

/** The cards of the waste shown fanned: the last turn's cards still on it. */
export function wasteFan(seat) {
  return seat.wasteAll.slice(seat.wasteAll.length - seat.fan);
}

const MOVE = /^([NW1-4])(?:\/(\d+))?([><])(F(\d*)|[1-4])(?:=(\w+))?$/;

/** ``"3/2>1"`` -> {src: "3", count: 2, kind: ">", dst: "1"}; ``"N>F"`` -> dst "F";
 * ``"N>F3=7H"`` (a joker announced as the 7H for F3, R41) -> dst "F", announced "7H". */
export function parseMove(text) {
  const m = MOVE.exec(text);
  if (!m) return null;
  const toF = m[4].startsWith("F");
  return {
    src: m[1],
    count: m[2] ? Number(m[2]) : 1,
    kind: m[3],
    dst: toF ? "F" : m[4],
    foundation: toF && m[5] ? Number(m[5]) : null,
    announced: m[6] || null,
  };
}

/** The card a foundation's top stands for: its top, or what the joker there was
 * announced as (R41). */
export function topOf(f) {
  return parse(f.top_as || f.top);
}

/** R41: the cards a joker could be announced as right now, as the engine lists them
 * (``legal``'s ``=`` moves): for each foundation not finished the card it takes next,
 * then the four aces for a new foundation. ``[{card: "7H", foundation: 3 | null}]``. */
export function announceable(model) {
  const out = [];
  for (const f of model.foundations) {
    const top = topOf(f);
    if (!f.finished && top.rank < 13) out.push({ card: cardText(top.rank + 1, f.suit), foundation: f.number });
  }
  for (const suit of ["C", "D", "H", "S"]) out.push({ card: cardText(1, suit), foundation: null });
  return out;
}

/** R41: a joker was announced (``announced`` event): its window is open. */
export function applyAnnounced(model, e, deadline) {
  model.announcements.push({ seat: e.seat, move: e.move, joker: e.joker, as: e.as, foundation: e.foundation, until_ms: e.until_ms, deadline });
}

/** R41: an announcement ended (the joker landed or stayed home). */
export function endAnnouncement(model, seat, move) {
  model.announcements = model.announcements.filter((a) => !(a.seat === seat && a.move === move));
}

/** The cards a move takes from ``seat`` (bottom to top), or null if it has none. */
export function sourceCards(seat, src, count = 1) {
  if (src === "N") return seat.nertz_top ? [seat.nertz_top] : null;
  if (src === "W") {
    const top = wasteTop(seat);
    return top ? [top] : null;
  }
  const pile = seat.work[Number(src) - 1];
  if (pile.length < count) return null;
  return pile.slice(pile.length - count);
}

function removeSource(seat, src, count, revealed) {
  if (src === "N") {
    seat.nertz_count -= 1;
    seat.nertz_top = revealed === undefined ? null : revealed;
    seat.nertzKnown = revealed !== undefined || seat.nertz_count === 0;
    if (seat.nertz_count === 0) seat.nertz_top = null;
  } else if (src === "W") {
    seat.wasteAll.pop();
    seat.waste_count -= 1;
    seat.fan -= 1;
    if (seat.fan <= 0) seat.fan = seat.wasteAll.length ? 1 : 0;
  } else {
    seat.work[Number(src) - 1].splice(-count, count);
  }
}

/** A card to foundation ``number`` (1-based; a new one for an ace); a joker lands as
 * the card it was announced as (``as``, R41). */
function toFoundation(model, number, card, owner, tie, as = null) {
  let f = model.foundations.find((x) => x.number === number);
  const c = parse(as || card);
  if (!f) {
    f = { number, suit: c.suit, top: card, count: 0, owners: [], finished: false };
    model.foundations.push(f);
    model.foundations.sort((a, b) => a.number - b.number);
  }
  f.top = card;
  f.top_as = as;
  f.count += 1;
  f.owners.push(owner);
  f.tie = !!tie;
  if (c.rank === 13) f.finished = true;
}

/** Apply one ``moved`` event (or a prediction of one, ``revealed`` undefined). */
export function applyMoved(model, seatNo, moveText, cards, foundation, tie, revealed) {
  const seat = model.seats[seatNo];
  const move = parseMove(moveText);
  if (!move) return false;
  removeSource(seat, move.src, cards.length, revealed);
  seat.stuck = false;
  if (move.dst === "F") {
    toFoundation(model, foundation, cards[0], seatNo, tie, move.announced);
    if (move.announced) endAnnouncement(model, seatNo, moveText); // the joker landed
    seat.middle += 1;
  } else if (move.kind === "<") {
    seat.work[Number(move.dst) - 1].unshift(cards[0]);
  } else {
    seat.work[Number(move.dst) - 1].push(...cards);
  }
  return true;
}

export function applyTurned(model, seatNo, cards) {
  const seat = model.seats[seatNo];
  if (cards.length) {
    seat.stock_count -= cards.length;
    seat.waste_count += cards.length;
    seat.wasteAll.push(...cards);
    seat.fan = cards.length;
  } else {
    seat.stock_count += seat.waste_count;
    seat.waste_count = 0;
    seat.wasteAll = [];
    seat.fan = 0;
  }
}

export function applyRotated(model) {
  for (const seat of model.seats) {
    seat.stock_count += seat.waste_count;
    seat.waste_count = 0;
    seat.wasteAll = [];
    seat.fan = 0;
    seat.stuck = false;
  }
}

/** The foundation that takes ``card`` now: the oldest that fits (as the engine picks),
 * a new one for an ace (``number`` the next), or null. */
export function foundationFor(model, card) {
  const c = parse(card);
  if (c.rank === 1) return { number: model.foundations.length + 1, isNew: true };
  const f = model.foundations.find((x) => !x.finished && x.suit === c.suit && topOf(x).rank === c.rank - 1);
  return f ? { number: f.number, isNew: false } : null;
}

/** Predict my own move on ``model`` (an optimistic move): false if it cannot be done. */
export function predict(model, seatNo, moveText) {
  const seat = model.seats[seatNo];
  if (!seat) return false;
  const move = parseMove(moveText);
  if (!move || move.announced) return false; // an announced joker stays put for its window
  const cards = sourceCards(seat, move.src, move.count);
  if (!cards || cards.includes(null)) return false;
  let number = null;
  if (move.dst === "F") {
    const target = move.foundation ? { number: move.foundation } : foundationFor(model, cards[0]);
    if (!target) return false;
    number = target.number;
  }
  return applyMoved(model, seatNo, moveText, cards, number, false, undefined);
}
