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
  let lo = Math.min(...values);
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
    svg.append(el("line", { x1: pad.l, x2: width - pad.r, y1: y(target), y2: y(target), class: "target" }));
    const t = el("text", { x: pad.l + 4, y: y(target) - 3, class: "label" });
    t.textContent = `target ${target}`;
    svg.append(t);
  }
  for (const v of [lo, hi]) {
    const t = el("text", { x: pad.l - 4, y: y(v) + 4, class: "label", "text-anchor": "end" });
    t.textContent = String(v);
    svg.append(t);
  }
  for (let i = 0; i <= hands; i++) {
    const t = el("text", { x: x(i), y: height - 8, class: "label", "text-anchor": "middle" });
    t.textContent = i === 0 ? "start" : `hand ${i}`;
    if (hands <= 12 || i % Math.ceil(hands / 12) === 0) svg.append(t);
  }
  const ends = [];
  series.forEach((s, seat) => {
    const colour = seatColour(seat);
    const points = s.map((v, i) => `${x(i)},${y(v)}`).join(" ");
    svg.append(el("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5 }));
    s.forEach((v, i) => svg.append(el("circle", { cx: x(i), cy: y(v), r: 3, fill: colour })));
    ends.push({ seat, y: y(s[s.length - 1]), v: s[s.length - 1] });
  });
  ends.sort((a, b) => a.y - b.y);
  let last = -Infinity;
  for (const end of ends) {
    const ly = Math.max(end.y + 4, last + 13);
    last = ly;
    const t = el("text", { x: width - pad.r + 6, y: ly, fill: seatColour(end.seat), class: "label name" });
    t.textContent = `${names[end.seat]} ${end.v}`;
    svg.append(t);
  }
  return svg;
}
