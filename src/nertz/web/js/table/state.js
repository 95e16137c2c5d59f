// The table as this page knows it: a pure reducer of what the server sends
// (docs/protocol.md, "Server → client") into one state. No DOM, no clock of its own (the
// caller passes ``now``, on ``performance.now()``'s scale): ``tests/web/state.test.mjs``
// replays recorded matches through ``receive`` and compares the result with the
// server's own ``state`` at the same version.
//
// The state holds ``table`` (as ``GET /api/tables/{code}``: seats, stage, totals ...),
// ``model`` (the engine's view, docs/engine.md "What a seat sees", kept current by the
// events), ``me`` and ``partner`` (this page's seat and place, R40), ``v`` (the last
// version applied), ``epoch`` (the incarnation ``v`` counts in), ``clock`` (this page's
// clock less the table's: a table time ``at`` is ``at + clock`` here), ``handEnd`` and
// ``matchEnd`` (the last such events).
//
// In the model face-down cards are counts only; the waste is remembered card by card
// from the turns this page saw (a view shows only the last turn's fan), and a card never
// seen is ``null`` (then the page asks for a resync). Jokers (R41): a foundation whose
// top is a joker carries ``top_as`` (the card it stands for); ``announcements`` lists the
// jokers announced for the middle whose window is open, each with ``deadline`` (on
// ``now``'s scale) for its countdown.
import { cardText, parse } from "../cards.js";

/** The sources of a move as people call them (move notation: ``N``, ``W``, ``1``-``4``). */
export const SRC_NAMES = { N: "Nertz pile", W: "waste" };

export function srcName(src) {
  return SRC_NAMES[src] || `work pile ${src}`;
}

// ---------------------------------------------------------------------- the state

export function emptyState() {
  return {
    v: 0,
    epoch: null,
    table: null,
    model: null,
    me: null,
    partner: null,
    handEnd: null,
    matchEnd: null,
    hostStartAt: null,
    clock: 0,
    resyncing: false,
  };
}

/** Apply one message from the server to ``st``. Returns the events applied (in order)
 * and whether the page must ask for a full ``state`` (``resync``): a gap in the
 * versions, a waste card never seen, or a table rebuilt (``resumed``). Messages that do
 * not change the table (``refused``, ``error``) are left to the page. */
export function receive(st, msg, now) {
  const out = { events: [], resync: false };
  switch (msg.type) {
    case "state":
      Object.assign(st, {
        resyncing: false,
        v: msg.v,
        epoch: msg.epoch ?? null, // the incarnation ``v`` counts in (a resume names it)
        table: msg.table,
        me: msg.seat ?? null, // a spectator's state leaves ``seat`` out
        clock: now - (msg.now_ms ?? 0), // table times (``*_ms``) on this page's clock
        partner: msg.partner ?? null, // which of a partnership seat's two (R40)
        // An open announcement's window, counted on this page's clock (R41).
        model: fromView(msg.view, now, (until) => until - (msg.now_ms ?? until)),
        // Once a match is over: when (this page's clock) the host may start the next.
        hostStartAt:
          msg.host_start_ms == null
            ? null
            : now + msg.host_start_ms - (msg.now_ms ?? msg.host_start_ms),
      });
      break;
    case "event":
      step(st, msg, now, out);
      break;
    case "ack":
      for (const ev of msg.events) step(st, ev, now, out);
      break;
    case "hold": {
      // R40: a partner picked a card up or put it down (not versioned).
      const s = st.table && st.table.seats[msg.seat];
      if (s && s.holding) s.holding[msg.partner] = msg.src;
      break;
    }
    default:
      break;
  }
  return out;
}

/** One versioned event: applied when it is the next one, ignored when already seen. */
function step(st, msg, now, out) {
  if (!st.table || st.resyncing || msg.v <= st.v) return;
  if (msg.v > st.v + 1) {
    st.resyncing = out.resync = true;
    return;
  }
  st.v = msg.v;
  out.events.push(msg.e);
  if (applyEvent(st, msg.e, now)) st.resyncing = out.resync = true;
}

/** One table event (docs/protocol.md, "Events"); true when the page must resync. */
function applyEvent(st, e, now) {
  const t = st.table;
  const m = st.model;
  if (e.k === "seat" || e.k === "connected") setAway(t.seats[e.seat], e.partner, e);
  switch (e.k) {
    case "seat":
      setPlace(t.seats[e.seat], e.partner, { name: e.name, bot: e.bot });
      setPerson(t.seats[e.seat], e.partner, e.person);
      setStandIn(t.seats[e.seat], e.partner, null); // a place changing hands has none
      setInvited(t.seats[e.seat], e.partner, null); // taken: kept for a bot no more
      break;
    case "connected":
      if (e.connected) setPlace(t.seats[e.seat], e.partner, { connected: true });
      else {
        // Who leaves is no longer ready, and puts down what they held (R40), as the
        // server forgets both (a page that was away missed that ``hold``).
        setPlace(t.seats[e.seat], e.partner, { connected: false, ready: false });
        if (t.seats[e.seat].holding) t.seats[e.seat].holding[e.partner] = null;
      }
      break;
    case "takeover":
      setPlace(t.seats[e.seat], e.partner, { takeover: e.bot });
      setStandIn(t.seats[e.seat], e.partner, e.bot ? e.stand_in : null);
      break;
    case "ready":
      setPlace(t.seats[e.seat], e.partner, { ready: true });
      break;
    case "dealt":
      t.hand = e.hand;
      t.ready_by_ms = null; // the ready countdown (``ready_by``) is over
      delete t.next_at_ms; // and so is the wait between hands
      t.stage = "countdown";
      st.model = fromView(e.table, now);
      st.handEnd = null;
      for (const s of t.seats) {
        if (s.partners) {
          for (const p of s.partners) p.ready = serverBot(p);
          Object.assign(s, seatFromPlaces(s.partners));
          s.holding = [null, null];
        } else s.ready = serverBot(s);
      }
      break;
    case "go":
      t.stage = "playing";
      if (m) m.phase = "playing";
      break;
    case "moved":
      if (!m) break;
      applyMoved(m, e.seat, e.move, e.cards, e.foundation, e.tie, e.revealed);
      return wasteTop(m.seats[e.seat]) === null && m.seats[e.seat].waste_count > 0;
    case "turned":
      if (m) applyTurned(m, e.seat, e.cards);
      break;
    case "announced":
      // R41: sent as it happens, so its window starts now on this page's clock.
      if (m) applyAnnounced(m, e, now + (m.rules.joker_announce_ms || 0));
      break;
    case "joker_stayed":
      if (m) endAnnouncement(m, e.seat, e.move);
      break;
    case "called":
      if (m) Object.assign(m, { caller: e.seat, phase: "landing" });
      break;
    case "stuck":
      if (m) m.seats[e.seat].stuck = true;
      break;
    case "rotated":
      if (m) {
        applyRotated(m);
        m.rotations = e.number;
      }
      for (const s of t.seats) if (s.holding) s.holding = [null, null]; // R25: hands empty
      break;
    case "ended":
      if (m) Object.assign(m, { phase: "over", end: e.reason });
      break;
    case "hand_end":
      t.stage = "between";
      t.totals = e.totals;
      st.handEnd = e;
      if (e.rotation) {
        // Duplicate (R42-R44): the settled totals, and the next play of the rotation.
        const [k, n] = e.rotation;
        t.duplicate = { totals: e.duplicate_totals, rotation: [(k % n) + 1, n] };
      }
      if (e.next_at_ms != null) t.next_at_ms = e.next_at_ms; // the next deal at the latest
      // The server's per-hand totals (docs/protocol.md, ``history``), this hand added.
      // Hands are numbered across a series; ``history`` holds the current match's. A
      // hand before the match's first is a lesson's (server/practice.py): not in it.
      if (e.hand >= ((t.series && t.series.first_hand) || 1)) {
        t.history = [
          ...(t.history || []).slice(0, e.hand - ((t.series && t.series.first_hand) || 1)),
          e.totals,
        ];
      }
      break;
    case "match_end":
      t.stage = "over";
      t.winners = e.winners;
      t.totals = e.totals;
      st.matchEnd = e;
      st.hostStartAt = now + (e.host_wait_ms || 0);
      if (t.series) {
        for (const w of e.winners) t.series.wins[w] += 1;
        // Who played each seat of each finished match, whoever sits there later.
        if (e.names && e.names.length) {
          t.series.names = [...(t.series.names || []), e.names];
          t.series.winners = [...(t.series.winners || []), e.winners];
        }
      }
      break;
    case "host":
      t.host = e.seat === null ? null : { seat: e.seat, partner: e.partner ?? null };
      break;
    case "invited": // the host keeps this free place for an outside bot, or no longer
      setInvited(t.seats[e.seat], e.partner, e.name);
      break;
    case "options":
      t.rules = e.rules; // the host's change, from the next deal on
      if (t.stage === "seating") freshDuplicate(t); // before the first deal: this match's
      break;
    case "next_match":
      // The series' next match (the ``dealt`` follows): totals from zero (R32).
      t.series = {
        match: e.match,
        wins: e.wins,
        first_hand: t.hand + 1,
        ...(t.series && t.series.names ? { names: t.series.names, winners: t.series.winners } : {}),
      };
      t.totals = t.totals.map(() => 0);
      t.history = [];
      t.winners = [];
      freshDuplicate(t);
      st.matchEnd = null;
      st.hostStartAt = null;
      break;
    case "ready_by": // every place taken, everyone here: the first deal comes at ``at_ms``
      t.ready_by_ms = e.at_ms;
      break;
    case "closed": // the table ended without a result
      t.stage = "over";
      t.closed = e.reason;
      t.ready_by_ms = null;
      delete t.next_at_ms;
      break;
    case "resumed":
      return true;
    case "paused": // a practice table (server/practice.py)
      if (t.practice) t.practice.paused = e.paused;
      break;
    case "pace":
      if (t.practice) t.practice.pace = e.pace;
      break;
    case "lesson":
      if (t.practice) t.practice.step = e.step;
      break;
    default:
      break;
  }
  return false;
}

/** A match about to begin, as the server shows it (``duplicate``, R42-R44): nothing
 * settled, the rotation's first play; no ``duplicate`` at a table without the option. */
function freshDuplicate(t) {
  if (t.rules && t.rules.duplicate) {
    t.duplicate = { totals: t.seats.map(() => 0), rotation: [1, t.seats.length] };
  } else delete t.duplicate;
}

// ---------------------------------------------------------------------- seats (R40)

/** A place at ``seat`` changed: the seat itself, or at a partnership seat one partner,
 * whose seat's own fields then follow. */
function setPlace(seat, partner, fields) {
  if (partner === undefined || !seat.partners) {
    Object.assign(seat, fields);
    return;
  }
  Object.assign(seat.partners[partner], fields);
  Object.assign(seat, seatFromPlaces(seat.partners));
}

/** Who sits in a place (``person``, the same under any name: what chat.js mutes), as
 * the ``seat`` event says; gone when absent (no device, or the place was freed). */
function setPerson(seat, partner, person) {
  const place = partner === undefined || !seat.partners ? seat : seat.partners[partner];
  if (person) place.person = person;
  else delete place.person;
}

/** The bot the host put in for the person away at a place (``stand_in``; the place
 * stays theirs), or none (null). */
function setStandIn(seat, partner, spec) {
  const place = partner === undefined || !seat.partners ? seat : seat.partners[partner];
  if (spec == null) {
    delete place.stand_in;
    return;
  }
  place.stand_in = spec;
  delete place.kept_until_ms; // kept for them while the bot plays: no release to count to
  delete place.bot_from_ms;
}

/** Whether the server's own bot holds a place (always ready); an outside bot
 * (docs/bots.md) says ready itself, as a person does. */
export function serverBot(p) {
  return !!p.bot && p.bot !== "outside";
}

/** The outside bot (docs/bots.md) the host keeps a free place for (``invited``), or
 * none (null). */
function setInvited(seat, partner, name) {
  const place = partner === undefined || !seat.partners ? seat : seat.partners[partner];
  if (name) place.invited = name;
  else delete place.invited;
}

/** A person away holds the place until ``kept_until_ms``, a bot playing it from
 * ``bot_from_ms`` (as the event says; gone when absent): at a partnership, their place. */
function setAway(seat, partner, e) {
  const place = partner === undefined || !seat.partners ? seat : seat.partners[partner];
  for (const key of ["kept_until_ms", "bot_from_ms"]) {
    if (e[key] == null) delete place[key];
    else place[key] = e[key];
  }
}

/** A partnership seat as everyone sees it, from its two places (R40): the names joined
 * ("Ann & Bob"), a bot only when both are bots ("expert+skilled"), connected when every
 * place taken is, ready when both are, taken over when either is. */
export function seatFromPlaces(places) {
  const names = places.map((p) => p.name).filter(Boolean);
  const taken = places.filter((p) => p.name || p.bot);
  return {
    name: names.length ? names.join(" & ") : null,
    bot: places.every((p) => p.bot) ? places.map((p) => p.bot).join("+") : null,
    connected: taken.length > 0 && taken.every((p) => p.connected || serverBot(p)),
    ready: places.every((p) => p.ready || serverBot(p)),
    takeover: places.some((p) => p.takeover),
  };
}

/** A seat's name as this page says it: "You" (at a partnership, "You & Bob"), a bot, a
 * person, or the seat's number. */
export function nameOf(st, seat) {
  if (!st.table) return `seat ${seat + 1}`;
  const s = st.table.seats[seat];
  if (seat === st.me && s.partners && st.partner !== null) {
    const mate = s.partners[1 - st.partner];
    return `You & ${mate.name || "a free place"}`;
  }
  if (seat === st.me) return "You";
  if (s.bot) return s.name || `Bot ${seat + 1}`; // the server names bots like people
  return s.name || `seat ${seat + 1}`;
}

/** Who played ``seat`` in the match just over, as the server keeps it (a person a bot
 * stood in for, not the bot), whoever sits there now: ``nameOf`` while that is who sits
 * there still ("You") or before the match is over, else the name kept. */
export function playedName(st, seat) {
  const t = st.table;
  const s = t && t.series;
  const over = t && t.stage === "over" && s && s.names && s.names.length === s.match;
  const played = over ? s.names[s.match - 1][seat] : null;
  if (played == null || played === t.seats[seat].name) return nameOf(st, seat);
  return played;
}

/** My seat's people: "You", or at a partnership "Ann (you) & Bob". */
export function myNames(st) {
  const s = st.table.seats[st.me];
  if (!s.partners || st.partner === null) return "You";
  return s.partners
    .map(
      (p, i) => `${p.name || (p.bot ? "a bot" : "free place")}${i === st.partner ? " (you)" : ""}`,
    )
    .join(" & ");
}

/** Why this page cannot send a play now, as the server would refuse it: ``{code,
 * reason}`` (a spectator; before the deal; the hand is over, R28), or null when it can.
 * In the countdown a play goes out, and the server answers "wait for Go" (R8). */
export function notPlayable(st) {
  const t = st.table;
  const m = st.model;
  if (st.me === null)
    return { code: "not_seated", reason: "Spectators watch: take a seat to play." };
  if (!t || !m || t.stage === "seating")
    return { code: "not_started", reason: "The hand has not been dealt yet: wait for Go (R8)." };
  if (!["countdown", "playing"].includes(t.stage) || m.phase === "over")
    return { code: "hand_over", reason: "The hand is over (R28)." };
  return null;
}

/** My own place: the seat, or my half of a partnership seat. */
export function myPlace(st) {
  const s = st.table.seats[st.me];
  return s.partners && st.partner !== null ? s.partners[st.partner] : s;
}

/** This page said ``ready`` (or ``again`` once a match is over): its place shows ready
 * at once; the server's ``ready`` event confirms it. */
export function saidReady(st) {
  myPlace(st).ready = true;
}

/** Who holds a card of seat ``n`` at ``src``, other than me: a name, or null (R40). */
export function heldBy(st, n, src) {
  const s = st.table.seats[n];
  if (!s || !s.holding) return null;
  for (let p = 0; p < s.holding.length; p++) {
    if (s.holding[p] !== src || (n === st.me && p === st.partner)) continue;
    const who = s.partners[p];
    // A bot standing in for an absent partner holds as itself, not in their name.
    if (who.takeover && who.name) return `the bot for ${who.name}`;
    return who.name || (who.bot ? "the bot" : "your partner");
  }
  return null;
}

// ---------------------------------------------------------------------- the cards

/** A seat of a view, with the waste remembered as ``wasteAll`` and ``fan``. */
function seatFromView(s) {
  const fan = s.waste.length;
  const wasteAll = Array(Math.max(0, s.waste_count - fan))
    .fill(null)
    .concat(s.waste);
  return { ...s, work: s.work.map((p) => [...p]), wasteAll, fan, nertzKnown: true };
}

/** The model of a view; ``leftMs`` turns an announcement's ``until_ms`` into the ms
 * left of its window (the server's state says its clock, ``now_ms``). */
export function fromView(view, now, leftMs = () => 0) {
  if (!view) return null;
  return {
    phase: view.phase,
    rules: view.rules,
    seats: view.seats.map(seatFromView),
    foundations: view.foundations.map((f) => ({ ...f, owners: [...f.owners] })),
    announcements: (view.announcements || []).map((a) => ({
      ...a,
      deadline: now + leftMs(a.until_ms),
    })),
    caller: view.caller,
    rotations: view.rotations,
    end: view.end,
  };
}

/** The model shown: the server's, plus my moves not answered yet (optimistic). */
export function shown(model, me, pending) {
  if (!model || !pending.length) return model;
  const out = structuredClone(model);
  for (const p of pending) if (p.move !== "T") predict(out, me, p.move);
  return out;
}

export function wasteTop(seat) {
  return seat.wasteAll.length ? seat.wasteAll[seat.wasteAll.length - 1] : null;
}

/** The cards of the waste shown fanned: the last turn's cards still on it. */
export function wasteFan(seat) {
  return seat.wasteAll.slice(seat.wasteAll.length - seat.fan);
}

const MOVE = /^([NW1-4])(?:\/(\d+))?([><])(F(\d*)|[1-4])(?:=(\w+))?$/;

/** ``"3/2>1"`` -> {src: "3", count: 2, kind: ">", dst: "1"}; ``"N>F"`` -> dst "F";
 * ``"N>F3=7H"`` (a joker announced as the 7H for F3, R41) -> dst "F", announced "7H". */
export function parseMove(text) {
  const m = MOVE.exec(text);
  if (!m) return null;
  const toF = m[4].startsWith("F");
  return {
    src: m[1],
    count: m[2] ? Number(m[2]) : 1,
    kind: m[3],
    dst: toF ? "F" : m[4],
    foundation: toF && m[5] ? Number(m[5]) : null,
    announced: m[6] || null,
  };
}

/** The card a foundation's top stands for: its top, or what the joker there was
 * announced as (R41). */
export function topOf(f) {
  return parse(f.top_as || f.top);
}

/** R41: the cards a joker could be announced as right now, as the engine lists them
 * (``legal``'s ``=`` moves): for each foundation not finished the card it takes next,
 * then the four aces for a new foundation. ``[{card: "7H", foundation: 3 | null}]``. */
export function announceable(model) {
  const out = [];
  for (const f of model.foundations) {
    const top = topOf(f);
    if (!f.finished && top.rank < 13)
      out.push({ card: cardText(top.rank + 1, f.suit), foundation: f.number });
  }
  for (const suit of ["C", "D", "H", "S"]) out.push({ card: cardText(1, suit), foundation: null });
  return out;
}

/** R41: a joker was announced (``announced`` event): its window is open. */
function applyAnnounced(model, e, deadline) {
  model.announcements.push({
    seat: e.seat,
    move: e.move,
    joker: e.joker,
    as: e.as,
    foundation: e.foundation,
    until_ms: e.until_ms,
    deadline,
  });
}

/** R41: an announcement ended (the joker landed or stayed home). */
function endAnnouncement(model, seat, move) {
  model.announcements = model.announcements.filter((a) => !(a.seat === seat && a.move === move));
}

/** The cards a move takes from ``seat`` (bottom to top), or null if it has none. */
export function sourceCards(seat, src, count = 1) {
  if (src === "N") return seat.nertz_top ? [seat.nertz_top] : null;
  if (src === "W") {
    const top = wasteTop(seat);
    return top ? [top] : null;
  }
  const pile = seat.work[Number(src) - 1];
  if (pile.length < count) return null;
  return pile.slice(pile.length - count);
}

function removeSource(seat, src, count, revealed) {
  if (src === "N") {
    seat.nertz_count -= 1;
    seat.nertz_top = revealed === undefined ? null : revealed;
    seat.nertzKnown = revealed !== undefined || seat.nertz_count === 0;
    if (seat.nertz_count === 0) seat.nertz_top = null;
  } else if (src === "W") {
    seat.wasteAll.pop();
    seat.waste_count -= 1;
    seat.fan -= 1;
    if (seat.fan <= 0) seat.fan = seat.wasteAll.length ? 1 : 0;
  } else {
    seat.work[Number(src) - 1].splice(-count, count);
  }
}

/** A card to foundation ``number`` (1-based; a new one for an ace); a joker lands as
 * the card it was announced as (``as``, R41). */
function toFoundation(model, number, card, owner, tie, as = null) {
  let f = model.foundations.find((x) => x.number === number);
  const c = parse(as || card);
  if (!f) {
    f = { number, suit: c.suit, top: card, count: 0, owners: [], finished: false };
    model.foundations.push(f);
    model.foundations.sort((a, b) => a.number - b.number);
  }
  f.top = card;
  f.top_as = as;
  f.count += 1;
  f.owners.push(owner);
  f.tie = !!tie;
  if (c.rank === 13) f.finished = true;
}

/** Apply one ``moved`` event (or a prediction of one, ``revealed`` undefined). */
function applyMoved(model, seatNo, moveText, cards, foundation, tie, revealed) {
  const seat = model.seats[seatNo];
  const move = parseMove(moveText);
  if (!move) return false;
  removeSource(seat, move.src, cards.length, revealed);
  seat.stuck = false;
  if (move.dst === "F") {
    toFoundation(model, foundation, cards[0], seatNo, tie, move.announced);
    if (move.announced) endAnnouncement(model, seatNo, moveText); // the joker landed
    seat.middle += 1;
  } else if (move.kind === "<") {
    seat.work[Number(move.dst) - 1].unshift(cards[0]);
  } else {
    seat.work[Number(move.dst) - 1].push(...cards);
  }
  return true;
}

function applyTurned(model, seatNo, cards) {
  const seat = model.seats[seatNo];
  if (cards.length) {
    seat.stock_count -= cards.length;
    seat.waste_count += cards.length;
    seat.wasteAll.push(...cards);
    seat.fan = cards.length;
  } else {
    seat.stock_count += seat.waste_count;
    seat.waste_count = 0;
    seat.wasteAll = [];
    seat.fan = 0;
  }
}

function applyRotated(model) {
  for (const seat of model.seats) {
    seat.stock_count += seat.waste_count;
    seat.waste_count = 0;
    seat.wasteAll = [];
    seat.fan = 0;
    seat.stuck = false;
  }
}

/** The foundation that takes ``card`` now: the oldest that fits (as the engine picks),
 * a new one for an ace (``number`` the next), or null. */
function foundationFor(model, card) {
  const c = parse(card);
  if (c.rank === 1) return { number: model.foundations.length + 1, isNew: true };
  const f = model.foundations.find(
    (x) => !x.finished && x.suit === c.suit && topOf(x).rank === c.rank - 1,
  );
  return f ? { number: f.number, isNew: false } : null;
}

/** Predict my own move on ``model`` (an optimistic move): false if it cannot be done. */
function predict(model, seatNo, moveText) {
  const seat = model.seats[seatNo];
  if (!seat) return false;
  const move = parseMove(moveText);
  if (!move || move.announced) return false; // an announced joker stays put for its window
  const cards = sourceCards(seat, move.src, move.count);
  if (!cards || cards.includes(null)) return false;
  let number = null;
  if (move.dst === "F") {
    const target = move.foundation ? { number: move.foundation } : foundationFor(model, cards[0]);
    if (!target) return false;
    number = target.number;
  }
  return applyMoved(model, seatNo, moveText, cards, number, false, undefined);
}
