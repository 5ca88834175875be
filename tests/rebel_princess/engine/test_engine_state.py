"""RoundState with every hand known: basic trick rules, push/pop, checks, deal and outcome."""

from __future__ import annotations

import random

import pytest

from companion.scoring.rebel_princess.cards import deck, hand_size
from companion.scoring.rebel_princess.engine import (
    EngineError,
    IllegalTrickError,
    InvalidEntryError,
    RoundState,
    Trick,
    ViolationCode,
    parse_card,
    parse_cards,
)
from companion.scoring.rebel_princess.round_score import score_entry

V = ViolationCode


def state(text: str) -> RoundState:
    return RoundState.from_notation(text)


def cards(text: str) -> frozenset:
    return frozenset(parse_cards(text))


# Three seats holding two cards each; seat 0 leads.
SMALL = "deluxe a 0 - P5Q3/Q7A4/P2F9 -/-/- 0/0/0 -"


def test_follower_must_follow_the_led_suit():
    """A player holding the led suit must play it."""
    s = state(SMALL)
    s.push_card(parse_card("Q3"))
    assert s.legal_plays(1) == cards("Q7")
    assert [v.code for v in s.check_play(parse_card("A4"))] == [V.MUST_FOLLOW_SUIT]


def test_void_player_may_play_any_card():
    """A player without the led suit ("void") may play any card."""
    s = state(SMALL)
    s.push_card(parse_card("Q3"))
    s.push_card(parse_card("Q7"))
    assert s.legal_plays(2) == cards("F9 P2")


def test_princes_may_not_be_led_before_they_snuck_in():
    """Princes cannot lead a trick until a void player has played one."""
    s = state(SMALL)
    assert s.legal_plays(0) == cards("Q3")
    assert [v.code for v in s.check_play(parse_card("P5"))] == [V.PRINCES_NOT_INVITED]


def test_leader_with_only_princes_may_lead_one():
    """A leader holding only Princes may lead one; that alone does not sneak them in."""
    s = state("deluxe a 0 - P3P5/Q7A4/F9P2 -/-/- 0/0/0 -")
    assert s.legal_plays(0) == cards("P3 P5")
    s.push_card(parse_card("P3"))
    assert not s.princes_in


def test_void_prince_sneaks_princes_in():
    """A void player playing a Prince lets Princes be led from then on."""
    s = state("deluxe a 0 - P5Q9A2/Q7F2A4/P2F9A3 -/-/- 0/0/0 -")
    assert s.legal_plays(0) == cards("Q9 A2")
    s.push(s.parse_trick("Q9 Q7 P2"))
    assert s.princes_in and s.leader == 0
    assert s.legal_plays(0) == cards("P5 A2")


def test_frog_does_not_sneak_princes_in():
    """The Frog (A8) is a Pet: a void player playing it does not bring the Princes in."""
    s = state("deluxe a 0 - Q3P5/Q7A4/A8P2 -/-/- 0/0/0 -")
    for code in ("Q3", "Q7", "A8"):
        s.push_card(parse_card(code))
    assert not s.princes_in


def test_highest_card_of_led_suit_wins():
    """The highest card of the led suit wins, whatever higher cards of other suits were played."""
    s = state("deluxe a 0 - Q3/Q2/F10 -/-/- 0/0/0 -")
    assert s.winner_of(Trick(0, parse_cards("Q3 Q2 F10"))) == 0


def test_winner_takes_the_cards_and_leads():
    """The trick winner takes its cards, counts a trick won and leads the next trick."""
    s = state(SMALL)
    winner = s.play_trick(s.parse_trick("Q3 Q7 P2"))
    assert winner == 1 and s.leader == 1
    assert s.taken[1] and s.hand(1) == cards("A4")
    assert s.tricks_won == [0, 1, 0]
    assert s.tricks == [Trick(0, parse_cards("Q3 Q7 P2"), 1)]


def test_push_then_pop_restores_the_state():
    """pop() undoes push() exactly, Princes flag and leader included."""
    s = state(SMALL)
    before = s.notation()
    trick = s.parse_trick("Q3 Q7 P2")
    s.push(trick)
    after = s.notation()
    assert s.pop() == Trick(0, trick.cards, 1)
    assert s.notation() == before
    s.push(trick)
    assert s.notation() == after


def test_pop_card_reopens_the_last_trick():
    """pop_card() takes back one card, reopening a completed trick if needed."""
    s = state(SMALL)
    s.push(s.parse_trick("Q3 Q7 P2"))
    assert s.pop_card() == parse_card("P2")
    assert s.current_trick == parse_cards("Q3 Q7")
    assert not s.princes_in and s.turn == 2


def test_pop_needs_a_trick():
    """pop() with nothing played raises IndexError; during a trick it raises EngineError."""
    s = state(SMALL)
    with pytest.raises(IndexError):
        s.pop()
    s.push_card(parse_card("Q3"))
    with pytest.raises(EngineError):
        s.pop()


@pytest.mark.parametrize("entry, codes", [
    ("Q3 A4 P2", [V.MUST_FOLLOW_SUIT]),
    ("P5 Q7 P2", [V.PRINCES_NOT_INVITED]),
    ("Q3 Q7 F10", [V.NOT_IN_HAND]),
    ("Q3 Q7 P2 > 0", [V.WRONG_WINNER]),
    ("P5 A4 F9 > 2", [V.PRINCES_NOT_INVITED, V.MUST_FOLLOW_SUIT, V.WRONG_WINNER]),
    ("1: Q7 P2 Q3", [V.WRONG_LEADER]),
])
def test_check_trick_reports_every_violation(entry, codes):
    """check_trick lists every problem as data and never raises."""
    s = state(SMALL)
    assert [v.code for v in s.check_trick(s.parse_trick(entry))] == codes


def test_check_trick_reports_cards_already_played_and_duplicates():
    """A card already taken or named twice in the trick is reported, not raised."""
    s = state("deluxe a 0 - P5Q3/Q7A4/P2F9 -/-/Q9 0/0/1 -")
    violations = s.check_trick(Trick(0, parse_cards("Q3 Q9 Q3")))
    assert [(v.code, v.seat) for v in violations] == [
        (V.CARD_ALREADY_PLAYED, 1), (V.DUPLICATE_CARD, 2)]
    assert [v.code for v in s.check_trick(Trick(0, parse_cards("Q3 Q7")))] == [V.WRONG_CARD_COUNT]
    assert s.notation() == "deluxe a 0 - P5Q3/Q7A4/P2F9 -/-/Q9 0/0/1 -"


def test_play_trick_raises_with_the_violations():
    """play_trick refuses an illegal trick with IllegalTrickError and leaves the state unchanged."""
    s = state(SMALL)
    with pytest.raises(IllegalTrickError) as info:
        s.play_trick(s.parse_trick("Q3 A4 P2"))
    assert [v.code for v in info.value.violations] == [V.MUST_FOLLOW_SUIT]
    assert info.value.violations[0].seat == 1
    assert s.notation() == SMALL


@pytest.mark.parametrize("entry, code", [
    ("Q3 Q7", V.WRONG_CARD_COUNT), ("Q3 Q7 Q7", V.DUPLICATE_CARD), ("Q3 Q7 X2", V.UNKNOWN_CARD),
    ("Q3 Q7 F12", V.CARD_NOT_IN_DECK),
])
def test_parse_trick_rejects_malformed_entries(entry, code):
    """parse_trick raises InvalidEntryError for a wrong count, a duplicate or an unknown card."""
    with pytest.raises(InvalidEntryError) as info:
        state(SMALL).parse_trick(entry)
    assert info.value.code is code


def test_play_refuses_an_illegal_card():
    """play() checks the card and raises IllegalTrickError; push_card() trusts it."""
    s = state(SMALL)
    with pytest.raises(IllegalTrickError):
        s.play(parse_card("P5"))
    s.play(parse_card("Q3"))
    assert s.current_trick == parse_cards("Q3")


def test_legal_plays_is_empty_for_other_seats_and_after_the_end():
    """Only the seat to play has legal plays; nobody has any once the round is over."""
    s = state("deluxe a 0 - Q3/Q7/F9 -/-/- 0/0/0 -")
    assert s.legal_plays(1) == frozenset() and s.legal_plays(0) == cards("Q3")
    s.push(s.parse_trick("Q3 Q7 F9"))
    assert s.is_over() and s.legal_plays() == frozenset()
    assert [v.code for v in s.check_play(parse_card("Q3"))] == [V.ROUND_OVER]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_gives_every_card_once_in_equal_hands(players):
    """A deal shares out this player count's whole deck equally; the same seed deals the same."""
    s = RoundState.deal(players, seed=7)
    assert [len(s.hand(seat)) for seat in range(players)] == [hand_size(players)] * players
    assert frozenset().union(*(s.hand(seat) for seat in range(players))) == frozenset(deck(players))
    assert RoundState.deal(players, seed=7) == s
    assert RoundState.deal(players, rng=random.Random(8)) != s


@pytest.mark.parametrize("bad", [{"hands": ["Q3", "Q7"]}, {"hands": ["Q3", "Q7", "Q3"]},
                                 {"hands": ["Q3", "Q7", "Q11"]}, {"leader": 3},
                                 {"edition": "german"}, {"round_card": "V", "edition": "classic"}])
def test_bad_round_setup_is_rejected(bad):
    """Seat count, duplicate cards, cards outside the deck, leader, edition and card are checked."""
    kwargs = {"hands": ["Q3", "Q7", "F9"]} | bad
    with pytest.raises(InvalidEntryError):
        RoundState(**kwargs)


def test_outcome_feeds_the_scoring_core():
    """outcome() is None until the round ends, then gives taken cards and tricks won per seat."""
    s = RoundState.deal(4, seed=11, round_card="e")
    assert s.outcome() is None
    rng = random.Random(0)
    while not s.is_over():
        s.push_card(sorted(s.legal_plays())[rng.randrange(len(s.legal_plays()))])
    outcome = s.outcome()
    assert outcome is not None and sum(outcome.tricks_won) == hand_size(4)
    entry = outcome.to_entry()
    assert entry.no_tricks == outcome.seats_without_trick
    assert frozenset().union(*entry.taken) == frozenset(deck(4))
    score = score_entry(entry)
    taken_points = [sum(1 for c in t if c.suit.value == "P") + 5 * any(
        c.rank == 8 and c.suit.value == "A" for c in t) for t in entry.taken]
    assert score.scores == [points + 5 * (seat in entry.no_tricks)
                            for seat, points in enumerate(taken_points)]
