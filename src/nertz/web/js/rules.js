// The rules in plain language (from RULES.md) and the table options with their meaning
// (declared once, in the engine; served by GET /api/rules).
import { api, h } from "./api.js";
import { rulesSummary } from "./summary.js";

let catalogue = null;

/** The table options and presets as the engine declares them, from the server
 * (``GET /api/rules``: ``{options, presets}``), fetched once per page. Each option has
 * ``name``, ``type``, ``default``, either ``values`` (a form offers a list, default
 * first) or ``min`` and ``max`` (a number), ``label``, ``help``, ``rule`` and ``sheet``. */
export function ruleOptions() {
  if (!catalogue) {
    catalogue = api("GET", "/api/rules");
    catalogue.catch(() => {
      catalogue = null;
    }); // asked again next time
  }
  return catalogue;
}

/** Every option's default, by name. */
export function defaults(options) {
  return Object.fromEntries(options.map((o) => [o.name, o.default]));
}

/** An option's value as a form and the server's text options take it: on/off for
 * true/false. */
export function formValue(value) {
  if (value === true) return "on";
  if (value === false) return "off";
  return String(value);
}

/** The options in force (``rules``: a table's; none: the defaults), each with its
 * value and meaning; the rows come once the options are loaded. */
export function optionsTable(rules) {
  const body = h("tbody", {}, h("tr", {}, h("td", { colspan: 3, text: "Loading the options…" })));
  ruleOptions().then(
    ({ options }) => {
      const base = defaults(options);
      body.replaceChildren(
        ...options.map((o) => {
          const value = rules ? rules[o.name] : base[o.name];
          const changed = rules && formValue(value) !== formValue(base[o.name]);
          return h(
            "tr",
            { class: changed ? "changed" : "" },
            h("td", {}, h("code", { text: o.name })),
            h("td", { text: formValue(value) + (changed ? " (changed)" : "") }),
            h("td", { text: `${o.help} (${o.rule})` }),
          );
        }),
      );
    },
    (error) => {
      body.replaceChildren(
        h(
          "tr",
          {},
          h("td", { colspan: 3, text: `The options could not be loaded: ${error.message}` }),
        ),
      );
    },
  );
  return h(
    "table",
    { class: "options" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: "option" }),
        h("th", { text: "here" }),
        h("th", { text: "meaning" }),
      ),
    ),
    body,
  );
}

const RULES_TEXT = [
  [
    "The idea",
    [
      "Everyone plays their own solitaire at the same time. Nobody waits for a turn. Cards go to shared piles in the middle, and whoever empties their Nertz pile first may call “Nertz!” to end the hand.",
      "Each player has a whole deck with its own back (R1): at the end the middle is sorted by back to see whose cards got there.",
    ],
  ],
  [
    "Your layout",
    [
      "Nertz pile: 13 cards, only the top one face up (R4). Get rid of these: each one left costs points.",
      "Four work piles, each started with one card (R5). Stock: the other 35 cards, face down; the waste beside it starts empty (R6).",
    ],
  ],
  [
    "Play",
    [
      "After the countdown and Go, play as fast as you like (R8, R9). One card moves at a time, except a run between your own work piles (R10, R17).",
      "The middle: any ace starts a new foundation (R12). A foundation takes the next card of its suit, ace up to king; anybody may build on any foundation (R13). A finished king-high foundation is set aside (R15).",
      "You may send to the middle: your Nertz top, your waste top, and the bottom (exposed) card of each work pile (R14).",
      "If two cards hit one foundation together, the first one down stays and the other springs back to where it came from: “beaten to it” (R16). Cards this close together both stay (a true tie).",
      "Work piles build down in alternating colours: a red 6 on a black 7 (R17). You may move a card together with all the cards on top of it. An empty work space takes any card or run (R18).",
      "Slide-under shortcut: while you have an empty space, a card may slide under the top (highest) card of another pile if it is one higher and of the other colour (R19).",
      "Turn your stock three at a time onto the waste; only the top waste card is in play (R21). With one or two left, turn just those (R22). Stock empty: turn the waste over as the new stock, no shuffle (R23).",
    ],
  ],
  [
    "Stuck",
    [
      "If nobody can play, or everybody presses Stuck, the table rotates: everyone turns their whole stock over and moves its top card to the bottom, then play resumes (R25). The table also rotates after a long quiet spell. If it is still stuck after that, the hand ends with no call (R26).",
    ],
  ],
  [
    "Calling Nertz",
    [
      "When your Nertz pile is empty you may call “Nertz!” (R27) — or play on for more points. At the call play stops; a card already in the air may still land (R28).",
    ],
  ],
  [
    "Scoring",
    [
      "Each player scores +1 for each of their cards in the middle and −2 for each card left in their Nertz pile (R30). Work piles, stock and waste count nothing.",
      "Examples (R31): 18 in the middle and 4 left scores 10; 3 and 6 scores −9; 14 and 0 scores 14; 22 and 3 scores 16; 22 and 1 scores 20, beating a caller's 18. The caller does not always win the hand.",
      "Hands add up. After a hand in which someone reaches the target (100), the highest total wins; equal totals share the win (R32).",
    ],
  ],
  [
    "Jokers (when the jokers option is on)",
    [
      "Each deck has two jokers: 54 cards, so the stock holds 37 (R41). A joker stands for any card.",
      "On your work piles a joker may go on any card or into an empty space, and anything may go on it. Once a real card lies on it, the joker stands for the card one above that, of the other colour (“= red 6” on its face), until that card is lifted off.",
      "To the middle a joker is announced, not played: drop it on the middle (or press F) and choose the card it stands for — the next card of a foundation, or an ace for a new one. For a moment (1.5 s unless the table says otherwise) everyone sees the announcement and its countdown on that foundation; anyone holding that real card may play it there first, and then your joker stays home (you are told why). Otherwise the joker lands and shows what it stands for (“= 7♥”).",
      "A joker in the middle scores like any card; one left in your Nertz pile costs like any card.",
    ],
  ],
  [
    "Duplicate (when the duplicate option is on)",
    [
      "Every deal is played once from every seat, on hands in a row: after each hand everyone's cards move on one seat, so each player plays each seat's cards of the deal (R42).",
      "Your duplicate score for a hand is your score minus the average of everyone who played the same cards, yours included: it says how well you did with those cards, not how good they were (R43). It counts once everyone has played the deal; until then it shows as pending (R44).",
      "The match ends only after a whole deal has gone round. The target of a race is reached by points as usual, but the best duplicate total wins (R45).",
    ],
  ],
  [
    "Playing here",
    [
      "Drag a card where it goes, or tap it and then tap where it goes. Double-click or double-tap sends a card to a foundation that takes it.",
      "Keys: 0 picks your Nertz card, W the waste top, 1–4 a work pile (press again to take more of its run). Then F sends it to the middle, or 1–4 puts it on that pile. Space turns the stock, N calls Nertz, S says stuck, Esc cancels, Tab shows the scores (Shift+Tab moves the focus), ? shows these rules.",
    ],
  ],
];

/** A paragraph of the rules with its rule numbers ("(R8, R9)") set small: they are
 * for reference, the words carry the rule. */
function para(text) {
  const parts = text.split(/(\s?\(R\d+[^)]*\))/);
  return h(
    "p",
    {},
    parts.map((part, i) => (i % 2 ? h("small", { class: "rule-ref", text: part }) : part)),
  );
}

/** The rules in plain language: the one-minute summary with pictures first, then the
 * full rules, then the options in force (``rules``: a table's). */
export function rulesContent(rules, where = "this table") {
  const out = h(
    "div",
    { class: "rules-text" },
    rulesSummary(rules, rules ? null : ruleOptions().then(({ options }) => defaults(options))),
    h("h2", { class: "full-rules", text: "The full rules" }),
  );
  for (const [title, paras] of RULES_TEXT) {
    out.append(h("h3", { text: title }), ...paras.map(para));
  }
  out.append(
    h("h2", { text: rules ? `Options in force at ${where}` : "Table options (defaults)" }),
  );
  out.append(optionsTable(rules));
  return out;
}

export async function showRules(app) {
  const params = new URLSearchParams(location.search);
  const code = params.get("t");
  const key = params.get("key"); // a private table's: its options are not public
  const keyed = key ? `?key=${encodeURIComponent(key)}` : "";
  let rules = null;
  if (code) {
    try {
      rules = (await api("GET", `/api/tables/${encodeURIComponent(code)}${keyed}`)).rules;
    } catch {
      rules = null;
    }
  }
  document.title = "Nertz — rules";
  app.replaceChildren(
    h(
      "div",
      { class: "page" },
      h(
        "nav",
        { class: "crumbs" },
        h("a", { href: "/", text: "← Home" }),
        code ? h("a", { href: `/t/${code}${keyed}`, text: `back to table ${code}` }) : null,
      ),
      h("h1", { text: "How to play Nertz" }),
      rulesContent(rules, code ? `table ${code}` : "this table"),
    ),
  );
}
