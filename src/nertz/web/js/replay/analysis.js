// The viewer's analysis of one seat's hand (docs/analysis.md): its figures, the cards it
// let wait for the middle (each a button to that moment), what working the Nertz pile
// first would have left, and on demand the expert bots' move at the moment shown.
// Read from GET /api/matches/{id}/analysis and /advice: costly reads of the address, so
// nothing is asked for until the person asks.
import { api, h } from "../api.js";
import { deviceHeaders, hasDevice } from "../device.js";
import { clock } from "./timeline.js";

const SOURCES = { N: "the Nertz card", W: "the waste card" };

/** A move in the engine's notation (docs/notation.md) in words. */
export function moveWords(text) {
  if (text === "T") return "turn the stock";
  if (text === "NERTZ") return "call Nertz";
  if (text === "STUCK") return "say it is stuck";
  const m = /^([NW1-4])(?:\/(\d+))?([<>])(F\d*|[1-4])(?:=(\w+))?$/.exec(text);
  if (!m) return text;
  const [, src, run, how, dst, announced] = m;
  const what = run
    ? `the last ${run} cards of work pile ${src}`
    : SOURCES[src] || `the end card of work pile ${src}`;
  if (announced) return `announce ${what} as the ${announced} for the middle`;
  if (dst.startsWith("F")) return `${what} to the middle`;
  if (how === "<") return `slide ${what} under work pile ${dst}`;
  return `${what} onto work pile ${dst}`;
}

const ENDED = {
  played: "played late",
  moved: "moved elsewhere or covered",
  taken: "another player took its place",
  hand_end: "still waiting when the hand ended",
};

/** One missed play in words: the card, where it lay, how long it waited and how it ended. */
export function missedWords(m) {
  const seconds = (m.waited_ms / 1000).toFixed(1);
  return `${m.card} on the ${m.source}: waited ${seconds} s from ${clock(m.from_ms)} (${ENDED[m.ended] || m.ended})`;
}

/** The hand's figures in sentences (R29: each Nertz card left counts twice against). */
export function summaryLines(a) {
  const first = a.nertz_first;
  const lines = [
    `Cards to the middle: ${a.to_middle}. Nertz cards left: ${a.nertz_left}.`,
    `Races won: ${a.races_won}, lost: ${a.races_lost}.`,
    a.missed_count
      ? `Cards that waited 2 s or more for the middle: ${a.missed_count}.`
      : "No card waited 2 s or more for the middle.",
  ];
  if (first.first_called) {
    lines.push("Working the Nertz pile first at the same pace would have emptied it: Nertz!");
  } else if (first.could_have_played > 0) {
    lines.push(
      `Working the Nertz pile first at the same pace would have left ${first.first_left} ` +
        `Nertz card${first.first_left === 1 ? "" : "s"} (${first.could_have_played} fewer).`,
    );
  } else {
    lines.push("Working the Nertz pile first would not have left fewer Nertz cards.");
  }
  return lines;
}

/** The panel under the viewer's controls. ``viewer`` gives ``id``, ``hand``, ``seat``,
 * ``t`` and ``go(t)``; ``reset()`` when the hand or the seat changes. */
export class AnalysisPanel {
  constructor(viewer) {
    this.viewer = viewer;
    this.body = h("div", { class: "analysis-body", "aria-live": "polite" });
    this.askBtn = h("button", {
      type: "button",
      class: "analyse",
      text: "Analyse this seat's hand",
      onclick: () => this.analyse(),
    });
    this.adviceBtn = h("button", {
      type: "button",
      class: "advice",
      text: "What would the bots play now?",
      onclick: () => this.advise(),
    });
    this.advice = h("p", { class: "advice-answer", "aria-live": "polite" });
    this.el = h(
      "section",
      { class: "replay-analysis", "aria-label": "analysis" },
      h("h2", { text: "Analysis" }),
      h("div", { class: "replay-row" }, this.askBtn, this.adviceBtn),
      this.advice,
      this.body,
    );
  }

  /** Forget what was shown: another hand, another seat, or a file (no analysis). */
  reset() {
    const v = this.viewer;
    this.el.hidden = Boolean(v.file);
    const seated = v.seat !== "all";
    this.askBtn.disabled = !seated;
    this.adviceBtn.disabled = !seated;
    this.advice.textContent = "";
    this.body.replaceChildren(
      seated ? "" : h("p", { class: "note", text: "Choose a seat's view to analyse its hand." }),
    );
  }

  async ask(kind, extra = "") {
    const v = this.viewer;
    const query = `?hand=${v.hand}&seat=${v.seat}${extra}`;
    const headers = hasDevice() ? deviceHeaders() : {};
    return api(
      "GET",
      `/api/matches/${encodeURIComponent(v.id)}/${kind}${query}`,
      undefined,
      headers,
    );
  }

  async analyse() {
    const v = this.viewer;
    const asked = `${v.hand}/${v.seat}`;
    this.body.replaceChildren(h("p", { text: "Analysing…" }));
    let a;
    try {
      a = await this.ask("analysis");
    } catch (error) {
      this.body.replaceChildren(h("p", { class: "error", text: `${error.message}.` }));
      return;
    }
    if (`${v.hand}/${v.seat}` !== asked) return; // the person moved on meanwhile
    const list = h(
      "ol",
      { class: "missed" },
      a.missed.map((m) =>
        h(
          "li",
          {},
          missedWords(m),
          " ",
          h("button", {
            type: "button",
            class: "go-missed",
            text: "See it",
            "aria-label": `see the ${m.card} at ${clock(m.from_ms)}`,
            onclick: () => v.go(m.from_ms),
          }),
        ),
      ),
    );
    this.body.replaceChildren(...summaryLines(a).map((line) => h("p", { text: line })), list);
  }

  async advise() {
    const v = this.viewer;
    const t = Math.round(v.t);
    this.advice.textContent = "Asking the bots…";
    try {
      const a = await this.ask("advice", `&t=${t}`);
      this.advice.textContent =
        a.move === null
          ? `At ${clock(t)}: ${a.reason || "the bots would wait for a card to come free"}.`
          : `At ${clock(t)} the expert bots would play ${moveWords(a.move)} (${a.move}).`;
    } catch (error) {
      this.advice.textContent = `${error.message}.`;
    }
  }
}
