// The panels over the table: the seating, a hand's breakdown and the running totals,
// and the end of the match. They lie below the top bar (Rules, ⚙ and Home stay
// clickable); a panel after a hand closes by its ✕, Esc or a click beside it ("Look at
// the table"), and then a Ready button beside the table brings the next deal. Between
// hands the panel counts the next deal down, and every seat list the place of a person
// away (table/lifetimes.js).
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { totalsChart } from "../chart.js";
import {
  duplicateCells,
  duplicateHeads,
  duplicateLine,
  duplicateText,
  duplicateTotals,
  matchTotals,
} from "./duplicate.js";
import { hostLine } from "./host.js";
import { canInvite, showInvite } from "./invite.js";
import { awayLine, nextHandText, ticking } from "./lifetimes.js";
import { ratingLine } from "./ratings.js";
import { replayLine } from "./replaylink.js";
import { handInMatch, hostStartLine, playAgainLine, seriesTable } from "./series.js";
import { myPlace, playedName, serverBot } from "./state.js";

/** The panel over the table, if any: the seating before the first deal, the breakdown
 * of the hand just over (R29, R30), the totals between hands, the match's end (R32).
 * "Look at the table" hides it until the next deal. */
export function renderOverlay(tv) {
  const t = tv.table;
  const box = tv.overlay;
  let content = null;
  if (tv.ui.removed) content = removedPanel();
  else if (t.stage === "seating")
    content = tv.practice.lesson ? null : seatingPanel(tv); // a lesson deals at once
  else if ((t.stage === "between" || t.stage === "over") && tv.st.handEnd && !tv.ui.overlayHidden)
    content = handEndPanel(tv);
  else if (t.stage === "between" && !tv.ui.overlayHidden) content = betweenPanel(tv);
  else if (t.stage === "over" && !tv.ui.overlayHidden) content = matchPanel(tv);
  box.hidden = !content;
  if (content) box.replaceChildren(content);
  else box.replaceChildren();
  const me = tv.me !== null ? myPlace(tv.st) : null;
  const after = t.stage === "between" || t.stage === "over";
  tv.readyBtn.hidden = !(after && !content && me && !me.ready) || tv.ui.removed;
  tv.readyBtn.firstChild.textContent = t.stage === "over" ? "Play again " : "Ready ";
}

/** The notice to a person the host removed (``error`` ``removed``): over the table, in
 * view whatever the stage, with the way home. */
function removedPanel() {
  return h(
    "div",
    { class: "panel removed", role: "alert" },
    h("h2", { text: "The host removed you from this table" }),
    h("p", { text: "Your seat is free again: this page no longer plays here." }),
    h("p", {}, h("a", { href: "/", class: "button primary", text: "Back home" })),
  );
}

/** The Ready button beside the table, for when the panel after a hand is closed. */
export function readyButton(tv) {
  return h(
    "button",
    {
      class: "primary ready-side",
      type: "button",
      hidden: true,
      onclick: () => tv.ready(),
      title: "Ready for the next hand (Enter)",
    },
    "Ready ",
    h("kbd", { text: "Enter" }),
  );
}

/** Close the panel after a hand, if one is up ("Look at the table"): whether it was. */
export function closePanel(tv) {
  const t = tv.table;
  if (!t || tv.overlay.hidden || !(t.stage === "between" || t.stage === "over")) return false;
  tv.dispatch({ type: "closePanel" });
  tv.render();
  return true;
}

/** A panel's head: its title and the ✕ that closes it. */
function panelHead(tv, title) {
  return h(
    "div",
    { class: "panel-head" },
    h("h2", { text: title }),
    h("button", {
      type: "button",
      class: "close-x",
      "aria-label": "Close: look at the table",
      title: "Look at the table (Esc)",
      onclick: () => closePanel(tv),
      text: "✕",
    }),
  );
}

/** The buttons at a panel's foot, kept in sight while the panel scrolls. */
function panelFoot(tv, ...lines) {
  return h(
    "div",
    { class: "panel-foot" },
    ...lines,
    h("button", {
      type: "button",
      class: "link",
      onclick: () => closePanel(tv),
      text: "Look at the table",
    }),
  );
}

function seatingPanel(tv) {
  const t = tv.table;
  const me = tv.me !== null ? myPlace(tv.st) : null;
  return h(
    "div",
    { class: "panel seating" },
    h("h2", { text: `Table ${tv.code}` }),
    canInvite(tv)
      ? h(
          "p",
          {},
          h(
            "button",
            { type: "button", class: "invite-open", onclick: () => showInvite(tv, tv.dialog) },
            "Invite people",
          ),
          " a link, a code to type, a QR code",
        )
      : null,
    h(
      "ul",
      { class: "seat-list" },
      t.seats.map((s) =>
        h(
          "li",
          {},
          h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
          ` ${s.name || s.bot ? playedName(tv.st, s.seat) : s.invited ? `kept for ${s.invited} (bot)` : "waiting for a player"}`,
          outsideMark(s),
          serverBot(s) || s.ready
            ? " — ready"
            : s.name
              ? s.connected
                ? " — not ready"
                : awayLine(tv, s, "not here") || " — not here"
              : "",
        ),
      ),
    ),
    me && !me.ready
      ? h(
          "button",
          { class: "primary ready-btn", type: "button", onclick: () => tv.ready() },
          "I'm ready — deal! ",
          h("kbd", { text: "Enter" }),
        )
      : h("p", { text: "The deal comes when every seat is taken and everyone is ready." }),
    hostLine(tv),
    h(
      "p",
      {},
      h("a", {
        href: `/rules?t=${tv.code}${tv.key ? `&key=${encodeURIComponent(tv.key)}` : ""}`,
        target: "_blank",
        text: "Rules and options in force",
      }),
    ),
  );
}

/** Per seat, the running totals from the start (0) through every finished hand: the
 * server's ``history``, so a person who joins or reloads mid-match sees every hand. */
function series(tv) {
  const n = tv.table.seats.length;
  const out = Array.from({ length: n }, () => [0]);
  for (const totals of tv.table.history || []) {
    for (const [i, v] of totals.entries()) out[i].push(v);
  }
  return out;
}

function chart(tv) {
  const t = tv.table;
  return totalsChart(
    series(tv),
    t.seats.map((s) => playedName(tv.st, s.seat)),
    { target: t.rules.match === "race" ? t.rules.target : null },
  );
}

/** "Ready for the next hand" (or who it waits for) and the next deal's countdown. */
function readyLine(tv) {
  const me = tv.me !== null ? tv.table.seats[tv.me] : null;
  const next = ticking("span", { class: "next-hand", role: "timer" }, (now) =>
    nextHandText(tv, now),
  );
  if (!me) return h("p", {}, next);
  return me.ready
    ? h("p", { class: "waiting" }, "Waiting for the others… ", next)
    : [
        h(
          "button",
          { class: "primary ready-btn", type: "button", onclick: () => tv.ready() },
          "Ready for the next hand ",
          h("kbd", { text: "Enter" }),
        ),
        next,
      ];
}

/** A seat's name in a list after a hand, with how long the place of one away is kept. */
function seatName(tv, s, extra = "") {
  return h(
    "th",
    {},
    h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
    ` ${playedName(tv.st, s.seat)}`,
    outsideMark(s),
    extra,
    awayLine(tv, s),
  );
}

/** " (bot)" after the name of an outside bot's seat (docs/bots.md: a program someone
 * registered, whose name, unlike the server's bots', says nothing). */
function outsideMark(s) {
  return s.bot === "outside" ? h("span", { class: "outside-bot", text: " (bot)" }) : null;
}

/** Between hands without the breakdown (this page was opened or reloaded after the
 * hand ended): each seat's last hand score and total, from ``history``. */
function betweenPanel(tv) {
  const t = tv.table;
  const hist = t.history || [];
  const last = hist[hist.length - 1] || t.totals;
  const before = hist[hist.length - 2] || last.map(() => 0);
  const n = handInMatch(t);
  return h(
    "div",
    { class: "panel hand-end", role: "dialog", "aria-label": `Hand ${n} over` },
    panelHead(tv, `Hand ${n} over`),
    h(
      "table",
      { class: "breakdown" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["", "hand score", "total", ...(t.duplicate ? ["duplicate total"] : [])].map((x) =>
            h("th", { text: x }),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        t.seats.map((s) =>
          h(
            "tr",
            {},
            seatName(tv, s),
            h("td", { text: String(last[s.seat] - before[s.seat]) }),
            h("td", { class: "total", text: `${before[s.seat]} → ${last[s.seat]}` }),
            t.duplicate
              ? h("td", {
                  class: "dup-score total",
                  text: duplicateText(t.duplicate.totals[s.seat]),
                })
              : null,
          ),
        ),
      ),
    ),
    h("h3", { text: "Running totals" }),
    chart(tv),
    panelFoot(tv, readyLine(tv)),
  );
}

/** The hand's breakdown (R29, R30); ``totals``: with each seat's running total. */
function breakdownTable(tv, e, totals = true) {
  const t = tv.table;
  const rules = (tv.base && tv.base.rules) || t.rules;
  const before = e.totals.map((v, i) => v - e.scores[i].score);
  const heads = [
    "",
    "cards in the middle, sorted by back (R29)",
    "Nertz cards left",
    "caller bonus",
    "hand score (R30)",
    totals ? "total" : null,
    ...(totals ? duplicateHeads(e) : []),
  ];
  return h(
    "table",
    { class: totals && e.rotation ? "breakdown with-duplicate" : "breakdown" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        heads.filter((x) => x !== null).map((x) => h("th", { text: x })),
      ),
    ),
    h(
      "tbody",
      {},
      e.scores.map((s, i) =>
        h(
          "tr",
          { class: e.caller === i ? "caller" : "" },
          seatName(tv, t.seats[i], e.caller === i ? " (called)" : ""),
          h(
            "td",
            {},
            h("span", {
              class: "stackbar",
              style: `--n:${s.middle};--back:${seatColour(i)}`,
              title: `${s.middle} cards with ${playedName(tv.st, i)}'s back`,
            }),
            ` ${s.middle}`,
          ),
          h("td", { text: `${s.nertz_left} × −${rules.penalty}` }),
          h("td", { text: s.bonus ? `+${s.bonus}` : "—" }),
          h("td", {
            class: "arith",
            text: `${s.middle} − ${rules.penalty}×${s.nertz_left}${s.bonus ? ` + ${s.bonus}` : ""} = ${s.score}`,
          }),
          totals ? h("td", { class: "total", text: `${before[i]} → ${e.totals[i]}` }) : null,
          ...(totals ? duplicateCells(e, i) : []),
        ),
      ),
    ),
  );
}

function handEndPanel(tv) {
  const e = tv.st.handEnd;
  const t = tv.table;
  const why =
    e.reason === "called" && e.caller !== null
      ? `${playedName(tv.st, e.caller)} called Nertz!`
      : "Nobody could play: the hand ends with no call (R26).";
  const best = Math.max(...e.scores.map((s) => s.score));
  const top = e.scores
    .map((s, i) => (s.score === best ? playedName(tv.st, i) : null))
    .filter(Boolean);
  const n = handInMatch({ ...t, hand: e.hand });
  // A hand before the match's first is a lesson's (server/practice.py): its score is
  // shown, not carried on, and the practice hand follows when the learner is ready.
  const lesson = n < 1;
  const title = lesson ? "The lesson hand is over" : `Hand ${n} over`;
  const panel = h(
    "div",
    {
      class: "panel hand-end",
      role: "dialog",
      "aria-label": `${lesson ? "The lesson hand" : `Hand ${n}`} breakdown`,
    },
    panelHead(tv, `${title} — ${why}`),
    // The match's winner first, in sight on a phone either way up (R32).
    tv.st.matchEnd ? winnersLine(tv, tv.st.matchEnd.winners) : null,
    h("p", {
      text: `Best hand: ${top.join(" and ")} with ${best}. Each card in the middle +1, each Nertz card left −${((tv.base && tv.base.rules) || t.rules).penalty} (R30).`,
    }),
    lesson ? null : duplicateLine(e),
    breakdownTable(tv, e, !lesson),
    ...lostRaces(tv, e),
    ...(lesson ? [] : [h("h3", { text: "Running totals" }), chart(tv)]),
  );
  if (lesson) {
    panel.append(
      panelFoot(
        tv,
        h(
          "button",
          { class: "primary ready-btn", type: "button", onclick: () => tv.ready() },
          "Deal the practice hand ",
          h("kbd", { text: "Enter" }),
        ),
      ),
    );
  } else if (tv.st.matchEnd) {
    panel.append(
      ...[
        matchTotals(tv, t.totals, duplicateTotals(tv)),
        ratingLine(tv),
        replayLine(tv),
        seriesTable(tv),
        hostLine(tv),
        panelFoot(tv, dailyLine(t), playAgainLine(tv), hostStartLine(tv)),
      ].filter(Boolean),
    );
  } else {
    panel.append(panelFoot(tv, readyLine(tv)));
  }
  return panel;
}

// Races lost this hand and by how many ms of play time (fair races, R16; docs/fairness.md).
function lostRaces(tv, e) {
  if (!e.lost || !e.lost.length) return [];
  const bySeat = new Map();
  for (const [seat, ms] of e.lost) bySeat.set(seat, [...(bySeat.get(seat) || []), ms]);
  const parts = [...bySeat].map(
    ([seat, all]) =>
      `${playedName(tv.st, seat)} ${all.length} (by ${all.map((ms) => `${ms} ms`).join(", ")})`,
  );
  return [
    h("p", {
      class: "lost-races",
      text: `Races lost to a card played first (R16): ${parts.join("; ")}.`,
    }),
  ];
}

function winnersLine(tv, w) {
  const t = tv.table;
  const names = w.map((i) => playedName(tv.st, i));
  // A duplicate match is won on the duplicate totals (R45); the points come beside.
  const duplicate = duplicateTotals(tv);
  const score = duplicate
    ? `${duplicateText(duplicate[w[0]])} duplicate (${t.totals[w[0]]} points)`
    : `${t.totals[w[0]]}`;
  const text =
    w.length > 1
      ? `Shared win: ${names.join(" and ")} with ${score}!`
      : `${names[0] === "You" ? "You win" : `${names[0]} wins`} the match with ${score}!`;
  return h("p", { class: "winners", text });
}

function matchPanel(tv) {
  const t = tv.table;
  // The match ended before this page opened: the table says who won.
  return h(
    "div",
    { class: "panel match-end", role: "dialog", "aria-label": "Match over" },
    panelHead(tv, "Match over"),
    winnersLine(tv, (tv.st.matchEnd || t).winners),
    chart(tv),
    matchTotals(tv, t.totals, duplicateTotals(tv)),
    ratingLine(tv),
    replayLine(tv),
    seriesTable(tv),
    hostLine(tv),
    panelFoot(tv, dailyLine(t), playAgainLine(tv), hostStartLine(tv)),
  );
}

/** At a daily deal's table (server/lobby/daily.py): the way to the day's board. */
function dailyLine(t) {
  if (!t.daily) return null;
  return h(
    "p",
    { class: "daily-line" },
    h("a", { href: `/daily/${t.daily}`, class: "daily-board-link", text: "See the day's board" }),
  );
}
