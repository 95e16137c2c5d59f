// The joker chooser (R41): a joker sent to the middle is announced as a card, chosen
// here from the cards it may stand for now; arrows move between them, Esc puts the
// joker down.
import { h, toast } from "../api.js";
import { cardName, parse, shortName } from "../cards.js";
import { announceable, notPlayable, sourceCards } from "./state.js";

/** A joker sent to the middle: choose the card it is announced as. ``target`` is "F"
 * (the middle) or "F3" (that foundation's card is offered first). */
export function openChooser(tv, src, target) {
  const view = tv.view();
  const [joker] = sourceCards(view.seats[tv.me], src, 1) || [];
  if (!tv.playable()) {
    toast(notPlayable(tv.st).reason, "warn");
    return;
  }
  if (view.phase !== "playing") {
    // R28: after a call, cards in the air land, but nothing new is announced (R41).
    toast("Somebody has called: no joker can be announced now (R41).", "warn");
    return;
  }
  if (view.announcements.some((a) => a.seat === tv.me && a.joker === joker)) {
    toast(
      "This joker is already announced: it lands, or stays home, when its window ends (R41).",
      "info",
      3000,
    );
    return;
  }
  const foundation = target.length > 1 ? Number(target.slice(1)) : null;
  tv.dispatch({ type: "chooserOpen", src, joker, foundation });
  tv.render();
  const first = tv.chooserEl.querySelector("button.choice");
  if (first) first.focus();
}

export function closeChooser(tv) {
  if (!tv.ui.chooser) return;
  tv.dispatch({ type: "chooserClose" });
  tv.render();
  tv.board.focus();
}

function announce(tv, move) {
  const { joker } = tv.ui.chooser;
  tv.dispatch({ type: "chooserClose" });
  tv.send(move, [joker]);
  tv.board.focus();
}

/** The chooser: only the cards the joker may be announced as now (the engine's legal
 * ``=`` moves), rebuilt as the middle changes; the focused choice keeps its focus. */
export function renderChooser(tv, view) {
  const box = tv.chooserEl;
  const ch = tv.ui.chooser;
  const seat = view && tv.me !== null ? view.seats[tv.me] : null;
  const top = seat && ch ? (sourceCards(seat, ch.src, 1) || [])[0] : null;
  if (!ch || top !== ch.joker || !tv.playable()) {
    tv.dispatch({ type: "chooserClose" }); // the joker was played, or can no longer be
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const focused =
    document.activeElement && box.contains(document.activeElement)
      ? document.activeElement.dataset.move
      : null;
  const options = announceable(view);
  options.sort(
    (a, b) =>
      (b.foundation !== null && b.foundation === ch.foundation) -
      (a.foundation !== null && a.foundation === ch.foundation),
  );
  const buttons = options.map((o) => {
    const c = parse(o.card);
    const move = `${ch.src}>F${o.foundation ?? ""}=${o.card}`;
    const where = o.foundation ? `on F${o.foundation}` : "to start a new foundation";
    return h(
      "button",
      {
        type: "button",
        class: `choice suit-${c.suit} ${c.red ? "red" : "black"}`,
        "data-move": move,
        "aria-label": `${cardName(o.card)} ${where}`,
        title: `Announce the joker as the ${cardName(o.card)} ${where}`,
        onclick: () => announce(tv, move),
      },
      h("b", { text: shortName(o.card) }),
      h("small", { text: o.foundation ? `F${o.foundation}` : "new" }),
    );
  });
  box.replaceChildren(
    h(
      "div",
      { class: "panel-head" },
      h("p", {
        class: "chooser-head",
        text: "Announce your joker as… (R41)",
        title:
          "Everyone sees the announcement; anyone holding that card may play it there first, else your joker lands when the time is up (R41).",
      }),
      h("button", {
        type: "button",
        class: "close-x",
        "aria-label": "Close: keep the joker",
        title: "Keep the joker (Esc)",
        onclick: () => closeChooser(tv),
        text: "✕",
      }),
    ),
    h("div", { class: "choices" }, buttons),
    h("button", {
      type: "button",
      class: "link",
      onclick: () => closeChooser(tv),
      text: "Cancel (Esc)",
    }),
  );
  box.hidden = false;
  const again =
    focused && [...box.querySelectorAll("button.choice")].find((b) => b.dataset.move === focused);
  if (again) again.focus();
}

/** Keys in the chooser: arrows move between the choices; Enter and Space choose
 * (they are buttons); Esc cancels. */
export function chooserKey(tv, e) {
  if (e.key === "Escape") {
    e.preventDefault();
    closeChooser(tv);
    return;
  }
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (!step) return;
  e.preventDefault();
  const choices = [...tv.chooserEl.querySelectorAll("button.choice")];
  const at = choices.indexOf(document.activeElement);
  const next = choices[(at + step + choices.length) % choices.length];
  if (next) next.focus();
}
