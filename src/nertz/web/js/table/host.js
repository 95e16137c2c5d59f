// The host's controls (docs/protocol.md, "Host"): start now with bots in the empty
// places, a bot standing in for a person who is away (and taking it out again), remove
// a person (or an outside bot), pass the role on, invite an outside bot by name to a
// free place, and change the options between matches (the form is built from GET
// /api/rules, as the home page's).
import { h } from "../api.js";
import { seatColour } from "../cards.js";
import { formValue, ruleOptions } from "../rules.js";
import { nameOf } from "./state.js";

/** The bots to put in: the home page's plain choices ("Relaxed", "Even", "Sharp", "Fierce"; GET
 * /api/rules ``bots``), the gentlest first; the server gives the empty places the
 * choice's bots in turn. */
function botChoice() {
  const select = h(
    "select",
    { class: "host-bots", "aria-label": "bots" },
    h("option", { value: "relaxed", text: "Relaxed" }),
  );
  ruleOptions().then(({ bots }) => {
    const was = select.value;
    select.replaceChildren(
      ...bots.map((b) =>
        h("option", { value: b.name, text: b.label, title: b.blurb, selected: b.name === was }),
      ),
    );
  });
  return select;
}

/** Whether this page is the host's. */
export function isHost(tv) {
  const host = tv.table && tv.table.host;
  return !!host && tv.me === host.seat && (host.partner ?? null) === (tv.st.partner ?? null);
}

/** "Ann is the host" for everyone (null before anyone joined); the host's own page
 * has the button that opens the host's controls. */
export function hostLine(tv) {
  const host = tv.table.host;
  if (!host) return null;
  if (!isHost(tv))
    return h("p", {
      class: "host-line",
      text: `${placeName(tv, host.seat, host.partner)} is the host.`,
    });
  return h(
    "p",
    {},
    h("span", { class: "host-line", text: "You are the host." }),
    " ",
    h(
      "button",
      { type: "button", class: "host-open", onclick: () => tv.showHostDialog() },
      "Host: start, bots, options",
    ),
  );
}

function placeName(tv, seat, partner) {
  const s = tv.table.seats[seat];
  if (s.partners && partner !== null && partner !== undefined)
    return s.partners[partner].name || `seat ${seat + 1}`;
  return nameOf(tv.st, seat);
}

/** Every place of the table: ``[seat, partner, place]`` (partner null without
 * partnerships). */
function places(tv) {
  return tv.table.seats.flatMap((s) =>
    s.partners ? s.partners.map((p) => [s.seat, p.partner, p]) : [[s.seat, null, s]],
  );
}

/** Every person's place but the host's, and every outside bot's (docs/bots.md): ``[seat,
 * partner, place]``. */
function others(tv) {
  const out = [];
  for (const [seat, partner, p] of places(tv)) {
    if (!p.name || (p.bot && p.bot !== "outside")) continue;
    if (seat === tv.me && (partner ?? null) === (tv.st.partner ?? null)) continue;
    out.push([seat, partner, p]);
  }
  return out;
}

/** The free places, each with a name field to invite an outside bot there (docs/bots.md,
 * "Outside bots"), or the bot it is kept for and a button to keep it no longer. */
function invites(tv) {
  const free = places(tv).filter(([, , p]) => !p.name && !p.bot);
  if (!free.length) return null;
  return h(
    "ul",
    { class: "seat-list host-invites" },
    free.map(([seat, partner, p]) => {
      const at = partner === null ? { seat } : { seat, partner };
      const where = `Seat ${seat + 1}${partner === null ? "" : `, place ${partner + 1}`}`;
      if (p.invited)
        return h(
          "li",
          { "data-seat": String(seat) },
          `${where}: kept for ${p.invited} (bot) `,
          h(
            "button",
            {
              type: "button",
              class: "host-uninvite",
              onclick: () => tv.hostDo({ do: "invite", ...at }),
            },
            `Keep it no longer`,
          ),
        );
      const name = h("input", {
        class: "host-invite-name",
        "aria-label": `the bot's name for ${where}`,
        maxlength: 24,
        placeholder: "a registered bot's name",
      });
      return h(
        "li",
        { "data-seat": String(seat) },
        h("label", {}, `${where}: `, name),
        " ",
        h(
          "button",
          {
            type: "button",
            class: "host-invite",
            onclick: () => name.value.trim() && tv.hostDo({ do: "invite", bot: name.value, ...at }),
          },
          "Invite the bot",
        ),
      );
    }),
  );
}

/** The host's controls (the Host dialog). */
export function hostContent(tv) {
  const t = tv.table;
  const level = botChoice();
  const between = t.stage === "seating" || t.stage === "over";
  const inviting = invites(tv);
  const out = h(
    "div",
    { class: "host-panel" },
    h("p", { text: "You are the host: you made this table." }),
    between
      ? h(
          "p",
          {},
          "Start now; every empty seat gets a bot: ",
          h("label", {}, "bots ", level),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "primary host-start",
              onclick: () => tv.hostDo({ do: "start", bot: level.value }),
            },
            "Start now",
          ),
        )
      : null,
    h("h3", { text: "People" }),
    h(
      "ul",
      { class: "seat-list" },
      others(tv).map(([seat, partner, p]) => {
        const name = p.name;
        const at = partner === null ? { seat } : { seat, partner };
        const remove = h(
          "button",
          {
            type: "button",
            class: "host-remove",
            onclick: () => tv.hostDo({ do: "remove", ...at }),
          },
          `Remove ${name}`,
        );
        if (p.bot)
          // An outside bot (docs/bots.md): it plays its place itself; the host may only
          // send it away.
          return h(
            "li",
            { "data-seat": String(seat) },
            h("span", { class: "chip", style: `background:${seatColour(seat)}` }),
            ` ${name} (bot) `,
            remove,
          );
        // A bot the host put in stands in for them: the place stays theirs, and the host
        // may take the bot out again (they take the place back themselves by coming back).
        let action;
        if (p.connected)
          action = h(
            "button",
            { type: "button", class: "host-pass", onclick: () => tv.hostDo({ do: "pass", ...at }) },
            `Make ${name} host`,
          );
        else if (p.stand_in)
          action = h(
            "button",
            {
              type: "button",
              class: "host-bot-off",
              onclick: () => tv.hostDo({ do: "bot_off", ...at }),
            },
            `No bot for ${name}`,
          );
        else
          action = h(
            "button",
            {
              type: "button",
              class: "host-bot",
              onclick: () => tv.hostDo({ do: "bot", bot: level.value, ...at }),
            },
            `A bot for ${name}`,
          );
        const away = p.stand_in ? " (away: a bot plays for them until they come back)" : " (away)";
        return h(
          "li",
          { "data-seat": String(seat) },
          h("span", { class: "chip", style: `background:${seatColour(seat)}` }),
          ` ${name}${p.connected ? "" : away} `,
          action,
          " ",
          remove,
        );
      }),
    ),
    inviting
      ? h(
          "div",
          {},
          h("h3", { text: "Invite a bot" }),
          h("p", {
            text: "Keep a free place for a bot someone registered: only that bot may take it.",
          }),
          inviting,
        )
      : null,
    between ? optionsForm(tv) : h("p", { text: "Options change between matches." }),
  );
  return out;
}

/** The options, each as GET /api/rules declares it, filled with those in force. */
function optionsForm(tv) {
  const form = h(
    "form",
    { class: "host-options" },
    h("h3", { text: "Options for the next match" }),
    h("p", { text: "Loading the options…" }),
  );
  ruleOptions().then(({ options }) => {
    const rules = tv.table.rules;
    const fields = options
      .filter((o) => o.name !== "partnerships")
      .map((o) => {
        const value = formValue(rules[o.name]);
        const input = o.values
          ? h(
              "select",
              { name: o.name, title: o.help },
              o.values.map((v) =>
                h("option", {
                  value: formValue(v),
                  text: formValue(v),
                  selected: formValue(v) === value,
                }),
              ),
            )
          : h("input", {
              name: o.name,
              type: "number",
              min: o.min,
              max: o.max,
              value,
              title: o.help,
            });
        return h(
          "label",
          { class: "opt", title: `${o.help} (${o.rule})` },
          h("span", { class: "opt-name", text: o.label }),
          input,
        );
      });
    form.replaceChildren(
      form.firstChild,
      h("div", { class: "opts" }, fields),
      h("button", { type: "submit", class: "primary host-apply", text: "Change the options" }),
    );
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const rules = tv.table.rules;
    const changed = {};
    for (const el of form.elements) {
      if (el.name && el.value !== formValue(rules[el.name])) changed[el.name] = el.value;
    }
    tv.hostDo({ do: "options", options: changed });
  });
  return form;
}

/** "Ann changed caller bonus to 10": what everyone is told of an options change. */
export function optionsNotice(tv, e) {
  const host = tv.table.host;
  const who = host ? placeName(tv, host.seat, host.partner) : "The host";
  const what = Object.entries(e.changed).map(
    ([k, v]) => `${k.replace(/_/g, " ")} to ${formValue(v)}`,
  );
  return `${who === "You" ? "You" : who} changed ${what.join(", ")} (from the next match)`;
}
