"""Every card that becomes known at the table is evidence about the hand it came from
(companion.scoring.rebel_princess.engine.evidence), judged by TableRound and check-round.

The expectations come from the rulebooks: a player must follow the suit led if able (Deluxe
"Playing a Trick", French "Jouer un pli"), so a seat that played off the suit led while it held a
card of that suit revoked; a card that was in its hand then and becomes known later proves it.
Each kind is tested with the later evidence (a finding) and without it (none)."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.engine import (
    Chairs,
    Gift,
    Haggle,
    Kept,
    PowerUse,
    TableRound,
    parse_card,
    parse_cards,
)
from companion.scoring.rebel_princess.table_check import (
    PlayInput,
    PowerInput,
    StepInput,
    TrickInput,
    check_round,
)

# Trick 0, four players, seat 0 leads Q5; seat 1 plays A2 (off the suit led); Q9 wins for seat 2.
# Trick 1, led by seat 2: F5 F2 F3 F9, won by seat 1.
TRICK_0 = "Q5 A2 Q9 Q7"
TRICK_1 = "F5 F2 F3 F9"


def table(round_card="a", princesses=None, players=4):
    return TableRound(players, round_card=round_card, leader=0, princesses=princesses)


def play(judge, codes):
    for card in parse_cards(codes):
        judge.push_card(card)


def revokes(judge):
    return [(p.trick, p.params["proven_in"], str(p.code), p.seat) for p in judge.findings()]


def trick(leader, codes, players=4, powers=(), steps=()):
    cards = codes.split()
    return TrickInput(tuple(PlayInput((leader + i) % players, c) for i, c in enumerate(cards)),
                      tuple(powers), tuple(steps))


def found(result):
    return [(v.trick, v.params["proven_in"], v.code, v.seat) for v in result.violations]


REVOKE = (0, 1, "must-follow-suit", 1)


# -- shown: Haggle with the Hag (Deluxe p, classic T) ----------------------------------------------

@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "p"), ("classic", "T")])
def test_haggled_card_is_shown_so_it_proves_an_earlier_revoke(edition, letter):
    """The winner « exchanges a card from their hand, which they must show » (« qu'elle doit
    montrer »): Q3 given after trick 1 was in seat 1's hand at trick 0, where it played A2."""
    judge = TableRound(4, edition=edition, round_card=letter, leader=0)
    play(judge, TRICK_0)
    play(judge, TRICK_1)
    assert judge.tricks[1].winner == 1 and revokes(judge) == []
    judge.push_haggle(Haggle(1, parse_card("Q3"), parse_card("F5")))
    assert revokes(judge) == [REVOKE]
    judge.pop()
    assert revokes(judge) == []


def test_haggle_of_another_suit_proves_nothing():
    """Without a Queen shown, seat 1 may have had none: no finding."""
    judge = table("p")
    play(judge, TRICK_0)
    play(judge, TRICK_1)
    judge.push_haggle(Haggle(1, parse_card("P3"), parse_card("F5")))
    assert revokes(judge) == []


def test_haggle_check_round():
    haggle = StepInput("haggle", seat=1, give="Q3", take="F5")
    with_it = check_round(edition="deluxe", round_card="p", players=4, leader=0,
                          tricks=[trick(0, TRICK_0), trick(2, TRICK_1, steps=[haggle])])
    assert found(with_it) == [REVOKE] and not with_it.legal
    without = check_round(edition="deluxe", round_card="p", players=4, leader=0,
                          tricks=[trick(0, TRICK_0), trick(2, TRICK_1)])
    assert found(without) == [] and without.legal


def test_card_taken_in_a_haggle_and_played_later_is_no_revoke():
    """The card the winner takes from the trick arrives in her hand: playing it later says
    nothing about trick 0."""
    judge = table("p")
    play(judge, "Q5 A2 Q9 Q7")  # seat 2 wins
    judge.push_haggle(Haggle(2, parse_card("F6"), parse_card("Q5")))
    play(judge, "F7 F8 F9 F10")  # seat 1 wins (F10 is seat 1's)
    play(judge, "A3 Q5 A4 A5")  # Q5 from seat 2: it arrived in the haggle
    assert revokes(judge) == []


# -- drawn: Scheherazade ---------------------------------------------------------------------------

@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_scheherazade_drawn_card_proves_an_earlier_revoke(edition):
    """Scheherazade takes a card from a player's hand: Q3, drawn from seat 1 before trick 1, was
    in its hand at trick 0."""
    judge = TableRound(4, edition=edition, leader=0, princesses=["scheherazade", None, None, None])
    play(judge, TRICK_0)
    judge.push_power(PowerUse(0, "scheherazade", target=1, cards=parse_cards("Q3 F10")))
    assert revokes(judge) == [REVOKE]
    judge.pop()
    judge.push_power(PowerUse(0, "scheherazade", target=1))  # cards not seen: no evidence
    play(judge, TRICK_1)
    assert revokes(judge) == []


def test_scheherazade_given_card_played_later_is_no_revoke():
    """The card Scheherazade gives arrives in the target's hand."""
    judge = table(princesses=["scheherazade", None, None, None])
    play(judge, TRICK_0)
    judge.push_power(PowerUse(0, "scheherazade", target=1, cards=parse_cards("F10 Q3")))
    play(judge, "F5 Q3 F3 F9")  # seat 1 plays Q3, just given by seat 0
    assert ("must-follow-suit", 1) not in [(str(p.code), p.seat) for p in judge.findings()
                                           if p.trick == 0]


def test_scheherazade_check_round():
    power = PowerInput("scheherazade", 0, target=1, cards=("Q3", "F10"))
    result = check_round(edition="deluxe", round_card="a", players=4, leader=0,
                         princesses={0: "scheherazade"},
                         tricks=[trick(0, TRICK_0), trick(2, TRICK_1, powers=[power])])
    assert found(result) == [REVOKE]
    hidden = PowerInput("scheherazade", 0, target=1)
    result = check_round(edition="deluxe", round_card="a", players=4, leader=0,
                         princesses={0: "scheherazade"},
                         tricks=[trick(0, TRICK_0), trick(2, TRICK_1, powers=[hidden])])
    assert found(result) == []


# -- contributed: Sleeping Beauty ------------------------------------------------------------------

@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_sleeping_beauty_contribution_proves_an_earlier_revoke(edition):
    """Every player contributes a card from their hand: seat 1's Q3 was in it at trick 0."""
    judge = TableRound(4, edition=edition, leader=0,
                       princesses=["sleeping-beauty", None, None, None])
    play(judge, TRICK_0)
    judge.push_power(PowerUse(0, "sleeping-beauty", cards=parse_cards("F10 Q3 P2 P3"),
                              more=parse_cards("Q3 F10 P3 P2")))
    assert revokes(judge) == [REVOKE]
    judge.pop()
    judge.push_power(PowerUse(0, "sleeping-beauty"))
    play(judge, TRICK_1)
    play(judge, "Q3 F10 A3 A4")  # seat 1 later plays Q3, but the unseen deal may have brought it
    assert revokes(judge) == []


def test_card_received_from_sleeping_beauty_is_no_revoke():
    judge = table(princesses=["sleeping-beauty", None, None, None])
    play(judge, TRICK_0)
    judge.push_power(PowerUse(0, "sleeping-beauty", cards=parse_cards("Q3 F10 P2 P3"),
                              more=parse_cards("F10 Q3 P3 P2")))  # seat 1 receives Q3
    play(judge, "F5 Q3 F3 F9")
    assert [p for p in judge.findings() if p.trick == 0] == []


def test_sleeping_beauty_check_round():
    power = PowerInput("sleeping-beauty", 0, cards=("F10", "Q3", "P2", "P3"),
                       more=("Q3", "F10", "P3", "P2"))
    result = check_round(edition="deluxe", round_card="a", players=4, leader=0,
                         princesses={0: "sleeping-beauty"},
                         tricks=[trick(0, TRICK_0), trick(2, TRICK_1, powers=[power])])
    assert found(result) == [REVOKE]


# -- laid: Wedding Gift (Deluxe o, classic M) ------------------------------------------------------

@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "o"), ("classic", "M")])
def test_gift_pile_card_proves_an_earlier_revoke(edition, letter):
    """Every player places a card from their hand on the pile before each trick."""
    judge = TableRound(4, edition=edition, round_card=letter, leader=0)
    judge.push_gift(Gift(parse_cards("P2 P3 P4 P5")))
    play(judge, TRICK_0)
    judge.push_gift(Gift(parse_cards("P6 Q3 P7 P8")))
    assert revokes(judge) == [REVOKE]
    judge.pop()
    judge.push_gift(Gift(parse_cards("P6 P9 P7 P8")))
    assert revokes(judge) == []


# -- played: Mulan's card from her hand ------------------------------------------------------------

def test_mulan_swapped_in_card_came_from_her_hand():
    """Mulan swaps her card for another of the same suit from her hand: a Queen she swaps in
    after trick 1 was in her hand at trick 0, where she played off the suit led."""
    judge = table(princesses=[None, "mulan", None, None])
    play(judge, TRICK_0)
    play(judge, "A5 A4 A3 A9")  # seat 2 leads; seat 1 plays A9 and wins
    assert revokes(judge) == []
    judge.push_power(PowerUse(1, "mulan", cards=parse_cards("A9 A10")))
    assert revokes(judge) == []  # a Pet says nothing about Queens
    judge.pop()
    judge.push_power(PowerUse(1, "mulan", cards=parse_cards("A9 A6")))
    play(judge, "Q3 F2 F3 F4")  # seat 1 leads Q3: held at trick 0 → the revoke is proven
    assert (0, "must-follow-suit", 1) in [(p.trick, str(p.code), p.seat)
                                          for p in judge.findings()]


# -- dealt: Alice ----------------------------------------------------------------------------------

def test_card_dealt_by_alice_played_later_is_no_revoke():
    """Alice deals the trick back: a card a seat receives was not in its hand before, so
    seat 1 playing F5 (dealt to it) after its A2 on a Fairy lead proves nothing."""
    judge = table(princesses=[None, None, "alice", None])
    play(judge, "F5 A2 F9 F7")  # seat 2 wins
    judge.push_power(PowerUse(2, "alice", cards=parse_cards("F7 F5 A2 F9")))  # seat 1 gets F5
    play(judge, "A2 F9 F7 F5")  # the replay, led by seat 2: seat 1 plays F5
    assert [p for p in judge.findings() if p.trick == 0 and p.seat == 1] == []
    plain = table()
    play(plain, "F5 A2 F9 F7")
    play(plain, "A3 A4 A5 F6")  # without the deal, a Fairy seat 1 shows later proves it
    assert [(p.trick, p.seat) for p in plain.findings()] == [(0, 1)]


# -- kept: Late for a Very Important Date (Deluxe n) -----------------------------------------------

def test_kept_cards_shown_at_the_end_prove_an_earlier_revoke():
    """Deluxe n: the last 3 cards of each hand are kept and scored: they were in it all round,
    so seat 1's kept Q3 proves its A10 on the Q2 lead of trick 0 a revoke."""
    judge = TableRound(3, round_card="n", leader=0)
    for cards in ("Q2 A10 Q4", "F2 F3 F4", "F5 F6 F7", "F8 F9 F10", "A2 A3 A4", "A5 A6 A7",
                  "A8 A9 P10", "P2 P3 P4", "P5 P6 P7"):
        play(judge, cards)
    assert judge.is_over() and revokes(judge) == []
    kept = (parse_cards("Q5 Q6 Q7"), parse_cards("Q3 P8 P9"), parse_cards("Q8 Q9 Q10"))
    judge.push_kept(Kept(tuple(map(tuple, kept))))
    assert revokes(judge) == [(0, 8, "must-follow-suit", 1)]
    judge.pop()
    assert revokes(judge) == []


# -- passed: Musical Chairs (Deluxe k, classic E) --------------------------------------------------

@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "k"), ("classic", "E")])
def test_card_passed_under_musical_chairs_proves_an_earlier_revoke(edition, letter):
    """After each trick every player passes a card from their hand to the right: seat 1's Q3
    was in its hand at trick 0. Passes not entered: its later Q3 may have come from seat 2."""
    judge = TableRound(4, edition=edition, round_card=letter, leader=0)
    play(judge, TRICK_0)
    judge.push_chairs(Chairs(parse_cards("P2 Q3 P4 P5")))
    assert revokes(judge) == [(0, 0, "must-follow-suit", 1)]
    judge.pop()
    play(judge, "F5 F2 F3 Q3")  # seat 1 plays Q3 after a pass not entered
    assert revokes(judge) == []
    plain = TableRound(4, edition=edition, round_card=letter, leader=0)
    play(plain, TRICK_0)
    plain.push_chairs(Chairs(parse_cards("P2 P3 P4 P5")))
    play(plain, "F5 F2 F3 Q3")  # passes entered, Q3 not among them: held at trick 0
    assert revokes(plain) == [REVOKE]
