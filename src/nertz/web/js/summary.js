// The rules in one minute, with pictures drawn by the client's own cards (cards.js):
// what a newcomer needs before a first hand. The full rules follow it (rules.js).
import { h } from "./api.js";
import { backEl, cardEl } from "./cards.js";

/** A small picture of cards: each a card's text ("7H"), "back" or a gap ("|"). */
function picture(label, ...cards) {
  return h(
    "div",
    { class: "mini-cards", role: "group", "aria-label": label },
    cards.map((c) =>
      c === "|" ? h("span", { class: "gap" }) : c === "back" ? backEl(0) : cardEl(c, "rules"),
    ),
  );
}

/** A fan of cards lying on one another, as a work pile shows them. */
function fan(label, ...cards) {
  return h(
    "div",
    { class: "mini-fan", role: "group", "aria-label": label },
    cards.map((c) => cardEl(c, "rules")),
  );
}

/** How a match is won, by the ``match`` option (R32 and its variants). */
function matchLine(r) {
  if (r.match === "single") return "One hand decides: the highest hand score wins.";
  if (r.match === "rounds")
    return `The best score of each hand wins that hand; the first to win ${r.rounds_to_win} hands wins.`;
  if (r.match === "gap")
    return `Hands add up until the highest total is ${r.gap_to_win} or more ahead of the lowest.`;
  return `Hands add up until someone reaches ${r.target}.`;
}

function points(n) {
  return `${n} point${n === 1 ? "" : "s"}`;
}

/** The six steps for the rules ``r`` (a table's options; the defaults without one). */
function steps(r) {
  const draw =
    r.draw === 1 ? "one card at a time" : r.draw === 3 ? "three at a time" : `${r.draw} at a time`;
  const bonus = r.caller_bonus ? ` The caller gets ${r.caller_bonus} more.` : "";
  const jokers = r.jokers
    ? " Each deck has two jokers here: a joker stands for any card (R41)."
    : "";
  return [
    [
      "Everyone plays at once.",
      "No turns: all players work through their own deck at the same time, as fast as they like.",
      null,
    ],
    [
      "Empty your Nertz pile.",
      `Your Nertz pile holds ${r.nertz_pile} cards; only its top card is face up. Each card left in it at the end costs you ${points(r.penalty)}.${jokers}`,
      () => picture("Your Nertz pile: a face-up 7 of diamonds on face-down cards", "back", "7D"),
    ],
    [
      "Build up in the middle, by suit.",
      "Any ace starts a pile in the middle; it takes the 2 of the same suit, then the 3, up to the king. Every pile in the middle is everyone's: play on anyone's. Each of your cards there scores 1.",
      () => picture("A foundation: ace, 2 and 3 of hearts", "AH", "2H", "3H"),
    ],
    [
      "Build down on your work piles, colours alternating.",
      "A red 7 goes on a black 8, a black 6 on the red 7. A run moves together; an empty space takes any card.",
      () => fan("A work pile: 8 of clubs, 7 of hearts, 6 of spades", "8C", "7H", "6S"),
    ],
    [
      `Turn your stock ${draw}.`,
      "Only the top card of the waste can be played. When everybody is stuck, press Stuck: the stocks turn and play goes on.",
      () =>
        picture(
          "Your stock, and the waste with the queen of spades on top",
          "back",
          "|",
          "4D",
          "9C",
          "QS",
        ),
    ],
    [
      "Call “Nertz!” when your Nertz pile is empty.",
      `The hand stops. Score: +1 for each of your cards in the middle, −${r.penalty} for each card left in your Nertz pile.${bonus} ${matchLine(r)}`,
      null,
    ],
  ];
}

/** The one-minute summary: six steps, most with a picture, saying the options of
 * ``rules`` (a table's: its Nertz pile, penalty, draw, bonus, jokers and how a match is
 * won). Without a table's rules it says the engine's defaults, as the server serves
 * them (``defaults``, a promise of them: ``GET /api/rules``; the client keeps no list
 * of its own). */
export function rulesSummary(rules, defaults) {
  const section = h(
    "section",
    { class: "summary", "aria-label": "The rules in one minute" },
    h("h2", { text: "In one minute" }),
  );
  const draw = (r) =>
    section.append(
      h(
        "ol",
        { class: "steps" },
        steps(r).map(([head, text, picture]) =>
          h("li", {}, h("div", {}, h("b", { text: head }), " ", text), picture ? picture() : null),
        ),
      ),
    );
  if (rules) draw(rules);
  else
    defaults.then(draw, () =>
      section.append(
        h("p", {
          class: "summary-offline",
          text: "The summary needs the table options, which could not be loaded: the full rules follow.",
        }),
      ),
    );
  return section;
}
