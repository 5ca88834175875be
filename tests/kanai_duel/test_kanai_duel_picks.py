"""Secret picks on two phones (issue 12, « Two-phone mode »): the round is revealed only when both
picks are in, a pick cannot change, and after a Spy the opponent picks first and only the Spy's
player sees that card before the reveal (rulebook 004 « Comment jouer », « Spy »)."""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import Card, Duel, Picks
from companion.scoring.problems import EntryError

C = Card


def test_both_picks_are_needed_before_the_reveal():
    """The round is played only once both players have picked."""
    duel = Duel()
    picks = Picks().pick(duel, 1, C.SPY)
    assert not picks.is_complete()
    with pytest.raises(EntryError) as error:
        picks.reveal(duel)
    assert error.value.codes == ["picks-missing"] and error.value.problems[0].seat == 0
    picks = picks.pick(duel, 0, C.GENERAL)
    result = picks.reveal(duel)
    assert result.cards == (C.GENERAL, C.SPY) and len(duel.results) == 1


def test_without_a_spy_nobody_sees_the_other_pick():
    """Before the reveal, neither player sees the other's card."""
    duel = Duel()
    picks = Picks().pick(duel, 0, C.PRINCE).pick(duel, 1, C.CLOWN)
    assert picks.seen_by(duel, 0) is None and picks.seen_by(duel, 1) is None


def test_a_pick_cannot_be_changed():
    """A player who has picked cannot pick again this round."""
    duel = Duel()
    picks = Picks().pick(duel, 0, C.PRINCE)
    with pytest.raises(EntryError) as error:
        picks.pick(duel, 0, C.CLOWN)
    assert error.value.codes == ["already-picked"]


def test_a_used_card_cannot_be_picked():
    """Each card is played once."""
    duel = Duel.from_notation("spy/general")
    with pytest.raises(EntryError) as error:
        Picks().pick(duel, 1, C.GENERAL)
    assert error.value.codes == ["card-played-twice"]


def test_after_a_spy_the_opponent_picks_first_and_only_the_spys_player_sees_it():
    """Rulebook « Spy »: player 1's Spy stood, so player 0 picks first; player 1 sees that card,
    player 0 never sees player 1's pick before the reveal."""
    duel = Duel.from_notation("general/spy")
    assert duel.reveals_first() == 0
    picks = Picks()
    assert picks.can_pick(duel, 0) and not picks.can_pick(duel, 1)
    with pytest.raises(EntryError) as error:
        picks.pick(duel, 1, C.PRINCE)
    assert error.value.codes == ["reveal-first-pending"]
    picks = picks.pick(duel, 0, C.WIZARD)
    assert picks.seen_by(duel, 1) is C.WIZARD and picks.can_pick(duel, 1)
    picks = picks.pick(duel, 1, C.GENERAL)
    assert picks.seen_by(duel, 0) is None
    picks.reveal(duel)
    assert duel.score() == (2, 0)  # General, then Wizard 5+2 against a cancelled General 6


def test_no_pick_once_the_game_is_over():
    """After the end, picks are refused with ``game-over``."""
    duel = Duel.from_notation("princess/prince")
    with pytest.raises(EntryError) as error:
        Picks().pick(duel, 0, C.SPY)
    assert error.value.codes == ["game-over"] and not Picks().can_pick(duel, 0)
