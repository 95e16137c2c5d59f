// The table: your layout large, the middle, every opponent compact; drag and drop,
// tap-then-tap, double-click to the middle, and the keyboard; optimistic moves that the
// server's ack confirms or its refusal undoes (the card springs back).
// Jokers (R41): one goes onto a work pile like any card; to the middle it is announced,
// through a chooser of the cards it may stand for now, and every page shows the open
// announcement on its foundation with a countdown until it lands or stays home.
import { api, h, store, toast } from "./api.js";
import {
  backEl, cardEl, cardName, fitsWork, isJoker, jokerName, parse, pinOf, seatColour, shortName, slotEl,
} from "./cards.js";
import { totalsChart } from "./chart.js";
import { joinTable, seatFor } from "./home.js";
import {
  announceable, applyAnnounced, applyMoved, applyRotated, applyTurned, endAnnouncement, fromView,
  predict, sourceCards, topOf, wasteFan, wasteTop,
} from "./model.js";
import { TableSocket } from "./net.js";
import { rulesContent } from "./rules.js";

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const SRC_NAMES = { N: "Nertz pile", W: "waste" };

function srcName(src) {
  return SRC_NAMES[src] || `work pile ${src}`;
}

export async function showTable(app, code) {
  const params = new URLSearchParams(location.search);
  const key = params.get("key");
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("seat")) {
    // ``make play`` hands over a seat token in the fragment (never sent to the server).
    const seats = store.get("seats", {});
    seats[code] = { token: hash.get("seat"), seat: null, key, at: Date.now() };
    store.set("seats", seats);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const mine = seatFor(code);
  if (mine) {
    new TableView(app, code, mine, key).start();
    return;
  }
  showJoin(app, code, key);
}

async function showJoin(app, code, key) {
  document.title = `Nertz — table ${code}`;
  let info;
  try {
    info = await api("GET", `/api/tables/${code}${key ? `?key=${encodeURIComponent(key)}` : ""}`);
  } catch (error) {
    app.replaceChildren(h("div", { class: "page" }, h("h1", { text: `Table ${code}` }),
      h("p", { class: "error", text: error.message }), h("a", { href: "/", text: "← Home" })));
    return;
  }
  const name = h("input", { id: "join-name", value: store.get("name", ""), maxlength: 24, placeholder: "Your name", "aria-label": "your name" });
  const openPlace = (p) => !p.name && !p.bot;
  const free = info.seats.filter((s) => (s.partners ? s.partners.some(openPlace) : openPlace(s)));
  const sit = async (seat) => {
    store.set("name", name.value.trim());
    try {
      const record = await joinTable(code, name.value.trim(), key, seat);
      new TableView(app, code, record, key).start();
    } catch (error) {
      toast(error.message, "error", 5000);
    }
  };
  const paired = info.seats.some((s) => s.partners);
  const form = h("form", { class: "join-seat" }, name,
    h("button", { type: "submit", class: "primary", disabled: !free.length, text: free.length ? (paired ? "Take a seat (the table pairs you)" : "Take a seat") : "No free seat" }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    sit(null);
  });
  // R40: choose a partner: sit at a seat where someone waits for one.
  const placeText = (p) => p.name || (p.bot ? `bot ${p.bot}` : "free");
  const seatLine = (s) => (s.partners
    ? [` Seat ${s.seat + 1}: ${s.partners.map(placeText).join(" & ")} `,
      s.partners.some(openPlace) && s.partners.some((p) => !openPlace(p))
        ? h("button", { type: "button", class: "sit-with", onclick: () => sit(s.seat), text: `Partner ${s.partners.filter((p) => !openPlace(p)).map(placeText).join("")}` })
        : null]
    : [` Seat ${s.seat + 1}: ${s.name || "free"}${s.bot ? ` (bot ${s.bot})` : ""}`]);
  app.replaceChildren(h("div", { class: "page" },
    h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
    h("h1", { text: `Table ${code}` }),
    h("p", { text: `${info.seats.length} seats, ${info.stage}. ` }),
    h("ul", {}, info.seats.map((s) => h("li", {}, h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
      ...seatLine(s)))),
    form,
    h("p", {}, h("button", { type: "button", onclick: () => new TableView(app, code, null, key).start(), text: "Just watch" }))));
  name.focus();
}

class TableView {
  constructor(app, code, seatRec, key) {
    this.app = app;
    this.code = code;
    this.seatRec = seatRec;
    this.key = key || (seatRec && seatRec.key) || null;
    this.v = 0;
    this.table = null;
    this.base = null;
    this.me = null;
    this.pending = [];
    this.seq = 0;
    this.selected = null;
    this.drag = null;
    this.lastTap = null;
    this.handEnd = null;
    this.matchEnd = null;
    this.slots = new Map();
    this.stripOpen = false;
    this.banner = null;
    this.countdownEnd = null;
    this.resyncing = false;
    this.overlayHidden = false;
    this.chooser = null;
  }

  // ------------------------------------------------------------------ wiring

  start() {
    document.title = `Nertz — table ${this.code}`;
    this.build();
    this.socket = new TableSocket({
      code: this.code,
      token: this.seatRec ? this.seatRec.token : null,
      key: this.key,
      lastVersion: () => (this.table ? this.v : -1),
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (status, reason) => this.onStatus(status, reason),
    });
    window.addEventListener("keydown", (e) => this.onKey(e));
    window.addEventListener("keyup", (e) => this.onKeyUp(e));
    window.addEventListener("resize", () => this.render());
    this.timer = setInterval(() => this.tickBanner(), 200);
  }

  build() {
    this.strip = h("button", { class: "strip", type: "button", "aria-expanded": "false", title: "Scores (Tab)", onclick: () => this.toggleStrip() });
    this.status = h("span", { class: "status", role: "status" });
    this.callBtn = h("button", { class: "call", type: "button", disabled: true, onclick: () => this.call(), title: "Call Nertz (N): only when your Nertz pile is empty" }, "Nertz! ", h("kbd", { text: "N" }));
    this.stuckBtn = h("button", { class: "stuck-btn", type: "button", onclick: () => this.stuck(), title: "Say you are stuck (S): when everyone is, the table rotates (R25)" }, "Stuck ", h("kbd", { text: "S" }));
    const settings = store.get("settings", {});
    const four = h("input", { type: "checkbox", checked: !!settings.fourColour });
    const large = h("input", { type: "checkbox", checked: !!settings.large });
    const saveSettings = () => {
      store.set("settings", { fourColour: four.checked, large: large.checked });
      document.body.classList.toggle("four-colour", four.checked);
      document.body.classList.toggle("large", large.checked);
      this.render();
    };
    four.addEventListener("change", saveSettings);
    large.addEventListener("change", saveSettings);
    this.settingsBox = h("details", { class: "settings" }, h("summary", { text: "⚙", "aria-label": "display settings", title: "Display settings" }),
      h("div", { class: "settings-panel" }, h("label", {}, four, " four-colour deck"), h("label", {}, large, " large cards")));
    this.bar = h("header", { class: "bar" }, this.strip, this.status,
      h("span", { class: "grow" }),
      h("button", { type: "button", class: "rules-btn", onclick: () => this.showRulesDialog(), title: "The rules and this table's options (?)" }, "Rules ", h("kbd", { text: "?" })),
      this.settingsBox,
      h("a", { href: "/", class: "home-link", title: "Home" }, "Home"));
    this.opponents = h("section", { class: "opponents", "aria-label": "Opponents" });
    this.foundations = h("div", { class: "foundations", role: "list", "aria-label": "Foundations" });
    this.aside = h("div", { class: "aside", "aria-label": "Finished foundations, set aside" });
    this.bannerEl = h("div", { class: "banner", "aria-live": "assertive" });
    this.chooserEl = h("div", { class: "chooser", role: "dialog", "aria-label": "Announce your joker as", hidden: true });
    this.middle = h("section", { class: "middle", "data-drop": "F", "aria-label": "The middle: drop a card here to send it to a foundation" },
      this.foundations, this.aside, this.bannerEl, this.chooserEl);
    this.mine = h("section", { class: "mine", "aria-label": "Your layout" });
    this.actions = h("div", { class: "actions" }, this.callBtn, this.stuckBtn);
    this.help = h("p", { class: "keys-help", text: "Drag, or tap a card then its place · double-tap: to the middle · keys: 0 Nertz, W waste, 1–4 piles, F middle, Space turn, N call, Esc cancel, Tab scores" });
    this.overlay = h("div", { class: "overlay", hidden: true });
    this.dialog = h("dialog", { class: "rules-dialog" });
    this.board = h("div", { class: "board", tabindex: "0", "aria-label": `Nertz table ${this.code}` },
      this.bar, this.opponents, this.middle, h("div", { class: "mine-wrap" }, this.mine, this.actions), this.help, this.overlay);
    this.app.replaceChildren(this.board, this.dialog);
    this.board.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    this.board.addEventListener("dblclick", (e) => this.onDoubleClick(e));
    this.board.focus();
  }

  onStatus(status, reason) {
    if (status === "lost") {
      this.connected = false;
      this.status.textContent = "Connection lost — reconnecting…";
      this.status.className = "status warn";
    } else if (status === "open") {
      if (this.connected === false) toast("Reconnected.", "info", 1500);
      this.connected = true;
      this.renderStatus();
    } else if (status === "gone") {
      this.status.textContent = `Disconnected: ${reason}`;
      this.status.className = "status error";
    }
  }

  // ------------------------------------------------------------------ messages

  onMessage(msg) {
    switch (msg.type) {
      case "state":
        this.resyncing = false;
        this.v = msg.v;
        this.table = msg.table;
        this.me = msg.seat ?? null; // a spectator's state leaves ``seat`` out
        this.partner = msg.partner ?? null; // which of a partnership seat's two (R40)
        this.sentHold = null;
        // An open announcement's window, counted on this page's clock (R41).
        this.base = fromView(msg.view, (until) => until - (msg.now_ms ?? until));
        this.pending = [];
        if (this.seatRec && this.seatRec.seat !== msg.seat) {
          this.seatRec.seat = msg.seat;
          const seats = store.get("seats", {});
          seats[this.code] = this.seatRec;
          store.set("seats", seats);
        }
        if (this.table.stage === "countdown") this.countdownEnd = performance.now() + 1000;
        this.render();
        break;
      case "event":
        this.onEvent(msg);
        this.render();
        break;
      case "ack":
        this.pending = this.pending.filter((p) => p.seq !== msg.seq);
        for (const ev of msg.events) this.onEvent(ev);
        this.render();
        break;
      case "refused":
        this.refused(msg.seq, msg.code, msg.reason);
        break;
      case "hold":
        this.onHold(msg);
        break;
      case "error":
        if (msg.seq !== undefined && msg.seq !== null) this.refused(msg.seq, msg.code, msg.reason);
        else if (msg.code === "bad_token") {
          const seats = store.get("seats", {});
          delete seats[this.code];
          store.set("seats", seats);
          toast("That seat is no longer yours; take a seat again.", "error", 6000);
          setTimeout(() => location.reload(), 1500);
        } else if (msg.code !== "already_ready" && msg.code !== "not_now") toast(msg.reason, "warn");
        break;
      default:
        break;
    }
  }

  onEvent(msg) {
    if (!this.table || this.resyncing) return;
    if (msg.v <= this.v) return;
    if (msg.v > this.v + 1) {
      this.resyncing = true;
      this.socket.send({ type: "resync" });
      return;
    }
    this.v = msg.v;
    this.apply(msg.e);
  }

  apply(e) {
    const t = this.table;
    const m = this.base;
    const seats = t.seats;
    switch (e.k) {
      case "seat":
        if (e.partner !== undefined) this.updatePartner(seats[e.seat], e.partner, { name: e.name, bot: e.bot });
        else Object.assign(seats[e.seat], { name: e.name, bot: e.bot });
        break;
      case "connected":
        if (e.partner !== undefined) this.updatePartner(seats[e.seat], e.partner, { connected: e.connected });
        else seats[e.seat].connected = e.connected;
        break;
      case "takeover":
        if (e.partner !== undefined) this.updatePartner(seats[e.seat], e.partner, { takeover: e.bot });
        else seats[e.seat].takeover = e.bot;
        if (e.seat === this.me && (e.partner === undefined || e.partner === this.partner) && e.bot) toast("A bot is playing your seat while you were away.", "warn");
        break;
      case "ready":
        if (e.partner !== undefined) this.updatePartner(seats[e.seat], e.partner, { ready: true });
        else seats[e.seat].ready = true;
        break;
      case "dealt":
        t.hand = e.hand;
        t.stage = "countdown";
        this.base = fromView(e.table);
        this.handEnd = null;
        this.overlayHidden = false;
        this.slots = new Map();
        this.selected = null;
        for (const s of seats) {
          s.ready = !!s.bot;
          for (const p of s.partners || []) p.ready = !!p.bot;
          if (s.holding) s.holding = [null, null];
        }
        break;
      case "countdown":
        this.countdownEnd = performance.now() + e.go_in_ms;
        break;
      case "go":
        t.stage = "playing";
        if (m) m.phase = "playing";
        this.countdownEnd = null;
        this.flash("Go!", "go", 900);
        break;
      case "moved":
        if (m) {
          applyMoved(m, e.seat, e.move, e.cards, e.foundation, e.tie, e.revealed);
          if (e.tie) this.flash(`Tie! Both ${cardName(e.cards[0])}s stay (R16)`, "info", 1600);
          const top = wasteTop(m.seats[e.seat]);
          if (top === null && m.seats[e.seat].waste_count > 0) {
            this.resyncing = true;
            this.socket.send({ type: "resync" });
          }
        }
        break;
      case "turned":
        if (m) applyTurned(m, e.seat, e.cards);
        break;
      case "announced":
        // R41: sent as it happens, so its window starts now on this page's clock.
        if (m) applyAnnounced(m, e, performance.now() + (m.rules.joker_announce_ms || 0));
        if (e.seat !== this.me) {
          const where = e.foundation ? `for F${e.foundation}` : "to start a foundation";
          toast(`${this.nameOf(e.seat)} announced a joker as the ${cardName(e.as)} ${where} (R41)`, "info", 2000);
        }
        break;
      case "joker_stayed":
        if (m) endAnnouncement(m, e.seat, e.move);
        if (e.seat === this.me) toast(`Your joker stays home: ${e.reason}`, "warn", 5000);
        break;
      case "called":
        if (m) {
          m.caller = e.seat;
          m.phase = "landing";
        }
        this.flash(`${this.nameOf(e.seat)} called Nertz!`, "call", 2500);
        break;
      case "stuck":
        if (m) m.seats[e.seat].stuck = true;
        break;
      case "rotated":
        if (m) applyRotated(m);
        for (const s of seats) if (s.holding) s.holding = [null, null]; // R25: hands empty
        this.flash(e.idle ? "Nobody moved for a while: the table rotates (R25)" : "Everyone is stuck: the table rotates (R25)", "info", 3000);
        toast("Rotation: every stock was turned over and its top card moved to the bottom.", "info", 4000);
        break;
      case "ended":
        if (m) {
          m.phase = "over";
          m.end = e.reason;
        }
        break;
      case "hand_end":
        t.stage = "between";
        t.totals = e.totals;
        this.handEnd = e;
        this.overlayHidden = false;
        // The server's per-hand totals (docs/protocol.md, ``history``), this hand added.
        t.history = [...(t.history || []).slice(0, e.hand - 1), e.totals];
        break;
      case "match_end":
        t.stage = "over";
        t.winners = e.winners;
        t.totals = e.totals;
        this.matchEnd = e;
        break;
      case "resumed":
        this.resyncing = true;
        this.socket.send({ type: "resync" });
        break;
      default:
        break;
    }
  }

  refused(seq, code, reason) {
    if (seq === this.pickSeq) {
      // R40: my partner holds that card: put it down here too, and say why.
      this.pickSeq = null;
      this.sentHold = null;
      this.selected = null;
      this.chooser = null;
      if (this.drag) this.drag.refused = true; // let go of it: it springs back on release
      toast(reason, "error", 3200);
      this.render();
      return;
    }
    const before = this.rects();
    const was = this.pending.find((p) => p.seq === seq);
    this.pending = this.pending.filter((p) => p.seq !== seq);
    const beaten = code === "beaten";
    const text = beaten ? `Beaten to it! ${reason.replace(/^beaten to it: /, "")}` : reason;
    toast(text, beaten ? "warn" : "error", 3200);
    this.render(before);
    if (was && was.cards) {
      for (const c of was.cards) {
        const el = this.board.querySelector(`[data-card="${c}@${this.me}"]`);
        if (el) el.classList.add("bounced");
      }
    }
  }

  nameOf(seat) {
    if (!this.table) return `seat ${seat + 1}`;
    const s = this.table.seats[seat];
    if (seat === this.me && s.partners && this.partner !== null) {
      const mate = s.partners[1 - this.partner];
      return `You & ${mate.name || "a free place"}`;
    }
    if (seat === this.me) return "You";
    if (s.bot) return `Bot ${seat + 1} (${s.bot})`;
    return s.name || `seat ${seat + 1}`;
  }

  // ------------------------------------------------------------------ partners (R40)

  /** One partner of a partnership seat changed; the seat's own fields follow. */
  updatePartner(seat, partner, fields) {
    const places = seat.partners;
    Object.assign(places[partner], fields);
    const names = places.map((p) => p.name).filter(Boolean);
    seat.name = names.length ? names.join(" & ") : null;
    seat.bot = places.every((p) => p.bot) ? places.map((p) => p.bot).join("+") : null;
    seat.ready = places.every((p) => p.ready || p.bot);
    seat.connected = places.some((p) => p.name || p.bot) && places.every((p) => !(p.name || p.bot) || p.connected || p.bot);
    seat.takeover = places.some((p) => p.takeover);
  }

  /** My seat's people: "You", or at a partnership "Ann (you) & Bob". */
  myNames() {
    const s = this.table.seats[this.me];
    if (!s.partners || this.partner === null) return "You";
    return s.partners.map((p, i) => `${p.name || (p.bot ? `bot ${p.bot}` : "free place")}${i === this.partner ? " (you)" : ""}`).join(" & ");
  }

  /** My own place: the seat, or my half of a partnership seat. */
  myPlace() {
    const s = this.table.seats[this.me];
    return s.partners && this.partner !== null ? s.partners[this.partner] : s;
  }

  onHold(msg) {
    if (!this.table) return;
    const s = this.table.seats[msg.seat];
    if (!s || !s.holding) return;
    s.holding[msg.partner] = msg.src;
    if (msg.seat === this.me && msg.partner === this.partner && msg.src === null && this.sentHold !== null) {
      // My own hold lapsed (R40: a resting hand lets go): put the card down here too,
      // so that picking it up again asks the server again.
      this.sentHold = null;
      if (this.selected && !this.drag) {
        this.selected = null;
        toast("You held that card a while: it is put down so your partner may take it (R40).", "info", 3000);
      }
    }
    this.render();
  }

  /** Tell the server what I hold (R40): a drag or a selection picks a card up; letting
   * go puts it down. Only at a partnership table; a play puts it down by itself. */
  syncHold() {
    if (this.me === null || this.partner === null || !this.socket || !this.playable()) return;
    const dragged = this.drag && !this.drag.refused ? this.drag.src : null;
    // A joker whose card is being chosen (R41) is still in hand.
    const held = this.selected ? this.selected.src : this.chooser ? this.chooser.src : null;
    const want = this.drag ? dragged : held;
    if (want === this.sentHold) return;
    this.sentHold = want;
    if (want === null) this.socket.send({ type: "drop" });
    else {
      this.pickSeq = ++this.seq;
      this.socket.send({ type: "pick", seq: this.pickSeq, src: want });
    }
  }

  /** Who holds a card of seat ``n`` at ``src``, other than me: a name, or null. */
  heldBy(n, src) {
    const s = this.table.seats[n];
    if (!s || !s.holding) return null;
    for (let p = 0; p < s.holding.length; p++) {
      if (s.holding[p] !== src || (n === this.me && p === this.partner)) continue;
      const who = s.partners[p];
      return who.name || (who.bot ? "the bot" : "your partner");
    }
    return null;
  }

  /** Mark the cards partners hold in a layout: everyone sees where they act (R40). */
  markHolds(box, n) {
    const s = this.table.seats[n];
    if (!s || !s.holding) return;
    for (const src of s.holding) {
      if (src === null) continue;
      const who = this.heldBy(n, src);
      if (!who) continue;
      const pile = box.querySelector(`[data-pile="${src}"]`);
      const cards = pile ? pile.querySelectorAll(".card:not(.under)") : [];
      const card = cards.length ? cards[cards.length - 1] : null;
      if (!card) continue;
      card.classList.add("held");
      card.title = `${who} is holding this card`;
      pile.append(h("span", { class: "held-by", text: `${who} holds`, "aria-label": `${who} is holding this card` }));
    }
  }

  // ------------------------------------------------------------------ sending

  send(move, cards = null) {
    if (!this.playable()) {
      toast(this.table && this.table.stage === "countdown" ? "Wait for Go (R8)." : "The hand is not on.", "warn");
      return;
    }
    const seq = ++this.seq;
    if (!this.socket.send({ type: "play", seq, move })) {
      toast("Not connected: the card stays where it was.", "error");
      return;
    }
    const before = this.rects();
    this.pending.push({ seq, move, cards: cards ? cards : null });
    this.selected = null;
    this.sentHold = null; // the play puts the card down (R40)
    this.render(before);
  }

  playable() {
    return this.me !== null && this.base && this.table && ["playing", "countdown"].includes(this.table.stage) && this.base.phase !== "over";
  }

  call() {
    const seat = this.view() && this.view().seats[this.me];
    if (!seat || seat.nertz_count > 0) {
      toast("You can call only when your Nertz pile is empty (R27).", "warn");
      return;
    }
    this.socket.send({ type: "call", seq: ++this.seq });
  }

  stuck() {
    if (!this.playable()) return;
    this.socket.send({ type: "stuck", seq: ++this.seq });
  }

  ready() {
    if (this.me === null) return;
    this.socket.send({ type: "ready" });
    this.myPlace().ready = true;
    this.render();
  }

  /** What a drop (or a key) of ``src`` (``depth`` cards) on ``target`` means. */
  moveFor(src, depth, target) {
    const view = this.view();
    const seat = view.seats[this.me];
    const cards = sourceCards(seat, src, depth);
    if (!cards || cards.includes(null)) {
      toast(`Your ${srcName(src)} has no card to play yet.`, "info", 1500);
      return null;
    }
    if (target.startsWith("F")) {
      if (depth > 1) {
        toast("Only the last card of a pile can go to the middle (R14).", "warn");
        return null;
      }
      // R41: a joker is not played to the middle but announced as a card: choose it.
      if (isJoker(cards[0])) return { announce: target, cards };
      const number = target.length > 1 ? Number(target.slice(1)) : null;
      if (number) {
        const f = view.foundations.find((x) => x.number === number);
        const c = parse(cards[0]);
        if (f && !f.finished && f.suit === c.suit && topOf(f).rank === c.rank - 1) return { move: `${src}>F${number}`, cards };
      }
      return { move: `${src}>F`, cards };
    }
    if (target === src) return null;
    const pile = seat.work[Number(target) - 1];
    const plain = depth > 1 ? `${src}/${depth}>${target}` : `${src}>${target}`;
    // A run headed by a pinned joker lands only where the card it stands for would (R41).
    const from = /^[1-4]$/.test(src) ? seat.work[Number(src) - 1] : null;
    const pin = from ? pinOf(from, from.length - depth) : null;
    if (!pile.length || fitsWork(cards[0], pile[pile.length - 1], pin)) return { move: plain, cards };
    const space = seat.work.some((p) => !p.length);
    if (depth === 1 && space && fitsWork(pile[0], cards[0], pinOf(pile, 0))) return { move: `${src}<${target}`, cards };
    return { move: plain, cards };
  }

  // ------------------------------------------------------------------ the view

  /** The model shown: the server's, plus my moves not answered yet (optimistic). */
  view() {
    if (!this.base) return null;
    if (!this.pending.length) return this.base;
    const shown = structuredClone(this.base);
    for (const p of this.pending) {
      if (p.move !== "T") p.ok = predict(shown, this.me, p.move);
    }
    return shown;
  }

  rects() {
    const out = new Map();
    if (reducedMotion()) return out;
    for (const el of this.board.querySelectorAll("[data-card]")) out.set(el.dataset.card, el.getBoundingClientRect());
    return out;
  }

  render(before = this.rects()) {
    if (!this.table) return;
    const view = this.view();
    this.renderStrip(view);
    this.renderStatus();
    this.renderOpponents(view);
    this.renderMiddle(view);
    this.renderMine(view);
    this.renderChooser(view);
    this.renderOverlay();
    if (view) {
      // An announced joker waits on its pile for its window (R41): mark it there.
      for (const a of view.announcements) {
        const el = this.board.querySelector(`[data-card="${a.joker}@${a.seat}"]`);
        if (el) el.classList.add("announced");
      }
    }
    if (this.drag) {
      for (const c of this.drag.cards) {
        const el = this.board.querySelector(`[data-card="${c}@${this.me}"]`);
        if (el) el.classList.add("lifted");
      }
    }
    if (before.size) this.animate(before);
    this.syncHold();
  }

  animate(before) {
    for (const el of this.board.querySelectorAll("[data-card]")) {
      const old = before.get(el.dataset.card);
      if (!old) continue;
      const now = el.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
      const scale = old.width / Math.max(1, now.width);
      el.animate(
        [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 50 }, { transform: "none", zIndex: 50 }],
        { duration: 220, easing: "cubic-bezier(.2,.8,.3,1)" },
      );
    }
  }

  liveScore(view, seat) {
    const s = view.seats[seat];
    return s.middle - view.rules.penalty * s.nertz_count;
  }

  renderStrip(view) {
    const t = this.table;
    const chips = t.seats.map((s) => {
      const live = view && ["playing", "countdown"].includes(t.stage) ? this.liveScore(view, s.seat) : null;
      const label = `${this.nameOf(s.seat)}: total ${t.totals[s.seat]}${live !== null ? `, this hand ${live}` : ""}`;
      const chip = h("span", { class: `score-chip${s.seat === this.me ? " me" : ""}`, title: label, "aria-label": label },
        h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
        h("span", { class: "who", text: this.nameOf(s.seat) }),
        h("b", { text: String(t.totals[s.seat]) }),
        live !== null ? h("small", { text: ` ${live >= 0 ? "+" : ""}${live}` }) : null);
      if (this.stripOpen && view) {
        const vs = view.seats[s.seat];
        chip.append(h("small", { class: "detail", text: ` · ${vs.middle} in middle, ${vs.nertz_count} Nertz left` }));
      }
      return chip;
    });
    this.strip.replaceChildren(h("span", { class: "hand-no", text: t.hand ? `Hand ${t.hand}` : "Table" }), ...chips);
    this.strip.setAttribute("aria-expanded", String(this.stripOpen));
    this.strip.classList.toggle("open", this.stripOpen);
  }

  renderStatus() {
    if (!this.table || this.connected === false) return;
    const t = this.table;
    const words = {
      seating: "Waiting for players",
      countdown: "Get ready…",
      playing: this.base && this.base.phase === "landing" ? "Nertz! called — last cards landing" : "Play!",
      between: "Hand over",
      over: "Match over",
    };
    let text = words[t.stage] || t.stage;
    if (this.me === null) text += " · watching";
    this.status.textContent = text;
    this.status.className = "status";
  }

  seatBadges(seat, s) {
    const badges = [];
    if (s.bot && s.name !== `bot ${s.bot}`) badges.push(`bot ${s.bot}`);
    else if (!s.connected) badges.push("away");
    if (s.takeover) badges.push("bot playing");
    return badges.filter(Boolean).join(" · ");
  }

  renderOpponents(view) {
    const t = this.table;
    const order = t.seats.map((s) => s.seat).filter((n) => n !== this.me);
    this.opponents.style.setProperty("--opp", String(Math.max(1, order.length)));
    this.opponents.replaceChildren(...order.map((n) => {
      const s = t.seats[n];
      const vs = view && view.seats[n];
      const head = h("div", { class: "opp-head" },
        h("span", { class: "chip", style: `background:${seatColour(n)}` }),
        h("b", { text: this.nameOf(n) }),
        h("small", { text: this.seatBadges(n, s) }),
        vs && vs.stuck ? h("span", { class: "tag", text: "stuck" }) : null,
        view && view.caller === n ? h("span", { class: "tag call-tag", text: "called" }) : null);
      const panel = h("div", { class: "opp", style: `--seat:${seatColour(n)}`, "aria-label": `${this.nameOf(n)}'s layout` }, head);
      if (vs) panel.append(this.layoutEl(vs, n, false));
      return panel;
    }));
  }

  /** A seat's layout: Nertz pile, four work piles, stock, waste. */
  layoutEl(vs, n, mine) {
    const box = h("div", { class: mine ? "layout big" : "layout small" });
    // Nertz pile
    const nertz = h("div", { class: "pile nertz", "data-pile": "N", "aria-label": `Nertz pile: ${vs.nertz_count} card${vs.nertz_count === 1 ? "" : "s"}${vs.nertz_top ? `, top ${cardName(vs.nertz_top)}` : ""}` });
    if (vs.nertz_count > 0) {
      if (vs.nertz_count > 1) nertz.append(backEl(n, "face-down Nertz cards", "under"));
      const top = vs.nertz_top ? cardEl(vs.nertz_top, n) : backEl(n, "the next Nertz card");
      if (mine && vs.nertz_top) this.live(top, "N", 1);
      nertz.append(top);
    } else {
      nertz.append(slotEl("empty Nertz pile", "nertz-empty"));
    }
    nertz.append(h("span", { class: "count", text: String(vs.nertz_count), "aria-hidden": "true" }));
    box.append(h("div", { class: "col nertz-col" }, h("span", { class: "lbl", text: "Nertz" }), nertz));
    // work piles
    const work = h("div", { class: "work" });
    vs.work.forEach((pile, i) => {
      const d = String(i + 1);
      const el = h("div", {
        class: "pile fan", "data-pile": d,
        "aria-label": `work pile ${d}: ${pile.length ? pile.map((card, j) => (isJoker(card) ? jokerName(pinOf(pile, j)) : cardName(card))).join(", ") : "empty"}`,
      });
      if (mine) el.dataset.drop = d;
      el.style.setProperty("--n1", String(Math.max(1, pile.length - 1)));
      if (!pile.length) el.append(slotEl(`empty work space ${d}`));
      pile.forEach((card, j) => {
        // A joker with a real card on it stands for one above it (R41): say which.
        const c = cardEl(card, n, "", isJoker(card) ? pinOf(pile, j) : null);
        c.style.setProperty("--i", String(j));
        if (mine) this.live(c, d, pile.length - j);
        el.append(c);
      });
      if (mine) el.append(h("span", { class: "key-hint", text: d, "aria-hidden": "true" }));
      work.append(el);
    });
    box.append(h("div", { class: "col work-col" }, work));
    // stock and waste
    const stock = h("div", { class: "pile stock", "data-pile": "T", "aria-label": `stock: ${vs.stock_count} cards${mine ? "; turn it with Space" : ""}` });
    if (vs.stock_count > 0) stock.append(backEl(n, "stock"));
    else stock.append(slotEl(vs.waste_count ? "empty stock: turn the waste over" : "empty stock", "stock-empty"));
    stock.append(h("span", { class: "count", text: String(vs.stock_count), "aria-hidden": "true" }));
    if (mine) stock.dataset.turn = "1";
    const fan = wasteFan(vs);
    const waste = h("div", { class: "pile waste", "data-pile": "W", "aria-label": `waste: ${vs.waste_count} cards${fan.length ? `, top ${cardName(fan[fan.length - 1])}` : ""}` });
    if (!fan.length) waste.append(slotEl(vs.waste_count ? "waste" : "empty waste"));
    fan.forEach((card, j) => {
      if (card === null) {
        waste.append(backEl(n, "waste card"));
        return;
      }
      const c = cardEl(card, n, j < fan.length - 1 ? "dim" : "");
      c.style.setProperty("--i", String(j));
      if (mine && j === fan.length - 1) this.live(c, "W", 1);
      waste.append(c);
    });
    box.append(h("div", { class: "col stock-col" }, h("span", { class: "lbl", text: "Stock" }), stock),
      h("div", { class: "col waste-col" }, h("span", { class: "lbl", text: "Waste" }), waste));
    this.markHolds(box, n);
    return box;
  }

  /** Mark a card of mine as one that can be picked up. */
  live(el, src, depth) {
    el.dataset.src = src;
    el.dataset.depth = String(depth);
    el.classList.add("live");
    if (this.selected && this.selected.src === src && depth <= this.selected.depth) el.classList.add("selected");
  }

  slotOf(number, capacity) {
    if (!this.slots.has(number)) {
      const used = new Set(this.slots.values());
      let i = 0;
      while (used.has(i)) i++;
      this.slots.set(number, i);
    }
    return this.slots.get(number) % capacity;
  }

  renderMiddle(view) {
    const capacity = this.table.seats.length * 4;
    this.foundations.style.setProperty("--slots", String(Math.min(capacity, 16)));
    const cells = Array.from({ length: capacity }, (_, i) => h("div", { class: "fslot", role: "listitem", "data-slot": String(i) }));
    const done = [];
    if (view) {
      for (const f of view.foundations) {
        if (f.finished) {
          if (this.slots.has(f.number)) this.slots.delete(f.number);
          done.push(f);
          continue;
        }
        const slot = this.slotOf(f.number, capacity);
        const cell = cells[slot];
        cell.dataset.drop = `F${f.number}`;
        // A joker in the middle shows the card it was announced as (R41).
        const means = f.top_as ? { card: f.top_as } : null;
        const name = means ? jokerName(means) : cardName(f.top);
        const card = cardEl(f.top, f.owners[f.owners.length - 1], "", means);
        card.setAttribute("aria-label", `foundation F${f.number}: ${name}, ${f.count} card${f.count === 1 ? "" : "s"}`);
        const strip = h("div", { class: "owners", "aria-hidden": "true" },
          f.owners.map((o) => h("i", { style: `background:${seatColour(o)}` })));
        cell.append(card, strip);
        if (f.tie) cell.classList.add("tie");
        const needs = topOf(f).rank;
        cell.title = `F${f.number}: ${name}; takes the ${needs < 13 ? cardName(`${["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][needs + 1]}${f.suit}`) : "nothing: finished"}`;
      }
      // Open announcements (R41): on their foundation, or in a free place for a new one.
      for (const a of view.announcements) {
        const cell = a.foundation ? cells.find((c) => c.dataset.drop === `F${a.foundation}`) : cells.find((c) => !c.dataset.drop && !c.childElementCount);
        if (!cell) continue;
        if (!a.foundation) cell.classList.add("new-announce");
        cell.append(this.announceBadge(a));
      }
    }
    this.foundations.replaceChildren(...cells);
    const used = new Set(this.slots.values());
    const shown = Math.max(4, ...[...used].map((i) => i + 1));
    this.foundations.style.setProperty("--shown", String(shown));
    this.aside.replaceChildren(
      ...(done.length ? [h("span", { class: "lbl", text: "Finished" })] : []),
      ...done.map((f) => h("div", { class: "done", title: `F${f.number} finished: ${f.count} cards (R15)`, "aria-label": `finished foundation F${f.number} of ${f.suit}, ${f.count} cards` },
        cardEl(f.top, f.owners[f.owners.length - 1], "mini", f.top_as ? { card: f.top_as } : null), h("span", { class: "count", text: `×${f.count}` }))));
    if (view && !view.foundations.length && this.table.stage === "playing") {
      this.foundations.classList.add("empty-hint");
    } else this.foundations.classList.remove("empty-hint");
  }

  renderMine(view) {
    const t = this.table;
    if (this.me === null || !view) {
      this.mine.replaceChildren(h("p", { class: "waiting", text: this.me === null ? "You are watching this table." : "" }));
      this.callBtn.disabled = true;
      this.stuckBtn.disabled = true;
      return;
    }
    const vs = view.seats[this.me];
    const head = h("div", { class: "my-head" }, h("span", { class: "chip", style: `background:${seatColour(this.me)}` }),
      h("b", { text: this.myNames() }), h("small", { text: `${vs.middle} in the middle · ${vs.nertz_count} Nertz left` }),
      vs.stuck ? h("span", { class: "tag", text: "you said stuck" }) : null);
    this.mine.replaceChildren(head, this.layoutEl(vs, this.me, true));
    const on = t.stage === "playing" && view.phase === "playing";
    this.callBtn.disabled = !(on && vs.nertz_count === 0);
    this.callBtn.classList.toggle("hot", !this.callBtn.disabled);
    this.stuckBtn.disabled = !on || vs.stuck;
  }

  renderOverlay() {
    const t = this.table;
    const box = this.overlay;
    let content = null;
    if (t.stage === "seating") content = this.seatingPanel();
    else if ((t.stage === "between" || t.stage === "over") && this.handEnd && !this.overlayHidden) content = this.handEndPanel();
    else if (t.stage === "between" && !this.overlayHidden) content = this.betweenPanel();
    else if (t.stage === "over" && !this.overlayHidden) content = this.matchPanel();
    box.hidden = !content;
    if (content) box.replaceChildren(content);
    else box.replaceChildren();
  }

  seatingPanel() {
    const t = this.table;
    const me = this.me !== null ? this.myPlace() : null;
    return h("div", { class: "panel seating" },
      h("h2", { text: `Table ${this.code}` }),
      h("p", {}, "Share this link to invite people: ", h("code", { text: `${location.origin}/t/${this.code}${this.key ? `?key=${this.key}` : ""}` })),
      h("ul", { class: "seat-list" }, t.seats.map((s) => h("li", {},
        h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
        ` ${s.name || s.bot ? this.nameOf(s.seat) : "free seat"}`,
        s.bot || s.ready ? " — ready" : s.name ? (s.connected ? " — not ready" : " — not here") : ""))),
      me && !me.ready
        ? h("button", { class: "primary ready-btn", type: "button", onclick: () => this.ready() }, "I'm ready — deal! ", h("kbd", { text: "Enter" }))
        : h("p", { text: "The deal comes when every seat is taken and everyone is ready." }),
      h("p", {}, h("a", { href: `/rules?t=${this.code}`, target: "_blank", text: "Rules and options in force" })));
  }

  /** Per seat, the running totals from the start (0) through every finished hand: the
   * server's ``history``, so a person who joins or reloads mid-match sees every hand. */
  series() {
    const n = this.table.seats.length;
    const out = Array.from({ length: n }, () => [0]);
    for (const totals of this.table.history || []) totals.forEach((v, i) => out[i].push(v));
    return out;
  }

  chart() {
    const t = this.table;
    return totalsChart(this.series(), t.seats.map((s) => this.nameOf(s.seat)), { target: t.rules.match === "race" ? t.rules.target : null });
  }

  readyLine() {
    const me = this.me !== null ? this.table.seats[this.me] : null;
    if (!me) return null;
    return me.ready
      ? h("p", { class: "waiting", text: "Waiting for the others… the next deal comes soon." })
      : h("button", { class: "primary ready-btn", type: "button", onclick: () => this.ready() }, "Ready for the next hand ", h("kbd", { text: "Enter" }));
  }

  /** Between hands without the breakdown (this page was opened or reloaded after the
   * hand ended): each seat's last hand score and total, from ``history``. */
  betweenPanel() {
    const t = this.table;
    const hist = t.history || [];
    const last = hist[hist.length - 1] || t.totals;
    const before = hist[hist.length - 2] || last.map(() => 0);
    const panel = h("div", { class: "panel hand-end", role: "dialog", "aria-label": `Hand ${t.hand} over` },
      h("h2", { text: `Hand ${t.hand} over` }),
      h("table", { class: "breakdown" },
        h("thead", {}, h("tr", {}, ["", "hand score", "total"].map((x) => h("th", { text: x })))),
        h("tbody", {}, t.seats.map((s) => h("tr", {},
          h("th", {}, h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }), ` ${this.nameOf(s.seat)}`),
          h("td", { text: String(last[s.seat] - before[s.seat]) }),
          h("td", { class: "total", text: `${before[s.seat]} → ${last[s.seat]}` }))))),
      h("h3", { text: "Running totals" }),
      this.chart(),
      this.readyLine());
    panel.append(h("button", { type: "button", class: "link", onclick: () => { this.overlayHidden = true; this.render(); }, text: "Look at the table" }));
    return panel;
  }

  breakdownTable(e) {
    const t = this.table;
    const rules = (this.base && this.base.rules) || t.rules;
    const before = e.totals.map((v, i) => v - e.scores[i].score);
    return h("table", { class: "breakdown" },
      h("thead", {}, h("tr", {}, ["", "cards in the middle, sorted by back (R29)", "Nertz cards left", "caller bonus", "hand score (R30)", "total"].map((x) => h("th", { text: x })))),
      h("tbody", {}, e.scores.map((s, i) => h("tr", { class: e.caller === i ? "caller" : "" },
        h("th", {}, h("span", { class: "chip", style: `background:${seatColour(i)}` }), ` ${this.nameOf(i)}`, e.caller === i ? " (called)" : ""),
        h("td", {}, h("span", { class: "stackbar", style: `--n:${s.middle};--back:${seatColour(i)}`, title: `${s.middle} cards with ${this.nameOf(i)}'s back` }), ` ${s.middle}`),
        h("td", { text: `${s.nertz_left} × −${rules.penalty}` }),
        h("td", { text: s.bonus ? `+${s.bonus}` : "—" }),
        h("td", { class: "arith", text: `${s.middle} − ${rules.penalty}×${s.nertz_left}${s.bonus ? ` + ${s.bonus}` : ""} = ${s.score}` }),
        h("td", { class: "total", text: `${before[i]} → ${e.totals[i]}` })))));
  }

  handEndPanel() {
    const e = this.handEnd;
    const t = this.table;
    const why = e.reason === "called" && e.caller !== null
      ? `${this.nameOf(e.caller)} called Nertz!`
      : "Nobody could play: the hand ends with no call (R26).";
    const best = Math.max(...e.scores.map((s) => s.score));
    const top = e.scores.map((s, i) => (s.score === best ? this.nameOf(i) : null)).filter(Boolean);
    const me = this.me !== null ? this.myPlace() : null;
    const panel = h("div", { class: "panel hand-end", role: "dialog", "aria-label": `Hand ${e.hand} breakdown` },
      h("h2", { text: `Hand ${e.hand} over — ${why}` }),
      h("p", { text: `Best hand: ${top.join(" and ")} with ${best}. Each card in the middle +1, each Nertz card left −${((this.base && this.base.rules) || t.rules).penalty} (R30).` }),
      this.breakdownTable(e),
      h("h3", { text: "Running totals" }),
      this.chart());
    if (this.matchEnd) {
      panel.append(this.winnersLine());
      panel.append(h("p", {}, h("a", { href: "/", class: "button primary", text: "Back home" })));
    } else if (me) {
      panel.append(this.readyLine());
    }
    panel.append(h("button", { type: "button", class: "link", onclick: () => { this.overlayHidden = true; this.render(); }, text: "Look at the table" }));
    return panel;
  }

  winnersLine() {
    const t = this.table;
    const w = this.matchEnd.winners;
    const names = w.map((i) => this.nameOf(i));
    const text = w.length > 1
      ? `Shared win: ${names.join(" and ")} with ${t.totals[w[0]]}!`
      : `${names[0] === "You" ? "You win" : `${names[0]} wins`} the match with ${t.totals[w[0]]}!`;
    return h("p", { class: "winners", text });
  }

  matchPanel() {
    const t = this.table;
    if (!this.matchEnd) this.matchEnd = { winners: t.winners, totals: t.totals };
    return h("div", { class: "panel match-end" },
      h("h2", { text: "Match over" }), this.winnersLine(),
      this.chart(),
      h("p", {}, h("a", { href: "/", class: "button primary", text: "Back home" })));
  }

  flash(text, kind, ms) {
    this.banner = { text, kind, until: performance.now() + ms };
    this.tickBanner();
  }

  tickBanner() {
    const now = performance.now();
    for (const badge of this.foundations.querySelectorAll(".announce")) this.tickBadge(badge, now);
    let text = "";
    let kind = "";
    if (this.table && this.table.stage === "countdown" && this.countdownEnd) {
      const left = Math.max(1, Math.ceil((this.countdownEnd - now) / 1000));
      text = `${left}`;
      kind = "count";
    } else if (this.banner && this.banner.until > now) {
      ({ text, kind } = this.banner);
    }
    if (this.bannerEl.textContent !== text) {
      this.bannerEl.textContent = text;
      this.bannerEl.className = `banner ${kind}`;
    }
  }

  toggleStrip() {
    this.stripOpen = !this.stripOpen;
    this.render();
  }

  showRulesDialog() {
    const rules = (this.base && this.base.rules) || (this.table && this.table.rules);
    this.dialog.replaceChildren(
      h("form", { method: "dialog", class: "dialog-head" }, h("h2", { text: "Rules" }), h("button", { text: "Close (Esc)" })),
      rulesContent(rules, `table ${this.code}`));
    this.dialog.showModal();
  }

  // ------------------------------------------------------------------ input

  pick(src, depth) {
    this.selected = { src, depth };
    this.render();
  }

  /** Tap on a card or a place (tap-then-tap). */
  tap(target) {
    if (this.chooser && !this.chooserEl.contains(target)) {
      this.closeChooser(); // a tap elsewhere puts the joker down
      return;
    }
    const cardSrc = target.closest("[data-src]");
    const now = performance.now();
    if (cardSrc && this.lastTap && this.lastTap.card === cardSrc.dataset.card && now - this.lastTap.at < 400) {
      this.lastTap = null;
      this.toMiddle(cardSrc.dataset.src, Number(cardSrc.dataset.depth));
      return;
    }
    this.lastTap = cardSrc ? { card: cardSrc.dataset.card, at: now } : null;
    if (target.closest("[data-turn]")) {
      this.selected = null;
      this.turn();
      return;
    }
    const drop = target.closest("[data-drop]");
    if (this.selected) {
      const sel = this.selected;
      if (cardSrc && cardSrc.dataset.src === sel.src && Number(cardSrc.dataset.depth) === sel.depth) {
        this.selected = null; // tap the same card again: put it down
        this.render();
        return;
      }
      if (drop && drop.dataset.drop !== sel.src) {
        this.dropOn(sel.src, sel.depth, drop.dataset.drop);
        return;
      }
    }
    if (cardSrc) this.pick(cardSrc.dataset.src, Number(cardSrc.dataset.depth));
    else if (this.selected) {
      this.selected = null;
      this.render();
    }
  }

  dropOn(src, depth, target) {
    const m = this.moveFor(src, depth, target);
    if (!m) {
      this.selected = null;
      this.render();
      return;
    }
    if (m.announce) {
      this.openChooser(src, m.announce);
      return;
    }
    this.send(m.move, m.cards);
  }

  // ------------------------------------------------------------------ jokers (R41)

  /** A joker sent to the middle: choose the card it is announced as. ``target`` is "F"
   * (the middle) or "F3" (that foundation's card is offered first). */
  openChooser(src, target) {
    const view = this.view();
    const [joker] = sourceCards(view.seats[this.me], src, 1) || [];
    if (!this.playable()) {
      toast(this.table && this.table.stage === "countdown" ? "Wait for Go (R8)." : "The hand is not on.", "warn");
      return;
    }
    if (view.phase !== "playing") {
      // R28: after a call, cards in the air land, but nothing new is announced (R41).
      toast("Somebody has called: no joker can be announced now (R41).", "warn");
      return;
    }
    if (view.announcements.some((a) => a.seat === this.me && a.joker === joker)) {
      toast("This joker is already announced: it lands, or stays home, when its window ends (R41).", "info", 3000);
      return;
    }
    this.chooser = { src, joker, foundation: target.length > 1 ? Number(target.slice(1)) : null };
    this.selected = null;
    this.render();
    const first = this.chooserEl.querySelector("button.choice");
    if (first) first.focus();
  }

  closeChooser() {
    if (!this.chooser) return;
    this.chooser = null;
    this.render();
    this.board.focus();
  }

  announce(move) {
    const { joker } = this.chooser;
    this.chooser = null;
    this.send(move, [joker]);
    this.board.focus();
  }

  /** The chooser: only the cards the joker may be announced as now (the engine's legal
   * ``=`` moves), rebuilt as the middle changes; the focused choice keeps its focus. */
  renderChooser(view) {
    const box = this.chooserEl;
    const ch = this.chooser;
    const seat = view && this.me !== null ? view.seats[this.me] : null;
    const top = seat && ch ? (sourceCards(seat, ch.src, 1) || [])[0] : null;
    if (!ch || top !== ch.joker || !this.playable()) {
      this.chooser = null;
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.move : null;
    const options = announceable(view);
    options.sort((a, b) => (b.foundation !== null && b.foundation === ch.foundation) - (a.foundation !== null && a.foundation === ch.foundation));
    const buttons = options.map((o) => {
      const c = parse(o.card);
      const move = `${ch.src}>F${o.foundation ?? ""}=${o.card}`;
      const where = o.foundation ? `on F${o.foundation}` : "to start a new foundation";
      return h("button", {
        type: "button", class: `choice suit-${c.suit} ${c.red ? "red" : "black"}`, "data-move": move,
        "aria-label": `${cardName(o.card)} ${where}`, title: `Announce the joker as the ${cardName(o.card)} ${where}`,
        onclick: () => this.announce(move),
      }, h("b", { text: shortName(o.card) }), h("small", { text: o.foundation ? `F${o.foundation}` : "new" }));
    });
    box.replaceChildren(
      h("p", { class: "chooser-head", text: "Announce your joker as… (R41)", title: "Everyone sees the announcement; anyone holding that card may play it there first, else your joker lands when the time is up (R41)." }),
      h("div", { class: "choices" }, buttons),
      h("button", { type: "button", class: "link", onclick: () => this.closeChooser(), text: "Cancel (Esc)" }));
    box.hidden = false;
    const again = focused && [...box.querySelectorAll("button.choice")].find((b) => b.dataset.move === focused);
    if (again) again.focus();
  }

  /** Keys in the chooser: arrows move between the choices; Enter and Space choose
   * (they are buttons); Esc cancels. */
  chooserKey(e) {
    if (e.key === "Escape") {
      e.preventDefault();
      this.closeChooser();
      return;
    }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (!step) return;
    e.preventDefault();
    const choices = [...this.chooserEl.querySelectorAll("button.choice")];
    const at = choices.indexOf(document.activeElement);
    const next = choices[(at + step + choices.length) % choices.length];
    if (next) next.focus();
  }

  /** An open announcement on its foundation: who, which card, and the time left. */
  announceBadge(a) {
    const where = a.foundation ? `F${a.foundation}` : "a new foundation";
    const badge = h("div", {
      class: "announce", style: `--seat:${seatColour(a.seat)}`, "data-deadline": String(a.deadline),
      "data-window": String((this.base && this.base.rules.joker_announce_ms) || 1),
      role: "status",
      title: `${this.nameOf(a.seat)} announced a joker as the ${cardName(a.as)} for ${where}: it lands when the time is up, unless that card gets there first (R41)`,
    },
    h("span", { class: "ann-card" }, h("span", { class: "star", text: "★", "aria-hidden": "true" }),
      h("b", { class: parse(a.as).red ? "red" : "black", text: shortName(a.as) })),
    h("span", { class: "ann-who", text: this.nameOf(a.seat) }),
    h("span", { class: "ann-left" }),
    h("i", { class: "ann-bar", "aria-hidden": "true" }));
    badge.setAttribute("aria-label", `${this.nameOf(a.seat)} announced a joker as the ${cardName(a.as)} for ${where}`);
    this.tickBadge(badge, performance.now());
    return badge;
  }

  tickBadge(badge, now) {
    const left = Math.max(0, Number(badge.dataset.deadline) - now);
    const text = `${(left / 1000).toFixed(1)} s`;
    const span = badge.querySelector(".ann-left");
    if (span.textContent !== text) span.textContent = text;
    badge.querySelector(".ann-bar").style.width = `${Math.min(100, (100 * left) / Number(badge.dataset.window))}%`;
  }

  toMiddle(src, depth) {
    if (depth !== 1) {
      toast("Only the last card of a pile can go to the middle (R14).", "warn");
      return;
    }
    this.dropOn(src, 1, "F");
  }

  turn() {
    const vs = this.view() && this.view().seats[this.me];
    if (!vs) return;
    if (vs.stock_count === 0 && vs.waste_count === 0) {
      toast("Your stock and waste are both empty.", "warn");
      return;
    }
    this.send("T");
  }

  onDoubleClick(e) {
    const card = e.target.closest("[data-src]");
    if (card && e.pointerType !== "touch") {
      e.preventDefault();
    }
  }

  onPointerDown(e) {
    if (e.button !== 0 || this.me === null) return;
    if (e.target.closest("button, a, input, select, summary, label, dialog, .overlay")) return;
    const card = e.target.closest(".mine [data-src]");
    const start = { x: e.clientX, y: e.clientY };
    const target = e.target;
    if (!card) {
      const up = (ev) => {
        window.removeEventListener("pointerup", up);
        if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 10) this.tap(target);
      };
      window.addEventListener("pointerup", up);
      return;
    }
    e.preventDefault();
    const src = card.dataset.src;
    const depth = Number(card.dataset.depth);
    const move = (ev) => {
      if (!this.drag) {
        if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 6) return;
        this.beginDrag(card, src, depth, start);
      }
      this.moveDrag(ev.clientX, ev.clientY);
    };
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (this.drag) this.endDrag(ev.clientX, ev.clientY, ev.type === "pointercancel");
      else this.tap(target);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  beginDrag(card, src, depth, start) {
    const seat = this.view().seats[this.me];
    const cards = sourceCards(seat, src, depth) || [];
    const rect = card.getBoundingClientRect();
    const ghost = h("div", { class: "ghost", "aria-hidden": "true" });
    cards.forEach((c, j) => {
      const el = cardEl(c, this.me);
      el.removeAttribute("data-card");
      el.style.top = `calc(${j} * var(--fan))`;
      ghost.append(el);
    });
    ghost.style.width = `${rect.width}px`;
    document.body.append(ghost);
    this.drag = { src, depth, cards, ghost, dx: start.x - rect.left, dy: start.y - rect.top, hover: null };
    this.selected = null;
    this.render();
  }

  moveDrag(x, y) {
    const d = this.drag;
    d.ghost.style.transform = `translate(${x - d.dx}px, ${y - d.dy}px)`;
    const target = this.dropTarget(x, y);
    if (d.hover !== target) {
      if (d.hover) d.hover.classList.remove("drop-hover");
      if (target) target.classList.add("drop-hover");
      d.hover = target;
    }
  }

  /** The place under (or near: drop zones are forgiving) the pointer. */
  dropTarget(x, y) {
    const slack = 28;
    let best = null;
    let bestScore = Infinity;
    for (const el of this.board.querySelectorAll("[data-drop]")) {
      const r = el.getBoundingClientRect();
      if (x < r.left - slack || x > r.right + slack || y < r.top - slack || y > r.bottom + slack) continue;
      const inside = x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
      const cx = Math.max(r.left, Math.min(x, r.right));
      const cy = Math.max(r.top, Math.min(y, r.bottom));
      const general = el.dataset.drop === "F" ? 1 : 0;
      const score = (inside ? 0 : 1000 + Math.hypot(x - cx, y - cy)) + general * 500 + Math.hypot(x - (r.left + r.right) / 2, y - (r.top + r.bottom) / 2) * 0.01;
      if (score < bestScore) {
        bestScore = score;
        best = el;
      }
    }
    return best;
  }

  endDrag(x, y, cancelled) {
    const d = this.drag;
    this.drag = null;
    if (d.hover) d.hover.classList.remove("drop-hover");
    const target = cancelled ? null : this.dropTarget(x, y);
    const before = this.rects();
    // The dragged card starts its flight from where it was let go.
    const ghostRect = d.ghost.firstChild && d.ghost.firstChild.getBoundingClientRect();
    d.ghost.remove();
    if (ghostRect) before.set(`${d.cards[0]}@${this.me}`, ghostRect);
    if (!target || target.dataset.drop === d.src || d.refused) {
      this.render(before);
      return;
    }
    const m = this.moveFor(d.src, d.depth, target.dataset.drop);
    if (!m) {
      this.render(before);
      return;
    }
    if (m.announce) {
      this.render(before);
      this.openChooser(d.src, m.announce);
      return;
    }
    const seq = ++this.seq;
    if (!this.playable() || !this.socket.send({ type: "play", seq, move: m.move })) {
      toast(this.playable() ? "Not connected: the card stays where it was." : "Wait for Go (R8).", "warn");
      this.render(before);
      return;
    }
    this.pending.push({ seq, move: m.move, cards: m.cards });
    this.sentHold = null; // the play puts the card down (R40)
    this.render(before);
  }

  onKeyUp() {}

  /** Tab opens and closes the score strip wherever focus is on the table (a card, a
   * button, the board), except where Tab has its usual job: in a form field or the
   * display settings, in a dialog (the rules, a panel over the table such as the seating
   * or the hand end). Shift+Tab always moves focus, so every button stays reachable. */
  tabIsScores(e) {
    if (e.key !== "Tab" || e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return false;
    if (!this.table || this.dialog.open || !this.overlay.hidden) return false;
    const target = e.target instanceof Element ? e.target : null;
    if (target && target.closest("input, select, textarea, [contenteditable], details, dialog, [role=dialog], .overlay")) return false;
    return target === null || target === document.body || this.board.contains(target);
  }

  onKey(e) {
    if (this.tabIsScores(e)) {
      e.preventDefault();
      this.toggleStrip();
      return;
    }
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    if (this.dialog.open) return;
    if (this.chooser) {
      this.chooserKey(e);
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    const t = this.table;
    if (!t) return;
    if (key === "?") {
      e.preventDefault();
      this.showRulesDialog();
      return;
    }
    if (key === "Enter" && (t.stage === "seating" || t.stage === "between") && this.me !== null && !this.myPlace().ready) {
      e.preventDefault();
      this.ready();
      return;
    }
    if (key === "Escape") {
      if (this.selected) {
        this.selected = null;
        this.render();
      }
      return;
    }
    if (this.me === null || !this.base) return;
    const lower = key.toLowerCase();
    if (key === " " || key === "Spacebar") {
      e.preventDefault();
      this.turn();
      return;
    }
    if (lower === "n") {
      e.preventDefault();
      this.call();
      return;
    }
    if (lower === "s") {
      e.preventDefault();
      this.stuck();
      return;
    }
    const vs = this.view().seats[this.me];
    if (key === "0" || lower === "q") {
      e.preventDefault();
      if (vs.nertz_count > 0) this.pick("N", 1);
      return;
    }
    if (lower === "w" || key === "5") {
      e.preventDefault();
      if (wasteTop(vs)) this.pick("W", 1);
      return;
    }
    if (lower === "f") {
      e.preventDefault();
      if (this.selected) this.toMiddle(this.selected.src, this.selected.depth);
      else toast("Pick a card first: 0 Nertz, W waste, 1–4 a work pile.", "info");
      return;
    }
    if (/^[1-4]$/.test(key)) {
      e.preventDefault();
      const pile = vs.work[Number(key) - 1];
      const sel = this.selected;
      if (sel && sel.src === key) {
        // The same pile again: take one more card of its run.
        const depth = sel.depth >= pile.length ? 1 : sel.depth + 1;
        this.pick(key, depth);
      } else if (sel) {
        this.dropOn(sel.src, sel.depth, key);
      } else if (pile.length) {
        this.pick(key, 1);
      }
    }
  }
}

