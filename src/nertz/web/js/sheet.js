// The score sheet for real cards: the server checks and computes (engine's score and
// Match, server/sheets.py); this page only enters hands and shows the results.
import { api, h } from "./api.js";
import { mySheets, rememberSheet } from "./storage.js";
import { seatColour } from "./cards.js";
import { totalsChart } from "./chart.js";
import { formValue, ruleOptions } from "./rules.js";

/** The options a score sheet uses: those GET /api/rules marks ``sheet``. */
async function sheetOptions() {
  return (await ruleOptions()).options.filter((o) => o.sheet);
}

/** Cards in one deck: 52 (R1), or 54 with jokers (R41); the rule for the messages. */
function deckOf(options) {
  return options.jokers ? { size: 54, rule: "R1, R41: jokers on" } : { size: 52, rule: "R1" };
}

function optionInputs(options, values) {
  return options.map((o) => {
    const name = o.name;
    const value = formValue(values ? values[name] : o.default); // true/false shows as on/off
    let input;
    if (o.values) {
      input = h(
        "select",
        { name, title: o.help },
        o.values.map((v) => h("option", { value: formValue(v), text: formValue(v) })),
      );
      input.value = value;
    } else
      input = h("input", { type: "number", name, min: o.min, max: o.max, value, title: o.help });
    return h("label", { title: `${o.help} (${o.rule})` }, `${o.label} `, input);
  });
}

function readOptions(form, options) {
  return Object.fromEntries(options.map((o) => [o.name, String(form.elements[o.name].value)]));
}

function nameInputs(names) {
  // A partnership (R40) is one seat with two names: "Ann & Bob".
  return names.map((n, i) =>
    h("input", {
      class: "pname",
      value: n,
      maxlength: 51,
      "aria-label": `player ${i + 1} name (partners: Ann & Bob)`,
      title: "A partnership plays one seat: type both names, e.g. Ann & Bob (R40)",
      placeholder: `Player ${i + 1}`,
    }),
  );
}

/** The server's first checks of the players' names (server/sheets.py), made here before
 * anything is sent: a refusal is shown at once, with no request refused. */
function checkNames(list) {
  list.forEach((raw, i) => {
    if (!raw) throw new Error(`player ${i + 1}: type a name (1 to 24 characters)`);
    if (!raw.includes("&")) return;
    const parts = raw.split("&").map((x) => x.trim());
    if (parts.length !== 2)
      throw new Error(
        `player ${i + 1}: a partnership is two names, 'Ann & Bob' (R40), not '${raw}'`,
      );
    const named = parts.filter(Boolean);
    if (named.length === 1)
      throw new Error(
        `player ${i + 1}: '${raw}' names one partner: a partnership is two names, '${named[0]} & Bob' (R40)`,
      );
  });
  const keys = list.map((n) => n.replace(/\s*&\s*/, " & ").toLowerCase());
  if (new Set(keys).size !== keys.length)
    throw new Error("two players have the same name; tell them apart");
}

/** Clear ``msg`` as soon as anything in ``box`` changes: an old refusal never stays up
 * beside a new entry (nor while the browser's own range check speaks). */
function clearOnEdit(box, msg) {
  const clear = () => {
    if (msg.classList.contains("error")) {
      msg.textContent = "";
      msg.className = "msg";
    }
  };
  box.addEventListener("input", clear);
  box.addEventListener("invalid", clear, true);
}

function setupForm(sheetOpts, names, options, submitText, onSubmit) {
  const namesBox = h("div", { class: "sheet-names" }, nameInputs(names));
  const msg = h("p", { class: "msg", role: "alert" });
  const form = h(
    "form",
    { class: "sheet-form" },
    h(
      "div",
      {},
      h("b", { text: "Players " }),
      namesBox,
      h("button", {
        type: "button",
        onclick: () => {
          if (namesBox.children.length < 8) namesBox.append(...nameInputs([""]));
        },
        text: "+ player",
      }),
      h("button", {
        type: "button",
        onclick: () => {
          if (namesBox.children.length > 2) namesBox.lastChild.remove();
        },
        text: "− player",
      }),
    ),
    h("div", { class: "sheet-opts" }, optionInputs(sheetOpts, options)),
    h("button", { type: "submit", class: "primary", text: submitText }),
    msg,
  );
  clearOnEdit(form, msg);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const list = [...namesBox.querySelectorAll("input")].map((x) => x.value.trim());
    try {
      checkNames(list);
      await onSubmit(list, readOptions(form, sheetOpts));
    } catch (error) {
      msg.textContent = error.message;
      msg.className = "msg error";
    }
  });
  return form;
}

export async function showSheet(app, id) {
  document.title = "Nertz — score sheet";
  if (!id) {
    let sheetOpts;
    try {
      sheetOpts = await sheetOptions();
    } catch (error) {
      app.replaceChildren(
        h(
          "div",
          { class: "page" },
          h("h1", { text: "Score sheet" }),
          h("p", {
            class: "error",
            text: `The options could not be loaded: ${error.message}. Reload the page to try again.`,
          }),
        ),
      );
      return;
    }
    const form = setupForm(
      sheetOpts,
      ["", "", "", ""],
      null,
      "Start the sheet",
      async (names, options) => {
        const made = await api("POST", "/api/sheets", { names, options });
        // The names as the sheet keeps them ("Ann & Bob", not "Ann&Bob" as typed).
        rememberSheet({ id: made.id, names: made.names || names, at: Date.now() });
        location.href = made.link;
      },
    );
    const mine = mySheets();
    app.replaceChildren(
      h(
        "div",
        { class: "page sheet" },
        h("nav", { class: "crumbs" }, h("a", { href: "/", text: "← Home" })),
        h("h1", { text: "Score sheet for real cards" }),
        h("p", {
          text: "Playing with physical decks? Keep score here: each hand, enter each player's cards in the middle and cards left in their Nertz pile, and who called. The sheet does the arithmetic (R30) and declares the winner (R32). It is stored on the server: share its link.",
        }),
        form,
        mine.length
          ? h(
              "div",
              {},
              h("h2", { text: "Your sheets" }),
              h(
                "ul",
                {},
                mine.map((s) =>
                  h(
                    "li",
                    {},
                    h("a", { href: `/sheet/${s.id}`, text: s.names.join(", ") }),
                    ` — ${new Date(s.at).toLocaleDateString()}`,
                  ),
                ),
              ),
            )
          : null,
      ),
    );
    return;
  }
  const page = new SheetPage(app, id);
  await page.load();
}

class SheetPage {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.sheet = null;
    this.editing = null;
    this.settingUp = false;
    this.options = [];
  }

  async load() {
    try {
      [this.sheet, this.options] = await Promise.all([
        api("GET", `/api/sheets/${this.id}`),
        sheetOptions(),
      ]);
    } catch (error) {
      this.app.replaceChildren(
        h(
          "div",
          { class: "page" },
          h("h1", { text: "Score sheet" }),
          h("p", { class: "error", text: error.message }),
          h("a", { href: "/sheet", text: "Start a new sheet" }),
        ),
      );
      return;
    }
    this.render();
  }

  say(text, kind) {
    this.msg.textContent = text;
    this.msg.className = `msg ${kind}`;
  }

  async save(method, path, body, okText) {
    try {
      this.sheet = await api(method, path, body);
      this.editing = null;
      this.render();
      this.say(okText, "ok");
      return true;
    } catch (error) {
      this.say(error.message, "error");
      return false;
    }
  }

  entryRow() {
    const s = this.sheet;
    const hand = this.editing ? s.hands[this.editing - 1] : null;
    const cells = s.names.map((name, i) =>
      h(
        "td",
        {},
        h("input", {
          type: "number",
          class: "in-middle",
          "data-seat": i,
          min: 0,
          max: deckOf(s.options).size,
          value: hand ? hand.middle[i] : "",
          "aria-label": `${name}: cards in the middle`,
          placeholder: "mid",
        }),
        h("input", {
          type: "number",
          class: "in-left",
          "data-seat": i,
          min: 0,
          max: s.options.nertz_pile,
          value: hand ? hand.nertz_left[i] : "",
          "aria-label": `${name}: Nertz cards left`,
          placeholder: "left",
        }),
      ),
    );
    return h(
      "tr",
      { class: "entry" },
      h("th", { text: this.editing ? `hand ${this.editing}` : "new" }),
      cells,
      h("td", { class: "below", title: "who called: under the table", text: "↓" }),
      h("td", {}),
    );
  }

  /** Who called and the button that adds (or saves) the hand: under the table, not in
   * its last columns, so that on a phone they are in sight without scrolling the table
   * sideways. */
  entryFoot() {
    const s = this.sheet;
    const hand = this.editing ? s.hands[this.editing - 1] : null;
    const caller = h(
      "select",
      { class: "in-caller", "aria-label": "who called Nertz" },
      h("option", { value: "", text: "nobody (stuck)" }),
      s.names.map((n, i) => h("option", { value: String(i), text: n })),
    );
    caller.value = hand && hand.caller !== null ? String(hand.caller) : "";
    const label = this.editing ? `Save hand ${this.editing}` : "Add hand";
    return h(
      "div",
      { class: "entry-foot" },
      h("label", {}, `Hand ${this.editing || s.hands.length + 1}: called `, caller),
      h("button", {
        type: "button",
        class: "primary add-hand",
        onclick: () => this.submitHand(),
        text: label,
      }),
      this.editing
        ? h("button", {
            type: "button",
            onclick: () => {
              this.editing = null;
              this.render();
            },
            text: "Cancel",
          })
        : null,
    );
  }

  readHand() {
    const row = this.app.querySelector("tr.entry");
    const num = (el) => (el.value === "" ? NaN : Number(el.value));
    const middle = [...row.querySelectorAll(".in-middle")].map(num);
    const left = [...row.querySelectorAll(".in-left")].map(num);
    const c = this.app.querySelector(".in-caller").value;
    const caller = c === "" ? null : Number(c);
    // The same checks as the server's (server/sheets.py), before anything is sent; every
    // player's problem is named at once, not only the first.
    const names = this.sheet.names;
    const label = `hand ${this.editing || this.sheet.hands.length + 1}`;
    const pileSize = this.sheet.options.nertz_pile;
    const deck = deckOf(this.sheet.options);
    const whole = (x) => Number.isInteger(x);
    const problems = []; // [whose, what]: "hand 1, Ann: ..." alone, "hand 1: Ann: ...; Bob: ..." together
    names.forEach((name, i) => {
      if (!whole(middle[i]))
        problems.push([name, `type cards in the middle as a whole number (0 if none)`]);
      else if (middle[i] < 0 || middle[i] > deck.size)
        problems.push([
          name,
          `cards in the middle must be 0 to ${deck.size} (a deck of ${deck.size}, ${deck.rule}), not ${middle[i]}`,
        ]);
      if (!whole(left[i]))
        problems.push([name, `type Nertz cards left as a whole number (0 if none)`]);
      else if (left[i] < 0 || left[i] > pileSize)
        problems.push([
          name,
          `Nertz cards left must be 0 to ${pileSize} (the pile size, R4), not ${left[i]}`,
        ]);
      else if (
        whole(middle[i]) &&
        middle[i] >= 0 &&
        middle[i] <= deck.size &&
        middle[i] + left[i] > deck.size
      )
        problems.push([
          name,
          `${middle[i]} in the middle and ${left[i]} left is more than one deck of ${deck.size} (${deck.rule})`,
        ]);
    });
    if (caller !== null && whole(left[caller]) && left[caller] !== 0) {
      problems.push([
        null,
        `${names[caller]} called Nertz, so their Nertz cards left must be 0, not ${left[caller]} (R27)`,
      ]);
    }
    const said = problems.map(([whose, what]) => (whose ? `${whose}: ${what}` : what));
    if (problems.length === 1 && problems[0][0]) throw new Error(`${label}, ${said[0]}`);
    if (problems.length) throw new Error(`${label}: ${said.join("; ")}`);
    return { middle, nertz_left: left, caller };
  }

  async submitHand() {
    let hand;
    try {
      hand = this.readHand();
    } catch (error) {
      this.say(error.message, "error");
      return;
    }
    if (this.editing) {
      const old = this.sheet.hands[this.editing - 1];
      await this.save(
        "PUT",
        `/api/sheets/${this.id}/hands/${this.editing}`,
        { ...hand, void: old.void },
        `Hand ${this.editing} saved.`,
      );
    } else {
      await this.save(
        "POST",
        `/api/sheets/${this.id}/hands`,
        hand,
        `Hand ${this.sheet.hands.length + 1} added.`,
      );
    }
  }

  async toggleVoid(n) {
    const old = this.sheet.hands[n - 1];
    await this.save(
      "PUT",
      `/api/sheets/${this.id}/hands/${n}`,
      { ...old, void: !old.void },
      old.void ? `Hand ${n} counts again.` : `Hand ${n} voided: it is not scored.`,
    );
  }

  winnerText() {
    const s = this.sheet;
    if (!s.over) {
      const lead = Math.max(...s.totals);
      const leaders = s.names.filter((_, i) => s.totals[i] === lead);
      const goal = {
        race: `first to ${s.options.target}`,
        single: "one hand",
        rounds: `first to win ${s.options.rounds_to_win} hands`,
        gap: `ends at a gap of ${s.options.gap_to_win}`,
      }[s.options.match];
      return s.scored.length
        ? `Leading: ${leaders.join(" and ")} with ${lead} (${goal}).`
        : `No hands yet (${goal}).`;
    }
    const names = s.winners.map((i) => s.names[i]);
    const score =
      s.options.match === "rounds"
        ? `${s.round_wins[s.winners[0]]} hands won`
        : `${s.totals[s.winners[0]]}`;
    return names.length > 1
      ? `Shared win: ${names.join(" and ")} with ${score}.`
      : `Winner: ${names[0]} with ${score}!`;
  }

  render() {
    const s = this.sheet;
    this.msg = h("p", { class: "msg", role: "alert" });
    const head = h(
      "tr",
      {},
      h("th", { text: "hand" }),
      s.names.map((n, i) =>
        h(
          "th",
          {},
          h("span", { class: "chip", style: `background:${seatColour(i)}` }),
          ` ${n}`,
          h("br"),
          h("small", {
            text: `middle · left${s.options.caller_bonus ? " (+ caller bonus)" : ""} → score (total)`,
          }),
        ),
      ),
      h("th", { text: "called" }),
      h("th", { text: "" }),
    );
    const rows = s.scored.map((row) =>
      h(
        "tr",
        { class: row.void ? "void" : "", "data-hand": row.hand },
        h("th", { text: String(row.hand) }),
        s.names.map((_, i) =>
          h(
            "td",
            { class: "cell", "data-seat": i },
            `${row.middle[i]} · ${row.nertz_left[i]}`,
            // The caller's bonus shows where it is added: "30 · 0 +10 → 40".
            row.scores && row.scores[i].bonus
              ? h(
                  "span",
                  { class: "bonus", title: "the caller's bonus" },
                  ` +${row.scores[i].bonus}`,
                )
              : null,
            row.scores
              ? h(
                  "span",
                  {},
                  " → ",
                  h("b", { text: String(row.scores[i].score) }),
                  ` (${row.totals[i]})`,
                )
              : " void",
          ),
        ),
        h("td", { text: row.caller === null ? "—" : s.names[row.caller] }),
        h(
          "td",
          {},
          h("button", {
            type: "button",
            onclick: () => {
              this.editing = row.hand;
              this.render();
            },
            text: "Edit",
          }),
          h("button", {
            type: "button",
            onclick: () => this.toggleVoid(row.hand),
            text: row.void ? "Unvoid" : "Void",
          }),
        ),
      ),
    );
    const totals = h(
      "tr",
      { class: "totals" },
      h("th", { text: "total" }),
      s.names.map((_, i) =>
        h(
          "td",
          { class: "total", "data-seat": i },
          h("b", { text: String(s.totals[i]) }),
          s.round_wins ? ` (${s.round_wins[i]} won)` : "",
        ),
      ),
      h("td", {}),
      h("td", {}),
    );
    const series = s.names.map((_, i) => [
      0,
      ...s.scored.filter((r) => r.scores).map((r) => r.totals[i]),
    ]);
    const link = `${location.origin}/sheet/${this.id}`;
    const setup = this.settingUp
      ? setupForm(
          this.options,
          s.names,
          s.options,
          "Save players and options",
          async (names, options) => {
            const body = { names, options, hands: s.hands };
            this.sheet = await api("PUT", `/api/sheets/${this.id}`, body);
            this.settingUp = false;
            this.render();
            this.say("Players and options saved.", "ok");
          },
        )
      : h("button", {
          type: "button",
          onclick: () => {
            this.settingUp = true;
            this.render();
          },
          text: "Change players or options",
        });
    const opts = s.options;
    this.app.replaceChildren(
      h(
        "div",
        { class: "page sheet" },
        h(
          "nav",
          { class: "crumbs" },
          h("a", { href: "/", text: "← Home" }),
          h("a", { href: "/sheet", text: "New sheet" }),
        ),
        h("h1", { text: "Score sheet" }),
        h("p", {
          class: "rules-line",
          text: `Each card in the middle +1, each Nertz card left −${opts.penalty}${opts.caller_bonus ? `, caller +${opts.caller_bonus}` : ""}; match: ${opts.match}${opts.match === "race" ? ` to ${opts.target}` : ""}; tie break: ${opts.tie_break}; Nertz pile ${opts.nertz_pile}${opts.jokers ? "; jokers: 54 cards a deck (R41)" : ""}.`,
        }),
        h("p", { class: "winners", text: this.winnerText() }),
        h(
          "div",
          { class: "scroll" },
          h(
            "table",
            { class: "hands" },
            h("thead", {}, head),
            h("tbody", {}, rows, s.over && !this.editing ? null : this.entryRow(), totals),
          ),
        ),
        s.over && !this.editing ? null : this.entryFoot(),
        this.msg,
        s.scored.length
          ? totalsChart(series, s.names, { target: opts.match === "race" ? opts.target : null })
          : null,
        h(
          "p",
          { class: "share" },
          "Share this sheet: ",
          h("a", { href: link, text: link }),
          " · ",
          h("a", {
            href: `/api/sheets/${this.id}/csv`,
            download: `nertz-${this.id}.csv`,
            text: "Download CSV",
          }),
        ),
        setup,
      ),
    );
    clearOnEdit(this.app.querySelector(".page.sheet"), this.msg);
  }
}
