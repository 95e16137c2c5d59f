// Taking a seat at a table (``POST /api/tables/{code}/join``): from the home page's
// "Create table", and from a table's join page. The seat taken is remembered in this
// browser (storage.js) for the table page to play it.
import { api } from "./api.js";
import { deviceHeaders } from "./device.js";
import { forgetHostToken, hostTokenFor, rememberSeat } from "./storage.js";

/** Take a seat at ``code`` with the remembered name (as its creator, if this browser
 * made the table and holds its host token); returns the seat record. */
export async function joinTable(code, name, key = null, seat = null, partner = null) {
  const body = { name };
  if (key) body.key = key;
  if (seat !== null) body.seat = seat;
  if (partner !== null) body.partner = partner;
  const hostToken = hostTokenFor(code);
  if (hostToken) body.host_token = hostToken;
  const path = `/api/tables/${encodeURIComponent(code)}/join`;
  let joined;
  try {
    joined = await api("POST", path, body, deviceHeaders());
  } catch (error) {
    // A token the table no longer knows (a restart) or that has sat: join as anyone.
    if (!hostToken || !["bad_host_token", "creator_seated"].includes(error.code)) throw error;
    forgetHostToken(code);
    delete body.host_token;
    joined = await api("POST", path, body, deviceHeaders());
  }
  forgetHostToken(code); // it has served: the creator sits
  const record = {
    token: joined.token,
    seat: joined.seat,
    partner: joined.partner ?? null,
    key,
    at: Date.now(),
  };
  rememberSeat(joined.code, record);
  return { code: joined.code, ...record };
}

/** Open the table a server's answer seated us at (practice, the guided hand, the daily
 * deal, quick match: ``code``, ``seat``, ``token``, ``key``, ``partner``), the seat
 * remembered as a join remembers it. */
export function openSeated(made) {
  rememberSeat(made.code, {
    token: made.token,
    seat: made.seat,
    partner: made.partner ?? null,
    key: made.key,
    at: Date.now(),
  });
  location.href = made.key
    ? `/t/${made.code}?key=${encodeURIComponent(made.key)}`
    : `/t/${made.code}`;
}
