"""The pure function behind ``POST /api/v1/kanai-duel/resolve`` (issue 12, « JSON API »): the fixed
answer, and every 422 case as problems with codes, all listed at once."""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import resolve
from companion.scoring.problems import EntryError

ALL_CARDS = ["prince", "general", "wizard", "minister", "assassin", "spy", "princess", "clown"]


def codes_of(rounds, **options):
    with pytest.raises(EntryError) as error:
        resolve(rounds, **options)
    return error.value.codes


def test_the_issues_example_gives_exactly_the_issues_answer():
    """Issue 12: [spy, general], [minister, spy] → score 0-1, one held round, player 0 reveals
    first; the answer has exactly the contract's keys."""
    answer = resolve([["spy", "general"], ["minister", "spy"]]).as_dict()
    steps = [r.pop("steps") for r in answer["rounds"]]
    assert answer == {
        "rounds": [{"winner": 1, "points": [0, 1], "held": False},
                   {"winner": None, "points": [0, 0], "held": True}],
        "score": [0, 1], "held": 1,
        "next": {"bonus": [0, 0], "reveals_first": 0},
        "game_over": False, "winner": None, "result": None}
    assert all(isinstance(s, str) and s for round_steps in steps for s in round_steps)
    assert "4 against 2+2 = 4" in steps[1]


def test_no_rounds_is_the_start_of_a_game():
    """An empty list is a game not yet started."""
    assert resolve([]).as_dict() == {
        "rounds": [], "score": [0, 0], "held": 0, "next": {"bonus": [0, 0], "reveals_first": None},
        "game_over": False, "winner": None, "result": None}


@pytest.mark.parametrize(("rounds", "result", "winner"), [
    ([["princess", "spy"], ["prince", "princess"]], "princess", 1),
    ([["prince", "spy"], ["general", "princess"], ["wizard", "assassin"], ["assassin", "general"]],
     "win", 0),
    ([[card, card] for card in ALL_CARDS], "draw", None),
])
def test_the_end_of_the_game_is_reported_with_how_it_was_won(rounds, result, winner):
    """``result`` is win, princess or draw; ``winner`` the player, null for a draw."""
    answer = resolve(rounds).as_dict()
    assert (answer["game_over"], answer["result"], answer["winner"]) == (True, result, winner)
    assert answer["held"] == 0 and answer["next"] == {"bonus": [0, 0], "reveals_first": None}


def test_wins_needed_and_abilities_are_the_variants_g_and_h():
    """``wins_needed`` 3 is variant G; ``abilities`` none / clown_minister are the forms of H."""
    three = [["prince", "spy"], ["general", "princess"], ["wizard", "assassin"]]
    assert resolve(three, wins_needed=3).as_dict()["result"] == "win"
    assert resolve(three).as_dict()["result"] is None
    assert resolve([["princess", "prince"]], abilities="none").as_dict()["winner"] is None
    assert resolve([["princess", "prince"]], abilities="none").as_dict()["score"] == [0, 1]
    assert resolve([["clown", "wizard"]], abilities="clown_minister").as_dict()["held"] == 1


def test_a_held_round_taken_later_counts_in_that_rounds_points():
    """``points`` per round include the held rounds taken."""
    answer = resolve([["minister", "minister"], ["prince", "spy"]]).as_dict()
    assert [r["points"] for r in answer["rounds"]] == [[0, 0], [3, 0]]


def test_steps_can_be_french():
    """The same answer with French sentences."""
    answer = resolve([["clown", "prince"]]).as_dict("fr")
    assert answer["rounds"][0]["steps"] == ["le Clown annule le Prince", "en attente"]


# --- 422 cases -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("rounds", "codes"), [
    ([["spy", "joker"]], ["unknown-card"]),
    ([["spy", 3]], ["unknown-card"]),
    ([["spy", "general"], ["spy", "wizard"]], ["card-played-twice"]),
    ([["spy"]], ["round-not-two-cards"]),
    ([["spy", "general", "wizard"]], ["round-not-two-cards"]),
    (["spy"], ["round-not-two-cards"]),
    ([["princess", "prince"], ["spy", "spy"]], ["game-over"]),
    ([[c, c] for c in ALL_CARDS] + [["prince", "prince"]],
     ["too-many-rounds", "card-played-twice", "card-played-twice", "game-over"]),
    ("spy/general", ["rounds-not-a-list"]),
])
def test_bad_rounds_are_refused_with_every_problem(rounds, codes):
    """Unknown card, a card played twice, not two cards, a round after the end, more than 8."""
    assert codes_of(rounds) == codes


def test_every_problem_is_listed_at_once_with_its_seat_card_and_round():
    """Problems from several rounds and both seats come together, in order."""
    with pytest.raises(EntryError) as error:
        resolve([["spy", "joker"], ["wizard"], ["spy", "clown"], ["clown", "clown"]],
                wins_needed=0, abilities="some")
    assert error.value.codes == ["unknown-abilities", "bad-wins-needed", "unknown-card",
                                 "round-not-two-cards", "card-played-twice", "card-played-twice"]
    joker, _, twice, twice_again = error.value.problems[2:]
    assert joker.as_dict() | {"message": ""} == {"code": "unknown-card", "seat": 1,
                                                 "card": "joker", "message": ""}
    assert (twice.seat, twice.card, twice.params["round"], twice.params["first"]) == (
        0, "spy", 3, 1)
    assert (twice_again.seat, twice_again.params["round"]) == (1, 4)


def test_only_the_first_round_after_the_end_is_reported():
    """One ``game-over`` problem, at the first round after the end, naming the round it ended."""
    with pytest.raises(EntryError) as error:
        resolve([["princess", "prince"], ["spy", "spy"], ["clown", "clown"]])
    (problem,) = error.value.problems
    assert problem.params == {"round": 2, "ended": 1}


def test_card_names_ignore_case_and_spaces():
    """The API's cards are lowercase English; case and surrounding spaces are forgiven."""
    assert resolve([[" Spy", "GENERAL"]]).as_dict()["score"] == [0, 1]
