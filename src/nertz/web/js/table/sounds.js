// Which sound (sound.js) an event of the table makes on this page: the deal, Go, a card
// of yours to the middle or someone else's, a Nertz call (R27) and the hand's end. A
// card beaten to a foundation (R16) sounds where the refusal arrives (table.js), and the
// countdown's seconds where they are shown.

/** The name of the sound for event ``e`` (docs/protocol.md, "Events"), or null. */
export function soundOf(tv, e) {
  switch (e.k) {
    case "dealt":
      return "deal";
    case "go":
      return "go";
    case "moved":
      if (e.foundation === null || e.foundation === undefined) return null;
      return e.seat === tv.me ? "mine" : "theirs";
    case "called":
      return "call";
    case "hand_end":
      return "end";
    default:
      return null;
  }
}
