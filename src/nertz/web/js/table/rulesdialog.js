// The Rules dialog at the table: the table's rules (between matches the next match's,
// the host's change). At a practice table reading them pauses the hand being played
// and closing them carries on, unless the player had paused it themselves
// (table/practice.js); at a table with other people the hand is a race and runs on,
// and the dialog says so.
import { h } from "../api.js";
import { dialogHead } from "../dialog.js";
import { rulesContent } from "../rules.js";

export function showRules(tv) {
  const t = tv.table;
  const dialog = tv.dialog;
  tv.opensDialog("rules");
  const rules = (t && t.rules) || (tv.base && tv.base.rules);
  const paused = tv.practice.pauseWhile(dialog);
  const racing = !paused && t && !t.practice && ["countdown", "playing"].includes(t.stage);
  const note = paused
    ? "The hand is paused while you read; it carries on when you close the rules."
    : racing
      ? "The hand goes on while you read: the others are still playing."
      : null;
  dialog.replaceChildren(
    dialogHead("Rules"),
    note ? h("p", { class: "rules-note", text: note }) : "",
    rulesContent(rules, `table ${tv.code}`),
  );
  if (!dialog.open) dialog.showModal();
}
