"""Charts drawn on the server as SVG: the layout here, the markup in
``templates/history/_line_chart.html`` and ``_bar_chart.html``.

Both charts are 340 units wide (a 360-px phone shows them at about their own size, so 12-unit
text reads as 12-px text) and scale with the page. Each player's line, bar and label share one
colour of :data:`SEAT_COLOURS` — the colours of the players on every table screen, seat by seat
(companion.common.colours) — and every chart comes with its figures as a table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..common.colours import PALETTE  # pure: the players' colours, no web framework
from ..common.short_names import shorten

SEAT_COLOURS = tuple(colour for colour, _ in PALETTE)
"""One colour per seat (or per player in a list): the players' colours
(companion.common.colours)."""

WIDTH = 340
LABEL_GAP = 13  # the least vertical distance between two end-of-line names


def colour(index: int) -> str:
    return SEAT_COLOURS[index % len(SEAT_COLOURS)]


def short_label(name: str, size: int = 9) -> str:
    """A chart's label for ``name``: about ``size`` characters (companion.common.short_names)."""
    return shorten(name, size - 1)


def nice_ticks(low: float, high: float, most: int = 5) -> tuple[float, ...]:
    """Whole values from ``low`` to ``high`` (both included), 1, 2 or 5 times a power of ten
    apart (at least 1), at most ``most`` of them or so."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(most - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = max(1, next(m * power for m in (1, 2, 5, 10) if m * power >= raw))
    start = math.floor(low / step) * step
    end = math.ceil(high / step) * step
    count = int(round((end - start) / step))
    return tuple(start + i * step for i in range(count + 1))


@dataclass(frozen=True)
class Series:
    """One player's running totals, and how to draw them."""

    name: str
    colour: str
    values: tuple[int, ...]  # after each step; the chart starts from 0 before the first
    points: str  # the polyline's "x,y x,y …"
    end: tuple[float, float]  # the last point
    label_y: float  # where the name is written, right of the plot, clear of the others
    label: str
    seat: int
    winner: bool


@dataclass(frozen=True)
class LineChart:
    """Running totals, step by step (a round or a turn), one line per seat."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    series: tuple[Series, ...]
    y_ticks: tuple[tuple[int, float], ...]  # (value, y)
    x_ticks: tuple[tuple[int, float], ...]  # (step number, x)
    steps: int
    step: str = "round"  # what a step is: "round" or "turn" (StepUnit)

    @property
    def zero_y(self) -> float | None:
        return next((y for value, y in self.y_ticks if value == 0), None)

    def rows(self) -> list[tuple[int, tuple[int, ...]]]:
        """The figures, step by step: (step number, each seat's total)."""
        return [(step + 1, tuple(s.values[step] for s in self.series))
                for step in range(self.steps)]


def line_chart(names: Sequence[str], progress: Sequence[Sequence[int]],
               winners: Sequence[int] = (), step: str = "round", height: int = 210
               ) -> LineChart | None:
    """The layout of a running-totals chart, or None when there is nothing to draw yet."""
    if not progress or not names:
        return None
    steps = len(progress)
    left, right, top, bottom = 34.0, WIDTH - 74.0, 10.0, height - 24.0
    values = [v for step in progress for v in step]
    ticks = nice_ticks(min(0, *values), max(0, *values))
    low, high = ticks[0], ticks[-1]

    def x(step: int) -> float:
        return round(left + (right - left) * step / steps, 1)

    def y(value: float) -> float:
        return round(bottom - (bottom - top) * (value - low) / (high - low), 1)

    series = []
    for seat, name in enumerate(names):
        totals = tuple(step[seat] for step in progress)
        points = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate((0, *totals)))
        series.append((seat, name, totals, points, (x(steps), y(totals[-1]))))
    label_ys = _spread([end[1] for *_, end in series], top + 4, bottom)
    every = max(1, math.ceil(steps / 8))
    x_ticks = tuple((n, x(n)) for n in range(0, steps + 1) if n % every == 0 or n == steps)
    return LineChart(
        WIDTH, height, left, right, top, bottom,
        tuple(Series(name, colour(seat), totals, points, end, label_y, short_label(name, 8), seat,
                     seat in winners)
              for (seat, name, totals, points, end), label_y in zip(series, label_ys,
                                                                     strict=True)),
        tuple((int(t), y(t)) for t in ticks), x_ticks, steps, str(step))


def _spread(ys: Sequence[float], low: float, high: float) -> list[float]:
    """Move label positions apart (at least :data:`LABEL_GAP`), keeping their order and staying
    between ``low`` and ``high`` when there is room."""
    order = sorted(range(len(ys)), key=lambda i: (ys[i], i))
    placed = [0.0] * len(ys)
    previous = low - LABEL_GAP
    for i in order:
        placed[i] = max(ys[i], previous + LABEL_GAP)
        previous = placed[i]
    overflow = previous - high
    if overflow > 0:  # pushed past the bottom: shift everyone up, as far as the top allows
        shift = min(overflow, min(placed) - low) if placed else 0
        placed = [p - max(shift, 0) for p in placed]
    return [round(p, 1) for p in placed]


@dataclass(frozen=True)
class Bar:
    """One player's win rate: the bar's length and where its row is."""

    name: str
    label: str
    colour: str
    rate: float  # 0 to 1
    wins: int
    games: int
    y: float
    length: float


@dataclass(frozen=True)
class BarChart:
    """Win rates, one horizontal bar per player, best first."""

    width: int
    height: int
    bar_left: float
    bar_width: float
    row: float
    bars: tuple[Bar, ...]


def bar_chart(rows: Sequence[tuple[str, int, int]]) -> BarChart | None:
    """Bars for (name, wins, games) rows, in the order given; None when there are none."""
    if not rows:
        return None
    row, bar_left, bar_width = 28.0, 96.0, WIDTH - 96.0 - 44.0
    bars = []
    for index, (name, wins, games) in enumerate(rows):
        rate = wins / games if games else 0.0
        bars.append(Bar(name, short_label(name, 12), colour(index), rate, wins, games,
                        4 + index * row, round(bar_width * rate, 1)))
    return BarChart(WIDTH, int(8 + row * len(rows)), bar_left, bar_width, row, tuple(bars))
