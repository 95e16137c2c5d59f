// The rules in one minute, with pictures drawn by the client's own cards (cards.js):
// what a newcomer needs before a first hand. The full rules follow it (rules.js).
import { h } from "./api.js";
import { backEl, cardEl } from "./cards.js";

/** A small picture of cards: each a card's text ("7H"), "back" or a gap ("|"). */
function picture(label, ...cards) {
  return h("div", { class: "mini-cards", role: "group", "aria-label": label },
    cards.map((c) => (c === "|" ? h("span", { class: "gap" }) : c === "back" ? backEl(0) : cardEl(c, "rules"))));
}

/** A fan of cards lying on one another, as a work pile shows them. */
function fan(label, ...cards) {
  return h("div", { class: "mini-fan", role: "group", "aria-label": label }, cards.map((c) => cardEl(c, "rules")));
}

const STEPS = [
  ["Everyone plays at once.", "No turns: all players work through their own deck at the same time, as fast as they like.", null],
  ["Empty your Nertz pile.", "Your Nertz pile holds 13 cards; only its top card is face up. Each card left in it at the end costs you 2 points.",
    () => picture("Your Nertz pile: a face-up 7 of diamonds on face-down cards", "back", "7D")],
  ["Build up in the middle, by suit.", "Any ace starts a pile in the middle; it takes the 2 of the same suit, then the 3, up to the king. Every pile in the middle is everyone's: play on anyone's. Each of your cards there scores 1.",
    () => picture("A foundation: ace, 2 and 3 of hearts", "AH", "2H", "3H")],
  ["Build down on your work piles, colours alternating.", "A red 7 goes on a black 8, a black 6 on the red 7. A run moves together; an empty space takes any card.",
    () => fan("A work pile: 8 of clubs, 7 of hearts, 6 of spades", "8C", "7H", "6S")],
  ["Turn your stock three at a time.", "Only the top card of the waste can be played. When everybody is stuck, press Stuck: the stocks turn and play goes on.",
    () => picture("Your stock, and the waste with the queen of spades on top", "back", "|", "4D", "9C", "QS")],
  ["Call “Nertz!” when your Nertz pile is empty.", "The hand stops. Score: +1 for each of your cards in the middle, −2 for each card left in your Nertz pile. Hands add up until someone reaches the target.", null],
];

/** The one-minute summary: six steps, most with a picture. */
export function rulesSummary() {
  return h("section", { class: "summary", "aria-label": "The rules in one minute" },
    h("h2", { text: "In one minute" }),
    h("ol", { class: "steps" }, STEPS.map(([head, text, draw]) => h("li", {},
      h("div", {}, h("b", { text: head }), " ", text),
      draw ? draw() : null))));
}
