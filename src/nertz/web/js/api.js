// JSON over HTTP to the server (docs/protocol.md, server/web.py).

export class ApiError extends Error {
  constructor(code, reason, status) {
    super(reason);
    this.code = code;
    this.status = status;
  }
}

/** The window event each request sends with ``detail.reached``: whether the server
 * answered at all (offline.js: ``navigator.onLine`` alone misses a network that is
 * gone while the browser thinks it is up). */
export const NETWORK_EVENT = "nertz-network";

function reached(yes) {
  if (typeof window !== "undefined")
    window.dispatchEvent(new CustomEvent(NETWORK_EVENT, { detail: { reached: yes } }));
}

export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    reached(false);
    throw new ApiError("offline", "the server cannot be reached; check your connection", 0);
  }
  reached(true);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ApiError(
      data.error || "error",
      data.reason || `error ${response.status}`,
      response.status,
    );
  }
  return data;
}

/** A short message in the corner; ``kind`` is "info", "warn" or "error". */
export function toast(text, kind = "info", ms = 2600) {
  const box = document.getElementById("toasts");
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.textContent = text;
  box.append(el);
  setTimeout(() => el.remove(), ms);
  return el;
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
