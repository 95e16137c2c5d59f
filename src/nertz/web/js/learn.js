// The way in for a newcomer: ``/learn`` deals the guided first hand (``POST /api/learn``:
// a real table whose first hand is a lesson, server/lessons.py), and ``startPractice``
// an unscored table against bots (``POST /api/practice``). Both open the table page
// with the seat the server made; the lesson itself is drawn by table/practice.js.
import { api, h, toast } from "./api.js";
import { openSeated } from "./seating.js";
import { savedName } from "./storage.js";

function myName() {
  return savedName() || "You";
}

/** ``POST /api/learn`` and open the guided hand. */
export async function startLesson() {
  try {
    openSeated(await api("POST", "/api/learn", { name: myName() }));
  } catch (error) {
    toast(error.message, "error", 6000);
  }
}

/** ``POST /api/practice``: one person against ``count`` bots of the plain choice ``bots``. */
export async function startPractice(bots = "relaxed", count = 1) {
  try {
    openSeated(await api("POST", "/api/practice", { name: myName(), bots, count }));
  } catch (error) {
    toast(error.message, "error", 6000);
  }
}

/** The ``/learn`` page: what the guided hand is, and the button that deals it. */
export function showLearn(app) {
  document.title = "Nertz — learn to play";
  const go = h("button", {
    type: "button",
    class: "primary",
    id: "start-lesson",
    text: "Deal my first hand",
    onclick: () => {
      go.disabled = true;
      startLesson().finally(() => {
        go.disabled = false;
      });
    },
  });
  app.replaceChildren(
    h(
      "main",
      { class: "page learn" },
      h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
      h("h1", { text: "Learn Nertz in one hand" }),
      h("p", {
        text: "A guided hand, one step at a time: each step shows where to look, and you make the move yourself: drag the card, tap it and then its place, or use the keys. A wrong move is simply explained, never held against you.",
      }),
      h("p", {
        text: "Then you play a practice hand against one slow bot, with hints. Nothing here counts in any score or history.",
      }),
      h("p", {}, go),
      h(
        "p",
        {},
        "Rather practise straight away? ",
        h("button", {
          type: "button",
          class: "link-btn",
          onclick: () => startPractice(),
          text: "Practice against a bot",
        }),
      ),
    ),
  );
  go.focus();
}
