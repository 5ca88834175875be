"""One test per rule of a round (rulebook 004 « Les cartes »; KANAI_DUEL.md « Cards », « Deciding a
round », « Holds and points », « Next round »)."""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import (
    ABILITIES,
    CARDS,
    HAND,
    DuelCard,
    HeldRound,
    StepCode,
    resolve_round,
)

C = DuelCard
OTHERS = {card: [other for other in DuelCard if other is not card] for card in DuelCard}


def codes(result):
    return [step.code for step in result.steps]


# --- cards ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("card", "value"), [
    ("prince", 7), ("general", 6), ("wizard", 5), ("minister", 4), ("assassin", 3), ("spy", 2),
    ("princess", 1), ("clown", 0)])
def test_values_are_those_of_the_rulings_file(card, value):
    """KANAI_DUEL.md « Cards »: Prince 7, General 6, Wizard 5, Minister 4, Assassin 3, Spy 2,
    Princess 1, Clown 0."""
    assert DuelCard(card).strength == value


def test_each_hand_holds_the_eight_characters_once():
    """Rulebook « Préparation »: each player holds the same eight characters."""
    assert len(HAND) == 8 and HAND == frozenset(CARDS)
    assert sorted(card.strength for card in HAND) == list(range(8))


def test_each_card_declares_its_ability_once_on_its_own_class():
    """Every card has exactly one ability class, and that class names the card."""
    assert set(ABILITIES) == set(DuelCard)
    assert all(kind.card is card for card, kind in ABILITIES.items())
    assert len(set(ABILITIES.values())) == 8


# --- 1. the Wizard -------------------------------------------------------------------------------

@pytest.mark.parametrize("other", OTHERS[C.WIZARD])
def test_wizard_cancels_the_opponents_ability(other):
    """Rulebook « Wizard »: the opponent's ability is cancelled; only the values count."""
    result = resolve_round((C.WIZARD, other))
    assert result.standing == (True, False)
    assert result.winner == (0 if other.strength < 5 else 1)
    assert result.points in ((1, 0), (0, 1))  # a cancelled Minister never counts 2


def test_two_wizards_cancel_each_other():
    """KANAI_DUEL.md §1: two Wizards cancel each other; 5 against 5 is on hold."""
    result = resolve_round((C.WIZARD, C.WIZARD))
    assert result.standing == (False, False) and result.held
    assert codes(result)[0] is StepCode.TWINS_CANCEL


@pytest.mark.parametrize(("card", "carry"), [(C.GENERAL, "bonus"), (C.SPY, "reveal")])
def test_a_cancelled_ability_does_nothing_next_round_either(card, carry):
    """KANAI_DUEL.md §1: a General or Spy cancelled by a Wizard gives no +2 and no first reveal."""
    result = resolve_round((card, C.WIZARD))
    assert result.next_bonus == (0, 0) and result.reveals_first is None


def test_a_wizard_does_not_remove_a_generals_plus_two():
    """Rulebook « General »: the +2 stays against a Wizard: Assassin 3+2 against Wizard 5 → hold,
    which the app explains as « Wizard cancels the Assassin → 5 against 3+2 = 5 → on hold »."""
    result = resolve_round((C.WIZARD, C.ASSASSIN), bonus=(0, 2))
    assert result.held and result.values == (5, 5)
    sentences = [s.text() for s in result.steps if s.code not in (StepCode.BONUS,
                                                                   StepCode.BONUS_STAYS)]
    assert " → ".join(sentences) == "Wizard cancels the Assassin → 5 against 3+2 = 5 → on hold"
    assert StepCode.BONUS_STAYS in codes(result)


# --- 2. the Clown --------------------------------------------------------------------------------

@pytest.mark.parametrize("other", [c for c in OTHERS[C.CLOWN] if c is not C.WIZARD])
@pytest.mark.parametrize("bonus", [(0, 0), (0, 2), (2, 0)])
def test_clown_holds_the_round_and_cancels_every_other_ability(other, bonus):
    """Rulebook « Clown »; KANAI_DUEL.md §2: on hold whatever the values, no other ability counts
    (no Prince win, no Minister stake, no +2 or Spy next round)."""
    result = resolve_round((C.CLOWN, other), bonus=bonus)
    assert result.held and not result.game_won
    assert result.standing == (True, False)
    assert result.worth == (1, 1)
    assert result.next_bonus == (0, 0) and result.reveals_first is None


def test_two_clowns_put_the_round_on_hold():
    """Two Clowns: the round is on hold."""
    assert resolve_round((C.CLOWN, C.CLOWN)).held


@pytest.mark.parametrize("bonus", [(0, 0), (2, 0), (0, 2)])
def test_only_the_wizard_stops_the_clown(bonus):
    """Rulebook « Clown »: the Wizard's ability beats the Clown's; then 0 (or 2) loses to 5."""
    result = resolve_round((C.CLOWN, C.WIZARD), bonus=bonus)
    assert result.winner == 1 and result.standing == (False, True)


# --- 3. the Princess -----------------------------------------------------------------------------

@pytest.mark.parametrize("bonus", [(0, 0), (0, 2), (2, 0)])
def test_princess_against_the_prince_wins_the_game(bonus):
    """Rulebook « Princess »: against the opponent's Prince, the game is won at once, whatever the
    values; the round scores nothing and carries nothing."""
    result = resolve_round((C.PRINCE, C.PRINCESS), bonus=bonus)
    assert result.game_won and result.winner == 1
    assert result.points == (0, 0) and result.next_bonus == (0, 0)
    assert codes(result)[-1] is StepCode.PRINCESS


@pytest.mark.parametrize("other", [c for c in OTHERS[C.PRINCESS] if c is not C.PRINCE])
def test_princess_is_a_plain_one_against_any_other_card(other):
    """Against anything but the Prince, the Princess has no effect: never a game win."""
    assert not resolve_round((C.PRINCESS, other)).game_won


# --- 4. the Prince -------------------------------------------------------------------------------

@pytest.mark.parametrize("other", [C.GENERAL, C.MINISTER, C.ASSASSIN, C.SPY])
@pytest.mark.parametrize("bonus", [(0, 0), (0, 2)])
def test_prince_wins_whatever_the_values_and_the_assassin(other, bonus):
    """Rulebook « Prince »: the Prince wins the round; the Assassin does not reverse it."""
    result = resolve_round((C.PRINCE, other), bonus=bonus)
    assert result.winner == 0 and StepCode.PRINCE_WINS in codes(result)


@pytest.mark.parametrize(("bonus", "winner"), [((0, 0), None), ((2, 0), 0), ((0, 2), 1),
                                               ((2, 2), None)])
def test_two_princes_cancel_and_the_values_decide(bonus, winner):
    """Rulebook « Prince »: two Princes cancel; usually a tie, but a General's +2 decides."""
    result = resolve_round((C.PRINCE, C.PRINCE), bonus=bonus)
    assert result.winner == winner and result.standing == (False, False)


# --- 5. the Assassin and 6. the values -----------------------------------------------------------

@pytest.mark.parametrize(("pair", "bonus", "winner"), [
    ((C.ASSASSIN, C.GENERAL), (0, 0), 0), ((C.GENERAL, C.ASSASSIN), (0, 0), 1),
    ((C.ASSASSIN, C.SPY), (0, 0), 1), ((C.PRINCESS, C.ASSASSIN), (0, 0), 0),
    ((C.ASSASSIN, C.MINISTER), (2, 0), 1), ((C.ASSASSIN, C.ASSASSIN), (0, 2), 0),
    ((C.ASSASSIN, C.ASSASSIN), (0, 0), None), ((C.ASSASSIN, C.PRINCESS), (0, 2), None)])
def test_a_standing_assassin_makes_the_lower_value_win(pair, bonus, winner):
    """Rulebook « Assassin »: the lower effective value wins, whichever side played it; equal
    values are on hold."""
    assert resolve_round(pair, bonus=bonus).winner == winner


@pytest.mark.parametrize(("pair", "bonus", "winner"), [
    ((C.GENERAL, C.SPY), (0, 0), 0), ((C.SPY, C.PRINCESS), (0, 2), 1),
    ((C.GENERAL, C.GENERAL), (0, 0), None), ((C.MINISTER, C.GENERAL), (2, 0), None)])
def test_otherwise_the_higher_value_wins_and_equal_values_hold(pair, bonus, winner):
    """Rulebook « Comment jouer »: the higher value wins; equal values put the round on hold."""
    assert resolve_round(pair, bonus=bonus).winner == winner


# --- points and holds ----------------------------------------------------------------------------

@pytest.mark.parametrize("other", [C.SPY, C.PRINCESS])
def test_a_round_won_by_a_standing_minister_counts_two(other):
    """Rulebook « Minister »: a round won with it counts 2 wins."""
    result = resolve_round((other, C.MINISTER))
    assert result.points == (0, 2) and StepCode.MINISTER_WINS in codes(result)


def test_a_held_minister_round_is_worth_two_to_its_player_and_one_to_the_other():
    """Rulebook « Minister »: the effect holds on hold; « the next round is worth 3 to the
    Minister's player » = 2 for the held round + 1."""
    held = resolve_round((C.MINISTER, C.GENERAL), bonus=(2, 0))
    assert held.held and held.worth == (2, 1)
    taken = resolve_round((C.PRINCE, C.SPY), held=[held.as_held()], number=2)
    assert taken.points == (3, 0)
    lost = resolve_round((C.SPY, C.PRINCE), held=[held.as_held()], number=2)
    assert lost.points == (0, 2)


def test_the_winner_of_the_next_decided_round_takes_every_held_round():
    """KANAI_DUEL.md « Holds »: all held rounds go to the winner of the next decided round, each
    worth what it is worth to that player."""
    held = [HeldRound(1, (C.CLOWN, C.PRINCE), (1, 1)), HeldRound(2, (C.MINISTER, C.MINISTER),
                                                                  (2, 2))]
    result = resolve_round((C.GENERAL, C.SPY), held=held, number=3)
    assert result.points == (1 + 1 + 2, 0) and result.taken == tuple(held)
    assert StepCode.TAKES_HELD in codes(result)


def test_a_held_round_reports_no_winner_and_no_points():
    """KANAI_DUEL.md « Reporting a round »: a held round has no winner and 0 points each."""
    result = resolve_round((C.SPY, C.SPY))
    assert result.winner is None and result.points == (0, 0) and result.held


# --- next round ----------------------------------------------------------------------------------

@pytest.mark.parametrize("other", [C.PRINCE, C.GENERAL, C.MINISTER, C.ASSASSIN, C.SPY,
                                   C.PRINCESS])
def test_a_standing_general_gives_plus_two_win_or_lose(other):
    """Rulebook « General »: the next card gets +2, whether the General won, lost or tied."""
    assert resolve_round((C.GENERAL, other)).next_bonus[0] == 2


def test_two_generals_give_both_players_plus_two():
    """KANAI_DUEL.md « Next round »: two Generals in one round give both players +2."""
    result = resolve_round((C.GENERAL, C.GENERAL))
    assert result.held and result.next_bonus == (2, 2)


def test_a_round_held_for_equal_values_keeps_its_general_and_spy():
    """KANAI_DUEL.md « Next round »: a round on hold for equal values keeps the +2 and the Spy."""
    general = resolve_round((C.MINISTER, C.GENERAL), bonus=(2, 0))
    assert general.held and general.next_bonus == (0, 2)
    spy = resolve_round((C.MINISTER, C.SPY), bonus=(0, 2))
    assert spy.held and spy.reveals_first == 0


@pytest.mark.parametrize("other", [C.PRINCE, C.GENERAL, C.MINISTER, C.ASSASSIN, C.PRINCESS])
def test_a_standing_spy_makes_the_opponent_reveal_first(other):
    """Rulebook « Spy »: next round the opponent reveals first, whether the Spy won or lost."""
    assert resolve_round((other, C.SPY)).reveals_first == 0
    assert resolve_round((C.SPY, other)).reveals_first == 1


def test_two_spies_cancel_each_other():
    """Rulebook « Spy »: both Spies in the same round cancel: nobody reveals first."""
    result = resolve_round((C.SPY, C.SPY))
    assert result.reveals_first is None and result.standing == (False, False)


# --- steps ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("pair", "bonus", "english", "french"), [
    ((C.WIZARD, C.ASSASSIN), (0, 2),
     "player 2: +2 on the Assassin from the General → Wizard cancels the Assassin → the Wizard "
     "does not remove the General's +2 → 5 against 3+2 = 5 → on hold",
     "joueur 2\u00a0: +2 sur l'Assassin grâce au Général → le Magicien annule l'Assassin → le "
     "Magicien n'enlève pas le +2 du Général → 5 contre 3+2 = 5 → en attente"),
    ((C.CLOWN, C.PRINCE), (0, 0), "Clown cancels the Prince → on hold",
     "le Clown annule le Prince → en attente"),
    ((C.SPY, C.MINISTER), (0, 0),
     "2 against 4 → player 2 wins the round → Minister: the round counts 2 → player 2 scores 2 → "
     "Spy: player 2 reveals first next round",
     "2 contre 4 → joueur 2 gagne la manche → Ministre\u00a0: la manche compte 2 → joueur 2 "
     "marque 2 → Espion\u00a0: joueur 2 révèle en premier à la prochaine manche"),
])
def test_the_steps_of_the_reasoning_read_in_english_and_french(pair, bonus, english, french):
    """The steps are data rendered from the catalogue, in both languages."""
    result = resolve_round(pair, bonus=bonus)
    assert " → ".join(s.text("en") for s in result.steps) == english
    assert " → ".join(s.text("fr") for s in result.steps) == french


def test_steps_use_the_players_names_when_given():
    """A screen may pass the players' names instead of "player 1"."""
    result = resolve_round((C.PRINCE, C.SPY))
    assert [s.text("en", ["Ana", "Ben"]) for s in result.steps][-2:] == [
        "Ana wins the round", "Spy: Ana reveals first next round"]
