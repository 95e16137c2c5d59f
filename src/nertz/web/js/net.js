// The WebSocket to the table (docs/protocol.md): hello with the seat token, resume with
// ``last_version`` and the table's ``epoch`` after a drop (a version only means something
// within the incarnation that sent it), reconnect by itself with a growing pause. Answers the
// table's clock-sync pings at once and stamps every play with the table's clock
// (docs/fairness.md): with ``fair_races`` a race goes to the card played first.
import { tableEnded } from "./table/lifetimes.js";

/** The protocol version this client speaks (server/protocol.py, PROTOCOL_VERSION). */
export const PROTOCOL = 7;

/** The messages stamped with ``at``, the table's clock when the gesture ended. */
const STAMPED = new Set(["play", "call", "stuck"]);

export class TableSocket {
  constructor({ code, token, key, onMessage, onStatus, lastVersion, epoch }) {
    this.code = code;
    this.token = token;
    this.key = key;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.lastVersion = lastVersion;
    this.epoch = epoch;
    this.ws = null;
    this.tries = 0;
    this.closed = false;
    this.queue = [];
    this.offset = null; // this page's clock minus the table's (ping ``o``), once measured
    this.node = null; // the cluster node the table runs on, once told (``route``)
    this.hops = 0; // moves to another node since the last message from a table
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const hint = this.node ? `?node=${encodeURIComponent(this.node)}` : "";
    const ws = new WebSocket(`${scheme}://${location.host}/ws${hint}`);
    this.ws = ws;
    ws.onopen = () => {
      this.tries = 0;
      const hello = {
        type: "hello",
        table: this.code,
        protocol: PROTOCOL,
        last_version: this.lastVersion(),
      };
      const epoch = this.epoch();
      if (epoch) hello.epoch = epoch;
      else hello.last_version = -1; // a version without its incarnation means nothing
      if (this.token) hello.token = this.token;
      if (this.key) hello.key = this.key;
      ws.send(JSON.stringify(hello));
      this.onStatus("open");
      for (const msg of this.queue.splice(0)) ws.send(JSON.stringify(msg));
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "route") {
        // A cluster: the table runs on another node. The load balancer takes us there.
        this.node = msg.node;
        return;
      }
      this.hops = 0;
      if (msg.type === "ping") {
        // Answered before anything else: the table measures the trip from it.
        ws.send(JSON.stringify({ type: "pong", t: msg.t, c: performance.now() }));
        if (msg.o !== null) this.offset = msg.o;
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      const ended = tableEnded(event.reason); // the table's end: nothing to come back to
      if (
        ended ||
        (event.code === 1008 && /replaced|bad token|private|protocol/.test(event.reason))
      ) {
        this.closed = true;
        this.onStatus("gone", event.reason);
        return;
      }
      if (event.reason === "moved") {
        // Routed, or the table moved to another node: go there without a word, at once
        // the first time, then (a node that died still holds it for a few seconds) after
        // a pause.
        setTimeout(() => this.open(), this.hops++ ? 300 : 0);
        return;
      }
      this.onStatus("lost");
      const pause = Math.min(5000, 250 * 2 ** this.tries++);
      setTimeout(() => this.open(), pause);
    };
    ws.onerror = () => {};
  }

  /** The table's clock now, as this page reads it (null until the table has measured it). */
  tableNow() {
    return this.offset === null ? null : Math.round(performance.now() - this.offset);
  }

  send(msg) {
    if (STAMPED.has(msg.type) && msg.at === undefined) {
      const at = this.tableNow();
      if (at !== null) msg = { ...msg, at };
    }
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else if (msg.type !== "play") this.queue.push(msg);
    else return false;
    return true;
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close(1000);
  }
}
