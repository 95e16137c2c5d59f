// The table's sounds, synthesised with Web Audio (no sound files): a few oscillator
// notes and a noise burst each. Browsers refuse audio before the page's first gesture
// (a click, a tap or a key), and a page that tried anyway would be refused or warned:
// nothing is made, nor even an AudioContext, until then. The setting (on or off, and a
// volume) is this browser's, remembered in localStorage.
import { savedSound, saveSound } from "./storage.js";

/** Each sound: notes as [frequency Hz, start s, length s, wave], or "noise" for a
 * short brushed burst (cards sliding). */
const SOUNDS = {
  deal: { noise: [0, 0.07, 0.14, 0.21], gain: 0.5 },
  mine: {
    notes: [
      [880, 0, 0.08, "triangle"],
      [1320, 0.05, 0.1, "triangle"],
    ],
    gain: 0.5,
  },
  theirs: { notes: [[520, 0, 0.06, "sine"]], gain: 0.3 },
  beaten: {
    notes: [
      [196, 0, 0.16, "sawtooth"],
      [147, 0.1, 0.22, "sawtooth"],
    ],
    gain: 0.22,
  },
  count: { notes: [[660, 0, 0.09, "sine"]], gain: 0.4 },
  go: { notes: [[990, 0, 0.18, "sine"]], gain: 0.5 },
  call: {
    notes: [
      [523, 0, 0.12, "square"],
      [659, 0.1, 0.12, "square"],
      [784, 0.2, 0.12, "square"],
      [1047, 0.3, 0.3, "square"],
    ],
    gain: 0.18,
  },
  end: {
    notes: [
      [392, 0, 0.5, "triangle"],
      [494, 0, 0.5, "triangle"],
      [587, 0, 0.5, "triangle"],
    ],
    gain: 0.3,
  },
};

/** What tests can read: how many sounds were sent to the audio output, by name. */
const played = { count: 0, names: [] };
window.__nertzSounds = played;

let gestured = false;
let ctx = null;

// The events that let a page start audio (a touch counts once the finger lifts).
for (const kind of ["pointerup", "keydown", "touchend"]) {
  window.addEventListener(
    kind,
    () => {
      gestured = true;
    },
    { capture: true, once: true },
  );
}

/** The sound setting: ``{on, volume}`` (volume 0 to 1). */
export function soundSetting() {
  const saved = savedSound();
  return { on: saved.on !== false, volume: typeof saved.volume === "number" ? saved.volume : 0.6 };
}

export function setSound(setting) {
  saveSound({
    on: !!setting.on,
    volume: Math.min(1, Math.max(0, Number(setting.volume))),
  });
}

/** Play the sound ``name`` (a key of SOUNDS), unless sound is off or the page has had
 * no gesture yet. */
export function play(name) {
  const sound = SOUNDS[name];
  const { on, volume } = soundSetting();
  if (!sound || !gestured || !on || volume <= 0) return;
  if (!ctx) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    ctx = new Context();
  }
  if (ctx.state === "suspended") ctx.resume();
  const out = ctx.createGain();
  out.gain.value = sound.gain * volume;
  out.connect(ctx.destination);
  const t0 = ctx.currentTime + 0.01;
  for (const [freq, at, len, wave] of sound.notes || []) note(out, t0 + at, freq, len, wave);
  for (const at of sound.noise || []) brush(out, t0 + at);
  played.count += 1;
  played.names.push(name);
}

function note(out, at, freq, len, wave) {
  const osc = ctx.createOscillator();
  const env = ctx.createGain();
  osc.type = wave;
  osc.frequency.value = freq;
  // A quick rise and an exponential fall: a pluck, not a click.
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(1, at + 0.01);
  env.gain.exponentialRampToValueAtTime(0.0001, at + len);
  osc.connect(env).connect(out);
  osc.start(at);
  osc.stop(at + len + 0.02);
}

function brush(out, at) {
  const len = 0.06;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * len), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
  const src = ctx.createBufferSource();
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 2500;
  src.buffer = buffer;
  src.connect(filter).connect(out);
  src.start(at);
}
