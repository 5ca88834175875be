"""The turn-by-turn engine: a round as seen at the table (hands unknown).

Rulebook (002) « Tour des joueurs-euses », « Quitter la manche », « Fin de la manche », « Effets des
cartes »; PRINCESSE_PRINCESSE.md « Turn rules a checker can enforce». Turns are written in the
engine's notation: ``seat:card>target=named+/-``, ``x``loser / ``~`` tie, ``#``revealed card.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.scoring.princesse_princesse import (
    GARDE_NAMEABLE,
    EndReason,
    PublicRound,
    Turn,
    judge_turn_log,
)
from companion.scoring.problems import EntryError

# 16 turns for 4 players that nobody leaves: the deck (16 after the deal) runs out exactly.
FULL_ROUND = ["0:1>1=9-", "1:1>2=9-", "2:1>3=9-", "3:1>0=9-", "0:1>1=8-", "1:1>2=8-",
              "2:2>3", "3:2>0", "0:0", "1:0", "2:6", "3:6", "0:8", "1:7>2", "2:4", "3:4"]
# 13 turns for 6 players that nobody leaves: the 14th turn draws the last card.
SIX_FILLER = ["0:1>1=9-", "1:1>2=9-", "2:1>3=9-", "3:1>4=9-", "4:1>5=9-", "5:1>0=9-",
              "0:2>1", "1:2>2", "2:0", "3:0", "4:6", "5:6", "0:8"]


def table(players: int, turns: list[str], first: int = 0, face_up=None) -> PublicRound:
    if face_up is None:
        face_up = (1, 1, 1) if players == 2 else ()
    return PublicRound.from_turns(players, first, turns, face_up)


def refused(round_: PublicRound, text: str) -> list[str]:
    return [p.code for p in round_.check_turn(Turn.from_notation(text))]


# ---- turn order and the deck -------------------------------------------------------------------

def test_turns_go_clockwise_from_the_first_player():
    """« Effectuez vos tours de jeu dans le sens horaire », starting with the chosen player."""
    round_ = table(4, [], first=2)
    seen = []
    for text in ["2:1>3=9-", "3:1>0=9-", "0:1>1=9-", "1:1>2=9-"]:
        seen.append(round_.current_seat)
        round_.play(Turn.from_notation(text))
    assert seen == [2, 3, 0, 1] and round_.current_seat == 2


def test_players_out_of_the_round_skip_their_turns():
    """« Quitter la manche »: a player out of the round passes their turns."""
    round_ = table(4, ["0:1>1=5+"])
    assert not round_.is_in(1) and round_.current_seat == 2
    round_.play(Turn.from_notation("2:1>3=9-"))
    round_.play(Turn.from_notation("3:1>0=9-"))
    assert round_.current_seat == 0
    round_.play(Turn.from_notation("0:1>2=9-"))
    assert round_.current_seat == 2


def test_only_the_current_player_may_play():
    """A turn by anyone but the player whose turn it is is refused, naming whose turn it is."""
    round_ = table(4, ["0:1>1=9-"])
    problems = round_.check_turn(Turn.from_notation("2:2>3"))
    assert [p.code for p in problems] == ["not-your-turn"] and problems[0].seat == 1


def test_each_turn_draws_one_card_and_the_round_ends_when_the_deck_is_empty():
    """« Si, après le tour d'un-e joueur-euse, la pioche est vide »: the round ends then."""
    round_ = table(4, [])
    for number, text in enumerate(FULL_ROUND, start=1):
        assert not round_.is_over()
        round_.play(Turn.from_notation(text))
        assert round_.deck_count == 16 - number
    ending = round_.ending()
    assert ending is not None and ending.reason is EndReason.DECK_EMPTY
    assert ending.still_in == (0, 1, 2, 3) and ending.needs_cards
    assert round_.current_seat is None


def test_round_ends_at_once_when_one_player_is_left():
    """« Dernier-ère joueur-euse en lice »: the round ends immediately, whatever the deck holds."""
    round_ = table(2, ["0:1>1=5+"])
    ending = round_.ending()
    assert ending is not None and ending.reason is EndReason.LAST_IN
    assert ending.still_in == (0,) and not ending.needs_cards
    assert round_.deck_count == 14
    assert refused(round_, "1:1>0=5-") == ["round-over"]


def test_no_turn_after_the_round_is_over():
    """Exactly one round end: once over, every further turn is refused."""
    round_ = table(4, FULL_ROUND)
    assert refused(round_, "0:1>1=9-") == ["round-over"]
    with pytest.raises(EntryError):
        round_.play(Turn.from_notation("0:1>1=9-"))


# ---- targets -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("turn", "code"), [
    ("0:1>0=5-", "target-self"),
    ("0:2>0", "target-self"),
    ("0:3>0~", "target-self"),
    ("0:7>0", "target-self"),
    ("0:1=5-", "target-needed"),
    ("0:7", "target-needed"),
    ("0:5#3", "target-needed"),
    ("0:4>1", "target-not-taken"),
    ("0:0>2", "target-not-taken"),
    ("0:2>7", "unknown-seat"),
])
def test_targets_the_rules_refuse(turn, code):
    """Cards aimed at « un(e) autre joueur-euse » cannot target their player; a target is needed
    when one exists; cards without a target take none."""
    assert code in refused(table(4, []), turn)


def test_a_player_out_of_the_round_cannot_be_targeted():
    """« Vous ne pouvez plus être ciblé(e) par l'effet d'une carte » once out."""
    round_ = table(4, ["0:1>1=5+"])
    problems = round_.check_turn(Turn.from_notation("2:2>1"))
    assert [p.code for p in problems] == ["target-out"] and problems[0].seat == 1
    assert round_.legal_targets(2) == frozenset({0, 3})


def test_vladric_may_target_yourself():
    """« Choisissez n'importe quel(le) joueur-euse (ce peut être vous) »."""
    round_ = table(4, [])
    assert round_.legal_targets(5) == frozenset({0, 1, 2, 3})
    round_.play(Turn.from_notation("0:5>0#3"))
    assert round_.discards(0) == (5, 3) and round_.is_in(0)


# ---- Oliver le dragon --------------------------------------------------------------------------

def test_oliver_protects_until_the_start_of_his_players_next_turn():
    """« Jusqu'au début de votre prochain tour, les autres … ne peuvent pas vous cibler »."""
    round_ = table(4, ["0:4"])
    assert round_.is_protected(0) and round_.protected_since() == {0: 1}
    problems = round_.check_turn(Turn.from_notation("1:2>0"))
    assert [p.code for p in problems] == ["target-protected"] and problems[0].seat == 0
    for text in ["1:2>2", "2:1>3=9-", "3:1>1=9-"]:
        round_.play(Turn.from_notation(text))
        assert round_.is_protected(0) or round_.current_seat == 0
    assert round_.current_seat == 0 and not round_.is_protected(0)
    round_.play(Turn.from_notation("0:1>1=9-"))
    assert refused(round_, "1:2>0") == []


@pytest.mark.parametrize("card", [7, 3, 2, 1])
def test_everyone_protected_a_card_needing_another_player_has_no_effect(card):
    """« Oliver le dragon »: if every other player still in is protected, a card that needs
    another player is played without its effect."""
    round_ = table(3, ["0:4", "1:4"])
    assert round_.legal_targets(card) == frozenset() and not round_.has_effect(card)
    assert refused(round_, f"2:{card}") == []
    assert "target-protected" in refused(round_, f"2:{card}>0")
    round_.play(Turn(2, card))
    assert round_.seats_in() == (0, 1, 2) and round_.discards(2) == (card,)


def test_everyone_protected_no_garde_guess_is_asked():
    """A Garde played without effect names nobody: a name or an answer is refused."""
    round_ = table(3, ["0:4", "1:4"])
    assert refused(round_, "2:1=5-") == ["unexpected-answer", "unexpected-answer"]


def test_everyone_protected_vladric_must_target_his_player():
    """« Si cette carte vous demande de choisir n'importe quel(le) joueur-euse (Prince Vladric),
    vous devez cibler vous-même »."""
    round_ = table(3, ["0:4", "1:4"])
    assert round_.legal_targets(5) == frozenset({2})
    assert refused(round_, "2:5#3") == ["target-needed"]
    assert refused(round_, "2:5>0#3") == ["target-protected"]
    round_.play(Turn.from_notation("2:5>2#3"))
    assert round_.discards(2) == (5, 3)


def test_a_protected_player_is_protected_from_everyone_but_themselves():
    """Protection only stops other players' cards; at 2 players the other card has no target."""
    round_ = table(2, ["0:4"])
    assert round_.legal_targets(1) == frozenset()
    round_.play(Turn.from_notation("1:1"))
    assert round_.current_seat == 0 and round_.legal_targets(5) == frozenset({0, 1})


# ---- the Garde ---------------------------------------------------------------------------------

def test_garde_names_any_character_but_the_garde():
    """« Nommez un personnage autre que le Garde » (the Spy included)."""
    round_ = table(4, [])
    assert round_.garde_names() == GARDE_NAMEABLE
    assert 1 not in GARDE_NAMEABLE and 0 in GARDE_NAMEABLE
    assert refused(round_, "0:1>1=1-") == ["garde-named"]
    assert refused(round_, "0:1>1=0-") == []


def test_garde_right_guess_makes_the_target_leave_with_the_named_card():
    """« Si la personne choisie détient cette carte, elle quitte la manche »."""
    round_ = table(4, ["0:1>2=7+"])
    assert not round_.is_in(2) and round_.discards(2) == (7,)
    assert round_.unseen()[7] == 0


def test_garde_wrong_guess_changes_nothing():
    """A wrong guess: the target stays in, nothing is revealed."""
    round_ = table(4, ["0:1>2=7-"])
    assert round_.is_in(2) and round_.discards(2) == () and round_.unseen()[7] == 1


@pytest.mark.parametrize(("turn", "code"), [
    ("0:1>1", "name-needed"),
    ("0:1>1=5", "hit-needed"),
    ("0:1>1=12-", "value-out-of-range"),
    ("0:1>1=5-#5", "unexpected-answer"),
])
def test_garde_needs_a_name_and_the_tables_answer(turn, code):
    """The Garde's player names a character; the table says whether it was right."""
    assert code in refused(table(4, []), turn)


def test_garde_may_name_a_character_already_seen_but_not_hit_it():
    """App decision: naming a character with no card left unseen is allowed (it cannot hit), so
    answering « right guess » is refused."""
    round_ = table(4, ["0:9#2"])
    assert round_.unseen()[9] == 0
    assert refused(round_, "1:1>2=9-") == []
    assert refused(round_, "1:1>2=9+") == ["no-copy-left"]


# ---- the Bibliothécaire ------------------------------------------------------------------------

def test_bibliothecaire_lower_card_leaves_and_is_shown():
    """« Celui ou celle qui possède la carte de plus faible valeur quitte … la manche »."""
    round_ = table(4, ["0:3>1x1#2"])
    assert not round_.is_in(1) and round_.discards(1) == (2,)
    round_ = table(4, ["0:3>1x0#2"])
    assert not round_.is_in(0) and round_.discards(0) == (3, 2) and round_.current_seat == 1


def test_bibliothecaire_tie_nobody_leaves():
    """« En cas d'égalité, aucun(e) de vous deux ne quitte la manche »."""
    round_ = table(4, ["0:3>1~"])
    assert round_.seats_in() == (0, 1, 2, 3) and round_.discards(1) == ()


@pytest.mark.parametrize(("turn", "code"), [
    ("0:3>1", "loser-needed"),
    ("0:3>1x2#2", "loser-not-compared"),
    ("0:3>1x1", "reveal-needed"),
    ("0:3>1x1#9", "no-higher-card"),
    ("0:3>1~#4", "unexpected-answer"),
])
def test_bibliothecaire_answers_the_table_must_give(turn, code):
    """Who had the lower card, among the two compared, and which card they show; a loser
    cannot show the Ogre (nothing beats it)."""
    assert code in refused(table(4, []), turn)


def test_bibliothecaire_tie_refused_when_no_value_has_two_cards_unseen():
    """A tie needs two equal cards among those unseen; the count can rule it out."""
    round_ = table(2, ["0:1>1=9-", "1:1>0=9-", "0:0", "1:2>0", "0:4", "1:6", "0:5>0#2"],
                   face_up=(1, 1, 1))
    unseen = round_.unseen()
    assert unseen[3] == 2 and max(n for v, n in unseen.items() if v != 3) == 1
    assert refused(round_, "1:3>0~") == ["tie-impossible"]
    assert refused(round_, "1:3>0x0#4") == []


# ---- Vladric, the Ogre, the Princesses, the Roi fantôme ----------------------------------------

def test_vladric_target_discards_and_draws_from_the_deck():
    """« Cette personne défausse sa main … et en pioche une nouvelle »: two cards leave the deck."""
    round_ = table(4, ["0:5>2#6"])
    assert round_.discards(2) == (6,) and round_.is_in(2) and round_.deck_count == 14


def test_vladric_on_an_empty_deck_draws_the_card_set_aside():
    """« Si la pioche est épuisée, le-a joueur-euse … pioche la carte face cachée mise de côté »."""
    round_ = table(6, SIX_FILLER)
    assert round_.deck_count == 1 and not round_.set_aside_drawn
    round_.play(Turn.from_notation("1:5>3#4"))
    assert round_.set_aside_drawn and round_.is_in(3) and round_.deck_count == 0
    assert round_.ending() is not None and round_.ending().reason is EndReason.DECK_EMPTY


def test_vladric_on_the_ogre_makes_the_target_leave():
    """« Si on vous cible en résolvant l'effet du prince Vladric et que vous êtes contraint(e) de
    défausser l'Ogre, vous quittez la manche »; app decision: no new card is drawn."""
    round_ = table(4, ["0:5>1#9"])
    assert not round_.is_in(1) and round_.discards(1) == (9,) and round_.deck_count == 15
    assert round_.current_seat == 2


def test_vladric_on_the_ogre_with_an_empty_deck_leaves_the_set_aside_card():
    """Hit by Vladric with the Ogre on an empty deck: out, and the set-aside card stays aside."""
    round_ = table(6, [*SIX_FILLER, "1:5>3#9"])
    assert not round_.is_in(3) and not round_.set_aside_drawn


def test_vladric_on_yourself_with_the_ogre_makes_you_leave():
    """The Ogre discarded « pour quelque raison que ce soit »: even through your own Vladric."""
    round_ = table(3, ["0:5>0#9"])
    assert not round_.is_in(0) and round_.discards(0) == (5, 9)


def test_playing_the_ogre_makes_you_leave_and_show_your_other_card():
    """« Si vous jouez … l'Ogre … vous quittez immédiatement la manche » and discard your hand."""
    round_ = table(3, ["0:9#3"])
    assert not round_.is_in(0) and round_.discards(0) == (9, 3)
    assert refused(table(3, []), "0:9") == ["reveal-needed"]


def test_the_roi_fantome_swap_reveals_nothing_and_keeps_both_in():
    """Roi fantôme: hands are swapped; receiving the Ogre this way is no discard."""
    round_ = table(3, ["0:7>2"])
    assert round_.seats_in() == (0, 1, 2) and round_.discards(2) == ()
    assert round_.unseen()[9] == 1


def test_princesses_leave_the_deck_count_unchanged():
    """Draw two, keep one, put two back under the deck: only the turn's own draw counts."""
    round_ = table(4, ["0:6"])
    assert round_.deck_count == 15


def test_princesses_on_an_empty_deck_have_no_effect():
    """« S'il ne reste plus de carte dans la pioche, jouez cette carte sans en appliquer
    l'effet »."""
    round_ = table(6, SIX_FILLER[:-1])
    assert round_.deck_count == 2 and round_.has_effect(6)
    round_.play(Turn.from_notation("0:8"))
    assert round_.deck_count == 1 and not round_.has_effect(6)


# ---- the count of unseen cards -----------------------------------------------------------------

def test_unseen_count_subtracts_discards_and_the_face_up_cards_at_two_players():
    """« Il est primordial que chaque joueur-euse sache quelles cartes ont déjà été jouées »."""
    round_ = table(2, [], face_up=(1, 6, 9))
    assert round_.unseen() == {0: 2, 1: 5, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1, 9: 0}
    round_.play(Turn.from_notation("0:5>1#6"))
    assert round_.unseen()[5] == 1 and round_.unseen()[6] == 0
    assert sum(round_.unseen().values()) == 21 - 3 - 2


def test_a_card_with_no_copy_left_cannot_be_played_or_shown():
    """Every card played or revealed must still be unseen: the deck holds only so many."""
    round_ = table(2, ["0:5>1#6"], face_up=(6, 1, 1))
    assert refused(round_, "1:6") == ["no-copy-left"]
    assert refused(round_, "1:5>0#6") == ["no-copy-left"]


@pytest.mark.parametrize(("players", "face_up", "code"), [
    (2, (), "face-up-count"),
    (2, (1, 1), "face-up-count"),
    (4, (1, 1, 1), "face-up-count"),
    (2, (9, 9, 1), "too-many-copies"),
    (2, (1, 1, 11), "value-out-of-range"),
])
def test_two_players_set_three_cards_aside_face_up(players, face_up, code):
    """« Dans une partie à deux … piochez 3 cartes supplémentaires … face visible »."""
    with pytest.raises(EntryError) as caught:
        PublicRound(players, 0, face_up)
    assert code in caught.value.codes


@pytest.mark.parametrize(("players", "first", "code"), [
    (1, 0, "players-out-of-range"), (7, 0, "players-out-of-range"), (4, 4, "unknown-seat")])
def test_round_set_up_problems(players, first, code):
    """A round needs 2 to 6 players and a first player among them."""
    with pytest.raises(EntryError) as caught:
        PublicRound(players, first)
    assert caught.value.codes == [code]


# ---- forced Céleste and other proven mistakes --------------------------------------------------

def test_forced_celeste_breach_proven_when_the_kept_card_is_revealed_later():
    """« Vous devez la jouer … si l'autre carte … est le roi fantôme ou le prince Vladric »: a 5
    played, then the kept card shown as Céleste before its holder's next turn, proves a breach."""
    round_ = table(2, ["0:5>1#2", "1:1>0=8+"])
    faults = round_.faults()
    assert [(p.code, p.seat, p.params["turn"]) for p in faults] == [("celeste-not-played", 0, 1)]


def test_forced_celeste_proven_at_the_final_reveal():
    """The card shown at the end of the round also proves it."""
    round_ = table(4, [*FULL_ROUND[:12], "0:3>1~", "1:7>0", "2:4", "3:4"])
    assert round_.is_over()
    assert round_.faults() == () and round_.faults({0: 5, 2: 8}) == ()
    assert [(p.code, p.seat) for p in round_.faults({0: 8, 2: 5})] == [
        ("celeste-not-played", 1)]


def test_forced_celeste_not_proven_after_a_turn_of_its_holder():
    """The holder's next turn draws a card: Céleste could be the new one, nothing is proven."""
    round_ = table(2, ["0:5>1#2", "1:1>0=9-", "0:2>1", "1:1>0=8+"])
    assert round_.faults() == ()


def test_forced_celeste_proven_through_a_roi_fantome_swap():
    """The kept card travels with the swap: revealed from the other hand, it still proves it."""
    round_ = table(3, ["0:7>2", "1:1>2=8+"])
    assert [(p.code, p.seat) for p in round_.faults()] == [("celeste-not-played", 0)]


def test_forced_celeste_proven_at_once_by_vladric_on_yourself():
    """Vladric on yourself discards the kept card face up: Céleste there proves the breach."""
    round_ = table(3, ["0:5>0#8"])
    assert [(p.code, p.seat) for p in round_.faults()] == [("celeste-not-played", 0)]
    assert round_.is_in(0)


def test_celeste_played_is_never_a_fault():
    """Playing Céleste is always allowed, forced or not."""
    round_ = table(2, ["0:8", "1:1>0=7+"])
    assert round_.faults() == ()


def test_a_lie_to_a_garde_is_proven_when_the_same_hand_shows_the_named_card():
    """« Fautes de jeu »: lying to a Garde; proven if that hand later shows the named card."""
    round_ = table(3, ["0:1>2=6-", "1:1>2=6+"])
    assert [(p.code, p.seat) for p in round_.faults()] == [("garde-lie", 2)]


def test_a_wrong_bibliothecaire_answer_is_proven_when_the_higher_hand_shows_lower():
    """The « higher » hand later shown no higher than the loser's card proves a wrong answer."""
    round_ = table(3, ["0:3>2x2#4", "1:1>0=2+"])
    assert [(p.code, p.seat) for p in round_.faults()] == [("librarian-wrong", 0)]


def test_faults_change_nothing_else():
    """The rulebook gives no penalty: a proven fault changes nobody's place in the round."""
    round_ = table(3, ["0:5>0#8"])
    assert round_.seats_in() == (0, 1, 2) and round_.current_seat == 1


# ---- the round end filled from the log ---------------------------------------------------------

def test_round_end_is_filled_from_the_log():
    """Who is still in and both bonuses come from the log: only the final cards are tapped."""
    round_ = table(4, FULL_ROUND)
    reveal = round_.reveal({0: 3, 1: 5, 2: 5, 3: 9})
    assert reveal.still_in == frozenset({0, 1, 2, 3})
    assert reveal.spies == frozenset({0, 1}) and reveal.princesses == frozenset({2, 3})


def test_round_end_from_the_log_needs_no_card_for_the_last_player_in():
    """With one player left, nothing is revealed."""
    reveal = table(2, ["0:1>1=5+"]).reveal({})
    assert reveal.still_in == frozenset({0})


@pytest.mark.parametrize(("cards", "code"), [
    ({0: 3, 1: 5, 2: 9}, "card-missing"),
    ({0: 3, 1: 5, 2: 9, 3: 0}, "no-copy-left"),
    ({0: 3, 1: 5, 2: 9, 3: 9}, "no-copy-left"),
    ({0: 3, 1: 5, 2: 9, 3: 12}, "value-out-of-range"),
    ({0: 3, 1: 5, 2: 9, 3: 5, 4: 5}, "unknown-seat"),
])
def test_final_cards_are_checked_against_the_count(cards, code):
    """A final card must exist and still be unseen; every player still in shows one."""
    with pytest.raises(EntryError) as caught:
        table(4, FULL_ROUND).reveal(cards)
    assert code in caught.value.codes


def test_no_round_end_before_the_round_is_over():
    """The reveal is refused while the round goes on."""
    with pytest.raises(EntryError) as caught:
        table(4, ["0:4"]).reveal({})
    assert caught.value.codes == ["round-not-over"]


# ---- commands and notation ---------------------------------------------------------------------

def test_pop_undoes_the_last_turn():
    """The last turn can be undone; the state is as before it."""
    round_ = table(4, ["0:4", "1:1>2=3+"])
    assert round_.pop() == Turn.from_notation("1:1>2=3+")
    assert round_.is_in(2) and round_.current_seat == 1 and round_.deck_count == 15
    assert round_.is_protected(0)
    round_.pop()
    assert round_.turns == () and round_.current_seat == 0
    with pytest.raises(IndexError):
        round_.pop()


@given(st.builds(Turn, seat=st.integers(0, 5), card=st.integers(0, 9),
                 target=st.none() | st.integers(0, 5), named=st.none() | st.integers(0, 9),
                 hit=st.none() | st.booleans(), loser=st.none() | st.integers(0, 5),
                 revealed=st.none() | st.integers(0, 9)))
def test_turn_notation_round_trips(turn):
    """``Turn.from_notation(str(turn)) == turn`` (hit only with a name)."""
    if turn.named is None and turn.hit is not None:
        turn = Turn(turn.seat, turn.card, turn.target, None, None, turn.loser, False,
                    turn.revealed)
    assert Turn.from_notation(str(turn)) == turn


@pytest.mark.parametrize("text", ["", "0", "a:1", "0:1>", "0:1>2=", "1:2:3"])
def test_bad_notation_is_refused(text):
    """Anything that is not a turn is refused with ``bad-notation``."""
    with pytest.raises(EntryError) as caught:
        Turn.from_notation(text)
    assert caught.value.codes == ["bad-notation"]


# ---- judging a whole turn log ------------------------------------------------------------------

def test_judge_reports_the_first_refused_turn_and_the_table_before_it():
    """The turn log endpoint: accepted turns, the refused one and why, the table so far."""
    turns = [Turn.from_notation(t) for t in ["0:4", "1:2>0", "2:0"]]
    verdict = judge_turn_log(4, 0, turns)
    assert not verdict.is_valid
    assert (verdict.accepted, verdict.refused_turn) == (1, 1)
    assert [p.code for p in verdict.problems] == ["target-protected"]
    assert verdict.current_seat == 1 and verdict.protected == (0,)
    assert verdict.deck_count == 15 and verdict.unseen[4] == 1


def test_judge_a_whole_round_with_its_final_cards():
    """A complete log with the final cards gives the reveal and every proven fault."""
    turns = [Turn.from_notation(t) for t in [*FULL_ROUND[:12], "0:3>1~", "1:7>0", "2:4",
                                             "3:4"]]
    verdict = judge_turn_log(4, 0, turns, final={0: 8, 1: 5, 2: 3, 3: 9})
    assert verdict.is_valid and verdict.round_over
    assert verdict.reveal is not None and verdict.reveal.spies == frozenset({0, 1})
    assert [(p.code, p.seat) for p in verdict.faults] == [("celeste-not-played", 1)]


def test_judge_refuses_a_broken_set_up():
    """Set-up problems (not a turn's) are refused outright."""
    with pytest.raises(EntryError) as caught:
        judge_turn_log(2, 0, [], face_up=())
    assert caught.value.codes == ["face-up-count"]


def test_judge_answer_feeds_the_round_end_endpoint():
    """The turn-log answer's ``held`` and ``discards`` give the same round end as the log."""
    from companion.scoring.princesse_princesse import round_end, settle_round

    turns = [Turn.from_notation(t) for t in FULL_ROUND]
    final = {0: 3, 1: 5, 2: 5, 3: 9}
    verdict = judge_turn_log(4, 0, turns, final=final)
    answer = verdict.as_dict()
    assert answer["valid"] and answer["ending"] == {
        "reason": "deck-empty", "still_in": [0, 1, 2, 3], "spies": [0, 1], "princesses": [2, 3]}
    assert answer["held"] == [3, 5, 5, 9] and answer["discards"][0] == [1, 1, 0, 8]
    from_api = round_end(4, answer["held"], answer["discards"], [0, 0, 0, 0])
    assert from_api == settle_round(verdict.reveal, [0, 0, 0, 0])
    assert from_api.tokens_gained == (0, 0, 1, 2)  # two Spies in: no Spy bonus


def test_judge_answer_lists_problems_and_faults_as_data():
    """Refused turns and proven faults come back as codes with seats (and the fault's turn)."""
    verdict = judge_turn_log(3, 0, [Turn.from_notation(t) for t in ["0:5>0#8", "1:2>1"]])
    answer = verdict.as_dict()
    assert answer["refused_turn"] == 1 and answer["problems"][0]["code"] == "target-self"
    assert answer["faults"] == [{"code": "celeste-not-played", "seat": 0, "card": "5",
                                 "turn": 1, "message": verdict.faults[0].message}]
    assert answer["held"] is None


@pytest.mark.parametrize(("card", "targets", "hit", "loser", "revealed"), [
    (0, (), False, False, False), (1, (1, 2, 3), True, False, False),
    (2, (1, 2, 3), False, False, False), (3, (1, 2, 3), False, True, False),
    (4, (), False, False, False), (5, (0, 1, 2, 3), False, False, True),
    (6, (), False, False, False), (7, (1, 2, 3), False, False, False),
    (8, (), False, False, False), (9, (), False, False, True),
])
def test_questions_the_turn_log_asks_for_each_card(card, targets, hit, loser, revealed):
    """Each card asks for its targets and the table's answers, and nothing else."""
    questions = table(4, []).questions(card)
    assert questions.targets == targets and questions.has_effect
    assert (questions.asks_hit, questions.asks_loser, questions.asks_revealed) == (
        hit, loser, revealed)
    assert bool(questions.names) == hit
    assert questions.celeste_reminder == (card in (5, 7))


def test_questions_list_the_garde_names_with_their_unseen_counts():
    """The Garde's list shows how many of each character are still unseen."""
    questions = table(4, ["0:9#2"]).questions(1)
    assert dict(questions.names) == {0: 2, 2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 7: 1, 8: 1, 9: 0}


def test_questions_when_everyone_is_protected():
    """A card needing another player asks nothing when nobody can be targeted; Vladric, yourself."""
    round_ = table(3, ["0:4", "1:4"])
    assert round_.questions(1).targets == () and not round_.questions(1).asks_hit
    assert not round_.questions(1).has_effect
    assert round_.questions(5).targets == (2,)


# ---- a Bibliothécaire tie disproven by later reveals (« Fautes de jeu ») ------------------------

#: Ana compares hands with Dan and a tie is recorded; Ben's Garde then shows Dan held a 5.
TIE = ["0:3>3~", "1:1>3=5+"]


@pytest.mark.parametrize(("shown", "faults"), [
    ("2:1>0=7+", [("librarian-tie-wrong", 3)]),  # Ana held 7: Dan's 5 was lower, Dan stayed in
    ("2:1>0=4+", [("librarian-tie-wrong", 0)]),  # Ana held 4: Ana was lower and stayed in
    ("2:1>0=5+", []),  # Ana held 5 too: a true tie
])
def test_a_tie_is_disproven_when_both_hands_show_different_cards(shown, faults):
    round_ = table(4, [*TIE, shown])
    assert [(p.code, p.seat) for p in round_.faults()] == faults


def test_a_tie_proves_nothing_while_one_hand_is_unseen():
    assert table(4, TIE).faults() == ()
    assert table(3, ["0:3>2~"]).faults() == ()


def test_a_tie_is_judged_by_the_cards_shown_at_the_end():
    round_ = table(3, ["0:3>2~"])
    assert [(p.code, p.seat) for p in round_.faults({0: 4, 2: 6})] == [
        ("librarian-tie-wrong", 0)]
    assert [(p.code, p.seat) for p in round_.faults({0: 6, 2: 4})] == [
        ("librarian-tie-wrong", 2)]
    assert round_.faults({0: 4, 2: 4}) == ()


def test_a_tie_is_not_proven_once_a_hand_compared_has_changed():
    """Dan's own turn changes his hand: what he shows later says nothing of the tie."""
    round_ = table(4, ["0:3>3~", "1:4", "2:4", "3:0", "0:1>3=7+"])
    assert round_.faults() == ()
