// A table plays a series (docs/protocol.md, "Series"): the standings (matches won per
// seat), "Play again" and "Leave the table" at a match's end, and a hand's number
// within its match (the server numbers hands across the whole series).
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { isHost } from "./host.js";
import { awayLine } from "./lifetimes.js";
import { myPlace, nameOf } from "./state.js";

/** The hand's number within the current match (1 for its first deal). */
export function handInMatch(t) {
  const first = (t.series && t.series.first_hand) || 1;
  return t.hand ? t.hand - first + 1 : 0;
}

/** "Series 1–0" for the top strip, once a match of the series is over. */
export function seriesLabel(t) {
  const s = t.series;
  if (!s || (s.match === 1 && t.stage !== "over")) return null;
  return `Series ${s.wins.join("–")}`;
}

/** Matches won, for the end panel: a line for whoever sits at each seat now, with the
 * matches they won there, and one for each person who won there and has left. Who won
 * comes from the server's ``series.names`` and ``series.winners`` (a person a bot stood
 * in for is named, not the bot), so a seat changing hands moves no win. */
export function seriesTable(tv) {
  const t = tv.table;
  const s = t.series;
  if (!s) return null;
  const chip = (seat) => h("span", { class: "chip", style: `background:${seatColour(seat.seat)}` });
  const status = (seat) =>
    seat.name && !seat.bot
      ? seat.ready
        ? " — plays again"
        : seat.connected
          ? ""
          : awayLine(tv, seat) || " — away"
      : "";
  const rows = [];
  for (const seat of t.seats) {
    const won = new Map(); // name -> matches won at this seat, in the order they played
    (s.names || []).forEach((names, m) => {
      const name = names[seat.seat];
      if (name == null) return;
      won.set(
        name,
        (won.get(name) || 0) + (((s.winners && s.winners[m]) || []).includes(seat.seat) ? 1 : 0),
      );
    });
    // Whoever won here and has left keeps their wins; whoever sits here now has theirs.
    for (const [name, wins] of won) {
      if (name === seat.name || !wins) continue;
      rows.push(
        h(
          "li",
          {},
          chip(seat),
          ` ${name}: `,
          h("b", { class: "wins", text: String(wins) }),
          " won — left the table",
        ),
      );
    }
    const mine = s.names ? won.get(seat.name) || 0 : s.wins[seat.seat]; // an older server: by seat
    rows.push(
      h(
        "li",
        {},
        chip(seat),
        ` ${nameOf(tv.st, seat.seat)}: `,
        h("b", { class: "wins", text: String(mine) }),
        " won",
        status(seat),
      ),
    );
  }
  return h(
    "div",
    { class: "series", "aria-label": "Series" },
    h("h3", {
      text: `Series after ${s.match} match${s.match === 1 ? "" : "es"}: ${s.wins.join("–")}`,
    }),
    h("ul", { class: "seat-list" }, rows),
  );
}

/** "Play again" (the ``ready`` message once a match is over) and "Leave the table"
 * (``leave``: the place is given up at once), or who the table still waits for. */
export function playAgainLine(tv) {
  const me = tv.me !== null ? myPlace(tv.st) : null;
  const home = h("a", { href: "/", class: "button", text: "Back home" });
  if (!me) return h("p", {}, home);
  // The host may also start the next match at once (the Host button).
  const waiting = tv.table.seats
    .filter((s) => s.name && !s.bot && s.connected && !s.ready && s.seat !== tv.me)
    .map((s) => nameOf(tv.st, s.seat));
  const leave = h("button", {
    type: "button",
    class: "leave-btn",
    onclick: () => tv.leave(),
    text: "Leave the table",
  });
  if (me.ready) {
    return h(
      "p",
      { class: "waiting" },
      waiting.length
        ? `Waiting for ${waiting.join(" and ")} to play again…`
        : "The next match deals now…",
      " ",
      leave,
    );
  }
  return h(
    "p",
    {},
    h(
      "button",
      { class: "primary again-btn", type: "button", onclick: () => tv.ready() },
      "Play again ",
      h("kbd", { text: "Enter" }),
    ),
    " ",
    leave,
  );
}

/** Once a match is over, the host need not wait for everyone's "Play again": from
 * ``host_wait_ms`` after its end (the server's ``host_start_s``) the host may start the
 * next match. The host's page has the button; everyone sees when. */
export function hostStartLine(tv) {
  if (tv.st.hostStartAt === null || tv.table.stage !== "over" || !tv.table.host) return null;
  const line = h(
    "p",
    { class: "host-start-line" },
    isHost(tv)
      ? h(
          "button",
          { type: "button", class: "host-start-next", onclick: () => tv.hostDo({ do: "start" }) },
          "Start the next match",
        )
      : null,
    h("span", { class: "host-start-wait" }),
  );
  tickHostStart(tv, performance.now(), line);
  return line;
}

/** Count the host's wait down (table.js calls it a few times a second). */
export function tickHostStart(tv, now, line = tv.overlay.querySelector(".host-start-line")) {
  if (!line || tv.st.hostStartAt === null) return;
  const left = Math.ceil((tv.st.hostStartAt - now) / 1000);
  const button = line.querySelector(".host-start-next");
  let text;
  if (button) {
    button.disabled = left > 0;
    text =
      left > 0
        ? ` in ${left} s, or when everyone has said Play again`
        : " now: bots keep the places of those away";
  } else {
    text =
      left > 0
        ? `The host may start the next match in ${left} s.`
        : "The host may start the next match now.";
  }
  const wait = line.querySelector(".host-start-wait");
  if (wait.textContent !== text) wait.textContent = text;
}
