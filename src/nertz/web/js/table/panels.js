// The panels over the table: the seating, a hand's breakdown and the running totals,
// and the end of the match.
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { totalsChart } from "../chart.js";
import { hostLine } from "./host.js";
import { handInMatch, playAgainLine, seriesTable } from "./series.js";
import { myPlace, nameOf } from "./state.js";

/** The panel over the table, if any: the seating before the first deal, the breakdown
 * of the hand just over (R29, R30), the totals between hands, the match's end (R32).
 * "Look at the table" hides it until the next deal. */
export function renderOverlay(tv) {
  const t = tv.table;
  const box = tv.overlay;
  let content = null;
  if (t.stage === "seating") content = seatingPanel(tv);
  else if ((t.stage === "between" || t.stage === "over") && tv.st.handEnd && !tv.overlayHidden) content = handEndPanel(tv);
  else if (t.stage === "between" && !tv.overlayHidden) content = betweenPanel(tv);
  else if (t.stage === "over" && !tv.overlayHidden) content = matchPanel(tv);
  box.hidden = !content;
  if (content) box.replaceChildren(content);
  else box.replaceChildren();
}

function seatingPanel(tv) {
  const t = tv.table;
  const me = tv.me !== null ? myPlace(tv.st) : null;
  return h("div", { class: "panel seating" },
    h("h2", { text: `Table ${tv.code}` }),
    h("p", {}, "Share this link to invite people: ", h("code", { text: `${location.origin}/t/${tv.code}${tv.key ? `?key=${tv.key}` : ""}` })),
    h("ul", { class: "seat-list" }, t.seats.map((s) => h("li", {},
      h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
      ` ${s.name || s.bot ? nameOf(tv.st, s.seat) : "waiting for a player"}`,
      s.bot || s.ready ? " — ready" : s.name ? (s.connected ? " — not ready" : " — not here") : ""))),
    me && !me.ready
      ? h("button", { class: "primary ready-btn", type: "button", onclick: () => tv.ready() }, "I'm ready — deal! ", h("kbd", { text: "Enter" }))
      : h("p", { text: "The deal comes when every seat is taken and everyone is ready." }),
    hostLine(tv),
    h("p", {}, h("a", { href: `/rules?t=${tv.code}`, target: "_blank", text: "Rules and options in force" })));
}

/** Per seat, the running totals from the start (0) through every finished hand: the
 * server's ``history``, so a person who joins or reloads mid-match sees every hand. */
function series(tv) {
  const n = tv.table.seats.length;
  const out = Array.from({ length: n }, () => [0]);
  for (const totals of tv.table.history || []) totals.forEach((v, i) => out[i].push(v));
  return out;
}

function chart(tv) {
  const t = tv.table;
  return totalsChart(series(tv), t.seats.map((s) => nameOf(tv.st, s.seat)), { target: t.rules.match === "race" ? t.rules.target : null });
}

function readyLine(tv) {
  const me = tv.me !== null ? tv.table.seats[tv.me] : null;
  if (!me) return null;
  return me.ready
    ? h("p", { class: "waiting", text: "Waiting for the others… the next deal comes soon." })
    : h("button", { class: "primary ready-btn", type: "button", onclick: () => tv.ready() }, "Ready for the next hand ", h("kbd", { text: "Enter" }));
}

/** Between hands without the breakdown (this page was opened or reloaded after the
 * hand ended): each seat's last hand score and total, from ``history``. */
function betweenPanel(tv) {
  const t = tv.table;
  const hist = t.history || [];
  const last = hist[hist.length - 1] || t.totals;
  const before = hist[hist.length - 2] || last.map(() => 0);
  const n = handInMatch(t);
  const panel = h("div", { class: "panel hand-end", role: "dialog", "aria-label": `Hand ${n} over` },
    h("h2", { text: `Hand ${n} over` }),
    h("table", { class: "breakdown" },
      h("thead", {}, h("tr", {}, ["", "hand score", "total"].map((x) => h("th", { text: x })))),
      h("tbody", {}, t.seats.map((s) => h("tr", {},
        h("th", {}, h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }), ` ${nameOf(tv.st, s.seat)}`),
        h("td", { text: String(last[s.seat] - before[s.seat]) }),
        h("td", { class: "total", text: `${before[s.seat]} → ${last[s.seat]}` }))))),
    h("h3", { text: "Running totals" }),
    chart(tv),
    readyLine(tv));
  panel.append(h("button", { type: "button", class: "link", onclick: () => { tv.overlayHidden = true; tv.render(); }, text: "Look at the table" }));
  return panel;
}

function breakdownTable(tv, e) {
  const t = tv.table;
  const rules = (tv.base && tv.base.rules) || t.rules;
  const before = e.totals.map((v, i) => v - e.scores[i].score);
  return h("table", { class: "breakdown" },
    h("thead", {}, h("tr", {}, ["", "cards in the middle, sorted by back (R29)", "Nertz cards left", "caller bonus", "hand score (R30)", "total"].map((x) => h("th", { text: x })))),
    h("tbody", {}, e.scores.map((s, i) => h("tr", { class: e.caller === i ? "caller" : "" },
      h("th", {}, h("span", { class: "chip", style: `background:${seatColour(i)}` }), ` ${nameOf(tv.st, i)}`, e.caller === i ? " (called)" : ""),
      h("td", {}, h("span", { class: "stackbar", style: `--n:${s.middle};--back:${seatColour(i)}`, title: `${s.middle} cards with ${nameOf(tv.st, i)}'s back` }), ` ${s.middle}`),
      h("td", { text: `${s.nertz_left} × −${rules.penalty}` }),
      h("td", { text: s.bonus ? `+${s.bonus}` : "—" }),
      h("td", { class: "arith", text: `${s.middle} − ${rules.penalty}×${s.nertz_left}${s.bonus ? ` + ${s.bonus}` : ""} = ${s.score}` }),
      h("td", { class: "total", text: `${before[i]} → ${e.totals[i]}` })))));
}

function handEndPanel(tv) {
  const e = tv.st.handEnd;
  const t = tv.table;
  const why = e.reason === "called" && e.caller !== null
    ? `${nameOf(tv.st, e.caller)} called Nertz!`
    : "Nobody could play: the hand ends with no call (R26).";
  const best = Math.max(...e.scores.map((s) => s.score));
  const top = e.scores.map((s, i) => (s.score === best ? nameOf(tv.st, i) : null)).filter(Boolean);
  const me = tv.me !== null ? myPlace(tv.st) : null;
  const n = handInMatch({ ...t, hand: e.hand });
  const panel = h("div", { class: "panel hand-end", role: "dialog", "aria-label": `Hand ${n} breakdown` },
    h("h2", { text: `Hand ${n} over — ${why}` }),
    h("p", { text: `Best hand: ${top.join(" and ")} with ${best}. Each card in the middle +1, each Nertz card left −${((tv.base && tv.base.rules) || t.rules).penalty} (R30).` }),
    breakdownTable(tv, e),
    ...lostRaces(tv, e),
    h("h3", { text: "Running totals" }),
    chart(tv));
  if (tv.st.matchEnd) {
    panel.append(winnersLine(tv, tv.st.matchEnd.winners));
    panel.append(seriesTable(tv), playAgainLine(tv), hostLine(tv));
  } else if (me) {
    panel.append(readyLine(tv));
  }
  panel.append(h("button", { type: "button", class: "link", onclick: () => { tv.overlayHidden = true; tv.render(); }, text: "Look at the table" }));
  return panel;
}

// Races lost this hand and by how many ms of play time (fair races, R16; docs/fairness.md).
function lostRaces(tv, e) {
  if (!e.lost || !e.lost.length) return [];
  const bySeat = new Map();
  for (const [seat, ms] of e.lost) bySeat.set(seat, [...(bySeat.get(seat) || []), ms]);
  const parts = [...bySeat].map(([seat, all]) =>
    `${nameOf(tv.st, seat)} ${all.length} (by ${all.map((ms) => `${ms} ms`).join(", ")})`);
  return [h("p", { class: "lost-races", text: `Races lost to a card played first (R16): ${parts.join("; ")}.` })];
}

function winnersLine(tv, w) {
  const t = tv.table;
  const names = w.map((i) => nameOf(tv.st, i));
  const text = w.length > 1
    ? `Shared win: ${names.join(" and ")} with ${t.totals[w[0]]}!`
    : `${names[0] === "You" ? "You win" : `${names[0]} wins`} the match with ${t.totals[w[0]]}!`;
  return h("p", { class: "winners", text });
}

function matchPanel(tv) {
  const t = tv.table;
  // The match ended before this page opened: the table says who won.
  return h("div", { class: "panel match-end" },
    h("h2", { text: "Match over" }), winnersLine(tv, (tv.st.matchEnd || t).winners),
    chart(tv),
    seriesTable(tv),
    playAgainLine(tv),
    hostLine(tv));
}
