"""The SVG charts' layout: ticks, lines from zero, names kept apart, bars, and the pages that
draw them (a text alternative each, the players' colours)."""

from __future__ import annotations

import re

import pytest

from companion.history import charts


@pytest.mark.parametrize("low, high, ticks", [
    (0, 1, (0, 1)), (0, 6, (0, 2, 4, 6)), (-12, 31, (-20, 0, 20, 40)), (0, 55, (0, 20, 40, 60)),
    (-10, 16, (-10, 0, 10, 20)), (3, 3, (3, 4))])
def test_nice_ticks_cover_the_values_with_round_numbers(low, high, ticks):
    assert charts.nice_ticks(low, high) == ticks


def test_a_line_starts_at_zero_and_ends_at_the_total():
    chart = charts.line_chart(["Ana", "Ben"], [(3, 0), (5, 2)], winners=[1])
    ana, ben = chart.series
    assert ana.points.split()[0] == f"{chart.left},{chart.bottom}"  # 0 before round 1
    assert ana.end[0] == chart.right and ana.end[1] < ben.end[1]  # 5 is drawn above 2
    assert (ana.values, ben.values, ben.winner, ana.winner) == ((3, 5), (0, 2), True, False)
    assert chart.rows() == [(1, (3, 0)), (2, (5, 2))]
    assert [s.colour for s in chart.series] == list(charts.SEAT_COLOURS[:2])


def test_names_at_the_end_of_lines_never_overlap():
    chart = charts.line_chart(["Ana", "Ben", "Cy", "Di"], [(5, 5, 5, 6)])
    ys = sorted(s.label_y for s in chart.series)
    assert all(b - a >= charts.LABEL_GAP for a, b in zip(ys, ys[1:], strict=False))


def test_long_names_are_shortened_on_the_chart_only():
    chart = charts.line_chart(["Anne-Sophie", "Bo"], [(1, 2)])
    assert chart.series[0].label == "Anne-S." and chart.series[0].name == "Anne-Sophie"


def test_no_chart_without_rounds():
    assert charts.line_chart(["Ana"], []) is None
    assert charts.bar_chart([]) is None


def test_bars_are_as_long_as_the_win_rate():
    chart = charts.bar_chart([("Ana", 3, 4), ("Ben", 0, 2)])
    assert [b.rate for b in chart.bars] == [0.75, 0.0]
    assert chart.bars[0].length == round(chart.bar_width * 0.75, 1)
    assert chart.bars[1].y - chart.bars[0].y == chart.row


def test_a_games_chart_in_history(client, known):
    html = client.get(f"{known.record('rp2')}").text
    assert 'data-chart="running" data-steps="3"' in html
    assert "<desc id=\"running-chart-desc\">Ben: -10, -7, -5. Ana: 0, 0, 4." in html
    assert re.findall(r'<polyline [^>]*stroke="(#\w+)"', html) == list(charts.SEAT_COLOURS[:4])
    assert 'data-rank="1"' in html and "Total after each round" in html


def test_a_chart_of_actions(client, known):
    html = client.get(f"{known.record('rv')}").text
    assert 'data-steps="5"' in html and "Total after each action" in html
    assert "Ana: 20, 20, 40, 40, 55." in html


def test_the_win_rate_chart_of_each_game(client, known):
    html = client.get(f"{known.base}/stats").text
    assert html.count('data-chart="win-rate"') == 4
    assert "Ben: 2 wins in 2 games" in html


def test_the_score_pad_partial(app, known):
    """What the lead includes on a Rebel Princess score pad: the same chart, from the game row."""
    from flask import render_template_string

    from companion.db import get_session
    from companion.play import store

    with app.test_request_context():
        game = store.get_game(get_session(), known.codes["rp1"])
        html = render_template_string(
            '{% with chart = running_chart(game) %}{% include "history/_line_chart.html" %}'
            '{% endwith %}', game=game)
    assert 'id="running-chart"' in html and "Ben: 2, -2, 0." in html
