"""The running-totals chart after many hands and with long names: the hands along its x
axis are thinned so no two labels run together, and every name at a line's end is
whole or shortened with "…", inside the chart and clear of the others."""

from __future__ import annotations

from itertools import pairwise

from playwright.sync_api import Page

from .conftest import Console, Server

DRAW = """async () => {
  const { totalsChart } = await import("/static/js/chart.js");
  const hands = 24;
  const series = [0, 1, 2, 3].map((s) => Array.from({ length: hands + 1 }, (_, i) => i * (s - 1)));
  const names = ["Bartholomew & Maximiliana", "Ann", "Cy", "Dee"];
  const svg = totalsChart(series, names, { target: 100 });
  document.body.replaceChildren(svg);
  const box = (el) => el.getBoundingClientRect();
  const outer = box(svg);
  const texts = [...svg.querySelectorAll("text")];
  const axis = texts.filter((t) => Number(t.getAttribute("y")) === 172);
  const ends = texts.filter((t) => t.classList.contains("name"));
  return {
    axis: axis.map((t) => [box(t).left, box(t).right, t.textContent]),
    ends: ends.map((t) => [box(t).top, box(t).bottom, box(t).left, box(t).right, t.textContent]),
    outer: [outer.top, outer.bottom, outer.left, outer.right],
  };
}"""


def test_the_chart_thins_its_axis_and_keeps_every_name_inside(
    page: Page, server: Server, console: Console
) -> None:
    page.goto(f"{server.url}/rules")
    page.set_viewport_size({"width": 520, "height": 400})
    drawn = page.evaluate(DRAW)
    axis = sorted(drawn["axis"])
    assert 3 <= len(axis) <= 10, axis  # 25 points along it, a few labelled
    assert axis[0][2] == "start" and axis[-1][2] == "hand 24"
    for (_, right, a), (left, _, b) in pairwise(axis):
        assert right <= left, f"{a!r} runs into {b!r}"
    top, bottom, left, right = drawn["outer"]
    ends = sorted(drawn["ends"])
    assert len(ends) == 4
    for t, b, lft, rgt, text in ends:
        assert top <= t and b <= bottom + 0.5 and left <= lft and rgt <= right + 0.5, text
    for first, second in pairwise(ends):
        assert first[1] <= second[0] + 1, (first[4], second[4])  # no name over another
    assert any(text.startswith("Bartholomew") and "…" in text for *_, text in ends), ends
