"""The game state: rounds played in order, holds across rounds, the end of the game, undo, and the
examples of KANAI_DUEL.md (rulebook 004 « Fin du jeu »; KANAI_DUEL.md « Holds and points »,
« Reporting a round », « End »)."""

from __future__ import annotations

import pytest

from companion.scoring import kanai_duel
from companion.scoring.kanai_duel import (
    Duel,
    DuelCard,
    Result,
    StepCode,
)
from companion.scoring.problems import EntryError

C = DuelCard


def duel(notation: str) -> Duel:
    return Duel.from_notation(notation)


# --- the examples of KANAI_DUEL.md ---------------------------------------------------------------

def test_example_minister_against_minister_then_prince_against_spy():
    """KANAI_DUEL.md « Holds and points »: A Minister vs B Minister → hold (worth 2 to each);
    A Prince vs B Spy → A takes 2 + 1 = 3."""
    game = duel("minister/minister")
    assert [h.worth for h in game.held()] == [(2, 2)] and game.score() == (0, 0)
    result = game.play(C.PRINCE, C.SPY)
    assert result.points == (3, 0) and game.score() == (3, 0) and game.held() == ()


def test_example_a_held_minister_round_adds_two_to_the_round_that_takes_it():
    """KANAI_DUEL.md « Reporting a round »: the deciding round's points include the held rounds
    it takes (1 + 2 for a held Minister round)."""
    game = duel("general/princess minister/general")  # Minister 4+2 against General 6: on hold
    assert game.results[-1].held and game.held()[0].worth == (2, 1)
    result = game.play(C.ASSASSIN, C.PRINCE)  # General's +2 on player 1's Prince: Prince wins
    assert result.points == (0, 1 + 1)
    game.pop()
    result = game.play(C.SPY, C.ASSASSIN)  # lower wins: Spy 2 against Assassin 3+2
    assert result.points == (1 + 2, 0)


def test_example_the_princess_win_scores_nothing_and_empties_the_holds():
    """KANAI_DUEL.md « Reporting a round »: the Princess's win: winner her player, no points, the
    rounds on hold go to nobody (0 left on hold), nothing carries over."""
    game = duel("general/general clown/spy")
    assert len(game.held()) == 2
    result = game.play(C.PRINCE, C.PRINCESS)
    assert result.winner == 1 and result.points == (0, 0)
    assert game.held() == () and game.bonus() == (0, 0) and game.reveals_first() is None
    outcome = game.outcome()
    assert outcome.result is Result.PRINCESS and outcome.winner == 1 and outcome.lost == 2
    assert outcome.score == (0, 0)


def test_example_of_the_issue_spy_general_then_minister_spy():
    """Issue 12's API example: [spy, general], [minister, spy] → score 0-1, one round on hold,
    player 0 reveals first, no +2 pending."""
    game = duel("spy/general minister/spy")
    assert game.score() == (0, 1) and len(game.held()) == 1
    assert game.reveals_first() == 0 and game.bonus() == (0, 0) and not game.is_over()


# --- the end of the game -------------------------------------------------------------------------

def test_the_first_player_to_four_wins_wins_at_once():
    """Rulebook « Fin du jeu »: the game ends as soon as a player has 4 wins."""
    game = duel("prince/spy general/princess wizard/assassin")
    assert game.score() == (3, 0) and not game.is_over()
    result = game.play(C.ASSASSIN, C.GENERAL)
    assert game.is_over() and game.outcome().result is Result.WIN
    assert game.outcome().winner == 0 and result.outcome == game.outcome()
    assert result.steps[-1].code is StepCode.GAME_WON


def test_wins_may_overshoot_four():
    """KANAI_DUEL.md « End »: 4 wins or more (a Minister or held rounds can jump from 3 to 5)."""
    game = duel("prince/general general/princess wizard/assassin")  # 1 + 1 (3 against 6) + 1
    assert game.score() == (3, 0)
    game.play(C.MINISTER, C.SPY)
    assert game.score() == (5, 0) and game.outcome().winner == 0


def test_eight_rounds_without_four_wins_is_a_draw():
    """Rulebook « Fin du jeu »: all cards played without 4 wins: a draw."""
    game = duel("prince/general general/prince clown/clown wizard/wizard minister/minister "
                "assassin/assassin spy/spy")
    assert not game.is_over()
    game.play(C.PRINCESS, C.PRINCESS)
    outcome = game.outcome()
    assert outcome.result is Result.DRAW and outcome.winner is None and outcome.round == 8
    assert outcome.lost == 6 and game.held() == ()


def test_rounds_still_on_hold_at_the_end_go_to_nobody():
    """KANAI_DUEL.md « Holds »: held rounds go to nobody if the game ends first."""
    game = duel("prince/general general/prince clown/clown wizard/wizard minister/minister "
                "assassin/assassin spy/spy princess/princess")
    assert game.score() == (1, 1) and game.outcome().lost == 6
    assert game.results[-1].steps[-1].code is StepCode.HELD_LOST


def test_nothing_carries_over_once_the_game_is_over():
    """A General or Spy in the deciding round gives nothing: there is no next round."""
    game = duel("prince/clown general/princess wizard/assassin")  # 0, 1 + 1 held, 1: 3 wins
    assert game.score() == (3, 0)
    result = game.play(C.ASSASSIN, C.GENERAL)  # the lower wins: the fourth win
    assert game.is_over() and result.next_bonus == (0, 0) and result.reveals_first is None
    assert game.bonus() == (0, 0) and game.reveals_first() is None
    assert StepCode.GENERAL not in [s.code for s in result.steps]


def test_no_round_is_played_after_the_end():
    """The app refuses a round after the game has ended."""
    game = duel("princess/prince")
    with pytest.raises(EntryError) as error:
        game.play(C.SPY, C.SPY)
    assert error.value.codes == ["game-over"]
    assert game.hand(0) == frozenset() and not game.is_legal(0, C.SPY)


# --- queries and commands ------------------------------------------------------------------------

def test_each_card_is_played_once_per_player():
    """A card played stays on the table: playing it again is refused, for each player at once."""
    game = duel("spy/spy")
    with pytest.raises(EntryError) as error:
        game.play(C.SPY, C.SPY)
    assert error.value.codes == ["card-played-twice", "card-played-twice"]
    assert [p.seat for p in error.value.problems] == [0, 1]
    assert error.value.problems[0].params["first"] == 1
    assert len(game.results) == 1  # nothing changed


def test_used_cards_and_hands_follow_the_rounds():
    """Each player's used cards are queried apart; the hand is what is left."""
    game = duel("spy/general minister/spy")
    assert game.used(0) == {C.SPY, C.MINISTER} and game.used(1) == {C.GENERAL, C.SPY}
    assert game.hand(0) == frozenset(DuelCard) - {C.SPY, C.MINISTER}
    assert game.is_legal(1, C.MINISTER) and not game.is_legal(1, C.SPY)
    assert game.round_number() == 3


def test_pending_bonus_and_reveal_order_are_queries():
    """Who reveals first next round and the +2 pending are on the state."""
    game = duel("general/spy")
    assert game.bonus() == (2, 0) and game.reveals_first() == 0
    game.play(C.PRINCESS, C.ASSASSIN)  # Princess 1+2 against Assassin 3: on hold
    assert game.results[-1].held and game.bonus() == (0, 0) and game.reveals_first() is None


def test_a_generals_plus_two_applies_to_the_very_next_card_only():
    """KANAI_DUEL.md « Next round »: +2 on the next card only, even if that round is on hold."""
    game = duel("general/prince")
    assert game.bonus() == (2, 0)
    held = game.play(C.PRINCESS, C.ASSASSIN)  # 1+2 against 3, the lower wins: equal, on hold
    assert held.bonus == (2, 0) and held.held and game.bonus() == (0, 0)
    assert game.play(C.SPY, C.CLOWN).bonus == (0, 0)


def test_held_rounds_say_what_each_is_worth_to_whom():
    """The rounds on hold are listed with their number, cards and worth to each player."""
    game = duel("minister/minister clown/prince")
    assert [(h.number, h.cards, h.worth) for h in game.held()] == [
        (1, (C.MINISTER, C.MINISTER), (2, 2)), (2, (C.CLOWN, C.PRINCE), (1, 1))]


def test_pop_takes_back_the_last_round_exactly():
    """Undo restores the score, holds, +2, reveal order and used cards of before."""
    game = duel("general/spy minister/minister")
    before = game.standing
    game.play(C.PRINCE, C.PRINCESS)
    assert game.is_over()
    game.pop()
    assert game.standing == before and not game.is_over()
    while game.results:
        game.pop()
    assert game.score() == (0, 0) and game.used(0) == frozenset()
    with pytest.raises(EntryError) as error:
        game.pop()
    assert error.value.codes == ["nothing-to-undo"]


def test_notation_round_trips():
    """``str(duel)`` gives the notation back, and ``repr`` rebuilds the game."""
    text = "spy/general minister/spy clown/wizard"
    game = duel(text)
    assert str(game) == text
    assert str(eval(repr(game), vars(kanai_duel))) == text


@pytest.mark.parametrize(("text", "code"), [("spy/general/wizard", "round-not-two-cards"),
                                            ("spy/joker", "unknown-card")])
def test_bad_notation_is_refused_with_a_code(text, code):
    """Malformed notation raises an EntryError with a problem code."""
    with pytest.raises(EntryError) as error:
        duel(text)
    assert error.value.codes == [code]


def test_push_trusts_its_input_and_play_checks_it():
    """``push`` is the trusted path (replaying stored rounds); ``play`` checks first."""
    game = Duel().replay([(C.SPY, C.SPY), (C.CLOWN, C.PRINCE)])
    assert len(game.results) == 2 and len(game.held()) == 2
