// The replay viewer, /replay/{id}?hand=N&t=MS&seat=S (docs/protocol.md "Replays"): a
// finished match hand by hand, read from GET /api/matches/{id}/replay one hand at a
// time (or from a notation file a person opens, POST /api/replays), rebuilt at any
// moment by replay/timeline.js. A scrubber over the hand's real time, play and pause,
// speeds 0.5x to 8x, the previous and next card played, any seat's view or every card
// face up (only finished matches are replayed), a link to the moment shown. Keys:
// Space plays and pauses, the arrows step, Home and End jump to Go and the hand's end.
import { api, h } from "../api.js";
import { deviceHeaders, hasDevice } from "../device.js";
import {
  backEl,
  cardEl,
  cardName,
  isJoker,
  jokerName,
  pinOf,
  seatColour,
  shortName,
  slotEl,
} from "../cards.js";
import { AnalysisPanel } from "./analysis.js";
import {
  clampTime,
  clock,
  describeStep,
  liveScores,
  makeTimeline,
  middleCard,
  middleCounts,
  nextTime,
  previousTime,
  stateAfter,
  stepsBy,
} from "./timeline.js";

/** The speeds offered, times the real pace. */
export const SPEEDS = [0.5, 1, 2, 4, 8];
/** The largest notation file opened, in bytes (server/http/replay_api.py FILE_BYTES). */
export const FILE_BYTES = 256 * 1024;
/** Hands of a match asked for ahead of a click, at most: each is a costly read (docs/server.md). */
const AHEAD = 16;

/** Open the viewer on the match ``id`` (null: no match yet, only "Open a file"). */
export function showReplay(app, id) {
  new Viewer(app, id).start(new URLSearchParams(location.search));
}

class Viewer {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.file = null; // a file opened here: {name, timelines by hand}
    this.meta = null; // {title, names, hands, number}
    this.hands = new Map(); // hand number -> Promise of its timeline
    this.loaded = new Set(); // the hands whose timeline is here
    this.tl = null;
    this.hand = null;
    this.t = 0;
    this.playing = false;
    this.speed = 1;
    this.seat = "all";
    this.shown = null; // what the board last drew: "hand/steps/seat"
    this.urlTimer = null;
  }

  async start(params) {
    this.build();
    if (this.id === null) {
      this.title.textContent = "Replay a match";
      this.say("Open a match's notation file (downloaded from a replay) to watch it here.");
      return;
    }
    const hand = /^\d{1,10}$/.test(params.get("hand") || "") ? Number(params.get("hand")) : null;
    if (params.has("hand") && hand === null) {
      this.say(`"${params.get("hand")}" is no hand number: showing the match's first hand.`);
    }
    const seat = params.get("seat");
    if (seat !== null) this.seat = seat === "all" ? "all" : Number(seat);
    try {
      const first = await this.fetchHand(hand);
      this.meta = {
        title: `Table ${first.code}, match ${first.number}`,
        names: first.names,
        hands: first.hands,
        number: first.number,
      };
      this.hands.set(first.hand, Promise.resolve(first));
      this.loaded.add(first.hand);
      this.download.href = `/api/matches/${encodeURIComponent(this.id)}/notation?number=${first.number}`;
      this.download.hidden = false;
      await this.showHand(first.hand, Number(params.get("t") || 0), params.has("t"));
    } catch (error) {
      this.failed(error);
    }
  }

  async fetchHand(hand) {
    const query = hand === null ? "" : `?hand=${hand}`;
    // The device names a daily deal's player: its try shows once they played (daily_refusal).
    const headers = hasDevice() ? deviceHeaders() : {};
    const path = `/api/matches/${encodeURIComponent(this.id)}/replay${query}`;
    const answer = await api("GET", path, undefined, headers);
    return makeTimeline(answer);
  }

  loadHand(hand) {
    if (!this.hands.has(hand)) {
      const made = this.file
        ? Promise.resolve(makeTimeline(this.file.byHand.get(hand)))
        : this.fetchHand(hand);
      made.then(
        () => {
          this.loaded.add(hand);
          this.tabFor(hand)?.setAttribute("data-ready", "");
        },
        () => this.hands.delete(hand), // asked again next time
      );
      this.hands.set(hand, made);
    }
    return this.hands.get(hand);
  }

  /** The button of hand ``hand``, if drawn. */
  tabFor(hand) {
    return this.tabs.querySelector(`[data-hand="${hand}"]`);
  }

  /** Show hand ``hand`` at ``t`` ms since Go (``asked``: the moment came from a link). */
  async showHand(hand, t, asked = false) {
    this.pause();
    const tl = await this.loadHand(hand);
    this.tl = tl;
    this.hand = hand;
    this.callStep = tl.steps.findIndex((s) => s[2] === "NERTZ");
    if (this.seat !== "all" && !(this.seat >= 0 && this.seat < tl.seats)) this.seat = "all";
    this.title.textContent = this.meta.title;
    document.title = `Nertz — replay of ${this.meta.title}`;
    this.drawHands();
    this.drawSeatChoice();
    this.analysis.reset();
    this.range.max = String(tl.end_ms);
    this.shown = null;
    const { t: at, clamped } = clampTime(tl, t);
    if (asked && clamped === "end") {
      this.say(
        `The moment asked for (${clock(t)}) is past the end of hand ${this.handIndex(hand)} (${clock(tl.end_ms)}): showing its end.`,
      );
    } else if (asked && clamped === "start") {
      this.say("The moment asked for is before Go: showing Go.");
    }
    this.go(at);
    this.prefetch(hand);
  }

  /** Ask for the match's other hands in the background, nearest first and one at a
   * time (at most AHEAD): a click on another hand then finds it here. A refusal (the
   * address's quota of costly reads) stops it: that hand is asked for when clicked. */
  async prefetch(hand) {
    if (this.prefetched || this.file) return;
    this.prefetched = true;
    const hands = this.meta.hands;
    const i = hands.indexOf(hand);
    const near = (j) => Math.abs(j - i) * 2 - (j > i ? 1 : 0);
    const order = hands
      .map((n, j) => [near(j), n])
      .filter(([, n]) => n !== hand)
      .sort((a, b) => a[0] - b[0])
      .slice(0, AHEAD);
    for (const [, n] of order) {
      try {
        await this.loadHand(n);
      } catch {
        return;
      }
    }
  }

  handIndex(hand) {
    return this.meta.hands.indexOf(hand) + 1;
  }

  failed(error) {
    this.board.replaceChildren();
    this.controls.hidden = true;
    const hint =
      error.code === "match_in_progress"
        ? " Come back once it is over."
        : error.code === "unknown_match"
          ? " A private table's match opens only from its own links."
          : "";
    this.say(`${error.message}.${hint}`.replace("..", "."), "error");
    if (error.code === "bad_hand") {
      this.note.append(
        " ",
        h("a", { href: `/replay/${encodeURIComponent(this.id)}`, text: "Open its first hand" }),
      );
    }
  }

  // ------------------------------------------------------------------ the page

  build() {
    this.analysis = new AnalysisPanel(this);
    this.title = h("h1", { class: "replay-title", text: "Replay" });
    this.note = h("p", { class: "replay-note", role: "status", "aria-live": "polite" });
    this.download = h("a", {
      class: "download-link",
      download: "",
      hidden: true,
      text: "Download the match (notation)",
    });
    const input = h("input", {
      type: "file",
      accept: ".txt,text/plain",
      class: "visually-hidden",
      "aria-label": "open a notation file",
    });
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      input.value = "";
      if (file) this.openFile(file);
    });
    const open = h("label", { class: "open-file button" }, "Open a file", input);
    this.tabs = h("nav", { class: "hand-tabs", "aria-label": "hands of the match" });
    this.seatChoice = h("select", { id: "replay-seat", "aria-label": "whose view" });
    this.seatChoice.addEventListener("change", () => {
      const v = this.seatChoice.value;
      this.seat = v === "all" ? "all" : Number(v);
      this.analysis.reset();
      this.render();
      this.saveUrlSoon();
    });
    this.board = h("div", { class: "replay-board", "aria-label": "the table at this moment" });
    this.caption = h("p", { class: "replay-caption", "aria-live": "polite" });
    this.range = h("input", {
      type: "range",
      class: "scrubber",
      min: "0",
      max: "0",
      step: "1",
      value: "0",
      "aria-label": "time in the hand",
    });
    this.range.addEventListener("input", () => {
      this.pause();
      this.go(Number(this.range.value));
    });
    this.range.addEventListener("change", () => this.saveUrlSoon());
    this.time = h("span", { class: "replay-time", "aria-live": "off" });
    this.playBtn = h("button", {
      type: "button",
      class: "play",
      title: "Play or pause (Space)",
      onclick: () => this.toggle(),
    });
    const prev = h("button", {
      type: "button",
      class: "step-prev",
      title: "Previous card played (←)",
      "aria-label": "previous card played",
      onclick: () => this.step(-1),
      text: "⏮",
    });
    const next = h("button", {
      type: "button",
      class: "step-next",
      title: "Next card played (→)",
      "aria-label": "next card played",
      onclick: () => this.step(1),
      text: "⏭",
    });
    this.speedBtns = SPEEDS.map((s) =>
      h("button", {
        type: "button",
        class: "speed",
        "data-speed": String(s),
        "aria-pressed": String(s === this.speed),
        onclick: () => this.setSpeed(s),
        text: `${s}×`,
      }),
    );
    this.link = h("a", { class: "moment-link", text: "Link to this moment" });
    this.controls = h(
      "div",
      { class: "replay-controls" },
      h("div", { class: "replay-row" }, prev, this.playBtn, next, this.time, this.range),
      h(
        "div",
        { class: "replay-row" },
        h("span", { class: "speeds", role: "group", "aria-label": "speed" }, this.speedBtns),
        h("label", { class: "seat-choice" }, "View ", this.seatChoice),
        this.link,
      ),
    );
    this.app.replaceChildren(
      h(
        "div",
        { class: "page replay" },
        h(
          "nav",
          { class: "crumbs" },
          h("a", { href: "/", text: "← Home" }),
          h("a", { href: "/me", text: "My games" }),
        ),
        this.title,
        h("div", { class: "replay-tools" }, this.download, open),
        this.note,
        this.tabs,
        this.board,
        this.caption,
        this.controls,
        this.analysis.el,
      ),
    );
    this.drawPlay();
    window.addEventListener("keydown", (e) => this.onKey(e));
  }

  say(text, kind = "info") {
    this.note.textContent = text;
    this.note.className = `replay-note ${kind}`;
  }

  drawHands() {
    this.tabs.replaceChildren(
      ...this.meta.hands.map((n, i) =>
        h("button", {
          type: "button",
          class: "hand-tab",
          "data-hand": String(n),
          "aria-current": n === this.hand ? "true" : null,
          "data-ready": this.loaded.has(n) ? "" : null, // its hand is here: a click shows it at once
          "aria-label": `hand ${i + 1}`,
          onclick: () => {
            this.say("");
            this.showHand(n, 0).catch((error) => this.say(error.message, "error"));
            this.saveUrlSoon();
          },
          text: String(i + 1),
        }),
      ),
    );
  }

  drawSeatChoice() {
    const names = this.meta.names;
    this.seatChoice.replaceChildren(
      h("option", { value: "all", text: "Every card face up" }),
      ...names.map((n, i) => h("option", { value: String(i), text: `${n}'s view` })),
    );
    this.seatChoice.value = String(this.seat);
  }

  drawPlay() {
    this.playBtn.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    this.playBtn.setAttribute("aria-pressed", String(this.playing));
  }

  // ------------------------------------------------------------------ time

  /** Show the moment ``t`` ms since Go. */
  go(t) {
    if (!this.tl) return;
    this.t = clampTime(this.tl, t).t;
    this.render();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    if (!this.tl || this.playing) return;
    if (this.t >= this.tl.end_ms) this.t = 0; // played to the end: again from Go
    this.playing = true;
    this.drawPlay();
    let last = performance.now();
    const frame = (now) => {
      if (!this.playing) return;
      this.t = Math.min(this.tl.end_ms, this.t + (now - last) * this.speed);
      last = now;
      this.render();
      if (this.t >= this.tl.end_ms) this.pause();
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.drawPlay();
    this.saveUrlSoon();
  }

  setSpeed(s) {
    this.speed = s;
    for (const b of this.speedBtns)
      b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === s));
  }

  step(direction) {
    if (!this.tl) return;
    this.pause();
    const to = direction > 0 ? nextTime(this.tl, this.t) : previousTime(this.tl, this.t);
    if (to !== null) this.go(to);
    this.saveUrlSoon();
  }

  onKey(e) {
    const target = e.target;
    if (target && (target.tagName === "SELECT" || target.type === "file")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " ") {
      // Space plays and pauses wherever the focus is: a focused button would be
      // clicked too when the key comes up (Play twice, or another hand), so it lets go.
      if (target && target.tagName === "BUTTON") target.blur();
      this.toggle();
    } else if (e.key === "ArrowRight") this.step(1);
    else if (e.key === "ArrowLeft") this.step(-1);
    else if (e.key === "Home") this.go(0);
    else if (e.key === "End" && this.tl) this.go(this.tl.end_ms);
    else return;
    e.preventDefault();
  }

  momentUrl() {
    return `/replay/${encodeURIComponent(this.id)}?hand=${this.hand}&t=${Math.round(this.t)}&seat=${this.seat}`;
  }

  /** Put the moment in the address bar, once the scrubbing stops. */
  saveUrlSoon() {
    if (this.file || this.id === null) return;
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      if (this.tl) history.replaceState(null, "", this.momentUrl());
    }, 300);
  }

  // ------------------------------------------------------------------ drawing

  render() {
    const tl = this.tl;
    const done = stepsBy(tl, this.t);
    this.range.value = String(Math.round(this.t));
    this.time.textContent = `${clock(this.t)} / ${clock(tl.end_ms)}`;
    if (this.file) {
      this.link.removeAttribute("href");
      this.link.textContent = "A file's moments have no links";
    } else {
      this.link.href = this.momentUrl();
      this.link.textContent = "Link to this moment";
    }
    const key = `${this.hand}/${done}/${this.seat}`;
    if (key !== this.shown) {
      this.shown = key;
      this.drawBoard(stateAfter(tl, done), done);
      this.drawCaption(done);
    }
    // Read by people (the time) and by the tests (the moment drawn).
    this.board.dataset.hand = String(this.hand);
    this.board.dataset.t = String(Math.round(this.t));
    this.board.dataset.steps = String(done);
  }

  drawCaption(done) {
    const tl = this.tl;
    const names = this.meta.names;
    let text = done
      ? `${clock(tl.times[done - 1])} — ${describeStep(tl, done - 1, names)}`
      : "Go! (R8)";
    if (done === tl.count) {
      const scores = tl.scores.map((s, i) => `${names[i]} ${s.score}`).join(", ");
      if (tl.end === null) text += ". The hand's inputs end here: it was not played to its end.";
      else {
        const how =
          tl.end === "called" && tl.caller !== null
            ? `${names[tl.caller]} called Nertz`
            : "nobody could play (R26)";
        text += `. Hand over: ${how}. Scores: ${scores} (R30).`;
      }
    }
    this.caption.textContent = text;
  }

  drawBoard(state, done) {
    const tl = this.tl;
    const scores = liveScores(tl, state);
    const middle = middleCounts(state, tl.seats);
    const called = this.callStep >= 0 && done > this.callStep ? tl.steps[this.callStep][1] : null;
    const faceUp = this.seat === "all";
    const order = [...Array(tl.seats).keys()];
    if (!faceUp) order.push(...order.splice(this.seat, 1)); // the seat viewed at the foot
    const seats = order.map((n) =>
      this.seatPanel(n, state.seats[n], {
        faceUp,
        big: n === this.seat,
        score: scores[n],
        middle: middle[n],
        called: called === n,
      }),
    );
    this.board.classList.toggle("face-up", faceUp);
    const others = seats.slice(0, faceUp ? seats.length : -1);
    this.board.replaceChildren(
      h("div", { class: "rseats" }, others),
      this.middlePanel(state),
      ...(faceUp ? [] : [seats[seats.length - 1]]),
    );
  }

  seatPanel(n, seat, o) {
    const name = this.meta.names[n] || `Seat ${n + 1}`;
    const p = seat.piles;
    const head = h(
      "div",
      { class: "rseat-head" },
      h("span", { class: "chip", style: `background:${seatColour(n)}` }),
      h("b", { text: name }),
      h("small", {
        class: "rseat-score",
        text: `${o.middle} in the middle · ${p.N.length} Nertz left · ${o.score >= 0 ? "+" : ""}${o.score}`,
      }),
      seat.stuck ? h("span", { class: "tag", text: "stuck" }) : null,
      o.called ? h("span", { class: "tag call-tag", text: "called" }) : null,
    );
    return h(
      "section",
      {
        class: `rseat${o.big ? " big" : ""}`,
        "data-seat": String(n),
        style: `--seat:${seatColour(n)}`,
        "aria-label": `${name}'s cards`,
      },
      head,
      this.layout(n, seat),
      o.faceUp ? this.hiddenCards(seat) : null,
    );
  }

  layout(n, seat) {
    const p = seat.piles;
    const box = h("div", { class: "rlayout" });
    // The Nertz pile: its top face up (R4); the cards under it only when all are shown.
    const nertz = h("div", {
      class: "pile nertz",
      "data-pile": "N",
      "aria-label": `Nertz pile: ${p.N.length} card${p.N.length === 1 ? "" : "s"}${p.N.length ? `, top ${cardName(p.N[p.N.length - 1])}` : ""}`,
    });
    if (p.N.length) {
      if (p.N.length > 1) nertz.append(backEl(n, "face-down Nertz cards", "under"));
      nertz.append(cardEl(p.N[p.N.length - 1], n));
    } else nertz.append(slotEl("empty Nertz pile"));
    nertz.append(h("span", { class: "count", text: String(p.N.length), "aria-hidden": "true" }));
    box.append(h("div", { class: "col" }, h("span", { class: "lbl", text: "Nertz" }), nertz));
    const work = h("div", { class: "work" });
    for (const d of ["1", "2", "3", "4"]) {
      const pile = p[d];
      const el = h("div", {
        class: "pile fan",
        "data-pile": d,
        "aria-label": `work pile ${d}: ${pile.length ? pile.map((c, j) => (isJoker(c) ? jokerName(pinOf(pile, j)) : cardName(c))).join(", ") : "empty"}`,
      });
      el.style.setProperty("--n1", String(Math.max(1, pile.length - 1)));
      if (!pile.length) el.append(slotEl(`empty work space ${d}`));
      pile.forEach((c, j) => {
        const card = cardEl(c, n, "", isJoker(c) ? pinOf(pile, j) : null);
        card.style.setProperty("--i", String(j));
        el.append(card);
      });
      work.append(el);
    }
    box.append(h("div", { class: "col work-col" }, work));
    const stock = h("div", {
      class: "pile stock",
      "data-pile": "S",
      "aria-label": `stock: ${p.S.length} cards`,
    });
    stock.append(p.S.length ? backEl(n, "stock") : slotEl("empty stock"));
    stock.append(h("span", { class: "count", text: String(p.S.length), "aria-hidden": "true" }));
    // The waste: the cards of the last turn still lying there (R21), its top last.
    const fan = seat.fan ? p.W.slice(-seat.fan) : p.W.slice(-1);
    const waste = h("div", {
      class: "pile waste",
      "data-pile": "W",
      "aria-label": `waste: ${p.W.length} cards${p.W.length ? `, top ${cardName(p.W[p.W.length - 1])}` : ""}`,
    });
    if (!fan.length) waste.append(slotEl("empty waste"));
    fan.forEach((c, j) => {
      const card = cardEl(c, n, j < fan.length - 1 ? "dim" : "");
      card.style.setProperty("--i", String(j));
      waste.append(card);
    });
    box.append(
      h("div", { class: "col" }, h("span", { class: "lbl", text: "Stock" }), stock),
      h("div", { class: "col" }, h("span", { class: "lbl", text: "Waste" }), waste),
    );
    return box;
  }

  /** Every face-down card of a seat, face up (a finished match only): the Nertz cards
   * under the top, the stock in the order it turns, the waste under the cards shown. */
  hiddenCards(seat) {
    const p = seat.piles;
    const fan = seat.fan ? p.W.slice(-seat.fan) : p.W.slice(-1);
    const lines = [
      chips("nertz-under", "Nertz, then", p.N.slice(0, -1).reverse()),
      chips("stock-next", "Stock, next", p.S.slice().reverse()),
      chips("waste-under", "Waste, under", p.W.slice(0, p.W.length - fan.length).reverse()),
    ].filter(Boolean);
    return lines.length ? h("div", { class: "hidden-cards" }, lines) : null;
  }

  middlePanel(state) {
    const names = this.meta.names;
    const cells = state.middle.map((f, i) => {
      const cards = f.map(middleCard);
      const top = cards[cards.length - 1];
      const label = `F${i + 1}: ${cards.map((c) => `${c.as ? `joker as ${shortName(c.as)}` : shortName(c.card)} (${names[c.owner] || `seat ${c.owner + 1}`})`).join(", ")}`;
      const done = (top.as || top.card).startsWith("K");
      return h(
        "div",
        {
          class: `rfound${done ? " finished" : ""}`,
          "data-f": `F${i + 1}`,
          role: "listitem",
          title: label,
          "aria-label": label,
        },
        cardEl(top.card, top.owner, "", top.as ? { card: top.as } : null),
        h(
          "div",
          // One stripe per card in its owner's colour, drawn as one gradient (few elements:
          // the whole table is drawn again at every moment asked for).
          { class: "owners", "aria-hidden": "true", style: `background:${ownerStripes(cards)}` },
        ),
      );
    });
    return h(
      "div",
      { class: "rmiddle", role: "list", "aria-label": "the middle: each card's owner by colour" },
      cells.length ? cells : h("p", { class: "empty-middle", text: "Nothing in the middle yet" }),
    );
  }

  // ------------------------------------------------------------------ a file

  async openFile(file) {
    if (file.size > FILE_BYTES) {
      this.say(
        `${file.name} is ${file.size} bytes: the viewer opens notation files of at most ${FILE_BYTES} bytes (256 KB). Nothing changed.`,
        "error",
      );
      return;
    }
    let data;
    try {
      data = await api("POST", "/api/replays", { text: await file.text() });
    } catch (error) {
      this.say(`${file.name} could not be opened: ${error.message}. Nothing changed.`, "error");
      return;
    }
    if (!data.hands.length) {
      this.say(`${file.name} has no hands to replay. Nothing changed.`, "error");
      return;
    }
    this.pause();
    this.file = { name: file.name, byHand: new Map(data.timelines.map((t) => [t.hand, t])) };
    this.hands = new Map();
    this.loaded = new Set();
    this.meta = {
      title: `${data.title || file.name} (from ${file.name})`,
      names: data.names,
      hands: data.hands,
      number: null,
    };
    this.download.hidden = true;
    this.controls.hidden = false;
    clearTimeout(this.urlTimer);
    history.replaceState(null, "", "/replay");
    this.say(
      `Opened ${file.name}: ${data.hands.length} hand${data.hands.length === 1 ? "" : "s"}.`,
    );
    await this.showHand(data.hands[0], 0);
  }
}

/** The cards a layout hides, shown face up as a line of text (one element, not one a
 * card: the table is drawn again at every moment asked for). */
function chips(kind, label, cards) {
  if (!cards.length) return null;
  return h(
    "div",
    { class: `chips ${kind}` },
    h("span", { class: "lbl", text: `${label}:` }),
    h("span", { class: "chipcards", text: cards.map(shortName).join(" ") }),
  );
}

/** A foundation's owners, bottom to top, as stripes of equal width: a CSS gradient. */
function ownerStripes(cards) {
  const w = 100 / cards.length;
  const stops = cards.map(
    (c, i) => `${seatColour(c.owner)} ${(i * w).toFixed(2)}% ${((i + 1) * w).toFixed(2)}%`,
  );
  return `linear-gradient(to right, ${stops.join(", ")})`;
}
