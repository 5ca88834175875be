"""Each player keeps their seat's colour and initial on the history pages of every game (issue
22): a finished game's page in the group's history, for each of the four games, and the game's
own history of Rebel Princess (entries), Princesse Princesse (rounds) and Réveillez (actions)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.common.colours import initials, seat_colour

from .conftest import link

# The seat_mark macro: a mark in the seat's colour (its class, whose colour app.css gives)
# holding its initial, then the player's name.
MARK = re.compile(r'class="seat-mark (seat-\d+)" aria-hidden="true">(\w+)</span>'
                  r'\s*(?:<b>)?(\w+)')
APP_CSS = Path(__file__).resolve().parents[2] / "companion" / "static" / "app.css"
COLOURS = dict(re.findall(r"\.(seat-\d+) \{ --seat: (#\w+);", APP_CSS.read_text()))

NAMES = {"rp1": ["Ana", "Ben", "Cy", "Di"], "pp": ["Ana", "Ben", "Cy", "Di", "Eve"],
         "rv": ["Ana", "Ben"], "kd1": ["Ana", "Ben"]}


def marks(html: str) -> set[tuple[str, str, str]]:
    return {(COLOURS[seat], initial, name) for seat, initial, name in MARK.findall(html)}


def expected(names: list[str]) -> set[tuple[str, str, str]]:
    return {(seat_colour(seat), initials(names)[seat], name) for seat, name in enumerate(names)}


@pytest.mark.parametrize("game", list(NAMES))
def test_a_finished_games_page_marks_each_player_with_their_seat(client, known, game):
    html = client.get(known.record(game)).text
    assert expected(NAMES[game]) <= marks(html)
    # The standings name each player once, with the mark of their own seat.
    standings = html.split('id="standings"', 1)[1].split("</table>", 1)[0]
    assert sorted(marks(standings)) == sorted(expected(NAMES[game]))


def test_princesse_princesse_history_marks_each_player_with_their_seat(app, client, known):
    html = client.get(f"/princesse-princesse/g/{link(app, known.codes['pp'], 'scorer')}"
                      "/history").text
    assert marks(html) == expected(NAMES["pp"])
    tokens_after = html.split("data-tokens-after>", 1)[1].split("</p>", 1)[0]
    assert marks(tokens_after) == expected(NAMES["pp"])


def test_reveillez_history_marks_each_action_with_its_players_seat(app, client, known):
    html = client.get(f"/reveillez/g/{link(app, known.codes['rv'], 'scorer')}/history").text
    assert marks(html) == expected(NAMES["rv"])
    # Each action is marked with the seat of the player who played it.
    items = re.findall(r'<li data-seq="\d+" data-kind="\w+" data-seat="(\d)"(.*?)</li>', html, re.S)
    assert {seat for seat, _ in items} == {"0", "1"}
    for seat, item in items:
        name = NAMES["rv"][int(seat)]
        assert marks(item) == {(seat_colour(int(seat)), name[0], name)}


def test_rebel_princess_history_marks_each_players_score_with_their_seat(app, client, known):
    html = client.get(f"/rebel-princess/g/{link(app, known.codes['rp1'], 'scorer')}"
                      "/history").text
    entries = re.findall(r'<li data-record=.*?</li>', html, re.S)
    assert len(entries) == 3
    for entry in entries:  # each round entered by cards: every player's score, marked
        assert marks(entry) == expected(NAMES["rp1"])
