"""The variants the app offers (rulebook 004 « Variantes » G, H, Q, B, C; KANAI_DUEL.md « Variants
the app offers »)."""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import (
    RULES,
    VARIANTS,
    Abilities,
    Duel,
    DuelCard,
    DuelSetAside,
    Result,
    Rules,
    StepCode,
    resolve_round,
)
from companion.scoring.problems import EntryError

C = DuelCard
NUMBERS = Rules(abilities=Abilities.NONE)
CLOWN_MINISTER = Rules(abilities=Abilities.CLOWN_MINISTER)


def test_the_standard_rules_are_four_wins_all_abilities_eight_rounds():
    """Rule A: first to 4 wins, every ability, 8 rounds at most, no variant."""
    assert (RULES.wins_needed, RULES.abilities, RULES.rounds, RULES.variants) == (
        4, Abilities.ALL, 8, ())


@pytest.mark.parametrize(("slugs", "letters"), [
    (["impatience"], "G"), (["numbers"], "H"), (["numbers-clown-minister"], "H"),
    (["until-dawn"], "Q"), (["seven"], "B"), (["wanderlust"], "C"),
    (["impatience", "numbers", "seven"], "BGH")])
def test_each_variant_is_one_row_of_the_table_and_reads_back(slugs, letters):
    """Rules built from variant slugs list those variants back (letters in rulebook order)."""
    rules = Rules.with_variants(slugs)
    assert "".join(v.letter for v in rules.variants) == letters


@pytest.mark.parametrize("slugs", [["numbers", "numbers-clown-minister"], ["seven", "wanderlust"],
                                   ["impatience", "until-dawn"]])
def test_variants_that_set_the_same_thing_cannot_combine(slugs):
    """Both forms of H, B with C, and G with Q contradict each other."""
    with pytest.raises(EntryError) as error:
        Rules.with_variants(slugs)
    assert error.value.codes == ["variants-conflict"]


def test_an_unknown_variant_is_refused():
    """Only G, H (two forms), Q, B and C are offered."""
    with pytest.raises(EntryError) as error:
        Rules.with_variants(["draft", "impatience", "treason"])
    assert error.value.codes == ["unknown-variant", "unknown-variant"]


def test_every_variant_has_french_and_english_names():
    """Each variant carries its printed French name and an English name."""
    for v in VARIANTS.values():
        assert v.name("fr") and v.name("en") and v.letter in "BCGHQ"


# --- G « Impatience » ----------------------------------------------------------------------------

def test_impatience_ends_the_game_at_three_wins():
    """Variant G: the game is played to 3 wins instead of 4."""
    game = Duel.from_notation("prince/spy general/princess wizard/assassin",
                              Rules.with_variants(["impatience"]))
    assert game.outcome().result is Result.WIN and game.outcome().winner == 0


# --- H « Nombres » -------------------------------------------------------------------------------

@pytest.mark.parametrize(("pair", "winner"), [
    ((C.PRINCE, C.PRINCESS), 0), ((C.ASSASSIN, C.GENERAL), 1), ((C.CLOWN, C.SPY), 1),
    ((C.WIZARD, C.PRINCE), 1), ((C.PRINCE, C.PRINCE), None), ((C.SPY, C.MINISTER), 1)])
def test_numbers_ignores_every_ability(pair, winner):
    """Variant H, first form: only values count (Princess 1 loses to Prince 7, Clown 0 loses)."""
    result = resolve_round(pair, rules=NUMBERS)
    assert result.winner == winner and not result.game_won
    assert result.points in ((0, 0), (1, 0), (0, 1))
    assert result.next_bonus == (0, 0) and result.reveals_first is None
    assert result.steps[0].code is StepCode.NUMBERS_ONLY


def test_numbers_gives_no_plus_two_and_no_first_reveal():
    """Variant H, first form: a General or a Spy carries nothing to the next round."""
    game = Duel.from_notation("general/spy", NUMBERS)
    assert game.bonus() == (0, 0) and game.reveals_first() is None


@pytest.mark.parametrize(("pair", "winner", "points", "worth"), [
    ((C.CLOWN, C.PRINCE), None, (0, 0), (1, 1)),
    ((C.WIZARD, C.CLOWN), None, (0, 0), (1, 1)),     # no Wizard ability left to stop the Clown
    ((C.SPY, C.MINISTER), 1, (0, 2), (1, 2)),
    ((C.MINISTER, C.ASSASSIN), 0, (2, 0), (2, 1)),   # no Assassin: the higher value wins
    ((C.MINISTER, C.WIZARD), 1, (0, 1), (2, 1)),
    ((C.PRINCESS, C.PRINCE), 1, (0, 1), (1, 1)),
])
def test_numbers_clown_minister_keeps_only_those_two_abilities(pair, winner, points, worth):
    """Variant H, second form: the Clown still holds and the Minister still counts double."""
    result = resolve_round(pair, rules=CLOWN_MINISTER)
    assert (result.winner, result.points, result.worth) == (winner, points, worth)
    assert not result.game_won


def test_numbers_clown_minister_keeps_a_held_ministers_stake():
    """Variant H, second form: a held Minister round is still worth 2 to its player."""
    game = Duel.from_notation("minister/minister prince/spy", CLOWN_MINISTER)
    assert game.score() == (3, 0)


# --- Q « Jusqu'à l'aube » ------------------------------------------------------------------------

DAWN = Rules.with_variants(["until-dawn"])


def test_until_dawn_plays_on_past_four_wins_and_the_most_wins_wins():
    """Variant Q: reaching 4 wins does not end the game; after the last card, most wins wins."""
    game = Duel.from_notation("prince/spy general/princess wizard/assassin assassin/general "
                              "clown/minister", DAWN)
    assert game.score() == (4, 0) and not game.is_over()
    game.play(C.SPY, C.PRINCE)  # 1 + the Clown's held round
    game.play(C.PRINCESS, C.WIZARD)
    game.play(C.MINISTER, C.CLOWN)  # on hold, and lost
    assert game.score() == (4, 3)
    outcome = game.outcome()
    assert outcome.result is Result.WIN and outcome.winner == 0 and outcome.round == 8
    assert game.results[-1].steps[-2].code is StepCode.DAWN_WON


def test_until_dawn_with_equal_wins_is_a_draw():
    """Variant Q: equal wins after the last card is a draw."""
    game = Duel.from_notation("prince/general general/prince clown/clown wizard/wizard "
                              "minister/minister assassin/assassin spy/spy princess/princess",
                              DAWN)
    assert game.outcome().result is Result.DRAW


def test_until_dawn_still_lets_the_princess_end_the_game():
    """The app's reading: in variant Q the Princess against the Prince still wins at once."""
    game = Duel.from_notation("prince/spy princess/prince", DAWN)
    assert game.outcome().result is Result.PRINCESS and game.outcome().winner == 0


# --- B « Sept » and C « Envie de voyager » -------------------------------------------------------

SEVEN = Rules.with_variants(["seven"])


def test_seven_sets_a_card_aside_that_cannot_be_played():
    """Variant B: the card each player set aside is out of the game."""
    game = Duel(SEVEN, out=(C.PRINCE, C.CLOWN))
    assert C.PRINCE not in game.hand(0) and len(game.hand(0)) == 7
    with pytest.raises(EntryError) as error:
        game.play(C.PRINCE, C.CLOWN)
    assert error.value.codes == ["card-set-aside", "card-set-aside"]


@pytest.mark.parametrize("slug", ["seven", "wanderlust"])
def test_with_a_card_set_aside_a_game_has_seven_rounds(slug):
    """Variants B and C: 7 cards each, so 7 rounds without 4 wins is a draw."""
    rules = Rules.with_variants([slug])
    assert rules.rounds == 7
    game = Duel.from_notation("prince/general general/prince clown/clown wizard/wizard "
                              "minister/minister assassin/assassin spy/spy", rules)
    assert game.outcome().result is Result.DRAW and game.outcome().round == 7


def test_wanderlust_may_leave_the_hidden_cards_unknown():
    """Variant C with real cards: the app does not know the hidden cards and allows any card."""
    game = Duel(Rules.with_variants(["wanderlust"]))
    assert len(game.hand(0)) == 8 and game.out == (None, None)


def test_a_card_cannot_be_set_aside_without_b_or_c():
    """Only variants B and C set a card aside."""
    with pytest.raises(EntryError) as error:
        Duel(RULES, out=(C.SPY, None))
    assert error.value.codes == ["no-set-aside"]


@pytest.mark.parametrize("wins", [0, 9, -1])
def test_the_number_of_wins_needed_is_one_to_eight(wins):
    """A target of wins outside 1-8 is refused."""
    with pytest.raises(EntryError) as error:
        Duel(Rules(wins_needed=wins))
    assert error.value.codes == ["bad-wins-needed"]
    assert Rules(set_aside=DuelSetAside.CHOSEN).check() == []
