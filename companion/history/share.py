"""The image a finished game is shared as: its layout here, the SVG in
``templates/shell/_share_image.html``; the browser turns it into a PNG (``static/share.js``).

Everything comes from the game's :class:`~companion.history.summary.GameSummary` (the standings
the history, the statistics and the game's own end screen agree on) and the one sentence that
game's end screen says about how the game was decided. The image is drawn in the light scheme
whatever the page's scheme (it is read on other phones and in chats), 360 units wide (the PNG is
drawn at three times that), as tall as its content: a title, the winners and how it was decided,
the standings (each player's mark: their colour and initial), and where the game has rounds the
running totals as a chart and, round by round, as figures. It holds no address and no link.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from ..common.colours import PALETTE, initials
from .charts import LineChart, line_chart
from .summary import GameSummary, StepUnit

WIDTH = 360
MARGIN = 12
SCALE = 3  # the PNG's pixels per unit: 1080 px wide
LINE_CHARS = 46  # the decided sentence, wrapped at about this many characters a line
ROW = 30  # a standings row
FIGURE_ROW = 17  # a row of the round-by-round figures

LIGHT = {"bg": "#f7f3ee", "card": "#ffffff", "ink": "#221a2e", "muted": "#6b6378",
         "line": "#e4dcd2", "brand": "#3b2a5c", "accent": "#b23a6b"}
"""The light scheme's colours (app.css ``:root``), whatever the page's scheme."""


@dataclass(frozen=True)
class ShareRow:
    """One player's line: place, mark (colour, text colour on it, initial), name, score."""

    seat: int
    place: int
    name: str
    mark: str
    colour: str
    on_colour: str
    score: int
    winner: bool
    y: float


@dataclass(frozen=True)
class FigureRow:
    """The totals after one round, one per seat."""

    number: int
    totals: tuple[int, ...]
    y: float


@dataclass(frozen=True)
class ShareImage:
    """The layout of a finished game's shared image (all sizes in SVG units)."""

    title: str  # the game's name
    title_size: float
    when: str  # the day it was played
    unit: str  # what the scores count (ScoreUnit)
    width: int
    height: int
    scale: int
    colours: dict[str, str]
    winners: tuple[int, ...]
    winner_names: tuple[str, ...]
    decided: tuple[str, ...]  # how it was decided, one line each
    decided_y: float
    standings: tuple[ShareRow, ...]
    standings_top: float
    standings_bottom: float
    chart: LineChart | None
    chart_top: float
    figures: tuple[FigureRow, ...]
    figures_top: float
    figure_x: tuple[float, ...]  # each seat's column (the figures' right edge)
    marks: tuple[str, ...]
    seat_colours: tuple[tuple[str, str], ...]  # (colour, colour of text on it), by seat
    footer_y: float


def _wrap(text: str) -> tuple[str, ...]:
    """``text`` as a sentence (a capital first: an end screen may say it after a name), in
    lines of about :data:`LINE_CHARS` characters; never cut at a no-break space (French puts
    one before a colon)."""
    text = re.sub(r"[ \t\r\n]+", " ", text).strip()
    return tuple(textwrap.wrap(text[:1].upper() + text[1:], LINE_CHARS)) or ("",)


def title_size(title: str) -> float:
    """The title's font size: 20, smaller for a long name so that it fits the width (a bold
    character is about 0.62 of the size wide)."""
    return round(min(20.0, (WIDTH - 2 * MARGIN) / (0.62 * max(len(title), 1))), 1)


def share_image(names: Sequence[str], summary: GameSummary, decided: str, *, title: str,
                when: str) -> ShareImage:
    """The layout of the image of a finished game played by ``names`` that came to
    ``summary``; ``decided`` is how its end screen says it was decided, ``title`` the game's
    name and ``when`` the day (plain text, in the page's language)."""
    marks = initials(names)
    seat_colours = tuple(PALETTE[seat % len(PALETTE)] for seat in range(len(names)))
    ranks = summary.ranks()
    # the winners first, then by score (best first), seat order among equals
    sign = 1 if summary.lower_wins else -1
    order = sorted(range(len(names)), key=lambda s: (ranks[s], sign * summary.scores[s], s))
    decided_lines = _wrap(decided)
    y = 58.0  # under the title and the date: the label "Winner", the names, then this
    decided_y = y + (74 if summary.winners else 50)  # a draw names no one
    y = decided_y + 16 * (len(decided_lines) - 1) + 22
    standings_top = y
    standings = tuple(
        ShareRow(seat, ranks[seat], names[seat], marks[seat], *seat_colours[seat],
                 summary.scores[seat], seat in summary.winners, standings_top + 10 + i * ROW)
        for i, seat in enumerate(order))
    y = standings_top + 10 + len(order) * ROW + 4
    standings_bottom = y
    chart = None
    figures: tuple[FigureRow, ...] = ()
    chart_top = figures_top = y
    figure_x: tuple[float, ...] = ()
    if summary.step is StepUnit.ROUND and summary.progress:
        chart_top = y + 12
        chart = line_chart(names, summary.progress, summary.winners, str(summary.step))
        y = chart_top + 26 + (chart.height if chart else 0)
        figures_top = y + 8
        column = min(56.0, (WIDTH - 2 * MARGIN - 70) / max(len(names), 1))
        figure_x = tuple(round(MARGIN + 70 + column * (seat + 1) - 8, 1)
                         for seat in range(len(names)))
        figures = tuple(FigureRow(n + 1, tuple(totals), figures_top + 22 + (n + 1) * FIGURE_ROW)
                        for n, totals in enumerate(summary.progress))
        y = figures_top + 22 + (len(figures) + 1) * FIGURE_ROW + 8
    footer_y = y + 20
    return ShareImage(
        title=title, title_size=title_size(title), when=when, unit=str(summary.unit),
        width=WIDTH, height=int(footer_y + 12), scale=SCALE, colours=LIGHT,
        winners=tuple(summary.winners), winner_names=tuple(names[w] for w in summary.winners),
        decided=decided_lines, decided_y=decided_y, standings=standings,
        standings_top=standings_top, standings_bottom=standings_bottom, chart=chart,
        chart_top=chart_top, figures=figures, figures_top=figures_top, figure_x=figure_x,
        marks=marks, seat_colours=seat_colours, footer_y=footer_y)
