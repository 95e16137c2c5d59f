// The daily deal (server/lobby/daily.py): /daily plays today's deal and shows its board;
// /daily/YYYY-MM-DD shows a day's board, and once that day is over its seed and deal.
// One counted try a day (``POST /api/daily``), then practice replays that count for
// nothing; the board is the server's, read from the hands it dealt.
import { api, h, toast } from "./api.js";
import { histogramChart } from "./chart.js";
import { deviceHeaders } from "./device.js";
import { openSeated } from "./seating.js";
import { savedName, saveName } from "./storage.js";

const signed = (n) => (n < 0 ? `−${-n}` : String(n));

/** A hand's time, ``m:ss.s``. */
export function handTime(ms) {
  const tenths = Math.round(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = (tenths % 600) / 10;
  return `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`;
}

/** The day before ``date`` (``YYYY-MM-DD``, UTC). */
export function dayBefore(date) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** ``POST /api/daily``: the counted try, or a practice replay. A counted try refused
 * because one was played (``daily_played``) is said in ``note`` with practice offered. */
async function start(board, practice, note, nameInput) {
  const name = nameInput.value.trim() || "You";
  saveName(name);
  try {
    openSeated(
      await api("POST", "/api/daily", { name, practice, date: board.date }, deviceHeaders()),
    );
  } catch (error) {
    if (error.code === "daily_played") {
      const where = /this browser/.test(error.message) ? "in this browser" : "from this address";
      note.replaceChildren(
        h("p", {
          class: "daily-refused",
          role: "alert",
          text: `Today's counted try has been played ${where}: one a day per player. Practise the same deal as often as you like; it counts for nothing.`,
        }),
        practiceButton(board, note, nameInput),
      );
    } else {
      toast(error.message, "error", 6000);
    }
  }
}

function practiceButton(board, note, nameInput) {
  return h("button", {
    type: "button",
    id: "daily-practice",
    onclick: () => start(board, true, note, nameInput),
    text: "Practise today's deal (not counted)",
  });
}

/** What the reader may do today: play the counted try, or practise once it is played. */
function actions(board) {
  const nameInput = h("input", {
    id: "daily-name",
    maxlength: 24,
    autocomplete: "nickname",
    value: savedName(),
    placeholder: "Your name",
    "aria-label": "your name on the board",
  });
  const note = h("div", { class: "daily-note" });
  const you = board.you;
  if (!you.counted) {
    note.append(
      h("button", {
        type: "button",
        class: "primary",
        id: "daily-play",
        onclick: () => start(board, false, note, nameInput),
        text: "Play today's deal",
      }),
      " one counted try; then practise it as often as you like",
    );
  } else {
    let said;
    if (you.by === "address")
      said = "Today's counted try has been played from your address (one a day per player).";
    else if (you.entry)
      said = `You scored ${signed(you.entry.score)}: ${ordinal(you.entry.rank)} of ${board.players}.`;
    else if (you.done) said = "Your try is over.";
    else said = "Your counted try is under way; its score shows here once its hand is over.";
    note.append(
      h("p", { class: "daily-played", text: said }),
      practiceButton(board, note, nameInput),
    );
  }
  return h(
    "section",
    { class: "daily-actions" },
    h("label", { class: "name", for: "daily-name" }, "Your name "),
    nameInput,
    note,
  );
}

function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return `${n}${tail}`;
}

function boardTable(board) {
  if (!board.rows.length)
    return h("p", {
      class: "daily-empty",
      text: board.today
        ? "Nobody has finished today's deal yet."
        : "Nobody played that day's deal.",
    });
  const mine = board.you.entry ? board.you.entry.rank : null;
  return h(
    "table",
    { class: "daily-board" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: "#" }),
        h("th", { text: "Player" }),
        h("th", { text: "Score" }),
        h("th", { text: "Time", title: "From Go to the call of Nertz, or to the hand's end" }),
      ),
    ),
    h(
      "tbody",
      {},
      board.rows.map((r) =>
        h(
          "tr",
          { class: r.rank === mine ? "yours" : null },
          h("td", { text: r.rank }),
          h("td", { text: r.name }),
          h("td", { class: "score", text: signed(r.score) }),
          h(
            "td",
            {},
            handTime(r.ms),
            r.called ? h("span", { title: "called Nertz", text: " ★" }) : null,
          ),
        ),
      ),
    ),
  );
}

/** The seed: its fingerprint while the day runs, the seed and the deal once it is over. */
function seedSection(board) {
  if (!board.published)
    return h(
      "section",
      { class: "daily-seed" },
      h("h2", { text: "The seed" }),
      h("p", {
        text: "Published the day after (midnight UTC), so anyone can check the deal was fixed before anyone played it. Its SHA-256 fingerprint now:",
      }),
      h("code", { class: "commitment", text: board.commitment }),
    );
  return h(
    "section",
    { class: "daily-seed" },
    h("h2", { text: "The seed" }),
    h("p", {}, "Seed ", h("code", { class: "seed", text: String(board.seed) })),
    h("p", {
      text: `Its fingerprint, shown all day: sha256("nertz-daily:${board.date}:${board.seed}") = ${board.commitment}`,
    }),
    h(
      "details",
      {},
      h("summary", { text: "The deal, seat by seat (seat 1 was the player's)" }),
      h(
        "ol",
        { class: "daily-layouts" },
        board.layouts.map((l) => h("li", {}, h("code", { text: l }))),
      ),
    ),
  );
}

function render(app, board) {
  const day = board.today ? "Today's deal" : `The deal of ${board.date}`;
  document.title = `Nertz — ${day}`;
  const t = board.table;
  const best = board.best
    ? h(
        "p",
        { class: "daily-best" },
        `Best hand of the day: ${board.best.name}, ${signed(board.best.score)}. `,
        h("a", { href: board.best.link, class: "daily-replay", text: "Watch its replay" }),
      )
    : null;
  const mark = board.you.entry ? board.you.entry.score : null;
  app.replaceChildren(
    h(
      "div",
      { class: "page daily" },
      h(
        "nav",
        { class: "crumbs" },
        h("a", { href: "/", text: "← Home" }),
        h("a", { href: `/daily/${dayBefore(board.date)}`, text: "The day before" }),
        board.today ? null : h("a", { href: "/daily", text: "Today's deal" }),
      ),
      h("h1", { text: day }),
      h("p", {
        class: "daily-table",
        text: `One deal for everyone on ${board.date} (UTC): you against ${t.seats - 1} bots (${t.bots}: ${t.specs.join(", ")}) at their own pace, standard rules, one hand. Everyone's score and time are on the board.`,
      }),
      board.today ? actions(board) : null,
      h(
        "section",
        {},
        h("h2", {}, "The board ", h("small", { text: `${board.players} played` })),
        boardTable(board),
        board.histogram.length ? histogramChart(board.histogram, { mark }) : null,
        best,
      ),
      seedSection(board),
    ),
  );
}

/** ``/daily`` (``date`` null: today) or ``/daily/YYYY-MM-DD``. */
export async function showDaily(app, date) {
  document.title = "Nertz — the daily deal";
  try {
    const path = date ? `/api/daily/${date}` : "/api/daily";
    render(app, await api("GET", path, undefined, deviceHeaders()));
  } catch (error) {
    app.replaceChildren(
      h(
        "div",
        { class: "page daily" },
        h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
        h("h1", { text: "The daily deal" }),
        h("p", { class: "error", text: error.message }),
      ),
    );
  }
}
