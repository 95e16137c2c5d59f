// What a person does at the table, as moves: drag and drop (drop zones are forgiving),
// tap-then-tap, a double tap to the middle, and the keyboard. A drop is turned into move
// notation here (docs/engine.md) and sent by table.js; a joker to the middle opens the
// chooser instead (R41). What is in hand (picked up, dragged) is the page's UI state
// (table/ui.js): read here as ``tv.ui``, changed by actions (``tv.dispatch``); what only
// a drag under way needs (its ghost, where it was grabbed) is the gesture's own.
import { h, toast } from "../api.js";
import { cardEl, fitsWork, isJoker, parse, pinOf } from "../cards.js";
import { chooserKey, closeChooser, openChooser } from "./chooser.js";
import { closePanel } from "./panels.js";
import { rects } from "./render.js";
import { myPlace, sourceCards, srcName, topOf, wasteTop } from "./state.js";

/** Tap on a card or a place (tap-then-tap). */
function tap(tv, target) {
  if (tv.ui.chooser && !tv.chooserEl.contains(target)) {
    closeChooser(tv); // a tap elsewhere puts the joker down
    return;
  }
  const cardSrc = target.closest("[data-src]");
  const now = performance.now();
  const last = tv.ui.lastTap;
  if (cardSrc && last && last.card === cardSrc.dataset.card && now - last.at < 400) {
    tv.dispatch({ type: "tap", card: null });
    toMiddle(tv, cardSrc.dataset.src, Number(cardSrc.dataset.depth));
    return;
  }
  tv.dispatch({ type: "tap", card: cardSrc ? cardSrc.dataset.card : null, at: now });
  if (target.closest("[data-turn]")) {
    tv.dispatch({ type: "putDown" });
    tv.turn();
    return;
  }
  const drop = target.closest("[data-drop]");
  const sel = tv.ui.selected;
  if (sel) {
    if (cardSrc && cardSrc.dataset.src === sel.src && Number(cardSrc.dataset.depth) === sel.depth) {
      tv.dispatch({ type: "putDown" }); // tap the same card again: put it down
      tv.render();
      return;
    }
    if (drop && drop.dataset.drop !== sel.src) {
      dropOn(tv, sel.src, sel.depth, drop.dataset.drop);
      return;
    }
  }
  if (cardSrc) tv.pick(cardSrc.dataset.src, Number(cardSrc.dataset.depth));
  else if (sel) {
    tv.dispatch({ type: "putDown" });
    tv.render();
  }
}

function dropOn(tv, src, depth, target) {
  const m = moveFor(tv, src, depth, target);
  if (!m) {
    tv.dispatch({ type: "putDown" });
    tv.render();
    return;
  }
  if (m.announce) {
    openChooser(tv, src, m.announce);
    return;
  }
  tv.send(m.move, m.cards);
}

/** What a drop (or a key) of ``src`` (``depth`` cards) on ``target`` means. */
function moveFor(tv, src, depth, target) {
  const view = tv.view();
  const seat = view.seats[tv.me];
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
      if (f && !f.finished && f.suit === c.suit && topOf(f).rank === c.rank - 1)
        return { move: `${src}>F${number}`, cards };
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
  if (depth === 1 && space && fitsWork(pile[0], cards[0], pinOf(pile, 0)))
    return { move: `${src}<${target}`, cards };
  return { move: plain, cards };
}

function toMiddle(tv, src, depth) {
  if (depth !== 1) {
    toast("Only the last card of a pile can go to the middle (R14).", "warn");
    return;
  }
  dropOn(tv, src, 1, "F");
}

/** A double click on a card of mine does nothing by itself (the second tap of a double
 * tap sends it to the middle): keep the browser from selecting text. */
export function onDoubleClick(_tv, e) {
  const card = e.target.closest("[data-src]");
  if (card && e.pointerType !== "touch") {
    e.preventDefault();
  }
}

/** A press on the board: a card of mine is dragged once the pointer moves, else it
 * is a tap (on a card, a place, the stock). */
export function onPointerDown(tv, e) {
  if (e.button !== 0 || tv.me === null) return;
  if (e.target.closest("button, a, input, select, summary, label, dialog, .overlay")) return;
  const card = e.target.closest(".mine [data-src]");
  const start = { x: e.clientX, y: e.clientY };
  const target = e.target;
  if (!card) {
    const up = (ev) => {
      window.removeEventListener("pointerup", up);
      if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 10) tap(tv, target);
    };
    window.addEventListener("pointerup", up);
    return;
  }
  e.preventDefault();
  const src = card.dataset.src;
  const depth = Number(card.dataset.depth);
  let gesture = null; // the drag's ghost and where it was grabbed, once it moves
  const move = (ev) => {
    if (!tv.ui.drag) {
      if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 6) return;
      gesture = beginDrag(tv, card, src, depth, start);
    }
    moveDrag(tv, gesture, ev.clientX, ev.clientY);
  };
  const up = (ev) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", up);
    if (tv.ui.drag) endDrag(tv, gesture, ev.clientX, ev.clientY, ev.type === "pointercancel");
    else tap(tv, target);
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
}

function beginDrag(tv, card, src, depth, start) {
  const seat = tv.view().seats[tv.me];
  const cards = sourceCards(seat, src, depth) || [];
  const rect = card.getBoundingClientRect();
  const ghost = h("div", { class: "ghost", "aria-hidden": "true" });
  cards.forEach((c, j) => {
    const el = cardEl(c, tv.me);
    el.removeAttribute("data-card");
    el.style.top = `calc(${j} * var(--fan))`;
    ghost.append(el);
  });
  ghost.style.width = `${rect.width}px`;
  document.body.append(ghost);
  tv.dispatch({ type: "dragStart", src, depth, cards });
  tv.render();
  return { ghost, dx: start.x - rect.left, dy: start.y - rect.top, hover: null };
}

function moveDrag(tv, d, x, y) {
  d.ghost.style.transform = `translate(${x - d.dx}px, ${y - d.dy}px)`;
  const target = dropTarget(tv, x, y);
  if (d.hover !== target) {
    if (d.hover) d.hover.classList.remove("drop-hover");
    if (target) target.classList.add("drop-hover");
    d.hover = target;
  }
}

/** The place under (or near: drop zones are forgiving) the pointer. */
function dropTarget(tv, x, y) {
  const slack = 28;
  let best = null;
  let bestScore = Infinity;
  for (const el of tv.board.querySelectorAll("[data-drop]")) {
    const r = el.getBoundingClientRect();
    if (x < r.left - slack || x > r.right + slack || y < r.top - slack || y > r.bottom + slack)
      continue;
    const inside = x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
    const cx = Math.max(r.left, Math.min(x, r.right));
    const cy = Math.max(r.top, Math.min(y, r.bottom));
    const general = el.dataset.drop === "F" ? 1 : 0;
    const score =
      (inside ? 0 : 1000 + Math.hypot(x - cx, y - cy)) +
      general * 500 +
      Math.hypot(x - (r.left + r.right) / 2, y - (r.top + r.bottom) / 2) * 0.01;
    if (score < bestScore) {
      bestScore = score;
      best = el;
    }
  }
  return best;
}

function endDrag(tv, gesture, x, y, cancelled) {
  const d = { ...tv.ui.drag, ...gesture };
  tv.dispatch({ type: "dragEnd" });
  if (d.hover) d.hover.classList.remove("drop-hover");
  const target = cancelled ? null : dropTarget(tv, x, y);
  const before = rects(tv);
  // The dragged card starts its flight from where it was let go.
  const ghostRect = d.ghost.firstChild && d.ghost.firstChild.getBoundingClientRect();
  d.ghost.remove();
  if (ghostRect) before.set(`${d.cards[0]}@${tv.me}`, ghostRect);
  if (!target || target.dataset.drop === d.src || d.refused) {
    tv.render(before);
    return;
  }
  const m = moveFor(tv, d.src, d.depth, target.dataset.drop);
  if (!m) {
    tv.render(before);
    return;
  }
  if (m.announce) {
    tv.render(before);
    openChooser(tv, d.src, m.announce);
    return;
  }
  // The card springs back from where it was let go when the play cannot go out.
  if (!tv.send(m.move, m.cards, before, "warn")) tv.render(before);
}

/** Tab opens and closes the score strip wherever focus is on the table (a card, a
 * button, the board), except where Tab has its usual job: in a form field or the
 * display settings, in a dialog (the rules, a panel over the table such as the seating
 * or the hand end). Shift+Tab always moves focus, so every button stays reachable. */
function tabIsScores(tv, e) {
  if (e.key !== "Tab" || e.shiftKey || e.ctrlKey || e.metaKey || e.altKey) return false;
  if (!tv.table || tv.dialog.open || !tv.overlay.hidden) return false;
  const target = e.target instanceof Element ? e.target : null;
  if (
    target &&
    target.closest(
      "input, select, textarea, [contenteditable], details, dialog, [role=dialog], .overlay",
    )
  )
    return false;
  return target === null || target === document.body || tv.board.contains(target);
}

/** The keys (the help line under the table lists them). */
export function onKey(tv, e) {
  if (tabIsScores(tv, e)) {
    e.preventDefault();
    tv.toggleStrip();
    return;
  }
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  if (tv.dialog.open) return;
  if (tv.ui.chooser) {
    chooserKey(tv, e);
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const key = e.key;
  const t = tv.table;
  if (!t) return;
  if (key === "?") {
    e.preventDefault();
    tv.showRulesDialog();
    return;
  }
  if (
    key === "Enter" &&
    ["seating", "between", "over"].includes(t.stage) &&
    tv.me !== null &&
    !myPlace(tv.st).ready
  ) {
    e.preventDefault();
    tv.ready();
    return;
  }
  if (key === "Escape") {
    if (closePanel(tv)) return;
    if (tv.ui.selected) {
      tv.dispatch({ type: "putDown" });
      tv.render();
    }
    return;
  }
  if (tv.me === null || !tv.base) return;
  const lower = key.toLowerCase();
  if (key === " " || key === "Spacebar") {
    e.preventDefault();
    tv.turn();
    return;
  }
  if (lower === "n") {
    e.preventDefault();
    tv.call();
    return;
  }
  if (lower === "s") {
    e.preventDefault();
    tv.stuck();
    return;
  }
  const vs = tv.view().seats[tv.me];
  if (key === "0" || lower === "q") {
    e.preventDefault();
    if (vs.nertz_count > 0) tv.pick("N", 1);
    return;
  }
  if (lower === "w" || key === "5") {
    e.preventDefault();
    if (wasteTop(vs)) tv.pick("W", 1);
    return;
  }
  if (lower === "f") {
    e.preventDefault();
    const sel = tv.ui.selected;
    if (sel) toMiddle(tv, sel.src, sel.depth);
    else toast("Pick a card first: 0 Nertz, W waste, 1–4 a work pile.", "info");
    return;
  }
  if (/^[1-4]$/.test(key)) {
    e.preventDefault();
    const pile = vs.work[Number(key) - 1];
    const sel = tv.ui.selected;
    if (sel && sel.src === key) {
      // The same pile again: take one more card of its run.
      const depth = sel.depth >= pile.length ? 1 : sel.depth + 1;
      tv.pick(key, depth);
    } else if (sel) {
      dropOn(tv, sel.src, sel.depth, key);
    } else if (pile.length) {
      tv.pick(key, 1);
    }
  }
}
