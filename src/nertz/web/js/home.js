// Home: your name, create a table, join one, open public tables, your past matches.
import { currentAccount } from "./account.js";
import { api, h, toast } from "./api.js";
import { deviceHeaders, hasDevice } from "./device.js";
import { startPractice } from "./learn.js";
import { quickMatch } from "./quick.js";
import { defaults, formValue, ruleOptions } from "./rules.js";
import { joinTable } from "./seating.js";
import { rememberHostToken, savedName, saveName } from "./storage.js";

/** One option's field, as GET /api/rules declares it: a list to choose from, or a
 * number between ``min`` and ``max``. */
function optionField(o) {
  const id = `opt-${o.name}`;
  let input;
  if (o.values) {
    input = h(
      "select",
      { id, name: o.name, title: o.help, disabled: o.values.length === 1 },
      o.values.map((v) => h("option", { value: formValue(v), text: formValue(v) })),
    );
  } else {
    input = h("input", {
      id,
      name: o.name,
      type: "number",
      min: o.min,
      max: o.max,
      value: o.default,
      title: o.help,
    });
  }
  return h(
    "label",
    { class: "opt", title: `${o.help} (${o.rule})` },
    h("span", { class: "opt-name" }, o.label, h("abbr", { title: o.help, text: "?" })),
    input,
  );
}

/** The option values a preset starts from: the defaults with the preset's changes. */
function presetValues(catalogue, name) {
  return { ...defaults(catalogue.options), ...catalogue.presets[name] };
}

function applyPreset(form, catalogue, name) {
  const values = presetValues(catalogue, name);
  for (const o of catalogue.options) {
    const el = form.elements[o.name];
    if (el) el.value = formValue(values[o.name]);
  }
}

/** Who may sit at a seat: solo, a bot or a person; with partnerships (R40) two of
 * them (seat 1 is you and your partner). */
function whoChoices(seat, paired) {
  if (!paired)
    return [
      ["bot", "a bot"],
      ["person", "a person"],
    ];
  if (seat === 0)
    return [
      ["person", "you and a person"],
      ["mate", "you and a bot partner"],
    ];
  return [
    ["bots", "two bots"],
    ["mate", "a person and a bot"],
    ["person", "two people"],
  ];
}

/** The plain choices of bots (GET /api/rules ``bots``: "Relaxed", "Even", "Sharp", "Fierce"),
 * each setting every bot row's level and style from its specs, in turn. */
function botChoices(catalogue) {
  const first = catalogue.bots[0].name;
  return h(
    "div",
    { class: "bot-choices", role: "radiogroup", "aria-label": "bots" },
    catalogue.bots.map((c) => {
      const radio = h("input", {
        type: "radio",
        name: "bots",
        value: c.name,
        checked: c.name === first,
      });
      radio.addEventListener("change", () => applyChoice(radio.form, catalogue));
      return h(
        "label",
        { class: "bot-choice", title: c.blurb },
        radio,
        h("b", { text: c.label }),
        h("small", { text: c.blurb }),
      );
    }),
  );
}

function applyChoice(form, catalogue) {
  const picked =
    catalogue.bots.find((c) => c.name === form.elements.bots.value) || catalogue.bots[0];
  [...form.querySelectorAll(".bot-row")].forEach((row, i) => {
    const [level, style] = picked.specs[i % picked.specs.length].split(":");
    row.querySelector("select.level").value = level;
    row.querySelector("select.style").value = style;
  });
}

function botRows(form, count, catalogue) {
  const box = form.querySelector(".bots");
  const paired = form.elements.partnerships && form.elements.partnerships.value === "on";
  const old = new Map([...box.querySelectorAll("select.who")].map((s) => [s.name, s.value]));
  box.replaceChildren();
  for (let seat = paired ? 0 : 1; seat < count; seat++) {
    const who = h(
      "select",
      { class: "who", name: `who-${seat}`, "aria-label": `seat ${seat + 1}: who plays` },
      whoChoices(seat, paired).map(([value, text]) => h("option", { value, text })),
    );
    who.value = old.get(`who-${seat}`) || whoChoices(seat, paired)[0][0];
    if (!who.value) who.value = whoChoices(seat, paired)[0][0];
    const level = h(
      "select",
      {
        class: "level",
        name: `level-${seat}`,
        "aria-label": `seat ${seat + 1}: bot level`,
        title: "How fast and how well the bot plays",
      },
      catalogue.levels.map((l) => h("option", { value: l, text: l })),
    );
    level.value = catalogue.bot_defaults.level;
    const style = h(
      "select",
      {
        class: "style",
        name: `style-${seat}`,
        "aria-label": `seat ${seat + 1}: bot style`,
        title: "racer calls at once; scorer plays on for points",
      },
      catalogue.styles.map((s) => h("option", { value: s, text: s })),
    );
    // A seat of people only needs no bot's level or style, and a table of people
    // only no choice of bots.
    const showBot = () => {
      level.hidden = style.hidden = who.value === "person";
      showChoices(form);
    };
    who.addEventListener("change", showBot);
    box.append(
      h("div", { class: "bot-row" }, h("span", { text: `Seat ${seat + 1}` }), who, level, style),
    );
    showBot();
  }
}

function showChoices(form) {
  const bots = [...form.querySelectorAll(".bots select.who")].some((s) => s.value !== "person");
  form.querySelector(".bot-choices").hidden = !bots;
}

async function createTable(form, catalogue) {
  const name = form.ownerDocument.getElementById("name").value.trim();
  if (!name) {
    toast("Type your name first.", "error");
    form.ownerDocument.getElementById("name").focus();
    return;
  }
  const seats = Number(form.elements.seats.value);
  const base = presetValues(catalogue, form.elements.preset.value);
  const options = {};
  for (const o of catalogue.options) {
    const el = form.elements[o.name];
    if (el && String(el.value) !== formValue(base[o.name])) options[o.name] = String(el.value);
  }
  const bots = {};
  const paired = form.elements.partnerships && form.elements.partnerships.value === "on";
  for (let seat = paired ? 0 : 1; seat < seats; seat++) {
    const who = form.elements[`who-${seat}`].value;
    const spec = `${form.elements[`level-${seat}`].value}:${form.elements[`style-${seat}`].value}`;
    if (who === "bot") bots[seat] = spec;
    else if (who === "bots")
      bots[seat] = `${spec}+${spec}`; // R40: two bots share it
    else if (who === "mate") bots[seat] = `+${spec}`; // a person with a bot partner
  }
  const body = {
    preset: form.elements.preset.value,
    options,
    seats,
    bots,
    public: form.elements.public.checked,
    ...(form.elements.outside_bots.checked ? { outside_bots: true } : {}),
  };
  try {
    const made = await api("POST", "/api/tables", body);
    // With it the server seats its creator in the place it kept and makes them host,
    // whoever joined first; kept if the join below fails.
    rememberHostToken(made.code, made.host_token);
    await joinTable(made.code, name, made.key || null, 0);
    location.href = made.link;
  } catch (error) {
    toast(error.message, "error", 5000);
  }
}

/** The name this browser last sat down under, as the server keeps it (server/devices.py),
 * when this browser's storage has none. */
async function prefillName(input, me) {
  if (input.value) return;
  const found = await me;
  if (found && found.name && !input.value) {
    input.value = found.name;
    saveName(found.name);
  }
}

/** This browser's own history (``GET /api/me``, server/history.py), asked for once per
 * visit: null if this browser has never sat down (no device), ``{ error }`` if it could
 * not be had. */
function myHistory() {
  if (!hasDevice()) return Promise.resolve(null);
  return api("GET", "/api/me", undefined, deviceHeaders()).catch((error) => ({ error }));
}

/** How many of this browser's finished matches the home page lists (the rest: /me). */
const PAST_SHOWN = 10;

/** This browser's finished matches, newest first, public and private tables alike (the
 * server keeps them by device: /me). */
function pastMatches(me) {
  if (me && me.error) return [h("li", { text: me.error.message })];
  const all = me ? me.series.flatMap((s) => s.matches.map((m) => ({ ...m, code: s.code }))) : [];
  all.sort((a, b) => b.finished - a.finished);
  if (!all.length) return [h("li", { text: "No finished matches in this browser yet." })];
  const lines = all
    .slice(0, PAST_SHOWN)
    .map((m) =>
      h(
        "li",
        {},
        h("a", { href: m.link, text: new Date(m.finished * 1000).toLocaleString() }),
        ` — table ${m.code}: you scored ${m.totals[m.seat]}`,
        m.won ? " and won" : "",
        ` (${m.names.map((n, i) => `${i === m.seat ? "you" : n} ${m.totals[i]}`).join(", ")})`,
      ),
    );
  if (all.length > PAST_SHOWN)
    lines.push(h("li", {}, h("a", { href: "/me", text: `All ${all.length} in My games` })));
  return lines;
}

function parseJoin(text) {
  const raw = text.trim();
  try {
    const url = new URL(raw, location.origin);
    const m = url.pathname.match(/\/t\/([A-Za-z0-9]+)/);
    if (m) return { code: m[1].toUpperCase(), key: url.searchParams.get("key") };
  } catch {
    /* not a link */
  }
  return { code: raw.toUpperCase().replace(/[^A-Z0-9]/g, ""), key: null };
}

/** Where a typed code leads: a table's six characters go to the table; anything else
 * is asked of the server as an invite (a private table's ten, ``KQ7M-X2PD-4R``). */
async function follow({ code, key }) {
  if (key || code.length === 6) return `/t/${code}${key ? `?key=${encodeURIComponent(key)}` : ""}`;
  const found = await api("GET", `/api/invites/${encodeURIComponent(code)}`);
  return found.link;
}

export async function showHome(app) {
  document.title = "Nertz";
  const name = h("input", {
    id: "name",
    name: "name",
    maxlength: 24,
    autocomplete: "nickname",
    value: savedName(),
    placeholder: "Your name",
  });
  name.addEventListener("change", () => saveName(name.value.trim()));
  const me = myHistory();
  // The entry to accounts (account.js): "Sign in", or the signed-in account's name.
  const accountLink = h("a", {
    href: "/account",
    class: "account-link",
    text: "Sign in or make an account",
  });
  const signedIn = currentAccount();
  signedIn.then(
    (account) => {
      if (!account) return;
      accountLink.textContent = `Account: ${account.name}`;
      if (!name.value) name.value = account.name;
    },
    () => {}, // offline: the link still leads to the account page
  );
  prefillName(name, me);

  let catalogue;
  try {
    catalogue = await ruleOptions();
  } catch (error) {
    // Offline (or the server away): what works without the network is still offered.
    app.replaceChildren(
      h(
        "div",
        { class: "page home" },
        h("h1", { text: "Nertz" }),
        h("p", {
          class: "error",
          text: `The table options could not be loaded: ${error.message}. Reload the page to try again.`,
        }),
        h(
          "section",
          { class: "offline-ways" },
          h("h2", { text: "These open without the network" }),
          h(
            "ul",
            {},
            h(
              "li",
              {},
              h("a", { href: "/rules", text: "How to play" }),
              ": the rules, in a minute or in full",
            ),
            h(
              "li",
              {},
              h("a", { href: "/learn", id: "learn-link", text: "Learn in one guided hand" }),
              ": what it teaches; the hand is dealt once you are online again",
            ),
          ),
        ),
      ),
    );
    return;
  }
  const presets = h(
    "select",
    { name: "preset", id: "preset" },
    Object.keys(catalogue.presets).map((p) => h("option", { value: p, text: p })),
  );
  const seats = h(
    "select",
    { name: "seats", id: "seats" },
    [2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: n, text: n })),
  );
  seats.value = "4";
  const form = h(
    "form",
    { class: "create", id: "create" },
    h(
      "div",
      { class: "row" },
      h("label", {}, "Preset ", presets),
      h("label", {}, "Seats ", seats),
      // Private unless chosen: a table made for friends stays off everyone's home page.
      h(
        "label",
        {
          title:
            "Listed under Open public tables on everyone's home page; else only your invite brings people in",
        },
        h("input", { type: "checkbox", name: "public" }),
        " listed publicly",
      ),
      // Off unless chosen: a program someone registered may take a free seat (docs/bots.md).
      h(
        "label",
        {
          title:
            "Bots people registered and run themselves may take free seats; they are marked as bots",
        },
        h("input", { type: "checkbox", name: "outside_bots" }),
        " outside bots may join",
      ),
    ),
    h(
      "fieldset",
      { class: "bots-box" },
      h("legend", { text: "Who sits with you (seat 1 is you)" }),
      botChoices(catalogue),
      h("div", { class: "bots" }),
    ),
    h(
      "details",
      { class: "all-options" },
      h("summary", { text: "All options (hover or focus one for its meaning)" }),
      h("div", { class: "opts" }, catalogue.options.map(optionField)),
    ),
    h("button", { type: "submit", class: "primary", text: "Create table and sit down" }),
  );
  presets.addEventListener("change", () => applyPreset(form, catalogue, presets.value));
  const rows = () => {
    botRows(form, Number(seats.value), catalogue);
    applyChoice(form, catalogue);
  };
  form.elements.partnerships.addEventListener("change", rows);
  seats.addEventListener("change", rows);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    saveName(name.value.trim());
    createTable(form, catalogue);
  });
  rows();

  const joinInput = h("input", {
    id: "join-code",
    placeholder: "code, invite or link",
    "aria-label": "table code, invite or link",
  });
  const joinForm = h(
    "form",
    { class: "join" },
    joinInput,
    h("button", { type: "submit", text: "Go to table" }),
  );
  joinForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const parsed = parseJoin(joinInput.value);
    if (!parsed.code)
      return toast(
        "Type a table code like 3DNQZD or an invite like KQ7M-X2PD-4R, or paste a link.",
        "error",
      );
    saveName(name.value.trim());
    try {
      location.href = await follow(parsed);
    } catch (error) {
      toast(error.message, "error", 5000);
    }
  });

  const openList = h("ul", { class: "open-tables" }, h("li", { text: "Looking…" }));
  const pastList = h("ul", { class: "past" }, h("li", { text: "Looking…" }));
  // The bots to practise against: the plain choices (GET /api/rules), gentlest first.
  const practiceBots = h(
    "select",
    {
      id: "practice-bots",
      "aria-label": "bots to practise against",
      title: "Which bots: Relaxed for a first game, Sharp to be out-thought",
    },
    catalogue.bots.map((c) => h("option", { value: c.name, text: c.label })),
  );
  app.replaceChildren(
    h(
      "div",
      { class: "page home" },
      h(
        "header",
        { class: "hero" },
        h("h1", { text: "Nertz" }),
        h("p", {
          text: "Everyone plays their own solitaire at once, slamming cards onto shared piles in the middle.",
        }),
        h(
          "nav",
          {},
          h("a", { href: "/rules", text: "How to play" }),
          " · ",
          h("a", { href: "/sheet", text: "Score sheet for real cards" }),
          " · ",
          h("a", { href: "/me", class: "my-games", text: "My games" }),
          " · ",
          accountLink,
        ),
      ),
      quickMatch(signedIn),
      h(
        "section",
        { class: "daily-home" },
        h("h2", { text: "Today's deal" }),
        h(
          "p",
          {},
          h("a", {
            href: "/daily",
            class: "button primary",
            id: "daily-link",
            text: "Today's deal",
          }),
          " the same cards for everyone today, against the same bots: one counted try, and a board",
        ),
      ),
      h(
        "section",
        { class: "newcomer" },
        h("h2", { text: "New to Nertz?" }),
        h(
          "p",
          {},
          h("a", {
            href: "/learn",
            class: "button primary",
            id: "learn-link",
            text: "Learn in one guided hand",
          }),
          " ",
          h("button", {
            type: "button",
            onclick: () => startPractice(practiceBots.value),
            text: "Practice against a bot",
          }),
          " ",
          practiceBots,
          " (nothing counts)",
        ),
      ),
      h("section", {}, h("label", { class: "name", for: "name" }, "Your name "), name),
      h("section", {}, h("h2", { text: "New table" }), form),
      h(
        "section",
        {},
        h("h2", { text: "Join a table" }),
        joinForm,
        h("h3", { text: "Open public tables" }),
        openList,
      ),
      h("section", {}, h("h2", { text: "Your past matches" }), pastList),
    ),
  );

  try {
    const { tables } = await api("GET", "/api/tables");
    openList.replaceChildren(
      ...(tables.length
        ? tables.map((t) =>
            h(
              "li",
              {},
              h("a", { href: `/t/${t.code}`, text: t.code }),
              ` — ${t.stage}, ${t.seats} seats, ${t.free.length} free`,
              Object.keys(t.rules).length
                ? ` (${Object.entries(t.rules)
                    .map(([k, v]) => `${k} ${v === true ? "on" : v}`)
                    .join(", ")})`
                : "",
            ),
          )
        : [h("li", { text: "None right now: create one." })]),
    );
  } catch (error) {
    openList.replaceChildren(h("li", { text: error.message }));
  }
  pastList.replaceChildren(...pastMatches(await me));
}
