// Drawing the table from its state (table.js holds it): the score strip, the status,
// every opponent's layout compact, the middle with its foundations and open joker
// announcements (R41), your own layout large, the cards partners hold (R40), and the
// flight of a card from where it was to where it is now.
import { h } from "../api.js";
import {
  backEl,
  cardEl,
  cardName,
  isJoker,
  jokerName,
  parse,
  pinOf,
  seatColour,
  shortName,
  slotEl,
} from "../cards.js";
import { awayText, lifetimeStatus, ticking } from "./lifetimes.js";
import { ratedLabel, ratingTag } from "./ratings.js";
import { handInMatch, seriesLabel } from "./series.js";
import { heldBy, myNames, nameOf, playedName, serverBot, topOf, wasteFan } from "./state.js";

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Draw the table as ``view`` (the model shown: the server's and my moves not answered
 * yet) has it. */
export function draw(tv, view) {
  renderStrip(tv, view);
  renderStatus(tv);
  renderOpponents(tv, view);
  renderMiddle(tv, view);
  renderMine(tv, view);
}

/** Mark what the layouts cannot say by themselves, then let moved cards fly from
 * ``before`` (``rects``). */
export function finish(tv, view, before) {
  if (view) {
    // An announced joker waits on its pile for its window (R41): mark it there.
    for (const a of view.announcements) {
      const el = tv.board.querySelector(`[data-card="${a.joker}@${a.seat}"]`);
      if (el) el.classList.add("announced");
    }
  }
  if (tv.ui.drag) {
    for (const c of tv.ui.drag.cards) {
      const el = tv.board.querySelector(`[data-card="${c}@${tv.me}"]`);
      if (el) el.classList.add("lifted");
    }
  }
  if (before.size) animate(tv, before);
}

/** Where each card of the table is now (none when motion is reduced). */
export function rects(tv) {
  const out = new Map();
  if (reducedMotion()) return out;
  for (const el of tv.board.querySelectorAll("[data-card]"))
    out.set(el.dataset.card, el.getBoundingClientRect());
  return out;
}

function animate(tv, before) {
  // Under a panel nothing flies: a card springing back would cross the panel.
  if (!tv.overlay.hidden) return;
  for (const el of tv.board.querySelectorAll("[data-card]")) {
    const old = before.get(el.dataset.card);
    if (!old) continue;
    const now = el.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    const scale = old.width / Math.max(1, now.width);
    el.animate(
      [
        { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 50 },
        { transform: "none", zIndex: 50 },
      ],
      { duration: 220, easing: "cubic-bezier(.2,.8,.3,1)" },
    );
  }
}

function liveScore(view, seat) {
  const s = view.seats[seat];
  return s.middle - view.rules.penalty * s.nertz_count;
}

function renderStrip(tv, view) {
  const t = tv.table;
  const chips = t.seats.map((s) => {
    const live =
      view && ["playing", "countdown"].includes(t.stage) ? liveScore(view, s.seat) : null;
    // A match over shows its totals under the names of who played it (``playedName``).
    const who = playedName(tv.st, s.seat);
    const label = `${who}: total ${t.totals[s.seat]}${live !== null ? `, this hand ${live}` : ""}`;
    // The figures say what they are: the total, then "hand +3", this hand's score so far.
    const chip = h(
      "span",
      { class: `score-chip${s.seat === tv.me ? " me" : ""}`, title: label },
      h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
      h("span", { class: "who", text: who }),
      h("b", { text: String(t.totals[s.seat]) }),
      live !== null
        ? h("small", { class: "live", text: ` hand ${live >= 0 ? "+" : ""}${live}` })
        : null,
    );
    if (tv.ui.stripOpen && view) {
      const vs = view.seats[s.seat];
      chip.append(
        h("small", {
          class: "detail",
          text: ` · ${vs.middle} in middle, ${vs.nertz_count} Nertz left`,
        }),
      );
    }
    return chip;
  });
  const series = seriesLabel(t);
  // (replaceChildren would write a null out as the text "null".)
  tv.strip.replaceChildren(
    ...[
      // A hand before the match's first is a lesson's (server/practice.py).
      h("span", {
        class: "hand-no",
        text: t.hand ? (handInMatch(t) > 0 ? `Hand ${handInMatch(t)}` : "Lesson") : "Table",
      }),
      series ? h("span", { class: "series-no", text: series }) : null,
      ratedLabel(tv),
      ...chips,
    ].filter(Boolean),
  );
  tv.strip.setAttribute("aria-expanded", String(tv.ui.stripOpen));
  tv.strip.classList.toggle("open", tv.ui.stripOpen);
}

export function renderStatus(tv) {
  if (!tv.table || tv.ui.connected === false) return;
  const t = tv.table;
  const words = {
    seating: "Waiting for players",
    countdown: "Get ready…",
    playing:
      tv.base && tv.base.phase === "landing" ? "Nertz! called — last cards landing" : "Play!",
    between: "Hand over",
    over: "Match over",
  };
  let text = lifetimeStatus(tv, performance.now()) || words[t.stage] || t.stage;
  if (tv.me === null) text += " · watching";
  tv.status.textContent = text;
  tv.status.className = "status";
}

/** A seat's badges; a person away has their place's countdown (table/lifetimes.js). */
function seatBadges(tv, s, now) {
  if (serverBot(s)) return "bot"; // the server's own bot: always here, always ready
  const badges = [];
  const away = !s.name ? null : awayText(tv, s, now);
  if (s.bot) badges.push("bot"); // an outside bot (docs/bots.md): it comes and goes like a person
  if (!s.name)
    badges.push(s.invited ? `kept for ${s.invited} (bot)` : "waiting for a player"); // nobody yet
  else if (!s.connected) badges.push(away || "away");
  if (s.takeover && !away) badges.push("bot playing");
  return badges.filter(Boolean).join(" · ");
}

function renderOpponents(tv, view) {
  const t = tv.table;
  const order = t.seats.map((s) => s.seat).filter((n) => n !== tv.me);
  tv.opponents.style.setProperty("--opp", String(Math.max(1, order.length)));
  tv.opponents.dataset.count = String(order.length); // fewer opponents are drawn larger
  tv.opponents.replaceChildren(
    ...order.map((n) => {
      const s = t.seats[n];
      const vs = view && view.seats[n];
      const head = h(
        "div",
        { class: "opp-head" },
        h("span", { class: "chip", style: `background:${seatColour(n)}` }),
        h("b", { text: nameOf(tv.st, n) }),
        ratingTag(tv, n),
        ticking("small", {}, (now) => seatBadges(tv, s, now)),
        vs && vs.stuck ? h("span", { class: "tag", text: "stuck" }) : null,
        view && view.caller === n ? h("span", { class: "tag call-tag", text: "called" }) : null,
      );
      const panel = h(
        "div",
        {
          class: "opp",
          "data-seat": String(n),
          style: `--seat:${seatColour(n)}`,
          "aria-label": `${nameOf(tv.st, n)}'s layout`,
        },
        head,
      );
      if (vs) panel.append(layoutEl(tv, vs, n, false));
      return panel;
    }),
  );
}

/** A seat's layout: Nertz pile, four work piles, stock, waste. */
function layoutEl(tv, vs, n, mine) {
  const box = h("div", { class: mine ? "layout big" : "layout small" });
  // Nertz pile
  const nertz = h("div", {
    class: "pile nertz",
    "data-pile": "N",
    "aria-label": `Nertz pile: ${vs.nertz_count} card${vs.nertz_count === 1 ? "" : "s"}${vs.nertz_top ? `, top ${cardName(vs.nertz_top)}` : ""}`,
  });
  if (vs.nertz_count > 0) {
    if (vs.nertz_count > 1) nertz.append(backEl(n, "face-down Nertz cards", "under"));
    const top = vs.nertz_top ? cardEl(vs.nertz_top, n) : backEl(n, "the next Nertz card");
    if (mine && vs.nertz_top) live(tv, top, "N", 1);
    nertz.append(top);
  } else {
    nertz.append(slotEl("empty Nertz pile", "nertz-empty"));
  }
  nertz.append(h("span", { class: "count", text: String(vs.nertz_count), "aria-hidden": "true" }));
  box.append(
    h("div", { class: "col nertz-col" }, h("span", { class: "lbl", text: "Nertz" }), nertz),
  );
  // work piles
  const work = h("div", { class: "work" });
  vs.work.forEach((pile, i) => {
    const d = String(i + 1);
    const el = h("div", {
      class: "pile fan",
      "data-pile": d,
      "aria-label": `work pile ${d}: ${pile.length ? pile.map((card, j) => (isJoker(card) ? jokerName(pinOf(pile, j)) : cardName(card))).join(", ") : "empty"}`,
    });
    if (mine) el.dataset.drop = d;
    el.style.setProperty("--n1", String(Math.max(1, pile.length - 1)));
    if (!pile.length) el.append(slotEl(`empty work space ${d}`));
    pile.forEach((card, j) => {
      // A joker with a real card on it stands for one above it (R41): say which.
      const c = cardEl(card, n, "", isJoker(card) ? pinOf(pile, j) : null);
      c.style.setProperty("--i", String(j));
      if (mine) live(tv, c, d, pile.length - j);
      el.append(c);
    });
    if (mine) el.append(h("span", { class: "key-hint", text: d, "aria-hidden": "true" }));
    work.append(el);
  });
  box.append(h("div", { class: "col work-col" }, work));
  // stock and waste
  const stock = h("div", {
    class: "pile stock",
    "data-pile": "T",
    "aria-label": `stock: ${vs.stock_count} cards${mine ? "; turn it with Space" : ""}`,
  });
  if (vs.stock_count > 0) stock.append(backEl(n, "stock"));
  else
    stock.append(
      slotEl(vs.waste_count ? "empty stock: turn the waste over" : "empty stock", "stock-empty"),
    );
  stock.append(h("span", { class: "count", text: String(vs.stock_count), "aria-hidden": "true" }));
  if (mine) stock.dataset.turn = "1";
  const fan = wasteFan(vs);
  const waste = h("div", {
    class: "pile waste",
    "data-pile": "W",
    "aria-label": `waste: ${vs.waste_count} cards${fan.length ? `, top ${cardName(fan[fan.length - 1])}` : ""}`,
  });
  if (!fan.length) waste.append(slotEl(vs.waste_count ? "waste" : "empty waste"));
  fan.forEach((card, j) => {
    if (card === null) {
      waste.append(backEl(n, "waste card"));
      return;
    }
    const c = cardEl(card, n, j < fan.length - 1 ? "dim" : "");
    c.style.setProperty("--i", String(j));
    if (mine && j === fan.length - 1) live(tv, c, "W", 1);
    waste.append(c);
  });
  box.append(
    h("div", { class: "col stock-col" }, h("span", { class: "lbl", text: "Stock" }), stock),
    h("div", { class: "col waste-col" }, h("span", { class: "lbl", text: "Waste" }), waste),
  );
  markHolds(tv, box, n);
  return box;
}

/** Mark a card of mine as one that can be picked up. */
function live(tv, el, src, depth) {
  el.dataset.src = src;
  el.dataset.depth = String(depth);
  el.classList.add("live");
  const sel = tv.ui.selected;
  if (sel && sel.src === src && depth <= sel.depth) el.classList.add("selected");
}

/** Mark the cards partners hold in a layout: everyone sees where they act (R40). */
function markHolds(tv, box, n) {
  const s = tv.table.seats[n];
  if (!s || !s.holding) return;
  for (const src of s.holding) {
    if (src === null) continue;
    const who = heldBy(tv.st, n, src);
    if (!who) continue;
    const pile = box.querySelector(`[data-pile="${src}"]`);
    const cards = pile ? pile.querySelectorAll(".card:not(.under)") : [];
    const card = cards.length ? cards[cards.length - 1] : null;
    if (!card) continue;
    card.classList.add("held");
    card.title = `${who} is holding this card`;
    pile.append(
      h("span", {
        class: "held-by",
        text: `${who} holds`,
        "aria-label": `${who} is holding this card`,
      }),
    );
  }
}

function renderMiddle(tv, view) {
  const capacity = tv.table.seats.length * 4;
  tv.foundations.style.setProperty("--slots", String(Math.min(capacity, 16)));
  const cells = Array.from({ length: capacity }, (_, i) =>
    h("div", { class: "fslot", role: "listitem", "data-slot": String(i) }),
  );
  const done = [];
  // Each foundation keeps its place in the middle (table/ui.js places them).
  if (view) tv.dispatch({ type: "shown", foundations: view.foundations });
  const slots = tv.ui.slots;
  if (view) {
    for (const f of view.foundations) {
      if (f.finished) {
        done.push(f);
        continue;
      }
      const slot = slots.get(f.number) % capacity;
      const cell = cells[slot];
      cell.dataset.drop = `F${f.number}`;
      // A joker in the middle shows the card it was announced as (R41).
      const means = f.top_as ? { card: f.top_as } : null;
      const name = means ? jokerName(means) : cardName(f.top);
      const card = cardEl(f.top, f.owners[f.owners.length - 1], "", means);
      card.setAttribute(
        "aria-label",
        `foundation F${f.number}: ${name}, ${f.count} card${f.count === 1 ? "" : "s"}`,
      );
      const strip = h(
        "div",
        { class: "owners", "aria-hidden": "true" },
        f.owners.map((o) => h("i", { style: `background:${seatColour(o)}` })),
      );
      cell.append(card, strip);
      if (f.tie) cell.classList.add("tie");
      const needs = topOf(f).rank;
      cell.title = `F${f.number}: ${name}; takes the ${needs < 13 ? cardName(`${["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][needs + 1]}${f.suit}`) : "nothing: finished"}`;
    }
    // Open announcements (R41): on their foundation, or in a free place for a new one.
    // A second one on the same foundation (a server before one place had one
    // announcement) stacks above the first, never exactly over it.
    for (const a of view.announcements) {
      const cell = a.foundation
        ? cells.find((c) => c.dataset.drop === `F${a.foundation}`)
        : cells.find((c) => !c.dataset.drop && !c.childElementCount);
      if (!cell) continue;
      if (!a.foundation) cell.classList.add("new-announce");
      const badge = announceBadge(tv, a);
      badge.style.setProperty("--stack", String(cell.querySelectorAll(".announce").length));
      cell.append(badge);
    }
  }
  tv.foundations.replaceChildren(...cells);
  const used = new Set(slots.values());
  const shown = Math.max(4, ...[...used].map((i) => i + 1));
  tv.foundations.style.setProperty("--shown", String(shown));
  tv.aside.replaceChildren(
    ...(done.length ? [h("span", { class: "lbl", text: "Finished" })] : []),
    ...done.map((f) =>
      h(
        "div",
        {
          class: "done",
          title: `F${f.number} finished: ${f.count} cards (R15)`,
          "aria-label": `finished foundation F${f.number} of ${f.suit}, ${f.count} cards`,
        },
        cardEl(f.top, f.owners[f.owners.length - 1], "mini", f.top_as ? { card: f.top_as } : null),
        h("span", { class: "count", text: `×${f.count}` }),
      ),
    ),
  );
  if (view && !view.foundations.length && tv.table.stage === "playing") {
    tv.foundations.classList.add("empty-hint");
  } else tv.foundations.classList.remove("empty-hint");
}

function renderMine(tv, view) {
  const t = tv.table;
  if (tv.me === null || !view) {
    tv.mine.replaceChildren(
      h("p", { class: "waiting", text: tv.me === null ? "You are watching this table." : "" }),
    );
    tv.callBtn.disabled = true;
    tv.stuckBtn.disabled = true;
    return;
  }
  const vs = view.seats[tv.me];
  const head = h(
    "div",
    { class: "my-head" },
    h("span", { class: "chip", style: `background:${seatColour(tv.me)}` }),
    h("b", { text: myNames(tv.st) }),
    ratingTag(tv, tv.me),
    h("small", { text: `${vs.middle} in the middle · ${vs.nertz_count} Nertz left` }),
    vs.stuck ? h("span", { class: "tag", text: "you said stuck" }) : null,
  );
  tv.mine.replaceChildren(head, layoutEl(tv, vs, tv.me, true));
  const on = t.stage === "playing" && view.phase === "playing";
  tv.callBtn.disabled = !(on && vs.nertz_count === 0);
  tv.callBtn.classList.toggle("hot", !tv.callBtn.disabled);
  tv.stuckBtn.disabled = !on || vs.stuck;
}

/** An open announcement on its foundation: who, which card, and the time left. */
function announceBadge(tv, a) {
  const where = a.foundation ? `F${a.foundation}` : "a new foundation";
  const badge = h(
    "div",
    {
      class: "announce",
      style: `--seat:${seatColour(a.seat)}`,
      "data-deadline": String(a.deadline),
      "data-window": String((tv.base && tv.base.rules.joker_announce_ms) || 1),
      role: "status",
      title: `${nameOf(tv.st, a.seat)} announced a joker as the ${cardName(a.as)} for ${where}: it lands when the time is up, unless that card gets there first (R41)`,
    },
    h(
      "span",
      { class: "ann-card" },
      h("span", { class: "star", text: "★", "aria-hidden": "true" }),
      h("b", { class: parse(a.as).red ? "red" : "black", text: shortName(a.as) }),
    ),
    h("span", { class: "ann-who", text: nameOf(tv.st, a.seat) }),
    h("span", { class: "ann-left" }),
    h("i", { class: "ann-bar", "aria-hidden": "true" }),
  );
  badge.setAttribute(
    "aria-label",
    `${nameOf(tv.st, a.seat)} announced a joker as the ${cardName(a.as)} for ${where}`,
  );
  tickBadge(badge, performance.now());
  return badge;
}

/** The time left of an announcement (R41), on its badge. */
export function tickBadge(badge, now) {
  const left = Math.max(0, Number(badge.dataset.deadline) - now);
  const text = `${(left / 1000).toFixed(1)} s`;
  const span = badge.querySelector(".ann-left");
  if (span.textContent !== text) span.textContent = text;
  badge.querySelector(".ann-bar").style.width =
    `${Math.min(100, (100 * left) / Number(badge.dataset.window))}%`;
}
