// What this browser remembers, in localStorage: the one module that touches it. Each
// entry is JSON under ``nertz.<key>``, read and written here alone, so that what an
// entry holds and how it is pruned is said once. Where nothing can be remembered (a
// private window, storage full or refused) every read gives its fallback and every
// write is dropped: the page works, and forgets.

const PREFIX = "nertz.";

/** How many private tables' keys this browser remembers (the newest). */
export const KEYS_KEPT = 30;
/** How many score sheets this browser lists (the newest). */
export const SHEETS_KEPT = 20;

/** The storage, or null where there is none (or touching it throws). */
function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

function read(key, fallback = null) {
  try {
    const raw = storage()?.getItem(PREFIX + key) ?? null;
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    storage()?.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* private mode: nothing is remembered */
  }
}

/** ``entry`` (an object keyed by table code) with ``code`` set to ``value``, or removed
 * when ``value`` is undefined; written back. */
function setIn(key, code, value) {
  const all = read(key, {});
  if (value === undefined) {
    if (!(code in all)) return;
    delete all[code];
  } else all[code] = value;
  write(key, all);
}

// ---------------------------------------------------------------------- seats

/** The seat this browser holds at table ``code`` (``{token, seat, partner, key, at}``),
 * or null. */
export function seatFor(code) {
  return read("seats", {})[code] || null;
}

/** Remember the seat ``record`` at table ``code`` (taken, or its number changed). */
export function rememberSeat(code, record) {
  setIn("seats", code, record);
}

/** Forget the seat at table ``code``: given up, removed by the host, or refused. */
export function forgetSeat(code) {
  setIn("seats", code, undefined);
}

// ---------------------------------------------------------------------- table keys

/** The key of private table ``code`` from its link (``given``), remembered for the next
 * visit; else the one remembered (null if none): a person who came by the invite link
 * and comes back by the bare table URL finds the table again. */
export function tableKey(code, given) {
  const keys = read("keys", {});
  if (!given) return keys[code] || null;
  delete keys[code]; // the newest last
  keys[code] = given;
  write("keys", Object.fromEntries(Object.entries(keys).slice(-KEYS_KEPT)));
  return given;
}

// ---------------------------------------------------------------------- host tokens

/** The host token of a table this browser made and has not sat at yet, or null. */
export function hostTokenFor(code) {
  return read("hostTokens", {})[code] || null;
}

/** Keep the host token of a table this browser just made (the create answer's
 * ``host_token``) until it sits there. */
export function rememberHostToken(code, token) {
  setIn("hostTokens", code, token);
}

export function forgetHostToken(code) {
  setIn("hostTokens", code, undefined);
}

// ---------------------------------------------------------------------- the person

/** The name this browser last typed ("" if none). */
export function savedName() {
  return read("name", "");
}

export function saveName(name) {
  write("name", name);
}

/** This browser's secret (device.js checks its form), or null. */
export function deviceSecretKept() {
  return read("device");
}

export function keepDeviceSecret(secret) {
  write("device", secret);
}

// ---------------------------------------------------------------------- settings

/** The display settings: ``{fourColour, large}`` (each missing when never set). */
export function displaySettings() {
  return read("settings", {});
}

export function saveDisplaySettings(settings) {
  write("settings", settings);
}

/** The sound setting as saved: ``{on, volume}`` or ``{}`` (sound.js fills defaults). */
export function savedSound() {
  return read("sound", {});
}

export function saveSound(setting) {
  write("sound", setting);
}

/** Whether the chat was open during play and between hands: ``{play, rest}``, each
 * missing when never set. */
export function chatOpenSaved() {
  return read("chatOpen", {});
}

export function saveChatOpen(open) {
  write("chatOpen", open);
}

/** The muted list at table ``code`` as kept (chat.js reads its entries), or undefined. */
export function mutedAt(code) {
  return read("mutes", {})[code];
}

export function saveMutedAt(code, list) {
  setIn("mutes", code, list);
}

// ---------------------------------------------------------------------- score sheets

/** The score sheets this browser started, newest first: ``[{id, names, at}]``. */
export function mySheets() {
  return read("sheets", []);
}

/** Put sheet ``sheet`` first in the list (once), keeping the newest ``SHEETS_KEPT``. */
export function rememberSheet(sheet) {
  write("sheets", [sheet, ...mySheets().filter((s) => s.id !== sheet.id)].slice(0, SHEETS_KEPT));
}
