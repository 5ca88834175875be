"""Round cards that change which cards may be played or who wins a trick, in both editions."""

from __future__ import annotations

import random
import string

import pytest

from companion.scoring.rebel_princess.engine import (
    Edition,
    RoundState,
    ViolationCode,
    parse_card,
    parse_cards,
)
from companion.scoring.rebel_princess.engine.modifiers import round_card_class
from companion.scoring.rebel_princess.engine.simulate import play_random

V = ViolationCode


def trick_winner(edition: str, letter: str, plays: str, per_seat: int = 1) -> int:
    """Play one legal trick where every seat holds exactly the cards it plays; return the winner."""
    cards = parse_cards(plays)
    players = len(cards) // per_seat
    hands = [[cards[i] for i in range(seat, len(cards), players)] for seat in range(players)]
    state = RoundState(hands, edition=edition, round_card=letter, princes_in=True)
    trick = state.parse_trick(plays)
    assert state.check_trick(trick) == []
    return state.play_trick(trick)


def legal(notation: str, *played: str) -> frozenset:
    state = RoundState.from_notation(notation)
    for code in played:
        state.push_card(parse_card(code))
    return state.legal_plays()


def violation(notation: str, card: str) -> tuple[str, str]:
    state = RoundState.from_notation(notation)
    (found,) = state.check_play(parse_card(card))
    return found.code.value, found.params["rule"]


PLAIN = [("deluxe", letter) for letter in "adeijptyz"] + [
    ("classic", letter) for letter in "ABCFKOPT"]


@pytest.mark.parametrize("edition, letter", PLAIN)
def test_cards_without_trick_rules_play_basic_tricks(edition, letter):
    """Round cards without a trick rule leave following and winning to the basic rules."""
    assert trick_winner(edition, letter, "A5 A9 Q10") == 1
    state = RoundState(["P2A3", "Q4", "F5"], edition=edition, round_card=letter)
    assert state.legal_plays(0) == frozenset(parse_cards("A3"))


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "f", "A5 Q2 A9", 1), ("deluxe", "f", "A5 Q2 Q9", 2), ("deluxe", "f", "A5 F10 A9", 2),
    ("classic", "D", "A5 Q2 A9", 1), ("classic", "D", "Q3 Q2 A9", 0),
])
def test_royal_decree_queens_are_trump(edition, letter, plays, winner):
    """Royal Decree (f / D): the highest Queen wins; without Queens, the highest led card."""
    assert trick_winner(edition, letter, plays) == winner


@pytest.mark.parametrize("plays, winner", [
    ("A5 A9 A7", 2), ("A5 A9 Q7", 0), ("A5 Q9 F7", 0), ("A9 A5 A7", 2),
])
def test_always_the_bridesmaid_second_highest_wins(plays, winner):
    """Always the Bridesmaid (g): the second-highest led card wins; alone, the lead wins."""
    assert trick_winner("deluxe", "g", plays) == winner


@pytest.mark.parametrize("plays, winner", [
    ("A5 A9 A2", 1),  # followers: 9 is 4 away, 2 is 3 away
    ("A5 A3 A7", 2),  # equal distance: the higher number
    ("A5 A6 Q10", 1),  # someone followed: only followers count
    ("A5 Q10 F2", 1),  # all void: furthest value of any suit
    ("A5 Q5 F5", 1),  # all void on the lead's number: the second player
    ("A5 Q3 F7", 2),  # all void, equal distance: the higher number
    ("A2 A3 A4", 2),  # the lead never wins
])
def test_sisterhood_furthest_from_the_lead_wins(plays, winner):
    """Sisterhood (l): the card furthest in value from the lead wins; the lead only sets it."""
    assert trick_winner("deluxe", "l", plays) == winner


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "r", "A5 A9 A7", 1), ("deluxe", "r", "A5 Q2 A9", 1),
    ("deluxe", "r", "A5 Q4 F7", 2), ("deluxe", "r", "A5 Q4 F4", 1), ("classic", "H", "A5 Q4 F4", 2),
    ("classic", "H", "A5 Q2 A9", 1), ("classic", "H", "A5 A9 A7", 1),
])
def test_poisoned_apple_void_players_win(edition, letter, plays, winner):
    """Poisoned Apple (r / H): the highest void card wins; ties first (Deluxe) / last (classic)."""
    assert trick_winner(edition, letter, plays) == winner


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "u", "A5 A9 A10 A3 A2 Q2", 1),  # sums 8, 11, 10
    ("deluxe", "u", "A5 A9 A10 Q3 A2 Q2", 1),  # the leader's second card may be void
    ("deluxe", "u", "A5 A9 A10 A7 A3 A2", 2),  # sums 12, 12, 12: the highest single card (A10)
    ("classic", "L", "A5 A9 A10 A3 A2 Q2", 1),
    ("classic", "L", "A5 Q9 Q10 A3 Q2 Q3", 0),  # only the leader has Pets
])
def test_prince_always_rings_twice_sums_led_cards(edition, letter, plays, winner):
    """The Prince Always Rings Twice (u / L): two cards each; highest led-suit sum wins."""
    assert trick_winner(edition, letter, plays, per_seat=2) == winner


def test_prince_always_rings_twice_second_lap_follows_the_led_suit():
    """Under u the second lap follows the suit of the first card led, the leader's card too."""
    state = RoundState(["A5A3Q2", "A9A2Q3", "A10F2Q4"], edition="deluxe", round_card="u")
    assert state.trick_size == 6
    for code in ("A5", "A9", "A10"):
        state.push_card(parse_card(code))
    assert state.legal_plays(0) == frozenset(parse_cards("A3"))


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "v", "A5 F9 A7", 1), ("deluxe", "v", "A5 F7 A7", 1),
    ("classic", "R", "A5 F7 A7", 2),
    ("deluxe", "v", "F5 A9 F3", 0), ("classic", "R", "A5 Q9 A4", 0), ("deluxe", "v", "A5 F4 A4", 0),
])
def test_midnight_makeover_fairies_are_wild(edition, letter, plays, winner):
    """Midnight Makeover (v / R): highest led card or Fairy wins; ties by edition."""
    assert trick_winner(edition, letter, plays) == winner


@pytest.mark.parametrize("hand, allowed", [
    ("Q3A9F2", "A9 F2"),  # led suit or a Fairy
    ("Q3F2F4", "F2 F4"),  # not void while holding a Fairy
    ("P3Q3", "P3 Q3"),  # void: anything
])
def test_midnight_makeover_legal_plays(hand, allowed):
    """Midnight Makeover (v): a player holding the led suit or a Fairy must play one of them."""
    notation = f"deluxe v 0 + A5/{hand}/A2 -/-/- 0/0/0 -"
    assert legal(notation, "A5") == frozenset(parse_cards(allowed))


def test_midnight_makeover_names_itself_in_violations():
    """A void-suit card played while holding a Fairy breaks Midnight Makeover, not the basics."""
    state = RoundState.from_notation("classic R 0 + A5/Q3F2/A2 -/-/- 0/0/0 -")
    state.push_card(parse_card("A5"))
    (found,) = state.check_play(parse_card("Q3"))
    assert (found.code, found.params["rule"]) == (V.MUST_FOLLOW_SUIT, "midnight-makeover")


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "w", "Q5 A3 A9", 2), ("deluxe", "w", "Q5 Q9 A10", 2),
    ("classic", "S", "Q5 A3 F2", 2),
    ("deluxe", "w", "Q5 A3 A9 Q10", 3),
])
def test_pass_the_bouquet_new_suit_leads(edition, letter, plays, winner):
    """Pass the Bouquet (w / S): a void player's new suit is followed; its highest card wins."""
    assert trick_winner(edition, letter, plays) == winner


def test_pass_the_bouquet_players_follow_the_new_suit():
    """Pass the Bouquet (w): after a void Pet on a Queen lead, the next player must play Pets."""
    notation = "deluxe w 0 + Q5/A3/Q7A9 -/-/- 0/0/0 -"
    assert legal(notation, "Q5", "A3") == frozenset(parse_cards("A9"))


@pytest.mark.parametrize("edition, letter, plays, winner", [
    ("deluxe", "x", "A5 A9 A7", 1), ("deluxe", "x", "A5 A6 A9", 0), ("deluxe", "x", "A5 Q6 A9", 0),
    ("deluxe", "x", "A6 Q6 A9", 2), ("classic", "J", "A5 A6 A9", 0),
    ("classic", "J", "A7 F6 A2", 2),
])
def test_upside_down_each_six_reverses_the_order(edition, letter, plays, winner):
    """Upside Down (x / J): each 6 played reverses the order; an odd count makes the lowest win."""
    assert trick_winner(edition, letter, plays) == winner


@pytest.mark.parametrize("notation, played, allowed", [
    ("deluxe c 0 - A2A5A9Q3/F2/F3 -/-/- 0/0/0 -", (), "A2 A9 Q3"),  # the leader too
    ("deluxe c 0 - P2P5A3A4A7/F2/F3 -/-/- 0/0/0 -", (), "A3 A7"),  # Princes not invited
    ("deluxe c 0 + P2P5A3A4A7/F2/F3 -/-/- 0/0/0 -", (), "P2 P5 A3 A7"),
    ("deluxe c 0 - Q9/Q2Q5Q7A2/F3 -/-/- 0/0/0 -", ("Q9",), "Q2 Q7"),  # must follow, extremes
    ("deluxe c 0 - Q9/A2A5F3F4F8/F5 -/-/- 0/0/0 -", ("Q9",), "A2 A5 F3 F8"),  # void: per suit
])
def test_magic_beans_only_highest_or_lowest(notation, played, allowed):
    """Magic Beans (c): only the highest or lowest legal card of a suit may be played."""
    assert legal(notation, *played) == frozenset(parse_cards(allowed))


def test_magic_beans_violation_names_the_card():
    """Playing a middle card under Magic Beans is reported as must-play-highest-or-lowest."""
    notation = "deluxe c 0 - A2A5A9Q3/F2/F3 -/-/- 0/0/0 -"
    assert violation(notation, "A5") == ("must-play-highest-or-lowest", "magic-beans")


@pytest.mark.parametrize("edition, letter, hand, allowed", [
    ("deluxe", "s", "A2A3A4", "A3"),  # follow suit and parity
    ("deluxe", "s", "A2A4Q3", "A2 A4"),  # suit before parity
    ("deluxe", "s", "Q2Q3F4", "Q3"),  # void: match parity
    ("deluxe", "s", "Q2F4", "Q2 F4"),  # void, no odd card: anything
    ("classic", "U", "A2A3A7", "A3 A7"),
])
def test_odds_and_evens_match_the_lead_parity(edition, letter, hand, allowed):
    """Odds and Evens (s / U): follow suit first, then the lead card's parity if able."""
    notation = f"{edition} {letter} 0 - A5/{hand}/F3 -/-/- 0/0/0 -"
    assert legal(notation, "A5") == frozenset(parse_cards(allowed))


def test_odds_and_evens_violation_code():
    """An even card where an odd one could follow is reported as must-match-parity."""
    state = RoundState.from_notation("deluxe s 0 - A5/A2A3A4/F3 -/-/- 0/0/0 -")
    state.push_card(parse_card("A5"))
    (found,) = state.check_play(parse_card("A2"))
    assert (found.code, found.params["rule"]) == (V.MUST_MATCH_PARITY, "odds-and-evens")
    (found,) = state.check_play(parse_card("F3"))
    assert found.code is V.NOT_IN_HAND


def test_late_for_a_very_important_date_keeps_three_cards():
    """Late for a Very Important Date (n): the last 3 cards are kept and scored as taken."""
    state = RoundState(["A5Q2Q3Q4", "A9F2F3F4", "A7P2P3P4"], edition="deluxe", round_card="n")
    assert state.play_trick(state.parse_trick("A5 A9 A7")) == 1
    outcome = state.outcome()
    assert state.is_over() and outcome is not None
    assert outcome.kept[2] == frozenset(parse_cards("P2 P3 P4"))
    assert outcome.to_entry().taken[2] == frozenset(parse_cards("P2 P3 P4"))
    assert outcome.tricks_won == (0, 1, 0)


@pytest.mark.parametrize("edition", list(Edition))
def test_every_round_card_plays_a_whole_round(edition):
    """Every Round card of both editions deals, plays its steps and tricks, and ends the round."""
    letters = string.ascii_lowercase if edition is Edition.DELUXE else string.ascii_uppercase[:21]
    for letter in letters:
        state = RoundState.deal(4, edition=edition, round_card=letter, seed=1)
        assert state.round_card == round_card_class(edition, letter).letters[edition] == letter
        play_random(state, random.Random(letter))
        assert state.is_over() and state.outcome() is not None
