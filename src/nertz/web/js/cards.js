// Cards as the engine writes them ("7H", "10D", "QS", "AH", jokers "JK1" "JK2"): parsing,
// names, elements. Every seat's deck has its own back colour and pattern (R1); the same
// colour marks the seat everywhere (score strip, owner strips on foundations, the
// hand-end breakdown). A joker (R41) has its own face and, where it stands for a card (a
// pinned joker on a work pile, a joker in the middle), a small label saying which.

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };
const RANK_VALUES = { A: 1, J: 11, Q: 12, K: 13, T: 10 };

export const SEAT_COLOURS = [
  "#c0392b",
  "#2166ac",
  "#1e8449",
  "#b9770e",
  "#7d3c98",
  "#c2185b",
  "#138d90",
  "#4d5656",
];
export const SEAT_PATTERNS = [
  "stripes",
  "dots",
  "checks",
  "waves",
  "diamonds",
  "bars",
  "grid",
  "zigzag",
];

export function seatColour(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

const JOKER = /^JK[12]$/;

/** R41: is this card text a joker ("JK1", "JK2")? */
export function isJoker(text) {
  return typeof text === "string" && JOKER.test(text);
}

/** {rank: 1-13, label: "7", suit: "H", red} or null for no card; a joker is rank 0 with
 * no suit (JK2, the red one, only tells the deck's two jokers apart). */
export function parse(text) {
  if (!text) return null;
  if (isJoker(text))
    return { rank: 0, label: "JK", suit: null, red: text === "JK2", joker: true, text };
  const suit = text.slice(-1);
  const label = text.slice(0, -1);
  const rank = RANK_VALUES[label] || Number(label);
  return { rank, label, suit, red: suit === "H" || suit === "D", text };
}

export function cardName(text) {
  const c = parse(text);
  if (!c) return "no card";
  if (c.joker) return "joker";
  return `${RANK_NAMES[c.label] || c.label} of ${SUIT_NAMES[c.suit]}`;
}

/** A card's short face text: "7♥", "10♠". */
export function shortName(text) {
  const c = parse(text);
  return c.joker ? "joker" : `${c.label}${SUITS[c.suit]}`;
}

/** A joker's spoken name with what it stands for: "joker (red 6)", "joker as 7 of hearts". */
export function jokerName(means) {
  if (!means) return "joker";
  return means.card ? `joker as ${cardName(means.card)}` : `joker (${means.words})`;
}

export function rankName(rank) {
  return { 1: "ace", 11: "jack", 12: "queen", 13: "king" }[rank] || String(rank);
}

/** A face-up card element; ``owner`` tags it so moves can be animated (data-card).
 * ``means`` is what a joker stands for: ``{card: "7H"}`` in the middle, ``{words: "red 6",
 * short: "red 6"}`` for a pinned joker on a work pile (R41); null for a free joker. */
export function cardEl(text, owner, extra = "", means = null) {
  const c = parse(text);
  if (c.joker) return jokerEl(text, owner, extra, means);
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

function jokerEl(text, owner, extra, means) {
  const el = document.createElement("div");
  el.className = `card face joker ${text === "JK2" ? "red" : "black"} ${extra}`.trim();
  el.dataset.card = `${text}@${owner}`;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", jokerName(means));
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = "JK";
  const star = document.createElement("span");
  star.className = "pip";
  star.textContent = "★";
  corner.setAttribute("aria-hidden", "true");
  star.setAttribute("aria-hidden", "true");
  el.append(corner, star);
  if (means && means.card) {
    // In the middle the whole face shows: what the joker stands for, at its foot ("= 7♥").
    const real = parse(means.card);
    const label = document.createElement("span");
    label.className = `means suit-${real.suit} ${real.red ? "red" : "black"}`;
    label.textContent = `= ${shortName(means.card)}`;
    label.setAttribute("aria-hidden", "true");
    el.append(label);
  } else if (means) {
    // A pinned joker always has a card on it, so only its top shows in the fan: the
    // corner says what it stands for, "=6" in the colour's ink and its two suits
    // ("♥♦"), so the colour does not rest on the ink alone.
    el.classList.add("pinned", means.red ? "pin-red" : "pin-black");
    corner.textContent = `=${means.short.split(" ").pop()}`;
    const suits = document.createElement("small");
    suits.textContent = means.red ? "♥♦" : "♣♠";
    corner.append(suits);
    el.title = `joker: ${means.words}`;
  }
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

/** R17: may ``card`` lie on ``on`` in a work pile (one lower, other colour)? With jokers
 * (R41): anything lies on a joker; a free joker (``pin`` null) lies on anything; a pinned
 * joker lies where the card it stands for would (``pin``: ``{rank, red}``). */
export function fitsWork(card, on, pin = null) {
  const a = parse(card);
  const b = parse(on);
  if (b.joker) return true;
  if (a.joker) return pin === null || (pin.rank === b.rank - 1 && pin.red !== b.red);
  return a.rank === b.rank - 1 && a.red !== b.red;
}

const RANK_LABELS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

/** R41: what the joker at ``pile[index]`` stands for, ``{rank, red, words, short}``, or null
 * while it is free: one rank above and the other colour from the first real card lying on
 * it, a step further for each joker between (the engine's ``jokers.pin``). ``pile`` runs
 * from its head to its end card. */
export function pinOf(pile, index) {
  let steps = 1;
  for (const text of pile.slice(index + 1)) {
    const c = parse(text);
    if (!c.joker) {
      const rank = c.rank + steps;
      const red = steps % 2 === 0 ? c.red : !c.red;
      const colour = red ? "red" : "black";
      if (rank > 13) return { rank, red, words: `${colour}, above a king`, short: `${colour} >K` };
      return {
        rank,
        red,
        words: `${colour} ${rankName(rank)}`,
        short: `${colour} ${RANK_LABELS[rank]}`,
      };
    }
    steps += 1;
  }
  return null;
}

/** The text of the card of ``rank`` (1-13) and ``suit`` ("H"): "7H", "AS". */
export function cardText(rank, suit) {
  return `${RANK_LABELS[rank]}${suit}`;
}
