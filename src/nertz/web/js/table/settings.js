// The table's ⚙ menu: the display (a four-colour deck, large cards) and the sound (on
// or off, and its volume), each remembered in this browser; and the way to the guided
// first hand (/learn). It closes by Esc and by a click outside it, as the dialogs do.
import { h } from "../api.js";
import { play, setSound, soundSetting } from "../sound.js";
import { displaySettings, saveDisplaySettings } from "../storage.js";

/** The ⚙ menu; ``changed`` redraws the table after a display change. */
export function settingsMenu(changed) {
  const settings = displaySettings();
  const four = h("input", { type: "checkbox", checked: !!settings.fourColour });
  const large = h("input", { type: "checkbox", checked: !!settings.large });
  const saveDisplay = () => {
    saveDisplaySettings({ fourColour: four.checked, large: large.checked });
    document.body.classList.toggle("four-colour", four.checked);
    document.body.classList.toggle("large", large.checked);
    changed();
  };
  four.addEventListener("change", saveDisplay);
  large.addEventListener("change", saveDisplay);

  const sound = soundSetting();
  const on = h("input", { type: "checkbox", class: "sound-on", checked: sound.on });
  const volume = h("input", {
    type: "range",
    class: "sound-volume",
    min: 0,
    max: 100,
    step: 5,
    value: Math.round(sound.volume * 100),
    "aria-label": "sound volume",
  });
  const saveSound = () => {
    setSound({ on: on.checked, volume: Number(volume.value) / 100 });
    volume.disabled = !on.checked;
    play("mine"); // what it sounds like now
  };
  volume.disabled = !on.checked;
  on.addEventListener("change", saveSound);
  volume.addEventListener("change", saveSound);

  const box = h(
    "details",
    { class: "settings" },
    h("summary", { text: "⚙", "aria-label": "settings", title: "Settings: display and sound" }),
    h(
      "div",
      { class: "settings-panel" },
      h("label", {}, four, " four-colour deck"),
      h("label", {}, large, " large cards"),
      h("label", {}, on, " sound"),
      h("label", { class: "volume" }, "volume ", volume),
      h("a", { href: "/me", class: "my-games", text: "My games" }),
      h("a", { href: "/learn", class: "learn-link", text: "Learn to play: a guided hand" }),
    ),
  );
  document.addEventListener("pointerdown", (e) => {
    if (box.open && !box.contains(e.target)) box.open = false;
  });
  box.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && box.open) {
      box.open = false;
      box.querySelector("summary").focus();
    }
  });
  return box;
}
