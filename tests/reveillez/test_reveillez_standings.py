"""Points, princess counts and the win check of the ``standings`` endpoint (rulebook « But du
jeu », « Fin du jeu », « Questions de princesses »; REVEILLEZ.md « Winning »; issue 11)."""

from __future__ import annotations

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import Reason, evaluate, standings


def test_issue_example():
    """The issue's example answer, exactly."""
    answer = standings(3, [[20, 15, 15, 5], [5], []], 7).as_dict()
    assert answer == {"points": [55, 5, 0], "princesses": [4, 1, 0],
                      "to_win": {"princesses": 5, "points": 50}, "game_over": True,
                      "winners": [0], "reason": "points"}


def test_points_are_the_sum_of_printed_values():
    """A player's points add up the values of the princesses in front of them (« Fin du jeu »)."""
    table = standings(4, [[10, 5], [20], [], [15, 15, 5]], 6)
    assert table.points == (15, 20, 0, 35)
    assert table.princesses == (2, 1, 0, 3)
    assert not table.is_over and table.winners == () and table.reason is None


@pytest.mark.parametrize(("players", "count"), [(2, 5), (3, 5), (4, 4), (5, 4)])
def test_princess_threshold_wins(players, count):
    """Collecting 5 princesses (2–3 players) or 4 (4–5 players) wins."""
    awake = [[5] * count] + [[] for _ in range(players - 1)]
    table = standings(players, awake, 12 - count)
    assert table.winners == (0,) and table.reason is Reason.PRINCESSES
    fewer = [[5] * (count - 1)] + [[] for _ in range(players - 1)]
    assert not standings(players, fewer, 13 - count).is_over


@pytest.mark.parametrize(("players", "points"), [(2, 50), (3, 50), (4, 40), (5, 40)])
def test_points_threshold_wins(players, points):
    """Having 50 points (2–3 players) or 40 (4–5 players) wins."""
    awake = [[], [20, points - 20]] + [[] for _ in range(players - 2)]
    table = standings(players, awake, 10)
    assert table.winners == (1,) and table.reason is Reason.POINTS
    short = [[], [20, points - 21]] + [[] for _ in range(players - 2)]
    assert not standings(players, short, 10).is_over


def test_going_over_the_threshold_is_fine():
    """No exact total is needed: going over wins too (« Questions de princesses »)."""
    assert standings(2, [[20, 20, 15], []], 9).winners == (0,)


def test_princesses_reason_when_both_thresholds_are_reached():
    """A winner who reached the princess count wins with reason ``princesses`` (issue 11)."""
    table = standings(4, [[20, 20, 5, 5], [], [], []], 8)
    assert table.reason is Reason.PRINCESSES


def test_all_awake_most_points_wins():
    """When no princess is left asleep, the most points win (« Fin du jeu »)."""
    table = standings(4, [[10, 10, 5], [20, 10, 5], [5, 5, 5], [15, 5, 5]], 0)
    assert table.winners == (1,) and table.reason is Reason.ALL_AWAKE


def test_all_awake_equal_points_share_the_win():
    """A tie on points when all are awake is a shared win, winners ascending
    (REVEILLEZ.md « Winning »)."""
    table = standings(4, [[15, 10, 5], [10, 10, 5], [5, 5, 5], [20, 5, 5]], 0)
    assert table.winners == (0, 3) and table.reason is Reason.ALL_AWAKE
    assert table.as_dict()["winners"] == [0, 3]


def test_thresholds_before_all_awake():
    """A player who reaches a threshold with the last princess wins by it, even with fewer points
    (REVEILLEZ.md « Winning »)."""
    table = standings(3, [[5, 5, 5, 5, 5], [20, 10, 10, 5], [10, 10, 10]], 0)
    assert table.winners == (0,) and table.reason is Reason.PRINCESSES


def test_not_over_while_princesses_sleep():
    """Without a threshold the game goes on while a princess sleeps."""
    assert not standings(5, [[10, 10], [10, 5], [5, 5], [15], [20]], 4).is_over


def test_remaining_to_win():
    """The table shows how far each player is: "2 more princesses or 15 more points"."""
    table = evaluate([[20, 15], [], []], 10)
    assert (table.remaining(0).princesses, table.remaining(0).points) == (3, 15)
    assert (table.remaining(1).princesses, table.remaining(1).points) == (5, 50)
    over = evaluate([[20, 20, 20], [], []], 9)
    assert (over.remaining(0).princesses, over.remaining(0).points) == (2, 0)


@pytest.mark.parametrize(("players", "awake", "sleeping", "codes"), [
    (1, [[]], 12, ["players-range"]),
    (6, [[]] * 6, 12, ["players-range"]),
    ("3", [[], [], []], 12, ["players-range"]),
    (3, [[], []], 12, ["seats-mismatch"]),
    (3, "abc", 12, ["seats-mismatch"]),
    (3, [[5], [], []], 10, ["princess-count"]),
    (3, [[5], [], []], 12, ["princess-count"]),
    (3, [[], [], []], 13, ["sleeping-range"]),
    (3, [[], [], []], -1, ["sleeping-range"]),
    (3, [[0], [], []], 11, ["princess-value"]),
    (3, [[5], [60, 5], []], 9, ["princess-value"]),
    (7, [[5], [], []], 30, ["players-range", "sleeping-range"]),
])
def test_standings_refuses(players, awake, sleeping, codes):
    """Players outside 2–5, not one list per seat, princesses not adding up to 12, values outside
    1–50: every problem is listed (issue 11, 422)."""
    with pytest.raises(EntryError) as caught:
        standings(players, awake, sleeping)
    assert caught.value.codes == codes


def test_value_problem_names_its_seat():
    """A bad value's problem carries the seat it was found at."""
    with pytest.raises(EntryError) as caught:
        standings(3, [[5], [], [10, 0]], 9)
    assert caught.value.problems[0].seat == 2
