"""The fields of one round of Rebel Princess and the cheap questions that read them.

:class:`RoundBase` is the part of :class:`~.state.RoundState` every other part uses: what the state
holds, the seat to play, the trick in progress, the completed tricks, and the one way a
:class:`~companion.scoring.problems.Problem` is made here (:meth:`RoundBase._violation`).
"""

from __future__ import annotations

from typing import Any

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit

from .cards import SUIT_OF, card_at, cards_of
from .errors import BASIC, ViolationCode, violation
from .modifiers import Modifier
from .powers import Power
from .steps import PowerUse, StepKind
from .values import Trick

__all__ = ["RoundBase"]


class RoundBase:
    """The fields of a :class:`~.state.RoundState` (one line each) and the cheap questions that
    only read them. Hands and card sets are int bitmasks (see :mod:`.cards`)."""

    edition: Edition
    players: int
    round_card: str  # the Round card's canonical letter
    modifiers: tuple[Modifier, ...]  # the Round card's modifiers (stateless, shared)
    hands: list[int]  # the cards each seat holds
    taken: list[int]  # the cards each seat won in tricks
    tricks_won: list[int]  # tricks won per seat
    princesses: tuple[str | None, ...]  # each seat's Princess (a power slug) or None
    powers: tuple[Power | None, ...]  # each seat's power modifier (stateless, shared) or None
    leader: int  # the seat that leads (or led) the trick in progress
    first_leader: int  # the seat that led the round's first trick
    princes_in: bool  # whether the Princes have snuck in
    aside: list[int]  # set-aside cards per seat (b / G, m / N, q / Q)
    gifts: list[int]  # Wedding Gift piles won per seat (o / M)
    revealed: list[int]  # cards shown under Crystal Clear (h / I)
    _dealt: list[int]  # the hands before any step or trick
    trick_ids: list[int]  # card ids of the trick in progress, in play order
    _tmask: int  # the same as a mask
    follow_id: int  # suit index to follow in the trick in progress (-1: none yet)
    #: Where Princes snuck in, as (tricks completed, index in the trick), to undo it on pop.
    _sneak_at: tuple[int, int] | None
    #: (leader, ids, winner, powers active in it) per completed trick
    history: list[tuple[int, list[int], int, tuple[Any, ...]]]
    #: Steps as (tricks completed, cards of the trick in progress, step or "return", undo data,
    #: step due before it).
    _log: list[tuple[int, int, Any, Any, StepKind | None]]
    used: list[bool]  # powers used this round, per seat
    active_powers: list[tuple[Power, PowerUse]]  # powers in effect for this trick
    reversed_order: bool  # Cinderella: the order of the numbers is reversed this trick
    zero_id: int  # Snow White: the card id played as a zero this trick (-1: none)
    _gift: int  # the gift pile of the coming trick
    _haggle_seed: tuple[int, int] | None  # a haggle open when built from notation
    _pending: StepKind | None  # the step due (see step_due)
    cards_left: int  # cards still to be played
    # The round shape and the modifiers' hooks, in consultation order (set by _configure).
    _kept: Any
    _per_seat: Any
    _legal_hooks: Any
    _legal_mods: Any
    _follow_hooks: Any
    _winner_hooks: Any
    _aside_cards: Any
    _aside_to: Any
    _reveals: Any
    _gift_on: Any
    _chairs_on: Any
    _haggle_on: Any
    _trick_size: int
    _chain: list[Any]  # legality layers: the Round card's, then each active power's
    _stepped: bool

    def _violation(self, code: ViolationCode, seat: int | None = None,
                   card: RebelCard | None = None, rule: str = BASIC) -> Problem:
        return violation(code, seat, card, rule, self.edition)

    @property
    def _card_slug(self) -> str:
        return self.modifiers[0].slug

    @property
    def turn(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick_ids)) % self.players

    @property
    def trick_size(self) -> int:
        """Cards in a complete trick (players x plays per seat)."""
        return int(self._trick_size)

    @property
    def current_trick(self) -> tuple[RebelCard, ...]:
        """The cards of the trick in progress, in play order."""
        return tuple(card_at(c) for c in self.trick_ids)

    @property
    def suit_to_follow(self) -> Suit | None:
        """The suit the next player must follow, or ``None`` before the lead."""
        return SUIT_OF[self.follow_id] if self.trick_ids else None

    @property
    def step_due(self) -> StepKind | None:
        """The step the rules require before the next card (a set-aside, reveal, gift or musical
        chairs), or ``None``. A pass and a haggle are never required."""
        return self._pending

    @property
    def princes_at_lead(self) -> bool:
        """Whether the Princes were in when the trick in progress (or the next) was led: a
        Prince a void player played in this trick does not count."""
        return self.princes_in and not (self._sneak_at is not None and
                                        self._sneak_at[0] == len(self.history))

    @property
    def last_winner(self) -> int | None:
        """The winner of the last completed trick (``None`` before the first)."""
        return self.history[-1][2] if self.history else None

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks, oldest first."""
        return [Trick(leader, tuple(card_at(c) for c in ids), winner)
                for leader, ids, winner, _ in self.history]

    @property
    def dealt_hands(self) -> tuple[frozenset[RebelCard], ...]:
        """The hands as dealt (or as given when the state was built), before any step."""
        return tuple(cards_of(mask) for mask in self._dealt)

    def hand(self, seat: int) -> frozenset[RebelCard]:
        """The cards ``seat`` holds."""
        return cards_of(self.hands[seat])

    def taken_cards(self, seat: int) -> frozenset[RebelCard]:
        """The cards ``seat`` has won in tricks so far."""
        return cards_of(self.taken[seat])

    def is_over(self) -> bool:
        """Whether every card to be played has been played."""
        return self.cards_left == 0
