// A player's own history: /me (this browser's figures and finished matches, by series)
// and /matches/{id}/{number} (one match hand by hand, with its running totals).
// The server reads them from what it stored (server/history.py); this browser is known
// by its device secret (device.js).
import { api, h } from "./api.js";
import { seatColour } from "./cards.js";
import { totalsChart } from "./chart.js";
import { duplicateText } from "./table/duplicate.js";
import { deviceHeaders } from "./device.js";

const when = (seconds) => new Date(seconds * 1000).toLocaleString();
const signed = (n) => (n < 0 ? `−${-n}` : String(n));

function page(app, title, ...content) {
  document.title = `Nertz — ${title}`;
  app.replaceChildren(h("div", { class: "page me" }, ...content));
}

function failed(app, title, error, back) {
  page(
    app,
    title,
    h("nav", { class: "crumbs" }, back),
    h("h1", { text: title }),
    h("p", { class: "error", text: error.message }),
  );
}

/** The figures as a list of labelled numbers (each ``data-figure`` for tests). */
function figureList(f) {
  const items = [
    ["matches", "Matches", f.matches],
    ["wins", "Wins", f.wins],
    [
      "points_per_hand",
      "Points per hand",
      f.points_per_hand === null ? "—" : signed(f.points_per_hand),
    ],
    ["best_hand", "Best hand", f.best_hand === null ? "—" : signed(f.best_hand)],
    ["calls", "Nertz calls", f.calls],
    ["races_won", "Races won", f.races_won],
    ["races_lost", "Races lost", f.races_lost],
  ];
  return h(
    "dl",
    { class: "figures" },
    items.map(([key, label, value]) =>
      h(
        "div",
        { class: "figure", "data-figure": key },
        h("dt", { text: label }),
        h("dd", { text: String(value) }),
      ),
    ),
  );
}

function matchLine(m) {
  const others = m.names
    .map((n, i) => `${i === m.seat ? "you" : n} ${signed(m.totals[i])}`)
    .join(", ");
  const result = m.won ? (m.winners.length > 1 ? "shared win" : "won") : "lost";
  return h(
    "li",
    { class: `match ${m.won ? "won" : "lost"}` },
    h("a", { href: m.link }, `Match ${m.number}`),
    ` — ${result} with ${signed(m.totals[m.seat])} `,
    h("small", {
      text: `(${others}; ${m.hands} ${m.hands === 1 ? "hand" : "hands"}, ${when(m.finished)})`,
    }),
    m.replay ? [" ", h("a", { class: "replay-link", href: m.replay, text: "Replay" })] : null,
  );
}

function seriesBlock(s) {
  const names = s.matches[0].names;
  const standing = s.wins
    .map((w, i) => `${i === s.matches[0].seat ? "you" : names[i]} ${w}`)
    .join(" – ");
  return h(
    "section",
    { class: "series-block" },
    h("h2", {}, `Table ${s.code} `, h("small", { text: `since ${when(s.started)}` })),
    h("p", { class: "standing", text: `Matches won: ${standing}` }),
    h("ul", { class: "matches" }, s.matches.map(matchLine)),
  );
}

export async function showMe(app) {
  const home = h("a", { href: "/", text: "← Home" });
  let me;
  try {
    me = await api("GET", "/api/me", undefined, deviceHeaders());
  } catch (error) {
    failed(app, "My games", error, home);
    return;
  }
  page(
    app,
    "My games",
    h("nav", { class: "crumbs" }, home),
    h("h1", { text: me.name ? `My games — ${me.name}` : "My games" }),
    h("p", {
      class: "note",
      text: "The matches played in this browser (practice games are not kept).",
    }),
    figureList(me.figures),
    ...(me.series.length
      ? me.series.map(seriesBlock)
      : [
          h("p", {
            class: "empty",
            text: "No finished matches in this browser yet: finish a match with someone and it shows here.",
          }),
        ]),
  );
}

/** Per seat, the running totals from 0 through every hand of the match. */
function running(m) {
  const out = m.names.map(() => [0]);
  for (const hand of m.hands) {
    for (const [i, s] of hand.scores.entries()) out[i].push(out[i][out[i].length - 1] + s.score);
  }
  return out;
}

function handTable(m) {
  const names = m.names.map((n, i) => (i === m.you ? `${n} (you)` : n));
  const totals = running(m);
  return h(
    "table",
    { class: "breakdown match-hands" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: "" }),
        names.map((n, i) =>
          h("th", {}, h("span", { class: "chip", style: `background:${seatColour(i)}` }), ` ${n}`),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      m.hands.map((hand, k) =>
        h(
          "tr",
          { class: "hand" },
          h(
            "th",
            {},
            `Hand ${k + 1} `,
            h("a", {
              class: "replay-link",
              href: `/replay/${encodeURIComponent(m.match)}?hand=${hand.hand}`,
              "aria-label": `replay hand ${k + 1}`,
              text: "Replay",
            }),
          ),
          hand.scores.map((s, i) =>
            h(
              "td",
              { class: hand.caller === i ? "caller" : "" },
              h("b", { text: signed(s.score) }),
              ` → ${signed(totals[i][k + 1])}`,
              h("small", {
                text: ` (${s.middle} in the middle, ${s.nertz_left} Nertz left${s.bonus ? `, +${s.bonus} call` : ""}${hand.caller === i ? ", called" : ""}${hand.races_lost[i] ? `, ${hand.races_lost[i]} races lost` : ""})`,
              }),
              // Duplicate (R43): the score against everyone who played the same cards.
              hand.duplicate
                ? h("span", {
                    class: "dup-score",
                    text: ` duplicate ${hand.duplicate[i] === null ? "—" : duplicateText(hand.duplicate[i])}`,
                  })
                : null,
            ),
          ),
        ),
      ),
      h(
        "tr",
        { class: "totals" },
        h("th", { text: "Total" }),
        m.totals.map((t) => h("td", { class: "total", text: signed(t) })),
      ),
      m.duplicate_totals
        ? h(
            "tr",
            { class: "totals duplicate-totals" },
            h("th", { text: "Duplicate total (R45)" }),
            m.duplicate_totals.map((t) =>
              h("td", { class: "total dup-score", text: duplicateText(t) }),
            ),
          )
        : null,
    ),
  );
}

export async function showMatch(app, id, number) {
  const back = h("a", { href: "/me", text: "← My games" });
  let m;
  try {
    m = await api(
      "GET",
      `/api/matches/${encodeURIComponent(id)}/${number}`,
      undefined,
      deviceHeaders(),
    );
  } catch (error) {
    failed(app, `Match ${number}`, error, back);
    return;
  }
  const won = m.winners.map((i) => (i === m.you ? "you" : m.names[i]));
  const best = m.winners[0];
  // A duplicate match is won on the duplicate total (R45), the points beside it.
  const score = m.duplicate_totals
    ? `${duplicateText(m.duplicate_totals[best])} duplicate (${signed(m.totals[best])} points) (R45)`
    : `${signed(m.totals[best])} (R32)`;
  const title = `Table ${m.code}, match ${m.number}`;
  page(
    app,
    title,
    h("nav", { class: "crumbs" }, back),
    h("h1", { text: title }),
    h("p", {
      class: "match-result",
      text: `${when(m.finished)} — ${won.length > 1 ? "shared win" : "won"} by ${won.join(" and ")} with ${score}.`,
    }),
    h(
      "p",
      { class: "replay-line" },
      h("a", {
        class: "replay-link",
        href: `/replay/${encodeURIComponent(id)}?hand=${m.hands[0].hand}`,
        text: "Watch the replay",
      }),
      " — every card of every hand, at any moment.",
    ),
    h("h2", { text: "Running totals" }),
    totalsChart(running(m), m.names, { target: m.rules.match === "race" ? m.rules.target : null }),
    h("h2", { text: "Hand by hand" }),
    handTable(m),
  );
}
