// Talk at the table (docs/protocol.md, "Chat and reactions"): the chat panel, quick
// reactions shown on the sender's seat for a moment, and muting a person. Between
// hands the panel stands open beside the seating and end panels; during play (and with
// no panel up) it is a side panel, collapsed unless opened during play, that ends above
// this page's own layout so it never covers its cards. On a narrow screen (a phone held
// upright) a panel between hands needs the whole width: the chat stays shut there
// until asked for, and then lies over the panel at full width. Every line is shown as text (textContent): markup in it is
// shown, never run. Muting is this page's own: a per-table list in localStorage, of
// people (the server's ``person`` handle, the same whatever name they sit down under,
// so leaving and coming back as "Bob2" does not escape it) with the names they had.
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { mutedAt, saveChatOpen, saveMutedAt } from "../storage.js";
import { chatOpen } from "./ui.js";

/** The reactions the server accepts (server/chat.py, ``REACTIONS``). */
export const REACTIONS = ["👍", "😂", "😮", "😬", "🎉", "Nertz!"];
/** The longest line the server accepts (``CHAT_MAX_CHARS``): the counter turns red past it. */
export const MAX_CHARS = 200;
/** How long a reaction stays on its seat. */
export const REACTION_MS = 3000;
const KEEP = 200; // lines kept on this page

const PLAYING = ["countdown", "playing"];
/** Narrower than this, a panel between hands and the chat do not fit side by side (the
 * end panel's breakdown needs about 335 px, the chat 270). */
const NARROW = "(max-width: 700px)";

function narrow() {
  return typeof matchMedia === "function" && matchMedia(NARROW).matches;
}

/** A name as a key for muting: names are unique per table (the server folds case and
 * look-alikes; lower case is enough to match its own). */
function who(name) {
  return String(name || "").toLowerCase();
}

/** Does a muted entry (``{ person, names }``) stand for the sender of ``msg`` (a line,
 * a reaction or a place: ``person``, ``name``)? Its person when both have one (a new
 * name changes nothing); its names otherwise (a person with no device, or a line said
 * before a restart, which carries no handle). */
export function mutes(entry, msg) {
  if (entry.person && msg.person) return entry.person === msg.person;
  return entry.names.includes(who(msg.name));
}

/** A table's muted list as kept: entries ``{ person, names }`` (a plain name, as an
 * older page kept it, is an entry of that name alone). */
export function mutedEntries(kept) {
  return (kept || []).map((e) => (typeof e === "string" ? { person: null, names: [e] } : e));
}

export class Chat {
  constructor(tv) {
    this.tv = tv;
    this.lines = new Map(); // n -> line, in order of n
    this.reactions = new Map(); // "seat/partner" -> { what, name, until }
    this.unread = 0;
    this.sent = null; // the text of my last line until the server echoes it
    this.build();
  }

  build() {
    this.badge = h("span", { class: "chat-unread", hidden: true });
    this.toggle = h(
      "button",
      {
        type: "button",
        class: "chat-btn",
        "aria-expanded": "false",
        title: "Table chat and reactions",
        onclick: () => this.setOpen(!this.isOpen()),
      },
      "Chat",
      this.badge,
    );
    this.log = h("ol", { class: "chat-log", "aria-live": "polite", "aria-label": "Chat lines" });
    this.note = h("p", { class: "chat-note", role: "status" });
    this.input = h("input", {
      type: "text",
      class: "chat-input",
      autocomplete: "off",
      "aria-label": "Say something to the table",
      placeholder: "Say something…",
      oninput: () => this.count(),
      onkeydown: (e) => {
        if (e.key === "Escape") this.tv.board.focus({ preventScroll: true });
      },
    });
    this.counter = h("small", { class: "chat-count" });
    this.form = h(
      "form",
      {
        class: "chat-form",
        onsubmit: (e) => {
          e.preventDefault();
          this.say();
        },
      },
      this.input,
      h("button", { type: "submit", class: "chat-send", text: "Send" }),
      this.counter,
    );
    this.reactRow = h(
      "div",
      { class: "chat-reactions", role: "group", "aria-label": "Reactions" },
      REACTIONS.map((what) =>
        h("button", {
          type: "button",
          class: "react-btn",
          "data-what": what,
          title: `React: ${what}`,
          onclick: () => this.react(what),
          text: what,
        }),
      ),
    );
    this.muteList = h("div", { class: "mute-list" });
    this.mute = h(
      "details",
      { class: "chat-mute" },
      h("summary", { text: "Mute…" }),
      this.muteList,
    );
    this.readOnly = h("p", {
      class: "chat-readonly",
      text: "Spectators read the chat; the people playing write in it.",
    });
    this.panel = h(
      "aside",
      { class: "chat-panel", "aria-label": "Table chat", hidden: true },
      h(
        "div",
        { class: "chat-head" },
        h("b", { text: "Chat" }),
        this.mute,
        h("button", {
          type: "button",
          class: "chat-close",
          title: "Hide the chat",
          "aria-label": "Hide the chat",
          onclick: () => this.setOpen(false),
          text: "×",
        }),
      ),
      this.log,
      this.note,
      this.reactRow,
      this.form,
      this.readOnly,
    );
    // The panel is not the table: a press in it is never a tap on a card.
    this.panel.addEventListener("pointerdown", (e) => e.stopPropagation());
  }

  // ------------------------------------------------------------------ messages

  /** Every message from the server, first: true when it was the chat's alone (a
   * ``chat``, a ``reaction``, a refusal of mine); a ``state``'s recent lines (the
   * server's last 50) are taken and the state goes on to the page. */
  receive(msg) {
    if (msg.type === "state") this.merge(msg.chat || [], false);
    if (msg.type === "error") return this.refused(msg);
    if (msg.type !== "chat" && msg.type !== "reaction") return false;
    if (msg.type === "chat") this.merge(msg.lines, true);
    else this.reacted(msg);
    this.place();
    return true;
  }

  /** A refusal of mine the chat shows (``chat_*``, ``reaction_*``, a spectator's
   * ``not_seated``); true when it was the chat's. */
  refused(msg) {
    const ours =
      /^(chat_|reaction_|bad_reaction)/.test(msg.code) ||
      (msg.code === "not_seated" && /chat/.test(msg.reason));
    if (!ours) return false;
    if (this.sent !== null && !this.input.value) this.input.value = this.sent; // keep it to mend
    this.sent = null;
    this.note.textContent = msg.reason.charAt(0).toUpperCase() + msg.reason.slice(1);
    this.note.className = "chat-note error";
    this.count();
    if (!this.isOpen()) this.setOpen(true);
    return true;
  }

  merge(lines, live) {
    const tv = this.tv;
    for (const line of lines) {
      if (this.lines.has(line.n)) continue;
      this.lines.set(line.n, line);
      if (!live) continue;
      const mine = line.seat === tv.me && (line.partner ?? null) === (tv.st.partner ?? null);
      if (mine) this.sent = null; // taken: nothing to give back to the input
      if (!mine && !this.muted(line) && !this.isOpen()) {
        this.unread += 1;
        this.peek = `${line.name}: ${line.text}`;
      }
    }
    while (this.lines.size > KEEP) this.lines.delete(this.lines.keys().next().value);
    this.drawLog();
  }

  reacted(msg) {
    if (this.muted(msg)) return;
    const key = `${msg.seat}/${msg.partner ?? 0}`;
    this.reactions.set(key, { ...msg, until: performance.now() + REACTION_MS });
    setTimeout(() => this.place(), REACTION_MS + 20);
  }

  // ------------------------------------------------------------------ sending

  say() {
    const text = this.input.value;
    if (!text.trim()) return;
    if (!this.tv.socket.send({ type: "chat", text })) {
      this.showNote("Not connected: the line was not sent.", "error");
      return;
    }
    this.sent = text;
    this.input.value = "";
    this.showNote("", "");
    this.count();
    // During play the keys go back to the cards: a line said, the hand goes on.
    if (PLAYING.includes(this.tv.table.stage)) this.tv.board.focus({ preventScroll: true });
  }

  react(what) {
    if (this.tv.me === null) return;
    this.tv.socket.send({ type: "reaction", what });
  }

  showNote(text, kind) {
    this.note.textContent = text;
    this.note.className = `chat-note ${kind}`;
  }

  count() {
    const n = [...this.input.value].length;
    this.counter.textContent = n > MAX_CHARS * 0.75 ? `${n}/${MAX_CHARS}` : "";
    this.counter.classList.toggle("over", n > MAX_CHARS);
  }

  // ------------------------------------------------------------------ muting

  mutedList() {
    return mutedEntries(mutedAt(this.tv.code));
  }

  /** Is the sender of ``msg`` (a line, a reaction, a place) muted on this page? */
  muted(msg) {
    return this.mutedList().some((e) => mutes(e, msg));
  }

  /** Mute (or not) the person in place ``p`` (``person``, ``name``): by their handle,
   * so a new name does not escape it, and by the name they had. */
  setMuted(p, on) {
    const list = this.mutedList().filter((e) => !mutes(e, p));
    if (on) list.push({ person: p.person || null, names: [who(p.name)] });
    saveMutedAt(this.tv.code, list);
    if (on)
      for (const [key, r] of this.reactions)
        if (mutes(list[list.length - 1], r)) this.reactions.delete(key);
    this.drawLog();
    this.place();
  }

  /** The people one may mute (``{ person, name }``): everyone at the table but this
   * page's own place and bots. */
  people() {
    const t = this.tv.table;
    const out = [];
    for (const s of t.seats) {
      const places = s.partners
        ? s.partners.map((p) => [s.seat, p.partner, p])
        : [[s.seat, null, s]];
      for (const [seat, partner, p] of places) {
        const mine = seat === this.tv.me && (partner ?? null) === (this.tv.st.partner ?? null);
        if (p.name && !p.bot && !mine) out.push({ person: p.person || null, name: p.name });
      }
    }
    return out;
  }

  drawMuteList() {
    const people = this.people();
    const key = people.map((p) => `${p.person}/${p.name}`).join("\n");
    if (key === this.muteKey) return;
    this.muteKey = key;
    this.muteList.replaceChildren(
      ...(people.length
        ? people.map((p) => {
            const box = h("input", {
              type: "checkbox",
              checked: this.muted(p),
              "data-name": p.name,
              onchange: () => this.setMuted(p, box.checked),
            });
            return h("label", {}, box, ` ${p.name}`);
          })
        : [h("small", { text: "Nobody else is here yet." })]),
    );
  }

  // ------------------------------------------------------------------ drawing

  drawLog() {
    const rows = [];
    for (const line of this.lines.values()) {
      if (this.muted(line)) continue;
      rows.push(
        h(
          "li",
          { class: "chat-line", "data-n": String(line.n) },
          // The seat's colour as a chip: a name in it would not read on every colour.
          h("span", { class: "chip", style: `background:${seatColour(line.seat)}` }),
          h("b", { class: "chat-who", text: line.name }),
          " ",
          h("span", { class: "chat-text", text: line.text }),
        ),
      );
    }
    if (!rows.length)
      rows.push(h("li", { class: "chat-empty", text: "Nobody has said anything yet." }));
    const atEnd = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 24;
    this.log.replaceChildren(...rows);
    if (atEnd) this.log.scrollTop = this.log.scrollHeight;
  }

  /** Whether the panel is open (the page's UI state, table/ui.js: remembered apart
   * during play, between hands, and between hands on a narrow screen). */
  isOpen() {
    return chatOpen(this.tv.ui, this.tv.table, narrow());
  }

  setOpen(on) {
    const t = this.tv.table;
    if (!t) return;
    this.tv.dispatch({ type: "chat", stage: t.stage, narrow: narrow(), on });
    // On a narrow screen between hands it is not stored: each visit starts with it shut.
    const { play, rest } = this.tv.ui.chat;
    saveChatOpen({ play, rest });
    this.place();
    if (on) {
      this.log.scrollTop = this.log.scrollHeight;
      if (this.tv.me !== null && !PLAYING.includes(t.stage))
        this.input.focus({ preventScroll: true });
    } else this.tv.board.focus({ preventScroll: true });
  }

  /** After every render: the panel where it belongs and each reaction on its seat. */
  place() {
    const tv = this.tv;
    const t = tv.table;
    if (!t) return;
    if (!this.panel.isConnected) tv.board.append(this.panel);
    const open = this.isOpen();
    if (open) {
      this.unread = 0;
      this.peek = null;
    }
    const playing = PLAYING.includes(t.stage);
    // Beside a panel over the table (over it, on a narrow screen) it may reach down the
    // page (the panel covers the cards anyway); else it ends above this page's own
    // layout: it never covers my cards.
    const over = open && !tv.overlay.hidden;
    const beside = over && !narrow();
    this.panel.hidden = !open;
    this.panel.classList.toggle("over-panel", over && !beside);
    this.panel.classList.toggle("in-play", playing);
    tv.board.classList.toggle("chat-beside", beside);
    this.toggle.style.display = t.practice ? "none" : ""; // [hidden] loses to the bar's button style
    this.toggle.setAttribute("aria-expanded", String(open));
    this.badge.hidden = !this.unread;
    this.badge.textContent = this.unread ? String(this.unread) : "";
    this.toggle.title = this.peek ? `Chat: ${this.peek}` : "Table chat and reactions";
    const spectator = tv.me === null;
    this.form.hidden = this.reactRow.hidden = spectator;
    this.readOnly.hidden = !spectator;
    this.drawMuteList();
    if (open) {
      const board = tv.board.getBoundingClientRect();
      const top = tv.bar.getBoundingClientRect().bottom - board.top + 2;
      const bottom = over
        ? 4
        : board.bottom - tv.mine.parentElement.getBoundingClientRect().top + 4;
      this.panel.style.top = `${top}px`;
      this.panel.style.bottom = `${Math.max(0, bottom)}px`;
    }
    this.drawReactions();
  }

  /** The right-most seats lie under the open chat panel: their reaction moves left,
   * onto the part of the seat still in sight. */
  besideChat(seatEl, bubble) {
    if (this.panel.hidden) return;
    const chat = this.panel.getBoundingClientRect();
    const seat = seatEl.getBoundingClientRect();
    // Its place as drawn (right: 8px), not as it grows in (its scale animation).
    const right = seat.right - 8;
    const top = seat.top + bubble.offsetTop;
    const under =
      right > chat.left &&
      right - bubble.offsetWidth < chat.right &&
      top + bubble.offsetHeight > chat.top &&
      top < chat.bottom;
    if (under) bubble.style.right = `${Math.max(8, seat.right - chat.left + 8)}px`;
  }

  drawReactions() {
    const tv = this.tv;
    for (const old of tv.board.querySelectorAll(".reaction")) old.remove();
    const now = performance.now();
    for (const [key, r] of this.reactions) {
      if (r.until <= now) {
        this.reactions.delete(key);
        continue;
      }
      const mine = r.seat === tv.me;
      const seatEl = mine ? tv.mine : tv.opponents.querySelector(`.opp[data-seat="${r.seat}"]`);
      if (!seatEl) continue;
      const label = `${mine && (r.partner ?? null) === (tv.st.partner ?? null) ? "You" : r.name}: ${r.what}`;
      const bubble = h("span", {
        class: `reaction${/\w/.test(r.what) ? " word" : ""}`,
        role: "img",
        "aria-label": label,
        title: label,
        text: r.what,
      });
      seatEl.append(bubble);
      this.besideChat(seatEl, bubble);
    }
  }
}
