"""The rounds that break a tie are one count with one name: the end of the game, the game's
record and the statistics show the same figure, named after the edition's rule (Deluxe: rounds
at zero or below; classic: rounds at exactly 0)."""

from __future__ import annotations

import re

import pytest

from companion.db import get_session
from companion.play import store

from .conftest import attr

# Deluxe: Ana and Ben tie on 12; Ana scored -2, 0 and 0 (three rounds at zero or below, two at
# exactly 0), Ben 0 once: Ana wins the tie on three rounds at zero or below. Round 1 is Three
# Times a Lady (every rank 3 scores -3: its scores add up to 3).
DELUXE_BELOW_ZERO = [[-2, 1, 2, 2], [0, 5, 5, 5], [5, 0, 5, 5], [0, 5, 5, 5], [9, 1, 3, 2]]
# Classic: Ana and Ben tie on 10; Ana scored exactly 0 twice, Ben once.
CLASSIC_ZERO_TIE = [[0, 2, 6, 7], [0, 2, 6, 7], [4, 0, 5, 6], [3, 3, 4, 5], [3, 3, 4, 5]]


def play(make_game, by_numbers, edition, rows):
    code = make_game(edition=edition, cards="dabce" if edition == "deluxe" else None)
    for number, scores in enumerate(rows, start=1):
        extra = {"last_trick": number % 4} if edition == "classic" else {}
        assert by_numbers(code, number, scores, **extra).status_code == 302
    return code


def links(app, code):
    with app.app_context():
        session = get_session()
        found = store.links_of(session, store.game_by_token(session, code))
        return found["viewer"].token, store.game_by_token(session, code).group_id


def fact_row(html, key):
    """The label and the values of the ``key`` row of a game record's facts table."""
    row = re.search(rf'<tr data-fact="{key}"><th scope="row">(.*?)</th>(.*?)</tr>', html, re.S)
    assert row, f"no {key} row"
    return row[1], [int(v) for v in re.findall(r"<td>(-?\d+)</td>", row[2])]


@pytest.mark.parametrize("edition, rows, key, count, en, fr, sentence", [
    ("deluxe", DELUXE_BELOW_ZERO, "rounds-at-or-below-zero", [3, 1, 0, 0],
     "Rounds at zero or below", "Manches à zéro ou moins", "manches à zéro ou moins (3)"),
    ("classic", CLASSIC_ZERO_TIE, "rounds-at-zero", [2, 1, 0, 0],
     "Rounds at exactly 0", "Manches à 0 pile", "manches à 0 pile (2)"),
])
def test_end_of_game_and_record_count_the_same_rounds(client, app, make_game, by_numbers,
                                                      edition, rows, key, count, en, fr,
                                                      sentence):
    """The figure the end of the game gives for the tie-break is the record's, under the
    rule's name in both languages; the other edition's count is not shown."""
    code = play(make_game, by_numbers, edition, rows)
    end = client.get(f"/rebel-princess/g/{code}", headers={"Accept-Language": "fr"}).text
    assert attr(end, "data-winners") == ["0"]
    assert sentence in end
    viewer, _group = links(app, code)
    for lang, label in (("en", en), ("fr", fr)):
        record = client.get(f"/record/{viewer}", headers={"Accept-Language": lang}).text
        assert fact_row(record, key) == (label, count)
    other = "rounds-at-zero" if edition == "deluxe" else "rounds-at-or-below-zero"
    assert f'data-fact="{other}"' not in record


def test_statistics_read_the_tie_break_count(client, app, make_game, by_numbers):
    """A group's statistics add up each game's tie-break count under its edition's name:
    Ana's three rounds at zero or below of the Deluxe game (not her two at exactly 0)."""
    code = play(make_game, by_numbers, "deluxe", DELUXE_BELOW_ZERO)
    _viewer, group = links(app, code)
    with app.app_context():
        from companion.models import Group
        token = get_session().get(Group, group).token
    html = client.get(f"/group/{token}/history/stats").text
    values = re.findall(r'data-fact="rounds-at-or-below-zero" data-value="(\d+)"', html)
    assert values[:1] == ["3"]  # Ana's line comes first: the tie went her way
    assert 'data-fact="rounds-at-zero"' not in html
