// The table page: a thin controller over two states. ``table/state.js`` keeps the
// table from what the server sends (``st``: a pure reducer, tested without a browser);
// ``table/ui.js`` keeps this page's own (``ui``: what is in hand, the panels, the
// dialogs, the chat's panel, the banner, the seat it plays), changed by actions sent to
// ``dispatch``. ``table/render.js`` and ``table/panels.js`` draw both;
// ``table/input.js`` turns drags, taps and keys into moves and ``table/chooser.js`` is
// the joker chooser (R41); they read the states and send actions, never set a field.
// Here: the socket, what this page says about each event, the moves sent and not
// answered yet (shown at once; the server's ack confirms them, its refusal undoes them:
// the card springs back), partner holds (R40), the banner and the dialogs; what this
// browser remembers goes through storage.js.
import { h, toast } from "./api.js";
import { cardName } from "./cards.js";
import { closeOnOutsideClick, dialogHead } from "./dialog.js";
import { TableSocket } from "./net.js";
import { play } from "./sound.js";
import { Chat } from "./table/chat.js";
import { renderChooser } from "./table/chooser.js";
import { onDoubleClick, onKey, onPointerDown } from "./table/input.js";
import { showJoin } from "./table/join.js";
import { hostContent, isHost, optionsNotice } from "./table/host.js";
import { canInvite, showInvite } from "./table/invite.js";
import { tableEnded, tickLifetimes } from "./table/lifetimes.js";
import { closePanel, readyButton, renderOverlay } from "./table/panels.js";
import { Practice } from "./table/practice.js";
import { presenceNotice } from "./table/presence.js";
import { draw, finish, rects, renderStatus, tickBadge } from "./table/render.js";
import { showRules } from "./table/rulesdialog.js";
import { tickHostStart } from "./table/series.js";
import { settingsMenu } from "./table/settings.js";
import { soundOf } from "./table/sounds.js";
import { chatOpenSaved, forgetSeat, rememberSeat, seatFor, tableKey } from "./storage.js";
import { emptyState, nameOf, notPlayable, receive, saidReady, shown } from "./table/state.js";
import { emptyUi, reduceUi } from "./table/ui.js";

export async function showTable(app, code) {
  const params = new URLSearchParams(location.search);
  const key = tableKey(code, params.get("key"));
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("seat")) {
    // ``make play`` hands over a seat token in the fragment (never sent to the server).
    rememberSeat(code, { token: hash.get("seat"), seat: null, key, at: Date.now() });
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (params.has("watch")) {
    // A watch link: a spectator's view, with the watch secret for a private table.
    new TableView(app, code, null, params.get("watch") || null).start();
    return;
  }
  const mine = seatFor(code);
  if (mine) {
    new TableView(app, code, mine, key).start();
    return;
  }
  showJoin(app, code, key, (record) => new TableView(app, code, record, key).start());
}

class TableView {
  constructor(app, code, seatRec, key) {
    this.app = app;
    this.code = code;
    this.key = key || (seatRec && seatRec.key) || null;
    this.st = emptyState(); // the table (table/state.js)
    this.ui = emptyUi({ seat: seatRec, chat: chatOpenSaved() }); // this page's (table/ui.js)
    this.pending = []; // my plays sent and not answered yet: { seq, move, cards }
    this.seq = 0;
    this.sentHold = null; // what the server was last told I hold (R40)
    this.pickSeq = null;
  }

  /** Apply a UI action (table/ui.js); the caller draws when the page should show it. */
  dispatch(action) {
    this.ui = reduceUi(this.ui, action);
  }

  // The table's state, as the reducer keeps it (table/state.js).
  get table() {
    return this.st.table;
  }

  get base() {
    return this.st.model;
  }

  get me() {
    return this.st.me;
  }

  get partner() {
    return this.st.partner;
  }

  // ------------------------------------------------------------------ wiring

  start() {
    document.title = `Nertz — table ${this.code}`;
    this.build();
    this.socket = new TableSocket({
      code: this.code,
      token: this.ui.seat ? this.ui.seat.token : null,
      key: this.key,
      lastVersion: () => (this.table ? this.st.v : -1),
      epoch: () => (this.table ? this.st.epoch : null),
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (status, reason) => this.onStatus(status, reason),
    });
    window.addEventListener("keydown", (e) => onKey(this, e));
    window.addEventListener("resize", () => this.render());
    this.timer = setInterval(() => this.tickBanner(), 200);
  }

  build() {
    this.strip = h("button", {
      class: "strip",
      type: "button",
      "aria-expanded": "false",
      title: "Scores (Tab)",
      onclick: () => this.toggleStrip(),
    });
    this.status = h("span", { class: "status", role: "status" });
    this.callBtn = h(
      "button",
      {
        class: "call",
        type: "button",
        disabled: true,
        onclick: () => this.call(),
        title: "Call Nertz (N): only when your Nertz pile is empty",
      },
      "Nertz! ",
      h("kbd", { text: "N" }),
    );
    this.stuckBtn = h(
      "button",
      {
        class: "stuck-btn",
        type: "button",
        onclick: () => this.stuck(),
        title: "Say you are stuck (S): when everyone is, the table rotates (R25)",
      },
      "Stuck ",
      h("kbd", { text: "S" }),
    );
    this.settingsBox = settingsMenu(() => this.render());
    this.inviteBtn = h(
      "button",
      {
        type: "button",
        class: "invite-btn",
        style: "display:none",
        onclick: () => showInvite(this, this.dialog),
        title: "Invite people: the link, a code to type, a QR code",
      },
      "Invite",
    );
    this.hostBtn = h(
      "button",
      {
        type: "button",
        class: "host-btn",
        hidden: true,
        onclick: () => this.showHostDialog(),
        title: "Run the table: start, bots, options",
      },
      "Host",
    );
    this.chat = new Chat(this);
    this.bar = h(
      "header",
      { class: "bar" },
      this.strip,
      this.status,
      h("span", { class: "grow" }),
      h(
        "button",
        {
          type: "button",
          class: "rules-btn",
          onclick: () => this.showRulesDialog(),
          title: "The rules and this table's options (?)",
        },
        "Rules ",
        h("kbd", { text: "?" }),
      ),
      this.inviteBtn,
      this.hostBtn,
      this.chat.toggle, // table/chat.js: the chat
      this.settingsBox,
      h("a", { href: "/", class: "home-link", title: "Home" }, "Home"),
    );
    this.opponents = h("section", { class: "opponents", "aria-label": "Opponents" });
    this.foundations = h("div", {
      class: "foundations",
      role: "list",
      "aria-label": "Foundations",
    });
    this.aside = h("div", {
      class: "aside",
      role: "group",
      "aria-label": "Finished foundations, set aside",
    });
    this.bannerEl = h("div", { class: "banner", "aria-live": "assertive" });
    this.chooserEl = h("div", {
      class: "chooser",
      role: "dialog",
      "aria-label": "Announce your joker as",
      hidden: true,
    });
    this.middle = h(
      "section",
      {
        class: "middle",
        "data-drop": "F",
        "aria-label": "The middle: drop a card here to send it to a foundation",
      },
      this.foundations,
      this.aside,
      this.bannerEl,
      this.chooserEl,
    );
    this.mine = h("section", { class: "mine", "aria-label": "Your layout" });
    this.readyBtn = readyButton(this);
    this.actions = h("div", { class: "actions" }, this.callBtn, this.stuckBtn, this.readyBtn);
    this.help = h("p", {
      class: "keys-help",
      text: "Drag, or tap a card then its place · double-tap: to the middle · keys: 0 Nertz, W waste, 1–4 piles, F middle, Space turn, N call, Esc cancel, Tab scores",
    });
    this.overlay = h("div", {
      class: "overlay",
      hidden: true,
      onclick: (e) => e.target === this.overlay && closePanel(this),
    });
    this.dialog = h("dialog", { class: "rules-dialog" });
    closeOnOutsideClick(this.dialog);
    this.dialog.addEventListener("close", () => {
      if (!this.dialog.open) this.dispatch({ type: "dialog", kind: null });
    });
    this.board = h(
      "div",
      { class: "board", tabindex: "0", "aria-label": `Nertz table ${this.code}` },
      this.bar,
      this.opponents,
      this.middle,
      h("div", { class: "mine-wrap" }, this.mine, this.actions),
      this.help,
      this.overlay,
    );
    this.app.replaceChildren(this.board, this.dialog);
    this.practice = new Practice(this); // a practice table's panel (table/practice.js)
    this.board.addEventListener("pointerdown", (e) => onPointerDown(this, e));
    this.board.addEventListener("dblclick", (e) => onDoubleClick(this, e));
    this.board.focus();
  }

  onStatus(status, reason) {
    if (status === "lost") {
      this.dispatch({ type: "connection", status: "lost" });
      this.status.textContent = "Connection lost — reconnecting…";
      this.status.className = "status warn";
    } else if (status === "open") {
      if (this.ui.connected === false) toast("Reconnected.", "info", 1500);
      this.dispatch({ type: "connection", status: "open" });
      renderStatus(this);
    } else if (status === "gone" && tableEnded(reason)) {
      // The table ended: what the page shows is final.
      this.dispatch({ type: "connection", status: "ended" });
      renderStatus(this);
    } else if (status === "gone") {
      this.status.textContent = `Disconnected: ${reason}`;
      this.status.className = "status error";
    }
  }

  // ------------------------------------------------------------------ messages

  onMessage(msg) {
    if (this.chat.receive(msg)) return; // chat lines, reactions and their refusals
    const { events, resync } = receive(this.st, msg, performance.now());
    switch (msg.type) {
      case "state":
        this.sentHold = null;
        this.pending = [];
        if (this.ui.seat && this.ui.seat.seat !== msg.seat) {
          this.dispatch({ type: "seatNumber", seat: msg.seat });
          rememberSeat(this.code, this.ui.seat);
        }
        this.dispatch({ type: "state", stage: this.table.stage, now: performance.now() });
        break;
      case "event":
        break;
      case "ack":
        this.pending = this.pending.filter((p) => p.seq !== msg.seq);
        break;
      case "refused":
        this.refused(msg.seq, msg.code, msg.reason);
        return;
      case "hold":
        this.onHold(msg);
        return;
      case "hint":
        this.practice.hint(msg.move);
        return;
      case "error":
        if (msg.seq !== undefined && msg.seq !== null) this.refused(msg.seq, msg.code, msg.reason);
        else if (msg.code === "removed") {
          forgetSeat(this.code);
          this.socket.close(); // no coming back: the token is refused from now on
          // The table stops here for this page: its notice over the table (panels.js),
          // no countdown, no Ready, no card to move; the way home in sight.
          // What the page shows is final (no status ticking over it).
          this.dispatch({ type: "removed" });
          if (this.dialog.open) this.dialog.close();
          this.render();
        } else if (
          msg.code === "bad_token" ||
          (msg.code === "unknown_table" && this.ui.seat?.token)
        ) {
          // A private table answers a token no seat has as it answers an unused code.
          forgetSeat(this.code);
          toast("That seat is no longer yours; take a seat again.", "error", 6000);
          setTimeout(() => location.reload(), 1500);
        } else if (msg.code === "rate_limited" && this.st.resyncing) {
          // The full state was refused for now (the server's rate per connection): ask again.
          setTimeout(() => this.socket.send({ type: "resync" }), 1000);
        } else if (msg.code !== "already_ready" && msg.code !== "not_now")
          toast(msg.reason, "warn");
        return;
      default:
        return;
    }
    for (const e of events) {
      this.say(e);
      this.practice.saw(e);
    }
    if (resync) this.socket.send({ type: "resync" });
    this.render();
  }

  /** What this page says and does about an event the reducer applied. */
  say(e) {
    play(soundOf(this, e));
    // Told from what this page knew before the event (who was who, who was away).
    const notice = presenceNotice(this.st, this.ui.known, e);
    this.dispatch({ type: "event", e, st: this.st, now: performance.now() });
    // The host's dialog lists the people and who is away: redrawn as they come and go.
    if (
      ["seat", "connected", "takeover"].includes(e.k) &&
      this.dialog.open &&
      this.ui.dialog === "host"
    )
      this.showHostDialog();
    switch (e.k) {
      case "seat":
      case "connected":
        if (notice) toast(notice, "notice", 4000);
        break;
      case "takeover":
        if (e.seat !== this.me || (e.partner !== undefined && e.partner !== this.partner) || !e.bot)
          break;
        if (e.why === "not_ready")
          toast(
            "You were not ready in time, so a bot is playing your seat: make any move to take it back.",
            "warn",
            6000,
          );
        else toast("A bot is playing your seat while you were away.", "warn");
        break;
      case "go":
        this.flash("Go!", "go", 900);
        break;
      case "moved":
        if (e.tie && this.base)
          this.flash(`Tie! Both ${cardName(e.cards[0])}s stay (R16)`, "info", 1600);
        break;
      case "announced":
        if (e.seat !== this.me) {
          const where = e.foundation ? `for F${e.foundation}` : "to start a foundation";
          toast(
            `${nameOf(this.st, e.seat)} announced a joker as the ${cardName(e.as)} ${where} (R41)`,
            "info",
            2000,
          );
        }
        break;
      case "joker_stayed":
        if (e.seat === this.me) toast(`Your joker stays home: ${e.reason}`, "warn", 5000);
        break;
      case "called":
        this.flash(`${nameOf(this.st, e.seat)} called Nertz!`, "call", 2500);
        break;
      case "rotated":
        this.flash(
          e.idle
            ? "Nobody moved for a while: the table rotates (R25)"
            : "Everyone is stuck: the table rotates (R25)",
          "info",
          3000,
        );
        // In a lesson its card says so, and a toast would lie over the card.
        if (!this.practice.step)
          toast(
            "Rotation: every stock was turned over and its top card moved to the bottom.",
            "info",
            4000,
          );
        break;
      case "next_match":
        this.flash(`Match ${e.match} — series ${e.wins.join("–")}`, "info", 2500);
        break;
      case "options":
        toast(optionsNotice(this, e), "info", 6000);
        if (this.dialog.open && this.ui.dialog === "host") this.showHostDialog();
        break;
      case "host":
        if (isHost(this)) toast("You are the host now.", "info", 4000);
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
      // A card being dragged is let go of: it springs back on release.
      this.dispatch({ type: "pickRefused" });
      toast(reason, "error", 3200);
      this.render();
      return;
    }
    const explained = this.practice.refused(code, reason); // a lesson's card says why
    const before = rects(this);
    const was = this.pending.find((p) => p.seq === seq);
    this.pending = this.pending.filter((p) => p.seq !== seq);
    const beaten = code === "beaten";
    if (beaten) play("beaten");
    const text = beaten ? `Beaten to it! ${reason.replace(/^beaten to it: /, "")}` : reason;
    if (!explained) toast(text, beaten ? "warn" : "error", 3200);
    this.render(before);
    if (was && was.cards) {
      for (const c of was.cards) {
        const el = this.board.querySelector(`[data-card="${c}@${this.me}"]`);
        if (el) el.classList.add("bounced");
      }
    }
  }

  // ------------------------------------------------------------------ partners (R40)

  /** A partner picked a card up or put it down (the reducer has it). */
  onHold(msg) {
    const s = this.table && this.table.seats[msg.seat];
    if (!s || !s.holding) return;
    if (
      msg.seat === this.me &&
      msg.partner === this.partner &&
      msg.src === null &&
      this.sentHold !== null
    ) {
      // My own hold lapsed (R40: a resting hand lets go): put the card down here too,
      // so that picking it up again asks the server again.
      this.sentHold = null;
      if (this.ui.selected && !this.ui.drag) {
        this.dispatch({ type: "holdLapsed" });
        toast(
          "You held that card a while: it is put down so your partner may take it (R40).",
          "info",
          3000,
        );
      }
    }
    this.render();
  }

  /** Tell the server what I hold (R40): a drag or a selection picks a card up; letting
   * go puts it down. Only at a partnership table; a play puts it down by itself. */
  syncHold() {
    if (this.me === null || this.partner === null || !this.socket || !this.playable()) return;
    const { drag, selected, chooser } = this.ui;
    const dragged = drag && !drag.refused ? drag.src : null;
    // A joker whose card is being chosen (R41) is still in hand.
    const held = selected ? selected.src : chooser ? chooser.src : null;
    const want = drag ? dragged : held;
    if (want === this.sentHold) return;
    this.sentHold = want;
    if (want === null) this.socket.send({ type: "drop" });
    else {
      this.pickSeq = ++this.seq;
      this.socket.send({ type: "pick", seq: this.pickSeq, src: want });
    }
  }

  // ------------------------------------------------------------------ sending

  /** Send a play: shown at once (``pending``) until the server answers. ``before``:
   * where the cards were (rects); ``lost``: how a play not sent for want of a
   * connection is told. Whether it went out. */
  send(move, cards = null, before = rects(this), lost = "error") {
    if (!this.playable()) {
      toast(notPlayable(this.st).reason, "warn");
      return false;
    }
    const seq = ++this.seq;
    if (!this.socket.send({ type: "play", seq, move })) {
      toast("Not connected: the card stays where it was.", lost);
      return false;
    }
    this.pending.push({ seq, move, cards: cards ? cards : null });
    this.dispatch({ type: "played" });
    this.sentHold = null; // the play puts the card down (R40)
    this.render(before);
    return true;
  }

  playable() {
    return !this.ui.removed && notPlayable(this.st) === null;
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
    if (this.me === null || this.ui.removed) return;
    // Once the match is over, "ready" is "Play again" (the next match of the series).
    this.socket.send({ type: this.table && this.table.stage === "over" ? "again" : "ready" });
    saidReady(this.st);
    this.render();
  }

  /** Leave on purpose: the server frees the place at once and the token stops working
   * (a page merely closed keeps it for a while), so this page forgets it too. */
  leave() {
    this.socket.send({ type: "leave" });
    forgetSeat(this.code);
    setTimeout(() => {
      location.href = "/";
    }, 100);
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

  pick(src, depth) {
    this.dispatch({ type: "pick", src, depth });
    this.render();
  }

  // ------------------------------------------------------------------ drawing

  /** The model shown: the server's, plus my moves not answered yet (optimistic). */
  view() {
    return shown(this.base, this.me, this.pending);
  }

  render(before = rects(this)) {
    if (!this.table) return;
    const view = this.view();
    draw(this, view);
    renderChooser(this, view);
    renderOverlay(this);
    const hosting = isHost(this) && !this.practice.lesson; // a lesson has nothing to run
    this.hostBtn.hidden = !hosting;
    this.inviteBtn.style.display = canInvite(this) ? "" : "none"; // as the host button
    this.hostBtn.style.display = hosting ? "" : "none"; // [hidden] loses to the bar's button style
    finish(this, view, before);
    this.chat.place();
    this.practice.render();
    this.syncHold();
    if (this.ui.removed) {
      this.status.textContent = "The host removed you from this table.";
      this.status.className = "status error";
      this.board.classList.add("was-removed");
      for (const part of [this.opponents, this.middle, this.mine.parentElement, this.help])
        part.inert = true;
    }
  }

  flash(text, kind, ms) {
    this.dispatch({ type: "flash", text, kind, ms, now: performance.now() });
    this.tickBanner();
  }

  tickBanner() {
    const now = performance.now();
    tickLifetimes(this, now, renderStatus); // the countdowns of table/lifetimes.js
    for (const badge of this.foundations.querySelectorAll(".announce")) tickBadge(badge, now);
    tickHostStart(this, now);
    let text = "";
    let kind = "";
    const { banner, countdownEnd } = this.ui;
    if (this.ui.removed) {
      text = "";
    } else if (this.table && this.table.stage === "countdown" && countdownEnd) {
      const left = Math.max(1, Math.ceil((countdownEnd - now) / 1000));
      text = `${left}`;
      kind = "count";
    } else if (banner && banner.until > now) {
      ({ text, kind } = banner);
    }
    if (this.bannerEl.textContent !== text) {
      if (kind === "count") play("count");
      this.bannerEl.textContent = text;
      this.bannerEl.className = `banner ${kind}`;
    }
  }

  toggleStrip() {
    this.dispatch({ type: "toggleStrip" });
    this.render();
  }

  /** A host action (``host`` message; docs/protocol.md, "Host"). */
  hostDo(action) {
    this.socket.send({ type: "host", ...action });
    if (action.do !== "options" && this.dialog.open) this.dialog.close();
  }

  /** A dialog of kind ``kind`` ("rules", "host", "invite") is opening in the page's
   * one <dialog>. */
  opensDialog(kind) {
    this.dispatch({ type: "dialog", kind });
  }

  showHostDialog() {
    this.opensDialog("host");
    this.dialog.replaceChildren(dialogHead("Host"), hostContent(this));
    if (!this.dialog.open) this.dialog.showModal();
  }

  showRulesDialog() {
    showRules(this); // a practice hand pauses while it is open (table/rulesdialog.js)
  }
}
