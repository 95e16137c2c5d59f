// The page of a table this browser has no seat at: take one, or watch.
import { api, h, toast } from "../api.js";
import { seatColour } from "../cards.js";
import { joinTable } from "../seating.js";
import { savedName, saveName } from "../storage.js";

/** The join page of table ``code``: its seats, a name and "Take a seat" (at a
 * partnership table, R40, a seat beside someone who waits for a partner), or "Just
 * watch". ``open(record)`` opens the table with the seat taken (null: watching). */
export async function showJoin(app, code, key, open) {
  document.title = `Nertz — table ${code}`;
  let info;
  try {
    info = await api("GET", `/api/tables/${code}${key ? `?key=${encodeURIComponent(key)}` : ""}`);
  } catch (error) {
    // Without its key a private table is answered as no table at all (its code cannot be
    // probed): say how a private table is opened.
    const text =
      error.status === 404 && !key
        ? `There is no table ${code} open to everyone: if it is a private table, it opens by its invite link, or by typing its invite code under "Join a table" on the home page. Ask whoever made it for either.`
        : error.message;
    app.replaceChildren(
      h(
        "div",
        { class: "page" },
        h("h1", { text: `Table ${code}` }),
        h("p", { class: "error", text }),
        h("a", { href: "/", text: "← Home" }),
      ),
    );
    return;
  }
  const name = h("input", {
    id: "join-name",
    value: savedName(),
    maxlength: 24,
    placeholder: "Your name",
    "aria-label": "your name",
  });
  const openPlace = (p) => !p.name && !p.bot && !p.invited; // invited: an outside bot's
  const free = info.seats.filter((s) => (s.partners ? s.partners.some(openPlace) : openPlace(s)));
  const sit = async (seat) => {
    saveName(name.value.trim());
    try {
      const record = await joinTable(code, name.value.trim(), key, seat);
      open(record);
    } catch (error) {
      toast(error.message, "error", 5000);
    }
  };
  const paired = info.seats.some((s) => s.partners);
  const form = h(
    "form",
    { class: "join-seat" },
    name,
    h("button", {
      type: "submit",
      class: "primary",
      disabled: !free.length,
      text: free.length
        ? paired
          ? "Take a seat (the table pairs you)"
          : "Take a seat"
        : "No free seat",
    }),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    sit(null);
  });
  // R40: choose a partner: sit at a seat where someone waits for one.
  const placeText = (p) =>
    p.bot
      ? `${p.name || "a bot"} (bot)`
      : p.name || (p.invited ? `kept for ${p.invited} (bot)` : "free");
  const seatLine = (s) =>
    s.partners
      ? [
          ` Seat ${s.seat + 1}: ${s.partners.map(placeText).join(" & ")} `,
          s.partners.some(openPlace) && s.partners.some((p) => !openPlace(p))
            ? h("button", {
                type: "button",
                class: "sit-with",
                onclick: () => sit(s.seat),
                text: `Partner ${s.partners
                  .filter((p) => !openPlace(p))
                  .map(placeText)
                  .join("")}`,
              })
            : null,
        ]
      : [` Seat ${s.seat + 1}: ${placeText(s)}`];
  app.replaceChildren(
    h(
      "div",
      { class: "page" },
      h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
      h("h1", { text: `Table ${code}` }),
      h("p", { text: `${info.seats.length} seats, ${info.stage}. ` }),
      h(
        "ul",
        {},
        info.seats.map((s) =>
          h(
            "li",
            {},
            h("span", { class: "chip", style: `background:${seatColour(s.seat)}` }),
            ...seatLine(s),
          ),
        ),
      ),
      form,
      h("p", {}, h("button", { type: "button", onclick: () => open(null), text: "Just watch" })),
    ),
  );
  name.focus();
}
