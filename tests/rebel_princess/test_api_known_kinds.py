"""POST /api/v1/rebel-princess/check-round: the kinds of step of the known-hand model (issue 37)
that test_api_known_in.py and test_api_evidence.py leave out, in both editions, with and without
the later step entered, each checked mid-round (the breach is reported by the trick that makes it
certain, ``proven_in`` = that trick); and the classic powers refused at entry on their own text.

Rules (expectations derived from the rulebooks, never from the code):
- Follow suit if you can: Deluxe "Playing a Trick" « they must play a card of the same suit if
  they have one »; French « Jouer un pli » « si elles en ont une ».
- Alice: Deluxe "Shuffle a trick you just won with no Frog and deal the cards back randomly to
  each player's hand"; French « mélanger les cartes de ce pli et les redistribuer aléatoirement
  à toutes les Princesses (y compris vous) pour les rejouer ». Neither text limits her on the
  last trick: the cards dealt back are played again.
- Scheherazade: « prenez une carte au hasard dans la main d'une Princesse et échangez-la contre
  une de vos cartes (ou rendez-la-lui) » / "Swap it for one of your cards (or give it back)".
- Sleeping Beauty: each player contributes a card, she keeps one and deals the others.
- Wedding Gift (Deluxe o / French M, « Cadeau de mariage »): before each trick every player lays
  a card from their hand face down on the winner's pile; a pile not entered may have taken any
  card known in a hand.
- Classic Little Mermaid: « vous ne pouvez pas faire jouer la couleur des Princes s'ils ne sont
  pas encore apparus dans la manche », no exception; Deluxe: « may not compel the lead player to
  play a Prince card if the Prince suit has yet to be played unless the lead player only has
  cards of the Prince suit » (the table cannot see that hand: accepted at entry).
- Classic Ice Princess: « Avant qu'une Princesse n'ouvre un pli, vous piochez aléatoirement dans
  sa main la carte qu'elle va jouer »: the hand of the Princess who opens; Deluxe: any player.
"""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.cards import Edition
from companion.scoring.rebel_princess.engine.errors import CATALOGUES

from .check_round_api import check, plays, refusals, violations

EDITIONS = [("deluxe", "a"), ("classic", "A")]


# --- Alice: the cards dealt back are known in, one per seat from seat 0 ---------------------------

ALICE = {"2": "alice"}
ALICE_TRICK = "Q5 Q2 Q9 Q7"  # led by seat 0: Q9, seat 2 (Alice) wins
DEALT = ["Q9", "Q5", "Q2", "Q7"]  # seat 0 gets Q9, seat 1 Q5, seat 2 Q2, seat 3 Q7
REPLAY = {"plays": plays(2, 4, "Q2 Q7 F4 Q5")}  # Alice leads again; seat 0 plays F4 holding Q9


@pytest.mark.parametrize(("edition", "letter"), EDITIONS)
def test_card_alice_deals_back_makes_an_off_suit_play_a_revoke_at_once(client, edition, letter):
    """Seat 0 is dealt Q9 and plays F4 on the Queens of the replay: a revoke at the replay,
    reported as soon as the replay is in (mid-round); a later play of Q9 changes nothing."""
    first = {"plays": plays(0, 4, ALICE_TRICK),
             "powers": [{"power": "alice", "seat": 2, "cards": DEALT}]}
    response = check(client, letter, first, REPLAY, edition=edition, princesses=ALICE)
    assert violations(response) == [(1, 1, "must-follow-suit", 0)]
    assert response.get_json()["legal"] is False
    later = {"plays": plays(3, 4, "A5 Q9 A6 A7")}  # Q7 won the replay: seat 3 leads
    assert violations(check(client, letter, first, REPLAY, later, edition=edition,
                            princesses=ALICE)) == [(1, 1, "must-follow-suit", 0)]
    # The deal must be entered whole (her power needs the cards: 422 without them), so there is
    # no "not entered" case for Alice at the API.
    hidden = {**first, "powers": [{"power": "alice", "seat": 2}]}
    assert refusals(check(client, letter, hidden, REPLAY, edition=edition,
                          princesses=ALICE)) == [("bad-power-argument", 2, "tricks[0].powers[0]")]


@pytest.mark.parametrize(("edition", "letter"), EDITIONS)
def test_alice_after_the_last_trick_gives_the_round_a_replay(client, edition, letter):
    """Three players, twelve tricks of one suit each, each won by the last to play; Alice holds
    the seat that wins the last one and deals it back: the replay is a thirteenth trick she
    leads, and the round is complete only once it is in (the rulebooks set no last-trick limit)."""
    cards = [f"{suit}{rank}" for suit in "QFAP" for rank in range(2, 11)]
    tricks, leader = [], 0
    for start in range(0, len(cards), 3):
        tricks.append({"plays": plays(leader, 3, " ".join(cards[start:start + 3]))})
        leader = (leader + 2) % 3
    alice = leader  # the last trick's winner (its last seat to play)
    assert alice == tricks[-1]["plays"][-1]["seat"]
    last = [p["card"] for p in tricks[-1]["plays"]]  # P8 P9 P10
    dealt = [last[(seat - alice) % 3] for seat in range(3)]  # each seat gets what it played
    tricks[-1] = {**tricks[-1], "powers": [{"power": "alice", "seat": alice, "cards": dealt}]}
    princesses = {str(alice): "alice"}
    body = dict(edition=edition, players=3, princesses=princesses)
    before = check(client, letter, *tricks, **body)
    assert before.status_code == 200, before.get_json()
    assert before.get_json()["complete"] is False  # the replay is still to come
    replay = {"plays": plays(alice, 3, " ".join(last))}
    done = check(client, letter, *tricks, replay, **body)
    assert violations(done) == [] and done.get_json()["complete"] is True


# --- Scheherazade, both editions: the card drawn is hers, the card given is the target's ----------

@pytest.mark.parametrize(("edition", "letter"), EDITIONS)
@pytest.mark.parametrize(("cards", "seat", "second"), [
    (["Q3", "F10"], 0, "Q5 Q7 F4 Q6"),  # she draws Q3 (gives F10): seat 0 plays F4
    (["F10", "Q3"], 1, "Q5 Q7 Q9 F4"),  # she draws F10, gives Q3: the target plays F4
    (["Q3", "Q3"], 1, "Q5 Q7 Q9 F4"),  # she gives the card back: still the target's
])
def test_scheherazade_cards_are_known_in_their_new_hand(client, edition, letter, cards, seat,
                                                       second):
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": cards}
    first = {"plays": plays(0, 4, "A2 A3 A9 A4")}  # A9: seat 2 wins
    princesses = {"0": "scheherazade"}
    trick = {"plays": plays(2, 4, second), "powers": [power]}
    assert violations(check(client, letter, first, trick, edition=edition,
                            princesses=princesses)) == [(1, 1, "must-follow-suit", seat)]
    hidden = {**trick, "powers": [{"power": "scheherazade", "seat": 0, "target": 1}]}
    assert violations(check(client, letter, first, hidden, edition=edition,
                            princesses=princesses)) == []


@pytest.mark.parametrize(("edition", "letter"), EDITIONS)
def test_scheherazade_drawn_card_proves_an_earlier_revoke(client, edition, letter):
    """Known out: the card she draws was in the target's hand; seat 1's A2 on the Queens of
    trick 0 was a revoke, proven by the draw before trick 1 (before it is even played)."""
    trick_0 = {"plays": plays(0, 4, "Q5 A2 Q9 Q7")}  # seat 2 wins
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["Q3", "F10"]}
    trick_1 = {"plays": plays(2, 4, "F5 F2"), "powers": [power]}  # mid-trick
    assert violations(check(client, letter, trick_0, trick_1, edition=edition,
                            princesses={"0": "scheherazade"})) == [(0, 1, "must-follow-suit", 1)]


# --- Sleeping Beauty, classic too: contributions known out, cards dealt known in ------------------

@pytest.mark.parametrize(("edition", "letter"), EDITIONS)
def test_sleeping_beauty_each_part_in_both_editions(client, edition, letter):
    princesses = {"0": "sleeping-beauty"}
    first = {"plays": plays(0, 4, "A2 A3 A9 A4")}  # A9: seat 2 wins
    got = {"power": "sleeping-beauty", "seat": 0, "more": ["F10", "Q3", "P2", "P3"]}
    second = {"plays": plays(2, 4, "Q5 Q7 Q9 F4"), "powers": [got]}  # seat 1 plays F4
    assert violations(check(client, letter, first, second, edition=edition,
                            princesses=princesses)) == [(1, 1, "must-follow-suit", 1)]
    hidden = {**second, "powers": [{"power": "sleeping-beauty", "seat": 0}]}
    assert violations(check(client, letter, first, hidden, edition=edition,
                            princesses=princesses)) == []
    gave = {"power": "sleeping-beauty", "seat": 0, "cards": ["F10", "Q3", "P2", "P3"]}
    trick_0 = {"plays": plays(0, 4, "Q5 A2 Q9 Q7")}  # seat 1 plays A2 on Queens
    trick_1 = {"plays": plays(2, 4, "F5"), "powers": [gave]}  # mid-trick: proven already
    assert violations(check(client, letter, trick_0, trick_1, edition=edition,
                            princesses=princesses)) == [(0, 1, "must-follow-suit", 1)]


# --- Wedding Gift: a pile entered keeps what is known in the hands, a pile not entered ends it ----

GIFT_0 = {"step": "gift", "cards": ["P2", "P3", "P4", "P5"]}
GIFT_1 = {"step": "gift", "cards": ["P6", "P7", "P8", "P9"]}


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "o"), ("classic", "M")])
@pytest.mark.parametrize(("gift", "expected"), [
    ({"step": "gift", "cards": ["A10", "Q1", "Q2", "Q4"]}, [(2, 2, "must-follow-suit", 0)]),
    ({"step": "gift", "cards": ["Q3", "Q1", "Q2", "Q4"]}, []),  # she lays Q3 itself
    (None, []),  # the pile not entered: she may have laid Q3
])
def test_wedding_gift_pile_and_a_card_known_in(client, edition, letter, gift, expected):
    """Scheherazade (seat 0) draws Q3 before trick 1; in trick 2 she plays A6 on the Queens
    led. With the pile of trick 2 entered and Q3 not in it, she still holds Q3: a revoke at
    once; Q3 on the pile, or the pile not entered, proves nothing."""
    princesses = {"0": "scheherazade"}
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["Q3", "F10"]}
    trick_0 = {"plays": plays(0, 4, "A2 A3 A9 A4"), "steps": [GIFT_0]}  # seat 2 wins
    trick_1 = {"plays": plays(2, 4, "F5 F7 F2 F9"), "steps": [GIFT_1],
               "powers": [power]}  # F9: seat 1 wins
    trick_2 = {"plays": plays(1, 4, "Q5 Q7 Q8 A6"), "steps": [gift] if gift else []}
    assert violations(check(client, letter, trick_0, trick_1, trick_2, edition=edition,
                            princesses=princesses)) == expected


# --- Classic powers refused at entry on their own text, on their own seat ---------------------

def test_classic_little_mermaid_cannot_name_princes_before_one_appeared(client):
    mermaid = {"power": "little-mermaid", "seat": 1, "suit": "P"}
    trick = {"plays": plays(0, 4, "Q5 Q2 Q9 Q7"), "powers": [mermaid]}
    response = check(client, "A", trick, edition="classic", princesses={"1": "little-mermaid"})
    assert refusals(response) == [("princes-not-yet", 1, "tricks[0].powers[0]")]
    english = response.get_json()["problems"][0]["message"]
    assert "Little Mermaid" in english and "no Prince has appeared" in english
    # (The API speaks English; the trick screen shows the French: test_trick_known_in.py.)
    # Deluxe: the leader may hold only Princes, which the table cannot see: accepted.
    deluxe = check(client, "a", {**trick, "plays": plays(0, 4, "P5 P2 P9 P7")},
                   princesses={"1": "little-mermaid"})
    assert deluxe.status_code == 200
    # Once a Prince has appeared (seat 1 discards P2 on the Fairies), Princes may be named.
    first = {"plays": plays(0, 4, "F5 P2 F9 F7")}  # F9: seat 2 wins, leads next
    later = {"plays": plays(2, 4, "P9 P7 P5 P3"), "powers": [mermaid]}
    fine = check(client, "A", first, later, edition="classic", princesses={"1": "little-mermaid"})
    assert fine.status_code == 200 and ("must-follow-suit" not in str(fine.get_json()))


def test_classic_ice_princess_on_a_seat_that_does_not_lead_is_refused_at_entry(client):
    ice = {"power": "ice-princess", "seat": 2, "target": 1, "cards": ["Q3"]}
    trick = {"plays": plays(0, 3, "F5 Q3 F7"), "powers": [ice]}
    response = check(client, "A", trick, edition="classic", players=3,
                     princesses={"2": "ice-princess"})
    assert refusals(response) == [("not-the-leader", 2, "tricks[0].powers[0]")]
    assert "Ice Princess" in response.get_json()["problems"][0]["message"]
    french = CATALOGUES[Edition.CLASSIC].text("not-the-leader", "fr", rule="ice-princess")
    assert "Princesse des glaces" in french and "ouvre" in french
    on_leader = {"plays": plays(0, 3, "F5 Q3 F7"),
                 "powers": [{**ice, "target": 0, "cards": ["F5"]}]}
    assert violations(check(client, "A", on_leader, edition="classic", players=3,
                            princesses={"2": "ice-princess"})) == []
    deluxe = check(client, "a", trick, players=3, princesses={"2": "ice-princess"})
    assert violations(deluxe) == []  # Deluxe: any player's card may be frozen
