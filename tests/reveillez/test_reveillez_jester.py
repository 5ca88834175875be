"""The jester's count and the ``jester`` endpoint (rulebook « Action : Jouer un bouffon et tenter
sa chance ! »; REVEILLEZ.md « Turn actions »; issue 11)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import PowerCard, ReveillezCard, count_from, jester_count


def test_issue_examples():
    """The issue's two example answers, exactly."""
    assert jester_count(4, 0, 6).as_dict() == {"wakes": 1, "play_again": False}
    assert jester_count(4, 0, "chevalier").as_dict() == {"wakes": None, "play_again": True}


@pytest.mark.parametrize(("players", "seat", "number", "wakes"), [
    (4, 0, 1, 0),   # 1: the jester's own player
    (4, 0, 2, 1),
    (4, 0, 4, 3),
    (4, 0, 5, 0),   # around the table and back
    (4, 2, 3, 0),
    (3, 0, 4, 0),
    (3, 1, 10, 1),
    (2, 1, 2, 0),
    (5, 4, 7, 0),
    (5, 3, 10, 2),
])
def test_count_starts_with_the_jester_player_as_one(players, seat, number, wakes):
    """Count n players clockwise, the jester's player being 1; the last one counted wakes a
    princess (« comptez en commençant par vous »)."""
    assert jester_count(players, seat, number).wakes == wakes


def test_counting_path_is_every_seat_counted():
    """The path the table highlights lists the seats counted, in order."""
    count = jester_count(3, 2, 5)
    assert count.path == (2, 0, 1, 2, 0)
    assert count.wakes == count.path[-1] == 0
    assert len(jester_count(5, 0, 10).path) == 10


@pytest.mark.parametrize("power", list(PowerCard))
def test_power_card_means_play_again(power):
    """A revealed power card (prince, chevalier, dragon, potion, baguette, bouffon) goes to the
    jester's player, who plays again; nobody wakes a princess."""
    count = jester_count(3, 1, str(power))
    assert count.play_again and count.wakes is None and count.path == ()


def test_number_card_does_not_mean_play_again():
    """A number makes the seat reached wake a princess; the jester's player does not play again."""
    assert not count_from(3, 0, ReveillezCard(number=3)).play_again


@pytest.mark.parametrize(("players", "seat", "revealed", "codes"), [
    (1, 0, 5, ["players-range"]),
    (6, 0, 5, ["players-range"]),
    (4, 4, 5, ["seat-range"]),
    (4, -1, 5, ["seat-range"]),
    (4, "0", 5, ["seat-range"]),
    (4, 0, 0, ["number-range"]),
    (4, 0, 11, ["number-range"]),
    (4, 0, "joker", ["unknown-card"]),
    (4, 9, 11, ["seat-range", "number-range"]),
])
def test_jester_refuses(players, seat, revealed, codes):
    """Players outside 2–5, a seat outside the table, a number outside 1–10, an unknown card:
    every problem is listed (issue 11, 422)."""
    with pytest.raises(EntryError) as caught:
        jester_count(players, seat, revealed)
    assert caught.value.codes == codes


@given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1),
                                                      st.integers(1, 10))))
def test_count_walks_clockwise_one_seat_at_a_time(case):
    """For any table, seat and number: the path starts at the jester's player, moves one seat
    clockwise per step, has n steps, and ends on the seat that wakes."""
    players, seat, number = case
    count = jester_count(players, seat, number)
    assert count.path[0] == seat and len(count.path) == number
    assert all((b - a) % players == 1 for a, b in zip(count.path, count.path[1:], strict=False))
    assert count.wakes == count.path[-1] == (seat + number - 1) % players
