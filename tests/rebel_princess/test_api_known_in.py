"""POST /api/v1/rebel-princess/check-round: a card seen ENTERING a hand is evidence too (issue 37).

Rule (both rulebooks): a player must follow the suit led if they can (Deluxe "Playing a Trick":
"they must play a card of the same suit if they have one"; French "Jouer un pli": « si elles en
ont une »). A card seen arriving in a hand (passed in under Musical Chairs k / E, taken in a
haggle p / T, drawn by Scheherazade, swapped back by Mulan) is in that hand from then on until it
is seen leaving or an unseen step may have taken it; a play off the suit led while such a card
of that suit is in the hand is a revoke AT THAT TRICK, reported at once (``proven_in`` is that
trick), whatever happens to the card later. An unseen step (passes not entered, Scheherazade
without her cards) ends what is known and proves nothing."""

from __future__ import annotations

import pytest

from .check_round_api import check, plays, violations

# Musical Chairs: after trick 0 (F9 wins for seat 2) seat 2 passes Q3 to its right, seat 1.
CHAIRS_0 = {"step": "chairs", "cards": ["P2", "P3", "Q3", "P5"]}
TRICK_0 = "F5 F2 F9 F7"
# Trick 1, led by seat 2: Queens led, seat 1 (last) plays A3 while it holds Q3: a revoke.
TRICK_1 = {"plays": plays(2, 4, "Q5 Q7 Q9 A3")}  # Q9: seat 0 wins
CHAIRS_REVOKE = (1, 1, "must-follow-suit", 1)


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "k"), ("classic", "E")])
def test_card_passed_in_makes_an_off_suit_play_a_revoke_at_once(client, edition, letter):
    first = {"plays": plays(0, 4, TRICK_0), "steps": [CHAIRS_0]}
    # Mid-round, as soon as the trick is entered: certain, reported at once.
    response = check(client, letter, first, TRICK_1, edition=edition)
    assert violations(response) == [CHAIRS_REVOKE]
    assert response.get_json()["legal"] is False
    # The passes after trick 1 not entered, and seat 0 later leads that Q3: still the revoke
    # at trick 1 (the case), never moved or dropped.
    later = {"plays": plays(0, 4, "Q3 Q2 Q4 Q6")}
    assert violations(check(client, letter, first, TRICK_1, later,
                            edition=edition)) == [CHAIRS_REVOKE]
    # Without the passes after trick 0 entered, nothing is known of seat 1's hand.
    plain = {"plays": plays(0, 4, TRICK_0)}
    assert violations(check(client, letter, plain, TRICK_1, edition=edition)) == []


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "k"), ("classic", "E")])
def test_card_passed_on_unseen_is_known_no_longer(client, edition, letter):
    """Passes after trick 1 not entered: seat 1 may have passed Q3 on, so its off-suit play in
    trick 2 proves nothing; entered (seat 1 passes P6), Q3 is still there: a revoke at once."""
    first = {"plays": plays(0, 4, TRICK_0), "steps": [CHAIRS_0]}
    trick_1 = {"plays": plays(2, 4, "F3 F4 F10 F6")}  # seat 1 follows; F10: seat 0 wins
    trick_2 = {"plays": plays(0, 4, "Q5 A3 Q6 Q7")}  # seat 1 plays A3 on Queens
    assert violations(check(client, letter, first, trick_1, trick_2, edition=edition)) == []
    passes = {**trick_1, "steps": [{"step": "chairs", "cards": ["P7", "P6", "P8", "P9"]}]}
    assert violations(check(client, letter, first, passes, trick_2, edition=edition)) == [
        (2, 2, "must-follow-suit", 1)]


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "p"), ("classic", "T")])
def test_card_taken_in_a_haggle_makes_an_off_suit_play_a_revoke(client, edition, letter):
    """Haggle with the Hag (p / T): the winner takes a card of the trick into their hand."""
    first = {"plays": plays(0, 4, "Q5 Q2 Q9 Q7"),
             "steps": [{"step": "haggle", "seat": 2, "give": "A3", "take": "Q5"}]}
    second = {"plays": plays(2, 4, "A5 A7 A9 A4")}  # A9: seat 0 wins
    third = {"plays": plays(0, 4, "Q8 Q10 F3 Q4")}  # seat 2 plays F3 holding Q5
    response = check(client, letter, first, second, third, edition=edition)
    assert violations(response) == [(2, 2, "must-follow-suit", 2)]
    no_haggle = {"plays": plays(0, 4, "Q5 Q2 Q9 Q7")}
    assert violations(check(client, letter, no_haggle, second, third, edition=edition)) == []


def test_card_drawn_by_scheherazade_is_hers_and_then_drawn_away_unseen(client):
    """Scheherazade (seat 0) draws Q3 from seat 1 and gives back F10: Q3 is in her hand. She then
    plays off the Queens led: a revoke at that trick; a later unseen draw changes nothing."""
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["Q3", "F10"]}
    first = {"plays": plays(0, 4, "A2 A3 A9 A4")}  # A9: seat 2 wins
    second = {"plays": plays(2, 4, "Q5 Q7 F4 Q6"), "powers": [power]}  # seat 0 plays F4
    princesses = {"0": "scheherazade"}
    response = check(client, "a", first, second, princesses=princesses)
    assert violations(response) == [(1, 1, "must-follow-suit", 0)]
    # Unentered, her draw shows nothing.
    hidden = {**second, "powers": [{"power": "scheherazade", "seat": 0, "target": 1}]}
    assert violations(check(client, "a", first, hidden, princesses=princesses)) == []


def test_card_scheherazade_gives_is_the_targets(client):
    """The card she gives lands in the target's hand: the target's off-suit play is a revoke."""
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["F10", "Q3"]}
    first = {"plays": plays(0, 4, "A2 A3 A9 A4")}  # A9: seat 2 wins
    second = {"plays": plays(2, 4, "Q5 Q7 Q9 F4"), "powers": [power]}  # seat 1 plays F4
    response = check(client, "a", first, second, princesses={"0": "scheherazade"})
    assert violations(response) == [(1, 1, "must-follow-suit", 1)]


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_mulan_swaps_back_is_in_her_hand(client, edition):
    """Mulan (seat 1) swaps her Q2 in the trick for Q4 from her hand: Q2 is back in her hand, so
    her off-suit play on the Queens led next is a revoke at once; without the swap, nothing."""
    swap = {"power": "mulan", "seat": 1, "cards": ["Q2", "Q4"]}
    first = {"plays": plays(0, 4, "Q5 Q2 Q9 Q7"), "powers": [swap]}  # Q9: seat 2 wins
    second = {"plays": plays(2, 4, "Q6 Q8 Q10 F3")}  # seat 1 (last) plays F3
    princesses = {"1": "mulan"}
    response = check(client, "a", first, second, edition=edition, princesses=princesses)
    assert violations(response) == [(1, 1, "must-follow-suit", 1)]
    plain = {"plays": plays(0, 4, "Q5 Q2 Q9 Q7")}
    assert violations(check(client, "a", plain, second, edition=edition,
                            princesses=princesses)) == []


def test_sleeping_beauty_partly_known_is_used_as_far_as_it_goes(client):
    """Sleeping Beauty: each seat gives her a card and gets one back. Only the cards received
    entered (``more``): seat 1 gets Q3, then plays F4 on the Queens led: a revoke at once. Only
    the cards given entered (``cards``): accepted, and seat 1's Q3 given proves its A2 in trick 0
    a revoke (issue 30's half)."""
    princesses = {"0": "sleeping-beauty"}
    first = {"plays": plays(0, 4, "A2 A3 A9 A4")}  # A9: seat 2 wins
    got = {"power": "sleeping-beauty", "seat": 0, "more": ["F10", "Q3", "P2", "P3"]}
    second = {"plays": plays(2, 4, "Q5 Q7 Q9 F4"), "powers": [got]}  # seat 1 plays F4
    assert violations(check(client, "a", first, second, princesses=princesses)) == [
        (1, 1, "must-follow-suit", 1)]
    gave = {"power": "sleeping-beauty", "seat": 0, "cards": ["F10", "Q3", "P2", "P3"]}
    trick_0 = {"plays": plays(0, 4, "Q5 A2 Q9 Q7")}  # seat 1 plays A2 on Queens
    trick_1 = {"plays": plays(2, 4, "F5 F2 F3 F9"), "powers": [gave]}
    assert violations(check(client, "a", trick_0, trick_1, princesses=princesses)) == [
        (0, 1, "must-follow-suit", 1)]
