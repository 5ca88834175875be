"""Secret picks on two phones (issue 12, « Two-phone mode »): the round is revealed only when both
picks are in, a pick cannot change, and after a Spy the opponent picks first and only the Spy's
player sees that card before the reveal (rulebook 004 « Comment jouer », « Spy »)."""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import Duel, DuelCard, Picks, Rules
from companion.scoring.problems import EntryError

C = DuelCard


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


# --- variant B on two phones: the cards set aside are picked the same way ------------------------

SEVEN = Rules.with_variants(["seven"])


def test_under_b_the_first_picks_set_cards_aside_and_play_no_round():
    """Rulebook « Variantes », B: each player secretly chooses a card, both are revealed together
    and are out of the game; no round is played by that reveal."""
    duel = Duel(SEVEN)
    assert duel.awaits_set_aside()
    picks = Picks().pick(duel, 0, C.PRINCE)  # any of the eight, even the Prince
    assert picks.seen_by(duel, 1) is None and picks.can_pick(duel, 1)
    assert picks.pick(duel, 1, C.CLOWN).reveal(duel) is None
    assert duel.out == (C.PRINCE, C.CLOWN) and not duel.results and not duel.awaits_set_aside()
    assert duel.round_number() == 1 and len(duel.hand(0)) == 7


def test_a_card_set_aside_under_b_cannot_be_played_afterwards():
    """The card a player set aside is refused in every later pick (``card-set-aside``)."""
    duel = Duel(SEVEN)
    Picks().pick(duel, 0, C.SPY).pick(duel, 1, C.GENERAL).reveal(duel)
    with pytest.raises(EntryError) as error:
        Picks().pick(duel, 0, C.SPY)
    assert error.value.codes == ["card-set-aside"]
    assert Picks().pick(duel, 1, C.SPY).cards == (None, C.SPY)


def test_a_card_set_aside_cannot_be_changed():
    """A player who has set a card aside cannot set another (``already-set-aside``)."""
    duel = Duel(SEVEN)
    picks = Picks().pick(duel, 0, C.SPY)
    with pytest.raises(EntryError) as error:
        picks.pick(duel, 0, C.WIZARD)
    assert error.value.codes == ["already-set-aside"]


@pytest.mark.parametrize(("rules", "out"), [
    (Rules(), (None, None)),                  # no B: nothing to set aside
    (SEVEN, (C.SPY, C.CLOWN)),                # B with both cards known (one phone)
    (Rules.with_variants(["wanderlust"]), (None, None)),  # C: drawn at random, never picked
])
def test_only_b_with_unknown_cards_waits_for_them(rules, out):
    """Picks are round picks unless B's cards are still to be chosen; setting aside is then
    refused (``set-aside-closed``)."""
    duel = Duel(rules, out=out)
    assert not duel.awaits_set_aside()
    with pytest.raises(EntryError) as error:
        duel.set_aside(C.PRINCE, C.PRINCE)
    assert error.value.codes == ["set-aside-closed"]


def test_cards_are_set_aside_once():
    """After the reveal of the cards set aside, setting aside again is refused."""
    duel = Duel(SEVEN)
    duel.set_aside(C.SPY, C.CLOWN)
    with pytest.raises(EntryError) as error:
        duel.set_aside(C.PRINCE, C.PRINCE)
    assert error.value.codes == ["set-aside-closed"] and duel.out == (C.SPY, C.CLOWN)
