// Cards as the engine writes them ("7H", "10D", "QS", "AH"): parsing, names, elements.
// Every seat's deck has its own back colour and pattern (R1); the same colour marks the
// seat everywhere (score strip, owner strips on foundations, the hand-end breakdown).

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };
const RANK_VALUES = { A: 1, J: 11, Q: 12, K: 13, T: 10 };

export const SEAT_COLOURS = [
  "#c0392b", "#2166ac", "#1e8449", "#b9770e", "#7d3c98", "#c2185b", "#138d90", "#4d5656",
];
export const SEAT_PATTERNS = [
  "stripes", "dots", "checks", "waves", "diamonds", "bars", "grid", "zigzag",
];

export function seatColour(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/** {rank: 1-13, label: "7", suit: "H", red} or null for no card. */
export function parse(text) {
  if (!text) return null;
  const suit = text.slice(-1);
  const label = text.slice(0, -1);
  const rank = RANK_VALUES[label] || Number(label);
  return { rank, label, suit, red: suit === "H" || suit === "D", text };
}

export function cardName(text) {
  const c = parse(text);
  if (!c) return "no card";
  return `${RANK_NAMES[c.label] || c.label} of ${SUIT_NAMES[c.suit]}`;
}

export function rankName(rank) {
  return { 1: "ace", 11: "jack", 12: "queen", 13: "king" }[rank] || String(rank);
}

/** A face-up card element; ``owner`` tags it so moves can be animated (data-card). */
export function cardEl(text, owner, extra = "") {
  const c = parse(text);
  const el = document.createElement("div");
  el.className = `card face suit-${c.suit} ${c.red ? "red" : "black"} ${extra}`.trim();
  el.dataset.card = `${text}@${owner}`;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(text));
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = `${c.label}${SUITS[c.suit]}`;
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = SUITS[c.suit];
  corner.setAttribute("aria-hidden", "true");
  el.append(corner, pip);
  return el;
}

/** A face-down card of ``seat``'s deck: its own colour and pattern. */
export function backEl(seat, label = "face-down card", extra = "") {
  const el = document.createElement("div");
  el.className = `card back pattern-${SEAT_PATTERNS[seat % SEAT_PATTERNS.length]} ${extra}`.trim();
  el.style.setProperty("--back", seatColour(seat));
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  return el;
}

/** An empty place for a card (a work space, an empty stock). */
export function slotEl(label, extra = "") {
  const el = document.createElement("div");
  el.className = `card slot ${extra}`.trim();
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  return el;
}

/** R17: may ``card`` lie on ``on`` in a work pile (one lower, other colour)? */
export function fitsWork(card, on) {
  const a = parse(card);
  const b = parse(on);
  return a.rank === b.rank - 1 && a.red !== b.red;
}
