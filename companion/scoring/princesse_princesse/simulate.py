"""A random round with real (hidden) cards, told to :class:`~.turns.PublicRound` as a table would.

Used by the tests' invariant sweep and by web tests that need a plausible turn log. The simulator
knows every hand and the deck; it plays legal turns (Céleste when she is forced, unless asked to
break the rule), answers the table's questions truthfully, and checks that the public view agrees
with the truth after every turn (21 cards accounted for, deck count, unseen counts).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from .cards import (
    BIBLIOTHECAIRE,
    CELESTE,
    CELESTE_FORCED_BY,
    DECK_SIZE,
    GARDE,
    OGRE,
    PRINCESSES,
    ROI,
    VLADRIC,
    deck,
    player_count,
)
from .table import Turn
from .turns import PublicRound


@dataclass(frozen=True)
class SimulatedRound:
    """A finished simulated round: its public log and the hidden truth at the end."""

    players: int
    first: int
    face_up: tuple[int, ...]
    turns: tuple[Turn, ...]
    final: dict[int, int]  # the cards shown at the end by the players still in
    breaches: tuple[int, ...]  # turn numbers where Céleste was not played when forced
    round_: PublicRound


def simulate_round(players: int, first: int, rng: random.Random, *,
                   breach_rate: float = 0.0, check: bool = True) -> SimulatedRound:
    """Play one random round to its end; every turn goes through :meth:`PublicRound.play`.

    ``breach_rate``: how often a player holding Céleste with 7 or 5 plays the 7 or 5 anyway.
    With ``check``, asserts after every turn that the public view matches the hidden cards.
    """
    cards = list(deck())
    rng.shuffle(cards)
    count = player_count(players)
    set_aside: int | None = cards.pop()
    face_up = tuple(cards.pop() for _ in range(count.face_up))
    hands = {seat: [cards.pop()] for seat in range(players)}
    pile = cards  # the top of the draw pile is the end of the list
    round_ = PublicRound(players, first, face_up)
    breaches: list[int] = []
    while not round_.is_over():
        seat = round_.current_seat
        assert seat is not None
        hand = hands[seat]
        hand.append(pile.pop())
        if CELESTE in hand and set(hand) & CELESTE_FORCED_BY and rng.random() >= breach_rate:
            card = CELESTE
        elif OGRE in hand and rng.random() < 0.9:  # players rarely throw the Ogre away
            card = next(c for c in hand if c != OGRE)
        else:
            card = rng.choice(hand)
            if CELESTE in hand and card in CELESTE_FORCED_BY:
                breaches.append(round_.turn_number)
        hand.remove(card)
        kept = hand[0]
        targets = sorted(round_.legal_targets(card))
        target = rng.choice(targets) if targets else None
        turn = Turn(seat, card, target)
        if card == GARDE and target is not None:
            held = hands[target][0]
            named = held if held != GARDE and rng.random() < 0.25 else rng.choice(
                round_.garde_names())
            turn = Turn(seat, card, target, named=named, hit=held == named)
            if held == named:
                hands[target] = []
        elif card == BIBLIOTHECAIRE and target is not None:
            theirs = hands[target][0]
            if theirs == kept:
                turn = Turn(seat, card, target, tie=True)
            else:
                loser = seat if kept < theirs else target
                turn = Turn(seat, card, target, loser=loser, revealed=min(kept, theirs))
                hands[loser] = []
        elif card == VLADRIC:
            assert target is not None
            revealed = hands[target][0]
            turn = Turn(seat, card, target, revealed=revealed)
            if revealed == OGRE:
                hands[target] = []
            elif pile:
                hands[target] = [pile.pop()]
            else:
                assert set_aside is not None
                hands[target], set_aside = [set_aside], None
        elif card == PRINCESSES:
            drawn = [pile.pop() for _ in range(min(2, len(pile)))]
            choice = hand + drawn
            keep = rng.choice(choice)
            choice.remove(keep)
            hands[seat] = [keep]
            rng.shuffle(choice)
            pile[:0] = choice  # under the deck
        elif card == ROI and target is not None:
            hands[seat], hands[target] = hands[target], hands[seat]
        elif card == OGRE:
            turn = Turn(seat, card, revealed=kept)
            hands[seat] = []
        round_.play(turn)
        if check:
            _check_truth(round_, hands, pile, set_aside, face_up)
    final = {seat: hands[seat][0] for seat in round_.seats_in()}
    return SimulatedRound(players, first, face_up, round_.turns, final, tuple(breaches), round_)


def _check_truth(round_: PublicRound, hands: dict[int, list[int]], pile: list[int],
                 set_aside: int | None, face_up: tuple[int, ...]) -> None:
    """The public view agrees with the hidden cards; every one of the 21 cards is somewhere."""
    hidden = [card for hand in hands.values() for card in hand] + pile
    if set_aside is not None:
        hidden.append(set_aside)
    public = [card for seat in range(round_.players) for card in round_.discards(seat)]
    everything = Counter(hidden) + Counter(public) + Counter(face_up)
    assert sum(everything.values()) == DECK_SIZE and everything == Counter(deck()), everything
    assert round_.deck_count == len(pile), (round_.deck_count, len(pile))
    assert round_.set_aside_drawn == (set_aside is None)
    assert +Counter(round_.unseen()) == Counter(hidden)
    for seat in range(round_.players):
        assert (len(hands[seat]) == 1) == round_.is_in(seat), (seat, hands[seat])
