// Dialogs (the rules, the host's controls): each closes by its visible ✕, which stays at
// the top while the text scrolls, by Esc (the browser's own for a modal <dialog>) and by
// a click outside it.
import { h } from "./api.js";

/** The head of a dialog: its title and the ✕ that closes it. */
export function dialogHead(title) {
  return h(
    "form",
    { method: "dialog", class: "dialog-head" },
    h("h2", { text: title }),
    h("button", { class: "close-x", "aria-label": "Close", title: "Close (Esc)", text: "✕" }),
  );
}

/** A click outside ``dialog``'s box (on its backdrop) closes it. */
export function closeOnOutsideClick(dialog) {
  dialog.addEventListener("click", (e) => {
    const box = dialog.getBoundingClientRect();
    // A click on the backdrop is the dialog's own; so is a click inside its padding.
    const outside =
      e.clientX < box.left ||
      e.clientX > box.right ||
      e.clientY < box.top ||
      e.clientY > box.bottom;
    if (e.target === dialog && outside) dialog.close();
  });
}
