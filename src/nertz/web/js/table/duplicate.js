// Duplicate Nertz (option ``duplicate``, R42-R46 of docs/rules-decisions.md): every
// deal is played once per seat, the cards moving on one seat a hand, and a seat's
// duplicate score is its score minus the average of everyone who played the same cards.
// The panels after a hand and at the match's end show it beside the normal score; the
// server computes both (docs/protocol.md: ``hand_end``'s ``rotation``,
// ``duplicate_deal`` and ``duplicate_totals``, ``match_end``'s ``duplicate_totals``).
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { playedName } from "./state.js";

/** A duplicate score as people read it: signed, one decimal ("+3.5", "0", "-1.3"). */
export function duplicateText(value) {
  const rounded = Math.round(value * 10) / 10;
  if (rounded === 0) return "0";
  const text = Math.abs(rounded).toFixed(1).replace(/\.0$/, "");
  return rounded > 0 ? `+${text}` : `-${text}`;
}

/** The sentence under a hand's title: which play of its deal it was, and whether the
 * deal's duplicate scores are settled (R44). Null when the table is not duplicate. */
export function duplicateLine(e) {
  if (!e.rotation) return null;
  const [k, n] = e.rotation;
  const text = e.duplicate_deal
    ? `Duplicate: this deal has been played ${n} times, once from every seat. Each duplicate` +
      " score is a player's points minus the average of everyone who played the same cards" +
      " (R43)."
    : `Duplicate: play ${k} of ${n} of this deal; the cards move on one seat for the next.` +
      ` Its duplicate scores count once all ${n} plays are over (R44).`;
  return h("p", { class: "duplicate-line", text });
}

/** The breakdown's duplicate headings, when the table is duplicate. */
export function duplicateHeads(e) {
  return e.rotation ? ["duplicate this deal (R43)", "duplicate total"] : [];
}

/** Seat ``i``'s duplicate cells in the breakdown: the deal's duplicate score (or when
 * it comes) and the duplicate total (R44). */
export function duplicateCells(e, i) {
  if (!e.rotation) return [];
  const [, n] = e.rotation;
  const deal = e.duplicate_deal
    ? h("td", { class: "dup-score", text: duplicateText(e.duplicate_deal[i]) })
    : h("td", { class: "dup-score pending", text: `after play ${n}` });
  return [deal, h("td", { class: "dup-score total", text: duplicateText(e.duplicate_totals[i]) })];
}

/** The match's totals both ways (R32, R45): points and the duplicate totals, which
 * decide a duplicate match. Null when the table is not duplicate. */
export function matchTotals(tv, totals, duplicate) {
  if (!duplicate) return null;
  const seats = tv.table.seats;
  return h(
    "div",
    { class: "match-totals" },
    h("h3", { text: "Match totals: points and duplicate (the duplicate total decides, R45)" }),
    h(
      "table",
      { class: "breakdown duplicate-totals" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["", "points", "duplicate"].map((x) => h("th", { text: x })),
        ),
      ),
      h(
        "tbody",
        {},
        seats.map((s) =>
          h(
            "tr",
            {},
            h(
              "th",
              {},
              h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
              ` ${playedName(tv.st, s.seat)}`,
            ),
            h("td", { class: "total", text: String(totals[s.seat]) }),
            h("td", { class: "dup-score total", text: duplicateText(duplicate[s.seat]) }),
          ),
        ),
      ),
    ),
  );
}

/** The duplicate totals of the match as the page knows them: the match's end, else
 * the table's (``state``, kept by ``hand_end``). */
export function duplicateTotals(tv) {
  const end = tv.st.matchEnd;
  if (end && end.duplicate_totals) return end.duplicate_totals;
  return tv.table.duplicate ? tv.table.duplicate.totals : null;
}
