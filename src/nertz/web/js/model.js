// The table as this browser knows it: the server's view (docs/engine.md, "What a seat
// sees") kept current by applying the public events (docs/protocol.md, "Events").
// Face-down cards are counts only; the waste is remembered card by card from the
// turns this browser saw (a view shows only the last turn's fan), and a card that was
// never seen is ``null`` (then the client asks for a resync).
import { parse } from "./cards.js";

/** A seat of a view, with the waste remembered as ``wasteAll`` and ``fan``. */
function seatFromView(s) {
  const fan = s.waste.length;
  const wasteAll = Array(Math.max(0, s.waste_count - fan)).fill(null).concat(s.waste);
  return { ...s, work: s.work.map((p) => [...p]), wasteAll, fan, nertzKnown: true };
}

export function fromView(view) {
  if (!view) return null;
  return {
    phase: view.phase,
    rules: view.rules,
    seats: view.seats.map(seatFromView),
    foundations: view.foundations.map((f) => ({ ...f, owners: [...f.owners] })),
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

const MOVE = /^([NW1-4])(?:\/(\d+))?([><])(F(\d*)|[1-4])$/;

/** ``"3/2>1"`` -> {src: "3", count: 2, kind: ">", dst: "1"}; ``"N>F"`` -> dst "F". */
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
  };
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

/** A card to foundation ``number`` (1-based; a new one for an ace). */
function toFoundation(model, number, card, owner, tie) {
  let f = model.foundations.find((x) => x.number === number);
  const c = parse(card);
  if (!f) {
    f = { number, suit: c.suit, top: card, count: 0, owners: [], finished: false };
    model.foundations.push(f);
    model.foundations.sort((a, b) => a.number - b.number);
  }
  f.top = card;
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
    toFoundation(model, foundation, cards[0], seatNo, tie);
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
  const f = model.foundations.find((x) => !x.finished && x.suit === c.suit && parse(x.top).rank === c.rank - 1);
  return f ? { number: f.number, isNew: false } : null;
}

/** Predict my own move on ``model`` (an optimistic move): false if it cannot be done. */
export function predict(model, seatNo, moveText) {
  const seat = model.seats[seatNo];
  if (!seat) return false;
  const move = parseMove(moveText);
  if (!move) return false;
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
