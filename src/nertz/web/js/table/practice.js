// A practice table's own part of the page (server/practice.py): pause, the bots' pace,
// hints, and the guided first hand's steps (server/lessons.py). The server decides
// everything: the steps, their words and the places to look at come in the table's
// ``practice``; a hint is the server's (the bots' own policy); a refusal is the
// engine's, or the step's hint. Here: the panel, the highlights and the glow.
import { h } from "../api.js";

/** After this long with no move of yours in a practice hand, the best move glows. */
export const HINT_IDLE_MS = 8000;
const GLOW_MS = 6000;
const PACES = [
  [25, "very slow"],
  [40, "slow"],
  [60, "steady"],
  [100, "full speed"],
];

/** The elements a place name of a step's ``look`` or a hint's move stands for. */
function placeOf(tv, name) {
  if (name === "F") return [tv.middle];
  if (/^F\d+$/.test(name)) return [...tv.foundations.querySelectorAll(`[data-drop="${name}"]`)];
  if (name === "stuck") return [tv.stuckBtn];
  if (name === "nertz") return [tv.callBtn];
  const pile = name === "S" ? "T" : name;
  return [...tv.mine.querySelectorAll(`.pile[data-pile="${pile}"]`)];
}

/** A move's places in the notation (``N>F2``, ``3/2>1``, ``W<2``, ``T``, ``STUCK``). */
function placesOfMove(move) {
  if (move === "T") return ["S"];
  if (move === "STUCK") return ["stuck"];
  if (move === "NERTZ") return ["nertz"];
  const [src, dst] = move.split(/[<>]/);
  return [src.split("/")[0], dst.split("=")[0]];
}

export class Practice {
  constructor(tv) {
    this.tv = tv;
    this.glow = null; // { move, until }
    this.wrong = null; // the explanation of the last refused move, on its step
    this.lastMove = performance.now();
    this.asked = false;
    this.pause = h("button", {
      type: "button",
      class: "pause-btn",
      onclick: () => this.togglePause(),
    });
    this.hintBtn = h(
      "button",
      {
        type: "button",
        class: "hint-btn",
        onclick: () => this.askHint(),
        title: "Show the best move (H)",
      },
      "Hint ",
      h("kbd", { text: "H" }),
    );
    this.pace = h(
      "select",
      {
        class: "pace",
        "aria-label": "bots' pace",
        onchange: () => tv.socket.send({ type: "pace", pace: Number(this.pace.value) }),
      },
      PACES.map(([pct, label]) => h("option", { value: String(pct), text: `bots: ${label}` })),
    );
    this.card = h("section", { class: "lesson", "aria-label": "Lesson", "aria-live": "polite" });
    this.controls = h(
      "div",
      { class: "practice-bar" },
      h("span", { class: "tag", text: "Practice: nothing counts" }),
      this.pause,
      this.hintBtn,
      this.pace,
    );
    this.el = h("div", { class: "practice", hidden: true }, this.card, this.controls);
    window.addEventListener("keydown", (e) => this.key(e));
    setInterval(() => this.idle(), 1000);
  }

  get info() {
    return (this.tv.table && this.tv.table.practice) || null;
  }

  /** A lesson table's lesson (its first hand; the practice hands follow), or null. A
   * lesson is dealt at once and has no seating, chat or host controls. */
  get lesson() {
    return (this.info && this.info.lesson) || null;
  }

  /** The lesson's step being played, or null (no lesson, or its hand is over). */
  get step() {
    const info = this.info;
    const t = this.tv.table;
    if (!info || !info.lesson || t.hand > 1 || info.step >= info.lesson.steps.length) return null;
    return info.lesson.steps[info.step];
  }

  get playing() {
    const t = this.tv.table;
    return !!t && t.stage === "playing" && !!this.info && !this.info.paused;
  }

  key(e) {
    if (!this.info || this.tv.dialog.open || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const lower = e.key.toLowerCase();
    if (lower === "h") {
      e.preventDefault();
      this.askHint();
    } else if (lower === "p") {
      e.preventDefault();
      this.togglePause();
    }
  }

  togglePause() {
    if (!this.info || this.tv.table.stage !== "playing") return;
    this.tv.socket.send({ type: "pause", on: !this.info.paused });
  }

  /** The Rules dialog opens (table/rulesdialog.js): a practice hand being played pauses
   * until ``dialog`` closes. Not one the player paused: it stays as they left it.
   * Whether it paused. */
  pauseWhile(dialog) {
    // A lesson's step waits for the player anyway: nothing to stop.
    if (!this.info || this.info.paused || this.step || this.tv.table.stage !== "playing")
      return false;
    this.tv.socket.send({ type: "pause", on: true });
    dialog.addEventListener("close", () => this.tv.socket.send({ type: "pause", on: false }), {
      once: true,
    });
    return true;
  }

  askHint() {
    if (!this.playing) return;
    this.asked = true;
    this.tv.socket.send({ type: "hint" });
  }

  /** No move of mine for ``HINT_IDLE_MS`` in a practice hand: ask for the glow once. */
  idle() {
    if (!this.playing || this.step || this.asked) return;
    if (performance.now() - this.lastMove > HINT_IDLE_MS) this.askHint();
  }

  /** The server's ``hint`` answer: glow its places for a while. */
  hint(move) {
    this.glow = move ? { move, until: performance.now() + GLOW_MS } : null;
    this.tv.render();
    if (move) setTimeout(() => this.tv.render(), GLOW_MS + 50); // the glow fades
  }

  /** An event the reducer applied: a move of mine ends the glow and restarts the wait;
   * so do Go and the end of a pause (the wait is for time spent playing). */
  saw(e) {
    const mine = e.seat === this.tv.me && ["moved", "turned", "stuck", "called"].includes(e.k);
    if (mine || e.k === "go" || (e.k === "paused" && !e.paused)) {
      this.lastMove = performance.now();
      this.asked = false;
      this.glow = null;
      this.wrong = null;
    }
    if (e.k === "lesson") this.wrong = null;
  }

  /** A refused play: in the lesson, say kindly why, with the step's own hint. Whether
   * the lesson's card says it (then nothing else need). */
  refused(code, reason) {
    const step = this.step;
    if (!step) return false;
    this.wrong =
      code === "lesson"
        ? `Not quite. ${reason}`
        : `Not quite: ${reason.replace(/\.$/, "")}. ${step.hint}`;
    this.tv.render();
    return true;
  }

  /** Draw the panel and the highlights (after the table is drawn). */
  render() {
    const tv = this.tv;
    const info = this.info;
    this.el.hidden = !info;
    if (!info) return;
    if (!this.el.isConnected) tv.board.append(this.el);
    this.pause.textContent = info.paused ? "Carry on (P)" : "Pause (P)";
    this.pause.disabled = tv.table.stage !== "playing";
    this.hintBtn.disabled = !this.playing;
    this.pace.value = String(
      PACES.reduce(
        (best, [pct]) => (Math.abs(pct - info.pace) < Math.abs(best - info.pace) ? pct : best),
        100,
      ),
    );
    const step = this.step;
    this.controls.hidden = !!step;
    tv.board.classList.toggle("paused", !!info.paused);
    this.drawCard(info, step);
    for (const el of tv.board.querySelectorAll(".look, .glow")) el.classList.remove("look", "glow");
    if (step && tv.table.stage === "playing") {
      for (const name of step.look) for (const el of placeOf(tv, name)) el.classList.add("look");
    }
    if (this.glow && this.glow.until > performance.now() && this.playing) {
      for (const name of placesOfMove(this.glow.move))
        for (const el of placeOf(tv, name)) el.classList.add("glow");
    }
  }

  drawCard(info, step) {
    const lesson = info.lesson;
    const t = this.tv.table;
    if (info.paused) {
      this.card.replaceChildren(
        h("h2", { text: "Paused" }),
        h("p", {
          text: "The bots and the hand's clocks have stopped. Carry on when you like (P).",
        }),
      );
    } else if (step) {
      this.card.replaceChildren(
        h("p", { class: "step-no", text: `Step ${info.step + 1} of ${lesson.steps.length}` }),
        h("h2", { text: step.title }),
        h("p", { class: "step-text", text: step.text }),
        this.wrong ? h("p", { class: "wrong", role: "alert", text: this.wrong }) : "",
      );
    } else if (lesson && t.hand > 1) {
      this.card.replaceChildren(h("h2", { text: "Practice hand" }), h("p", { text: lesson.after }));
    } else {
      this.card.replaceChildren();
    }
    this.card.hidden = !this.card.childElementCount;
  }
}
