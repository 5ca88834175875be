"""A whole game of favour tokens: rounds in order, who starts each, the end with every winner.

Rulebook (002) « Mise en place » (first player), « Commencer la manche suivante », « Remporter la
partie »; PRINCESSE_PRINCESSE.md « Set-up » and « End of the game ».
"""

from __future__ import annotations

import random

import pytest

from companion.scoring.princesse_princesse import (
    RoundReveal,
    StartReason,
    StoredRound,
    add_round,
    draw_first_player,
    new_game,
    replay_game,
)
from companion.scoring.problems import EntryError


def last_in(players: int, seat: int) -> RoundReveal:
    """A round won by ``seat`` as the last player still in."""
    return RoundReveal.of([None] * players, still_in=[seat])


def test_first_round_is_started_by_the_players_choice():
    """« Celui ou celle … qui a rédigé une lettre manuscrite le plus récemment »: the table says."""
    game = new_game(4, 2)
    assert game.round_number == 1 and game.next_first == 2
    assert game.next_reason is StartReason.CHOSEN and game.threshold == 4


def test_next_round_is_started_by_the_previous_winner():
    """« La personne qui a remporté la manche précédente effectue son tour en premier »."""
    game = replay_game(4, 0, [StoredRound(0, last_in(4, 3))])
    assert game.next_first == 3 and game.next_reason is StartReason.WON
    assert game.first_problems(1) and [p.code for p in game.first_problems(1)] == [
        "first-not-a-candidate"]


def test_after_a_tie_a_drawn_winner_starts():
    """« En cas d'égalité … au hasard … parmi les concerné(e)s »: the drawn seat is stored."""
    game = replay_game(3, 0, [StoredRound(0, RoundReveal.of([6, 6, 2]))])
    assert game.next_candidates == (0, 1) and game.next_first is None
    assert game.next_reason is StartReason.DRAWN
    drawn = draw_first_player(game.next_candidates, random.Random(3))
    after = add_round(game, StoredRound(drawn, last_in(3, 2)))
    assert after.rounds[-1].first == drawn and after.rounds[-1].first_reason is StartReason.DRAWN
    with pytest.raises(EntryError) as caught:
        add_round(game, StoredRound(2, last_in(3, 2)))
    assert caught.value.codes == ["first-not-a-candidate"]
    assert caught.value.problems[0].params["round"] == 2


def test_tokens_add_up_round_after_round():
    """Each round's tokens are added to the board."""
    rounds = [StoredRound(0, last_in(4, 1)), StoredRound(1, last_in(4, 1)),
              StoredRound(1, RoundReveal.of([2, 5, None, None], spies=[0]))]
    game = replay_game(4, 0, rounds)
    assert game.tokens == (1, 3, 0, 0)
    assert [line.tokens_before for line in game.rounds] == [(0, 0, 0, 0), (0, 1, 0, 0),
                                                            (0, 2, 0, 0)]
    assert game.round_number == 4


def test_the_game_ends_with_every_player_at_the_threshold():
    """« Plusieurs joueurs-euses [peuvent remporter] la partie simultanément »; then no round."""
    rounds = [StoredRound(0, RoundReveal.of([4, 4, None, None, None]))] * 2
    rounds.append(StoredRound(1, RoundReveal.of([3, 3, None, None, None])))
    game = replay_game(5, 0, rounds)
    assert game.game_over and game.winners == (0, 1) and game.tokens == (3, 3, 0, 0, 0)
    assert game.next_candidates == () and game.next_reason is None
    with pytest.raises(EntryError) as caught:
        add_round(game, StoredRound(0, last_in(5, 0)))
    assert caught.value.codes == ["game-already-over"]


def test_round_problems_carry_the_round_number():
    """A bad round in a stored game says which round it is."""
    with pytest.raises(EntryError) as caught:
        replay_game(3, 0, [StoredRound(0, last_in(3, 0)),
                           StoredRound(0, RoundReveal.of([None, 4, 4], still_in=[0, 1, 2]))])
    assert "card-missing" in caught.value.codes
    assert {p.params["round"] for p in caught.value.problems} == {2}


@pytest.mark.parametrize(("players", "first", "code"), [
    (1, 0, "players-out-of-range"), (4, 4, "unknown-seat"), (4, -1, "unknown-seat")])
def test_new_game_problems(players, first, code):
    """A game is for 2–6 players with a first player among them."""
    with pytest.raises(EntryError) as caught:
        new_game(players, first)
    assert caught.value.codes == [code]


def test_a_reveal_for_another_player_count_is_refused():
    """Every round of a game has one card slot per player of the game."""
    with pytest.raises(EntryError) as caught:
        add_round(new_game(4, 0), StoredRound(0, last_in(3, 0)))
    assert caught.value.codes == ["wrong-length"]


def test_a_whole_two_player_game_needs_six_tokens():
    """At two players the game goes on until someone has 6 tokens."""
    game = new_game(2, 0)
    first = 0
    while not game.game_over:
        game = add_round(game, StoredRound(first, last_in(2, 1)))
        first = game.next_first if game.next_first is not None else first
    assert game.round_number == 7 and game.winners == (1,) and game.tokens == (0, 6)


def test_stored_history_keeps_who_really_started_after_an_edit():
    """Replaying stored rounds without the starter check keeps the recorded starter as the
    table's choice (an earlier round was edited), instead of refusing the whole history."""
    rounds = [StoredRound(0, last_in(3, 2)), StoredRound(1, last_in(3, 1))]
    with pytest.raises(EntryError):
        replay_game(3, 0, rounds)
    game = replay_game(3, 0, rounds, check_first=False)
    assert game.rounds[1].first == 1 and game.rounds[1].first_reason is StartReason.CHOSEN
    assert game.tokens == (0, 1, 1)
