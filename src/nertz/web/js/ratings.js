// What players see of the ratings (issue 26; docs/rating.md): /ratings, a leaderboard
// per mode of established players, and /p/NAME, a player's ratings, their history as a
// chart and their rated matches, each linking to its match page. The server reads them
// from what it stored (server/lobby/standings.py): nothing here is computed.
import { api, h } from "./api.js";
import { ratingChart } from "./chart.js";

const MODES = [
  ["solo", "Solo"],
  ["partners", "Partnerships"],
];
const when = (seconds) => new Date(seconds * 1000).toLocaleString();
const signed = (n) => (n < 0 ? `−${-n}` : `+${n}`);

function page(app, title, ...content) {
  document.title = `Nertz — ${title}`;
  app.replaceChildren(h("div", { class: "page ratings" }, ...content));
}

const home = () => h("a", { href: "/", text: "← Home" });

function failed(app, title, error) {
  page(
    app,
    title,
    h("nav", { class: "crumbs" }, home()),
    h("h1", { text: title }),
    h("p", { class: "error", text: error.message }),
  );
}

const playerLink = (name) => h("a", { href: `/p/${encodeURIComponent(name)}`, text: name });

function boardTable(board) {
  if (!board.rows.length) {
    return h("p", {
      class: "empty",
      text: "Nobody is established in this mode yet: five rated matches and a settled rating put a player here.",
    });
  }
  return h(
    "table",
    { class: "leaderboard", "data-mode": board.mode },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: "#" }),
        h("th", { text: "Player" }),
        h("th", { text: "Rating" }),
        h("th", { text: "Matches" }),
      ),
    ),
    h(
      "tbody",
      {},
      board.rows.map((r) =>
        h(
          "tr",
          { "data-name": r.name },
          h("td", { text: String(r.rank) }),
          h("td", {}, playerLink(r.name)),
          h("td", { class: "rating", text: r.shown }),
          h("td", { text: String(r.matches) }),
        ),
      ),
    ),
  );
}

function pager(mode, board) {
  if (board.pages <= 1) return null;
  const link = (n, text) => h("a", { href: `/ratings?mode=${mode}&page=${n}`, text });
  return h(
    "nav",
    { class: "pager" },
    board.page > 1 ? link(board.page - 1, "← Better") : null,
    ` Page ${board.page} of ${board.pages} `,
    board.page < board.pages ? link(board.page + 1, "Next →") : null,
  );
}

export async function showRatings(app) {
  const title = "Leaderboards";
  const asked = new URLSearchParams(location.search);
  const mode = MODES.some(([m]) => m === asked.get("mode")) ? asked.get("mode") : null;
  const pageNo = Number(asked.get("page")) || 1;
  const shown = mode ? MODES.filter(([m]) => m === mode) : MODES;
  let boards;
  try {
    boards = await Promise.all(
      shown.map(([m]) => api("GET", `/api/ratings/${m}?page=${mode ? pageNo : 1}`)),
    );
  } catch (error) {
    failed(app, title, error);
    return;
  }
  page(
    app,
    title,
    h("nav", { class: "crumbs" }, home()),
    h("h1", { text: title }),
    h("p", {
      class: "note",
      text: "Established players only: at least five rated matches and a settled rating (a provisional one shows a “?”). A long absence makes a rating provisional again.",
    }),
    ...shown.map(([m, label], i) =>
      h(
        "section",
        { class: "mode-board" },
        h("h2", {}, mode ? label : h("a", { href: `/ratings?mode=${m}`, text: label })),
        boardTable(boards[i]),
        pager(m, boards[i]),
      ),
    ),
  );
}

function ratingFigures(ratings) {
  return h(
    "dl",
    { class: "figures" },
    MODES.map(([m, label]) =>
      h(
        "div",
        { class: "figure", "data-figure": m },
        h("dt", { text: label }),
        h("dd", {
          text: `${ratings[m].shown} (${ratings[m].matches} rated match${ratings[m].matches === 1 ? "" : "es"})`,
        }),
      ),
    ),
  );
}

function matchLine(m) {
  const mode = MODES.find(([key]) => key === m.mode)[1];
  return h(
    "li",
    { class: "match", "data-change": m.change },
    h("a", { href: m.link, text: `${mode}: place ${m.place}` }),
    ` — ${m.before} → ${m.after} (${signed(m.change)}) `,
    h("small", { text: when(m.finished) }),
  );
}

export async function showPlayer(app, name) {
  let player;
  try {
    player = await api("GET", `/api/players/${encodeURIComponent(name)}`);
  } catch (error) {
    failed(app, name, error);
    return;
  }
  const charts = MODES.filter(([m]) => player.history[m].length).map(([m, label]) => {
    const changes = player.history[m];
    const values = [changes[0].before, ...changes.map((c) => c.after)];
    return h(
      "section",
      { class: "history", "data-mode": m },
      h("h2", { text: `${label} rating` }),
      ratingChart(values),
    );
  });
  page(
    app,
    player.name,
    h(
      "nav",
      { class: "crumbs" },
      home(),
      " · ",
      h("a", { href: "/ratings", text: "Leaderboards" }),
    ),
    h("h1", { text: player.name }),
    ratingFigures(player.ratings),
    ...charts,
    h("h2", { text: "Rated matches" }),
    player.matches.length
      ? h("ul", { class: "matches" }, player.matches.map(matchLine))
      : h("p", { class: "empty", text: "No rated match yet." }),
  );
}
