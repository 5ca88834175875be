"""Statistics over the known games of ``conftest.py`` (all four kinds), figures worked out by hand:
per player and game, per game, the games' own facts, head to head, and the pages showing them."""

from __future__ import annotations

import re

import pytest

from companion.db import get_session
from companion.history import stats
from companion.play import summaries

KINDS = ["rebel_princess", "princesse_princesse", "reveillez", "kanai_duel"]


@pytest.fixture
def played(app, known):
    with app.app_context():
        return summaries.played(get_session(), group_id=known.group_id)


def line(played, known, name, kind):
    return stats.lines(played)[(known.person[name], kind)]


def test_only_finished_games_count(played):
    """Six finished games; the Rebel Princess game still being played is left out."""
    assert sorted(p.kind for p in played) == [
        "kanai_duel", "kanai_duel", "princesse_princesse", "rebel_princess", "rebel_princess",
        "reveillez"]


@pytest.mark.parametrize("name, games, wins, average, best", [
    ("Ana", 2, 0, 8.0, 4),     # totals 12 and 4: the lowest is best
    ("Ben", 2, 2, -2.5, -5),   # 0 and -5, won both
    ("Cy", 2, 0, 12.0, 8),     # 8 and 16
    ("Di", 2, 0, 12.5, 5),     # 20 and 5
])
def test_rebel_princess_lines(played, known, name, games, wins, average, best):
    found = line(played, known, name, "rebel_princess")
    assert (found.games, found.wins, found.average, found.best) == (games, wins, average, best)
    assert found.win_rate == wins / games


@pytest.mark.parametrize("name, rebels, zeros", [
    ("Ana", 0, 2), ("Ben", 1, 2), ("Cy", 0, 2), ("Di", 0, 3)])
def test_rebel_of_the_ball_and_rounds_at_or_below_zero(played, known, name, rebels, zeros):
    """Both games are Deluxe: the tie-break counts rounds at zero **or below**. rp1: Di scored
    0 in round 1, Ben -4 and Cy -2 in round 2. rp2: Ben was Rebel of the Ball (-10; everyone
    else 0 that round), Ana also scored 0 in round 2, Di in round 3."""
    facts = line(played, known, name, "rebel_princess").facts
    assert facts["rebel-of-the-ball"].value == rebels
    assert facts["rounds-at-or-below-zero"].value == zeros
    assert "rounds-at-zero" not in facts  # the classic's count: no classic game here


@pytest.mark.parametrize("name, tokens, won, last_in, highest, tied, spy, princesses", [
    ("Ana", 3, 1, 1, 0, 1, 1, 0),
    ("Ben", 2, 0, 0, 1, 0, 0, 1),
    ("Cy", 1, 0, 0, 0, 0, 0, 1),
    ("Di", 1, 0, 0, 0, 1, 0, 0),
    ("Eve", 0, 0, 0, 0, 0, 0, 0),
])
def test_princesse_princesse_tokens_by_how_they_were_won(played, known, name, tokens, won,
                                                        last_in, highest, tied, spy,
                                                        princesses):
    found = line(played, known, name, "princesse_princesse")
    assert (found.games, found.wins, found.best, found.average) == (1, won, tokens, tokens)
    assert {key: f.value for key, f in found.facts.items()} == {
        "tokens-last-in": last_in, "tokens-highest-card": highest, "tokens-tied-highest": tied,
        "tokens-spy": spy, "tokens-princesses": princesses}


def test_reveillez_points_and_princesses_when_winning(played, known):
    ana = line(played, known, "Ana", "reveillez")
    ben = line(played, known, "Ben", "reveillez")
    assert (ana.wins, ana.best, ben.wins, ben.best) == (1, 55, 0, 15)
    assert ana.facts["princesses-when-winning"].value == 3
    assert ben.facts["princesses-when-winning"].value is None  # never won


def test_kanai_wins_by_the_princess_and_a_draw(played, known):
    """kd1: Ana's Princess against Ben's Prince (0-0 in rounds). kd2: 3-3, a draw."""
    ana = line(played, known, "Ana", "kanai_duel")
    ben = line(played, known, "Ben", "kanai_duel")
    cy = line(played, known, "Cy", "kanai_duel")
    assert (ana.games, ana.wins, ana.facts["wins-by-princess"].value) == (1, 1, 1)
    assert (ben.games, ben.wins, ben.average, ben.best) == (2, 0, 1.5, 3)
    assert (cy.games, cy.wins, cy.best) == (1, 0, 3)


def test_per_game_figures(played, known):
    per = {s.kind: s for s in stats.by_kind(played, KINDS)}
    assert [s.kind for s in stats.by_kind(played, KINDS)] == KINDS
    rebel = per["rebel_princess"]
    assert (rebel.games, rebel.lower_wins, rebel.unit) == (2, True, "points")
    assert rebel.lines[0].person == known.person["Ben"]  # best win rate first
    assert {k: f.value for k, f in rebel.facts.items()} == {
        "rebel-of-the-ball": 1, "rounds-at-or-below-zero": 9}
    assert per["kanai_duel"].facts["wins-by-princess"].value == 1
    assert per["reveillez"].facts["princesses-when-winning"].value == 3
    assert per["princesse_princesse"].facts["tokens-spy"].value == 1


def test_one_persons_lines_in_registry_order(played, known):
    lines = stats.of_person(played, known.person["Ana"], KINDS)
    assert [(x.kind, x.games, x.wins) for x in lines] == [
        ("rebel_princess", 2, 0), ("princesse_princesse", 1, 1), ("reveillez", 1, 1),
        ("kanai_duel", 1, 1)]


def test_head_to_head(played, known):
    """Ana and Ben: rp1 and rp2 (Ben won both, ahead both times), pp (Ana won, ahead), rv (Ana),
    kd1 (Ana)."""
    overall, per = stats.head_to_head(played, known.person["Ana"], known.person["Ben"], KINDS)
    assert (overall.games, overall.wins, overall.ahead, overall.level) == (5, (3, 2), (3, 2), 0)
    assert [(v.kind, v.games, v.wins) for v in per] == [
        ("rebel_princess", 2, (0, 2)), ("princesse_princesse", 1, (1, 0)),
        ("reveillez", 1, (1, 0)), ("kanai_duel", 1, (1, 0))]


def test_a_draw_is_level_head_to_head(played, known):
    """Ben and Cy: rp1 and rp2 (Ben won, ahead), pp (nobody of them won; Ben 2 tokens, Cy 1:
    Ben ahead), kd2 (a draw at 3-3: level)."""
    overall, _ = stats.head_to_head(played, known.person["Ben"], known.person["Cy"], KINDS)
    assert (overall.games, overall.wins, overall.ahead, overall.level) == (4, (2, 0), (3, 0), 1)


def test_statistics_page_shows_the_figures(client, known):
    html = client.get(f"{known.base}/stats").text
    rows = re.findall(r'<section class="panel hx-kind" data-kind="(\w+)" data-games="(\d+)"',
                      html)
    assert rows == [("rebel_princess", "2"), ("princesse_princesse", "1"), ("reveillez", "1"),
                    ("kanai_duel", "2")]
    ben = known.person["Ben"]
    assert (f'<tr data-person="{ben}" data-games="2" data-wins="2" data-rate="1.000" '
            f'data-average="-2.50" data-best="-5">') in html
    assert 'data-chart="win-rate"' in html and "Rebel of the Ball" in html


def test_statistics_page_filters_by_game(client, known):
    html = client.get(f"{known.base}/stats?game=kanai-duel").text
    assert re.findall(r'hx-kind" data-kind="(\w+)"', html) == ["kanai_duel"]


def test_a_players_page(client, known):
    html = client.get(f"{known.base}/players/{known.person['Ana']}").text
    assert re.findall(r'data-kind="(\w+)" data-games="(\d+)" data-wins="(\d+)"', html) == [
        ("rebel_princess", "2", "0"), ("princesse_princesse", "1", "1"), ("reveillez", "1", "1"),
        ("kanai_duel", "1", "1")]
    assert 'data-fact="princesses-when-winning" data-value="3.0"' in html


def test_head_to_head_page(client, known):
    html = client.get(f"{known.base}/versus?a={known.person['Ana']}&b={known.person['Ben']}").text
    assert 'data-kind="all" data-games="5" data-wins="3,2" data-ahead="3,2"' in html


def test_statistics_in_french(client, known):
    html = client.get(f"{known.base}/stats", headers={"Accept-Language": "fr"}).text
    assert "<h1>Statistiques</h1>" in html
    assert "Rebelle du Bal" in html and "Victoires par la Princesse" in html
