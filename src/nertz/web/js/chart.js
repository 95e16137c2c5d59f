// Running totals across hands as an SVG line chart, drawn here from the hand scores.
import { seatColour } from "./cards.js";

const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** ``series``: per seat the totals after each hand (hand 0 = 0); ``names`` per seat. */
export function totalsChart(series, names, { width = 520, height = 180, target = null } = {}) {
  const hands = Math.max(1, ...series.map((s) => s.length - 1));
  const values = series.flat().concat([0]);
  if (target) values.push(target);
  const lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi === lo) hi = lo + 10;
  const pad = { l: 38, r: 150, t: 12, b: 26 };
  const x = (i) => pad.l + (i / hands) * (width - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * (height - pad.t - pad.b);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  const title = el("title", {});
  title.textContent = `Running totals: ${names.map((n, i) => `${n} ${series[i][series[i].length - 1]}`).join(", ")}`;
  svg.append(title);
  svg.append(el("line", { x1: pad.l, x2: width - pad.r, y1: y(0), y2: y(0), class: "axis" }));
  svg.append(el("line", { x1: pad.l, x2: pad.l, y1: pad.t, y2: height - pad.b, class: "axis" }));
  if (target && target <= hi) {
    svg.append(
      el("line", { x1: pad.l, x2: width - pad.r, y1: y(target), y2: y(target), class: "target" }),
    );
    const t = el("text", { x: pad.l + 4, y: y(target) - 3, class: "label" });
    t.textContent = `target ${target}`;
    svg.append(t);
  }
  for (const v of [lo, hi]) {
    const t = el("text", { x: pad.l - 4, y: y(v) + 4, class: "label", "text-anchor": "end" });
    t.textContent = String(v);
    svg.append(t);
  }
  // The hands along the x axis, thinned so that no two labels run together: one every
  // ``step`` hands (a label takes about 44 px), the last hand always.
  const room = Math.max(1, Math.floor((width - pad.l - pad.r) / 44));
  const step = Math.max(1, Math.ceil(hands / room));
  for (let i = 0; i <= hands; i++) {
    const last = i === hands;
    if (i % step !== 0 && !last) continue;
    if (!last && i !== 0 && hands - i < step / 2) continue; // too near the last one's
    // The last one ends at the axis's end, clear of the names beside it; with many
    // hands only it says "hand".
    const t = el("text", {
      x: x(i),
      y: height - 8,
      class: "label",
      "text-anchor": last && i ? "end" : "middle",
    });
    t.textContent = i === 0 ? "start" : hands <= room / 2 || last ? `hand ${i}` : String(i);
    svg.append(t);
  }
  const ends = [];
  series.forEach((s, seat) => {
    const colour = seatColour(seat);
    const points = s.map((v, i) => `${x(i)},${y(v)}`).join(" ");
    svg.append(el("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5 }));
    for (const [i, v] of s.entries()) {
      svg.append(el("circle", { cx: x(i), cy: y(v), r: 3, fill: colour }));
    }
    ends.push({ seat, y: y(s[s.length - 1]), v: s[s.length - 1] });
  });
  // Each line's name at its end, 13 px apart at least, all inside the chart: pushed
  // down from the top, then up from the bottom if they ran past it.
  ends.sort((a, b) => a.y - b.y);
  const ys = [];
  for (const [i, end] of ends.entries()) ys.push(Math.max(end.y + 4, i ? ys[i - 1] + 13 : pad.t));
  for (let i = ys.length - 1; i >= 0; i--)
    ys[i] = Math.min(ys[i], i === ys.length - 1 ? height - 4 : ys[i + 1] - 13);
  ends.forEach((end, i) => {
    const t = el("text", {
      x: width - pad.r + 6,
      y: ys[i],
      fill: seatColour(end.seat),
      class: "label name",
    });
    t.textContent = fit(`${names[end.seat]}`, pad.r - 8, ` ${end.v}`);
    svg.append(t);
  });
  return svg;
}

/** ``name`` and then ``tail`` in ``px`` pixels of the chart's bold labels (about 7.4 px
 * a character): a long name is shortened with "…", never cut by the chart's edge. */
function fit(name, px, tail) {
  const room = Math.floor(px / 7.4) - tail.length;
  return (name.length > room ? `${name.slice(0, Math.max(1, room - 1))}…` : name) + tail;
}

/** The distribution of a day's scores as SVG bars: ``bins`` as the server gives them
 * (``{from, to, count}``, server/lobby/daily.py), lowest first; the bar holding
 * ``mark`` (the reader's own score, or null) is drawn as theirs. */
export function histogramChart(bins, { width = 520, height = 150, mark = null } = {}) {
  const pad = { l: 30, r: 8, t: 10, b: 26 };
  const most = Math.max(1, ...bins.map((b) => b.count));
  // Bars at most 40 px wide: a day with few scores is a few bars, not a wall.
  const slot = Math.min(40, (width - pad.l - pad.r) / Math.max(1, bins.length));
  const tall = height - pad.t - pad.b;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    class: "chart histogram",
    role: "img",
  });
  const title = el("title", {});
  const players = bins.reduce((n, b) => n + b.count, 0);
  title.textContent = `Scores of ${players} player${players === 1 ? "" : "s"}: ${bins
    .filter((b) => b.count)
    .map((b) => `${b.from} to ${b.to}: ${b.count}`)
    .join(", ")}`;
  svg.append(title);
  svg.append(
    el("line", { x1: pad.l, x2: width - pad.r, y1: pad.t + tall, y2: pad.t + tall, class: "axis" }),
  );
  const top = el("text", { x: pad.l - 4, y: pad.t + 8, class: "label", "text-anchor": "end" });
  top.textContent = String(most);
  svg.append(top);
  // A label every ``step`` bars, so that no two run together (a label takes about 30 px).
  const step = Math.max(1, Math.ceil(30 / slot));
  bins.forEach((b, i) => {
    const high = (b.count / most) * tall;
    const mine = mark !== null && mark >= b.from && mark <= b.to;
    const bar = el("rect", {
      x: pad.l + i * slot + 1,
      y: pad.t + tall - high,
      width: Math.max(1, slot - 2),
      height: high,
      class: mine ? "bar yours" : "bar",
      "data-low": b.from,
      "data-count": b.count,
    });
    const tip = el("title", {});
    tip.textContent = `${b.from} to ${b.to} points: ${b.count}${mine ? " (you)" : ""}`;
    bar.append(tip);
    svg.append(bar);
    if (i % step === 0) {
      const t = el("text", {
        x: pad.l + i * slot + slot / 2,
        y: height - 8,
        class: "label",
        "text-anchor": "middle",
      });
      t.textContent = String(b.from);
      svg.append(t);
    }
  });
  return svg;
}

/** A player's rating over their rated matches as an SVG line: ``values`` the rating on
 * the shown scale before the first match and after each (server/lobby/standings.py). */
export function ratingChart(values, { width = 520, height = 170 } = {}) {
  const lo0 = Math.min(...values);
  const hi0 = Math.max(...values);
  const spread = Math.max(20, hi0 - lo0);
  const lo = Math.floor((lo0 - spread * 0.1) / 10) * 10;
  const hi = Math.ceil((hi0 + spread * 0.1) / 10) * 10;
  const n = Math.max(1, values.length - 1);
  const pad = { l: 44, r: 12, t: 12, b: 26 };
  const x = (i) => pad.l + (i / n) * (width - pad.l - pad.r);
  const y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * (height - pad.t - pad.b);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart rating", role: "img" });
  const title = el("title", {});
  title.textContent = `Rating over ${values.length - 1} rated match${values.length === 2 ? "" : "es"}: from ${values[0]} to ${values[values.length - 1]}`;
  svg.append(title);
  svg.append(
    el("line", {
      x1: pad.l,
      x2: width - pad.r,
      y1: height - pad.b,
      y2: height - pad.b,
      class: "axis",
    }),
  );
  svg.append(el("line", { x1: pad.l, x2: pad.l, y1: pad.t, y2: height - pad.b, class: "axis" }));
  for (const v of [lo, hi]) {
    const t = el("text", { x: pad.l - 4, y: y(v) + 4, class: "label", "text-anchor": "end" });
    t.textContent = String(v);
    svg.append(t);
  }
  for (const [i, label] of [
    [0, "start"],
    [n, `match ${n}`],
  ]) {
    const t = el("text", {
      x: x(i),
      y: height - 8,
      class: "label",
      "text-anchor": i ? "end" : "start",
    });
    t.textContent = label;
    svg.append(t);
  }
  const colour = seatColour(0);
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
  svg.append(el("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5 }));
  for (const [i, v] of values.entries()) {
    const dot = el("circle", { cx: x(i), cy: y(v), r: 3, fill: colour, "data-rating": v });
    svg.append(dot);
  }
  return svg;
}
