"""The public table of a round between two turns, a turn (:class:`Turn`, as the table saw it) and
what it does to the table.

:class:`PublicTable` is one immutable snapshot of what everybody can see (who is still in, who is
protected, the deck count, the cards face up in front of each seat); :func:`apply_turn` gives the
snapshot after a checked turn. The table also keeps the claims on each hand that a later reveal can
prove false (:class:`Suspicion`, « Fautes de jeu »): :func:`revealed_faults`. The rules these apply
are stated in :mod:`.turns`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from companion.scoring.problems import EntryError, Problem

from .cards import (
    BIBLIOTHECAIRE,
    CELESTE,
    CELESTE_FORCED_BY,
    GARDE,
    MAX_VALUE,
    MIN_VALUE,
    OGRE,
    OLIVER,
    PRINCESSES,
    ROI,
    SPY,
    VLADRIC,
    card_params,
)
from .problems import CATALOGUE

VALUES = range(MIN_VALUE, MAX_VALUE + 1)
# Mistakes a later reveal can prove (« Fautes de jeu »): problem codes, listed in ``faults()``.
CELESTE_NOT_PLAYED, GARDE_LIE, LIBRARIAN_WRONG, LIBRARIAN_TIE_WRONG = FAULT_CODES = (
    "celeste-not-played", "garde-lie", "librarian-wrong", "librarian-tie-wrong")


@dataclass(frozen=True)
class Turn:
    """One turn as the table saw it, with the table's answers.

    ``seat`` played ``card`` (a value 0–9) at ``target``. Garde: ``named`` character and ``hit``
    (was the guess right). Bibliothécaire: ``loser`` (the seat with the lower card) or ``tie``.
    ``revealed``: the card discarded face up by the effect — the hand of Vladric's target, the
    Bibliothécaire loser's card, the Ogre player's other card (a Garde's right guess reveals the
    named card by itself).

    Notation (``str(turn)`` / :meth:`from_notation`): ``seat:card``, then ``>target``, ``=named``
    with ``+`` (right guess) or ``-``, ``x`` + loser seat or ``~`` for a tie, ``#`` + revealed card:
    ``2:1>0=5-``, ``0:3>1x1#2``, ``1:5>1#4``, ``3:9#6``, ``0:4``.
    """

    seat: int
    card: int
    target: int | None = None
    named: int | None = None
    hit: bool | None = None
    loser: int | None = None
    tie: bool = False
    revealed: int | None = None

    _NOTATION = re.compile(r"(\d+):(\d+)(?:>(\d+))?(?:=(\d+)([+-])?)?(?:x(\d+)|(~))?(?:#(\d+))?")

    def __str__(self) -> str:
        text = f"{self.seat}:{self.card}"
        if self.target is not None:
            text += f">{self.target}"
        if self.named is not None:
            text += f"={self.named}" + {True: "+", False: "-", None: ""}[self.hit]
        if self.loser is not None:
            text += f"x{self.loser}"
        elif self.tie:
            text += "~"
        if self.revealed is not None:
            text += f"#{self.revealed}"
        return text

    @classmethod
    def from_notation(cls, text: str) -> Turn:
        """Parse ``str(turn)``; raises :class:`EntryError` ``bad-notation``."""
        match = cls._NOTATION.fullmatch(text.strip())
        if match is None:
            raise EntryError(CATALOGUE.problem("bad-notation", value=text))
        seat, card, target, named, sign, loser, tie, revealed = match.groups()
        return cls(int(seat), int(card), _opt(target), _opt(named),
                   None if sign is None else sign == "+", _opt(loser), tie is not None,
                   _opt(revealed))


def _opt(text: str | None) -> int | None:
    return None if text is None else int(text)


class EndReason(StrEnum):
    """How a round ended (« Fin de la manche »)."""

    LAST_IN = "last-in"
    DECK_EMPTY = "deck-empty"


@dataclass(frozen=True)
class RoundEnding:
    """What the turn log knows when the round is over: what the round-end screen fills in."""

    reason: EndReason
    still_in: tuple[int, ...]
    spies: frozenset[int]
    princesses: frozenset[int]

    @property
    def needs_cards(self) -> bool:
        """True when the players still in must show their cards (more than one is still in)."""
        return len(self.still_in) > 1


@dataclass(frozen=True)
class Suspicion:
    """A claim on a hand, proven false if that same hand is revealed holding one of ``values``."""

    values: frozenset[int]
    code: str  # the fault then proven: celeste-not-played, garde-lie, librarian-wrong
    seat: int  # who made the mistake
    turn: int  # 1-based number of the turn where it happened
    value: int  # the card the problem names: played card, named card, loser's card
    #: A Bibliothécaire tie: the turn of the comparison, on both hands compared. It proves
    #: nothing alone; once one of the two hands is revealed, the other must hold the same value.
    tie: int | None = None


@dataclass(frozen=True)
class PublicTable:
    """The public state between two turns (one immutable snapshot per turn)."""

    in_seats: frozenset[int]
    protected: Mapping[int, int]  # seat -> number of the turn in which they played Oliver
    deck: int
    set_aside_drawn: bool
    discards: tuple[tuple[int, ...], ...]
    current: int | None
    ending: RoundEnding | None
    suspicions: tuple[tuple[Suspicion, ...], ...]
    faults: tuple[Problem, ...]


def _proven(suspicions: Iterable[Suspicion], value: int) -> list[Problem]:
    return [CATALOGUE.problem(s.code, seat=s.seat, turn=s.turn, **card_params(s.value))
            for s in suspicions if value in s.values]


def revealed_faults(suspicions: list[list[Suspicion]], holder: int, value: int) -> list[Problem]:
    """``holder``'s hand is seen holding ``value``: the claims on it it proves false, and its
    hand's claims are settled. A tie it was compared in binds the other hand to the same value:
    a lower card there proves its holder should have left, a higher one proves ``holder``
    should have."""
    found = _proven(suspicions[holder], value)
    for claim in suspicions[holder]:
        if claim.tie is None:
            continue
        for seat, hand in enumerate(suspicions):
            for index, other in enumerate(hand):
                if seat != holder and other.tie == claim.tie and other.code == claim.code:
                    hand[index:index + 1] = [
                        replace(other, values=frozenset(range(value)), tie=None, value=value),
                        replace(claim, values=frozenset(v for v in VALUES if v > value),
                                tie=None, value=value)]
    suspicions[holder] = []
    return found


def apply_turn(table: PublicTable, turn: Turn, number: int, players: int) -> PublicTable:
    """The table after ``turn`` (turn number ``number``); the turn is assumed checked."""
    seat, card, target = turn.seat, turn.card, turn.target
    in_seats = set(table.in_seats)
    protected = dict(table.protected)
    protected.pop(seat, None)  # Oliver's protection ends at the start of his player's turn
    discards = [list(pile) for pile in table.discards]
    suspicions = [list(hand) for hand in table.suspicions]
    faults = list(table.faults)
    deck = table.deck - 1  # the turn's own draw
    set_aside_drawn = table.set_aside_drawn
    suspicions[seat] = []  # the hand changed: old claims about it can no longer be proven
    discards[seat].append(card)

    def reveal(holder: int, value: int) -> None:
        faults.extend(revealed_faults(suspicions, holder, value))

    def leave(holder: int, value: int) -> None:
        reveal(holder, value)
        discards[holder].append(value)  # the hand is discarded face up, without its effect
        in_seats.discard(holder)
        protected.pop(holder, None)

    if card in CELESTE_FORCED_BY:
        # If the card kept is Céleste, the hand was Céleste + 7/5: she had to be played.
        suspicions[seat] = [Suspicion(frozenset({CELESTE}), CELESTE_NOT_PLAYED, seat, number,
                                      card)]
    if card == GARDE and target is not None and turn.named is not None:
        if turn.hit:
            leave(target, turn.named)
        else:
            suspicions[target].append(Suspicion(frozenset({turn.named}), GARDE_LIE, target,
                                                number, turn.named))
    elif card == BIBLIOTHECAIRE and target is not None and turn.tie:
        # Nobody left: both hands held the same value, which later reveals can disprove.
        for holder in (seat, target):
            suspicions[holder].append(Suspicion(frozenset(), LIBRARIAN_TIE_WRONG, holder,
                                                number, -1, tie=number))
    elif card == BIBLIOTHECAIRE and target is not None and turn.loser is not None:
        assert turn.revealed is not None
        winner = target if turn.loser == seat else seat
        leave(turn.loser, turn.revealed)
        suspicions[winner].append(Suspicion(frozenset(range(turn.revealed + 1)),
                                            LIBRARIAN_WRONG, winner, number, turn.revealed))
    elif card == OLIVER:
        protected[seat] = number
    elif card == VLADRIC and target is not None:
        assert turn.revealed is not None
        reveal(target, turn.revealed)
        discards[target].append(turn.revealed)
        if turn.revealed == OGRE:
            in_seats.discard(target)  # discarding the Ogre: out, and no new card
            protected.pop(target, None)
        elif deck > 0:
            deck -= 1
        else:
            set_aside_drawn = True  # empty deck: the face-down set-aside card
    elif card == ROI and target is not None:
        suspicions[seat], suspicions[target] = suspicions[target], suspicions[seat]
    elif card == OGRE:
        assert turn.revealed is not None
        leave(seat, turn.revealed)
    # Princesses: draw 2, keep 1, put 2 back (or 1 and 1, or nothing): the deck count stays.

    ending: RoundEnding | None = None
    current: int | None = None
    final_discards = tuple(tuple(pile) for pile in discards)
    if len(in_seats) == 1 or deck == 0:
        still_in = tuple(sorted(in_seats))
        ending = RoundEnding(
            EndReason.LAST_IN if len(in_seats) == 1 else EndReason.DECK_EMPTY, still_in,
            frozenset(s for s in still_in if SPY in final_discards[s]),
            frozenset(s for s in still_in if PRINCESSES in final_discards[s]))
    else:
        current = next(s for s in ((seat + step) % players for step in range(1, players + 1))
                       if s in in_seats)
    return replace(table, in_seats=frozenset(in_seats), protected=protected, deck=deck,
                   set_aside_drawn=set_aside_drawn, discards=final_discards, current=current,
                   ending=ending, suspicions=tuple(tuple(h) for h in suspicions),
                   faults=tuple(faults))
