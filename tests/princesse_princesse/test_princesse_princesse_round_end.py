"""The end of a round: winners, ties, Spy and Princesses bonuses, tokens, game end, next starter.

Rulebook (002) « Fin de la manche », « Remporter la partie », « Claire l'espionne », « Princesses
Amira & Sadie », « Commencer la manche suivante »; PRINCESSE_PRINCESSE.md « End of a round and
tokens » and « End of the game ».
"""

from __future__ import annotations

import random

import pytest

from companion.scoring.princesse_princesse import (
    AwardReason,
    BonusKind,
    RoundReveal,
    check_reveal,
    draw_first_player,
    round_end,
    settle_round,
)
from companion.scoring.problems import EntryError


def codes(callable_, *args):
    with pytest.raises(EntryError) as caught:
        callable_(*args)
    return caught.value.codes


# ---- the JSON contract -------------------------------------------------------------------------

def test_issue_example_gives_exactly_the_contract_answer():
    """The issue's request gives exactly the issue's response."""
    answer = round_end(3, [7, 8, None], [[1], [4, 0], [2, 9]], [0, 2, 1])
    assert answer.as_dict() == {
        "round_winners": [1], "bonuses": [{"seat": 1, "kind": "spy"}],
        "tokens_gained": [0, 2, 0], "tokens_after": [0, 4, 1], "threshold": 5,
        "game_over": False, "game_winners": [], "next_first_candidates": [1]}


@pytest.mark.parametrize(("args", "code"), [
    ((1, [5], [[]], [0]), "players-out-of-range"),
    ((7, [5] * 7, [[]] * 7, [0] * 7), "players-out-of-range"),
    ((3, [5, 4], [[], [], []], [0, 0, 0]), "wrong-length"),
    ((3, [5, 4, None], [[], []], [0, 0, 0]), "wrong-length"),
    ((3, [5, 4, None], [[], [], []], [0, 0]), "wrong-length"),
    ((3, [5, 10, None], [[], [], []], [0, 0, 0]), "value-out-of-range"),
    ((3, [5, 4, None], [[-1], [], []], [0, 0, 0]), "value-out-of-range"),
    ((3, [8, 4, None], [[8], [], []], [0, 0, 0]), "too-many-copies"),
    ((3, [1, 1, None], [[1, 1], [1, 1], [1]], [0, 0, 0]), "too-many-copies"),
    ((3, [None, None, None], [[9], [3], [1]], [0, 0, 0]), "nobody-in"),
    ((3, [5, 4, None], [[], [], []], [0, -1, 0]), "negative-tokens"),
])
def test_every_refused_request_names_its_problem(args, code):
    """Each 422 case of the issue comes back as a problem with its code."""
    assert code in codes(round_end, *args)


def test_every_problem_is_listed_not_only_the_first():
    """A request with several mistakes gets every one of them."""
    found = codes(round_end, 3, [None, None, 12], [[9, 9], [], []], [0, -2, 0])
    assert set(found) == {"value-out-of-range", "too-many-copies", "negative-tokens"}
    assert codes(round_end, 3, [None, None, None], [[], []], [0, -2, 0]) == [
        "wrong-length", "nobody-in", "negative-tokens"]


def test_problems_name_the_seat_and_card():
    """Problems carry the seat (negative tokens) and the card (too many copies)."""
    with pytest.raises(EntryError) as caught:
        round_end(2, [9, 3], [[9], []], [0, -1])
    by_code = {p.code: p for p in caught.value.problems}
    assert by_code["too-many-copies"].card == "9"
    assert by_code["negative-tokens"].seat == 1


# ---- who wins the round ------------------------------------------------------------------------

def test_last_player_in_wins_whatever_their_card():
    """« Dernier-ère joueur-euse en lice »: the only player still in wins the round."""
    result = settle_round(RoundReveal.of([None, None, 0]), [0, 0, 0])
    assert result.round_winners == (2,)
    assert result.awards[0].reason is AwardReason.LAST_IN


def test_last_player_in_needs_not_show_a_card():
    """The sole survivor wins without a revealed card (fast path)."""
    reveal = RoundReveal.of([None, None, None], still_in=[1])
    assert check_reveal(reveal) == []
    assert settle_round(reveal, [0, 0, 0]).round_winners == (1,)


def test_highest_card_wins_when_the_deck_ran_out():
    """« Épuisement de la pioche »: the highest card among the players still in wins a token."""
    result = settle_round(RoundReveal.of([3, 9, None, 8]), [0, 0, 0, 0])
    assert result.round_winners == (1,)
    assert result.tokens_gained == (0, 1, 0, 0)
    assert result.awards[0].reason is AwardReason.HIGHEST and result.awards[0].card == 9


@pytest.mark.parametrize(("held", "winners"), [
    ([5, 5, 2], (0, 1)),
    ([1, 1, 1], (0, 1, 2)),
    ([None, 1, 1, 1, 0], (1, 2, 3)),
])
def test_a_tie_gives_every_tied_player_the_round_and_a_token(held, winners):
    """« En cas d'égalité »: every tied player wins the round and a token (no tie-break)."""
    tokens = [0] * len(held)
    result = settle_round(RoundReveal.of(held), tokens)
    assert result.round_winners == winners
    assert all(result.tokens_gained[seat] == 1 for seat in winners)
    assert sum(result.tokens_gained) == len(winners)
    assert {a.reason for a in result.awards} == {AwardReason.TIED}


def test_a_tie_is_not_broken_by_the_discards():
    """PRINCESSE_PRINCESSE.md: no discard-sum tie-break, unlike classic Love Letter."""
    answer = round_end(3, [6, 6, None], [[1], [7, 5, 4], [9, 3]], [0, 0, 0])
    assert answer.round_winners == (0, 1)
    assert answer.tokens_gained == (1, 1, 0)


# ---- the Spy bonus -----------------------------------------------------------------------------

def test_spy_bonus_to_the_only_player_still_in_with_a_spy():
    """Exactly one player still in with a Spy in front of them gains a token (not the winner)."""
    answer = round_end(3, [2, 8, 1], [[0], [], [1]], [0, 0, 0])
    assert answer.round_winners == (1,)
    assert answer.tokens_gained == (1, 1, 0)
    assert [(b.seat, b.kind) for b in answer.bonuses] == [(0, BonusKind.SPY)]


def test_two_players_in_with_spies_block_the_bonus():
    """If two players still in each have a Spy, nobody gains the Spy bonus."""
    answer = round_end(3, [2, 8, 1], [[0], [], [0]], [0, 0, 0])
    assert answer.bonuses == ()
    assert answer.tokens_gained == (0, 1, 0)


def test_spy_of_a_player_out_neither_counts_nor_blocks():
    """Spies in front of players who left the round do not count and do not block it."""
    answer = round_end(3, [2, 8, None], [[0], [], [0, 9]], [0, 0, 0])
    assert [(b.seat, b.kind) for b in answer.bonuses] == [(0, BonusKind.SPY)]
    nobody = round_end(3, [2, 8, None], [[], [], [0, 9]], [0, 0, 0])
    assert nobody.bonuses == ()


def test_both_spies_give_one_token_only():
    """« Vous ne gagnez qu'un seul jeton Faveur, même si vous jouez … les deux Espionnes »."""
    answer = round_end(2, [2, 5], [[0, 0], [1]], [0, 0])
    assert answer.tokens_gained == (1, 1)


def test_round_winner_with_the_spy_bonus_gains_two():
    """The Spy bonus is not a round win: a winner who also earns it gains 2 tokens."""
    answer = round_end(3, [None, 8, None], [[9, 1], [0], [3, 2]], [0, 0, 0])
    assert answer.round_winners == (1,)
    assert answer.tokens_gained == (0, 2, 0)
    assert {a.reason for a in answer.awards} == {AwardReason.LAST_IN, AwardReason.SPY}


def test_spy_held_at_the_end_does_not_count():
    """Only a Spy played or discarded counts; one still in hand at the end does not."""
    answer = round_end(2, [0, 5], [[1], [1]], [0, 0])
    assert answer.bonuses == () and answer.tokens_gained == (0, 1)


def test_spy_discarded_when_hit_by_vladric_counts():
    """« Discarded » includes the hand discarded through Vladric (it lies in the discards)."""
    answer = round_end(2, [2, 5], [[0, 1], [5]], [0, 0])  # seat 0's Spy went through Vladric
    assert [(b.seat, b.kind) for b in answer.bonuses] == [(0, BonusKind.SPY)]


# ---- the Princesses bonus ----------------------------------------------------------------------

def test_princesses_bonus_to_two_different_players_still_in():
    """Two different players still in, each with a Princesses card: one token each."""
    answer = round_end(3, [1, 2, 8], [[6], [6], []], [0, 0, 0])
    assert answer.tokens_gained == (1, 1, 1)
    assert [(b.seat, b.kind) for b in answer.bonuses] == [
        (0, BonusKind.PRINCESSES), (1, BonusKind.PRINCESSES)]


def test_one_player_with_both_princesses_gains_nothing():
    """A player with both Princesses cards gains nothing from them."""
    answer = round_end(3, [1, 2, 8], [[6, 6], [], []], [0, 0, 0])
    assert answer.bonuses == ()


def test_a_player_out_breaks_the_princesses_pair():
    """A player who left the round breaks the pair: nobody gains the Princesses bonus."""
    answer = round_end(3, [1, None, 8], [[6], [6, 3], []], [0, 0, 0])
    assert answer.bonuses == ()
    assert answer.tokens_gained == (0, 0, 1)


def test_winner_can_also_take_the_princesses_bonus():
    """The Princesses bonus adds to a round win."""
    answer = round_end(2, [8, 2], [[6], [6]], [0, 0])
    assert answer.tokens_gained == (2, 1)


def test_princesses_discarded_on_leaving_count_only_if_still_in():
    """A Princesses card discarded through Vladric counts for a player still in."""
    answer = round_end(3, [3, 4, None], [[6, 1], [5, 6], [9, 2]], [0, 0, 0])
    assert answer.tokens_gained == (1, 2, 0)


# ---- tokens and the end of the game ------------------------------------------------------------

@pytest.mark.parametrize(("players", "threshold"), [(2, 6), (3, 5), (4, 4), (5, 3), (6, 3)])
def test_game_ends_when_a_player_reaches_the_threshold(players, threshold):
    """« Remporter la partie »: the game ends when someone has the tokens needed."""
    held = [9] + [None] * (players - 1)
    before = [threshold - 1] + [0] * (players - 1)
    result = settle_round(RoundReveal.of(held), before)
    assert result.threshold == threshold
    assert result.game_over and result.game_winners == (0,)
    short = settle_round(RoundReveal.of(held), [threshold - 2] + [0] * (players - 1))
    assert not short.game_over and short.game_winners == ()


def test_several_players_can_win_the_game_together():
    """« Il est possible que plusieurs joueurs-euses remportent la partie simultanément »."""
    answer = round_end(4, [6, 6, 2, None], [[], [], [], [9]], [3, 3, 3, 0])
    assert answer.game_over and answer.game_winners == (0, 1)


def test_a_bonus_token_can_win_the_game_for_a_player_who_lost_the_round():
    """Tokens (bonuses included) are counted before the threshold is checked."""
    answer = round_end(4, [8, 2, None, None], [[], [0], [9], [3]], [0, 3, 0, 0])
    assert answer.round_winners == (0,)
    assert answer.game_over and answer.game_winners == (1,)


def test_players_already_past_the_threshold_are_winners_too():
    """Every player at or above the threshold after the round wins."""
    answer = round_end(5, [8, 2, None, None, None], [[], [], [9], [3], [1]], [0, 4, 0, 0, 0])
    assert answer.game_winners == (1,)


# ---- who starts the next round -----------------------------------------------------------------

def test_next_round_starts_with_the_round_winner():
    """« La personne qui a remporté la manche précédente effectue son tour en premier »."""
    answer = round_end(4, [None, 3, None, None], [[9], [], [1], [3]], [0, 0, 0, 0])
    assert answer.next_first_candidates == (1,)
    assert draw_first_player(answer.next_first_candidates, random.Random(0)) == 1


def test_tied_winners_are_all_candidates_and_one_is_drawn_with_the_given_rng():
    """« En cas d'égalité … déterminez au hasard »: the caller's Random draws among the tied."""
    answer = round_end(4, [1, None, 1, 1], [[], [9], [], []], [0, 0, 0, 0])
    assert answer.next_first_candidates == (0, 2, 3)
    drawn = {draw_first_player(answer.next_first_candidates, random.Random(seed))
             for seed in range(40)}
    assert drawn == {0, 2, 3}
    first = draw_first_player((3, 0, 2), random.Random(7))
    assert first == draw_first_player((0, 2, 3), random.Random(7))


def test_no_next_round_candidates_once_the_game_is_over():
    """App decision: a finished game has no next round, so no candidates."""
    answer = round_end(6, [5, None, None, None, None, None], [[], [9], [1], [1], [1], [1]],
                       [2, 0, 0, 0, 0, 0])
    assert answer.game_over and answer.next_first_candidates == ()


def test_drawing_among_nobody_is_refused():
    """Nobody to draw from is a problem, not a crash."""
    assert codes(draw_first_player, [], random.Random(1)) == ["no-candidates"]


# ---- the fast path's reveal --------------------------------------------------------------------

def test_fast_path_bonus_questions_only_when_they_can_matter():
    """The Spy question is asked whenever someone is in; Princesses only with two or more in."""
    assert RoundReveal.of([None, 4, None]).bonus_questions() == (BonusKind.SPY,)
    assert RoundReveal.of([1, 4, None]).bonus_questions() == (BonusKind.SPY, BonusKind.PRINCESSES)


@pytest.mark.parametrize(("reveal", "code"), [
    (RoundReveal.of([None, None], still_in=[0, 1]), "card-missing"),
    (RoundReveal.of([3, 4, None], still_in=[0]), "card-for-player-out"),
    (RoundReveal.of([3, 4, None], spies=[2]), "spy-seat-out"),
    (RoundReveal.of([3, 4, None], princesses=[2]), "princesses-seat-out"),
    (RoundReveal.of([0, 0, 4], spies=[2]), "too-many-copies"),
    (RoundReveal.of([3, 4, None], still_in=[0, 1, 5]), "unknown-seat"),
    (RoundReveal.of([None, None, None], still_in=[]), "nobody-in"),
    (RoundReveal.of([3]), "players-out-of-range"),
])
def test_fast_path_reveal_problems(reveal, code):
    """A reveal tapped on the round-end screen is checked before any token moves."""
    assert code in [p.code for p in check_reveal(reveal)]
    with pytest.raises(EntryError):
        settle_round(reveal, [0] * reveal.players)


def test_awards_say_why_each_token_moved():
    """Every token comes with its reason (for « Ben: highest card (Céleste 8) »)."""
    result = settle_round(RoundReveal.of([2, 8, 4], spies=[0], princesses=[1, 2]), [0, 0, 0])
    assert [(a.seat, a.reason, a.card) for a in result.awards] == [
        (0, AwardReason.SPY, None), (1, AwardReason.HIGHEST, 8),
        (1, AwardReason.PRINCESSES, None), (2, AwardReason.PRINCESSES, None)]
    assert result.tokens_gained == (1, 2, 1)


def test_a_seat_given_both_bonuses_lists_the_spy_first():
    """Bonuses and awards are listed by seat, then in the order their kinds are declared: a seat
    given both bonuses has the Spy's first, its win before its bonuses."""
    result = settle_round(RoundReveal.of([2, 8, 4], spies=[1], princesses=[2, 1]), [0, 0, 0])
    assert [(b.seat, b.kind) for b in result.bonuses] == [
        (1, BonusKind.SPY), (1, BonusKind.PRINCESSES), (2, BonusKind.PRINCESSES)]
    assert [(a.seat, a.reason) for a in result.awards] == [
        (1, AwardReason.HIGHEST), (1, AwardReason.SPY), (1, AwardReason.PRINCESSES),
        (2, AwardReason.PRINCESSES)]
