"""Choosing cards on the grid for a power or a haggle: the next card to tap (:func:`pick_for`),
from the power's declared card slots; nothing is stored until the last tap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...scoring.rebel_princess import (
    InvalidValueError,
    RebelCard,
    deck,
)
from ...scoring.rebel_princess.engine import (
    Timing,
)
from .board import CHAIRS, HAGGLE, TrickRejected
from .commands import _refused, _seat_ok
from .judges import TrickEntry

# --- choosing cards on the grid ----------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """One card to tap: ``what`` it is (a power's card slot: ``swapped-out``, ``swapped-in``,
    ``dealt``, ``ice``, ``taken``, ``given``, ``gives``, ``gets``; the haggle's ``take``,
    ``give``; or ``passes``, the card a seat passed to its right under Musical Chairs) and whose
    card (a seat)."""

    what: str
    seat: int | None


@dataclass(frozen=True)
class GridPick:
    """Cards being tapped for a power or a haggle: nothing is stored until the last tap."""

    kind: str  # a Princess slug, "haggle" or "chairs"
    seat: int
    target: int | None
    picked: tuple[RebelCard, ...]
    slot: Slot
    candidates: frozenset[RebelCard]
    final: bool  # the next tap stores the entry
    seats: tuple[int | None, ...] = ()  # whose card each tap is
    part: str = ""  # "more": Sleeping Beauty's new cards alone
    stop: bool = False  # the taps so far may be stored as they are (a part of the cards alone)
    split: bool = False  # two parts, each may be entered alone (Sleeping Beauty)

    @property
    def action(self) -> str:
        return self.kind if self.kind in (HAGGLE, CHAIRS) else "power"

    @property
    def codes(self) -> str:
        return ".".join(c.code for c in self.picked)


def parse_cards(text: str | None) -> tuple[RebelCard, ...]:
    """Card codes joined by dots or spaces (``Q3.F2``); raises ``TrickRejected``."""
    cards = []
    for code in (text or "").replace(".", " ").replace(",", " ").split():
        try:
            cards.append(RebelCard.from_code(code.strip().upper()))
        except (InvalidValueError, ValueError, KeyError):
            raise TrickRejected("unknown-card", typed=code) from None
    return tuple(cards)


def pick_for(entry: TrickEntry, *, kind: str, seat: int | None, target: int | None,
             picked: Sequence[RebelCard], part: str | None = None) -> GridPick:
    """The next card to tap for ``kind`` (a power needing cards, ``haggle`` or ``chairs``),
    given the cards ``picked`` so far: the slots come from the power's declaration. Sleeping
    Beauty's cards may stop once each seat's card is tapped (``stop``), or be the new cards
    alone (``part="more"``). Raises :class:`TrickRejected` when it cannot be entered now."""
    board = entry.board
    if board.current is None and board.after_trick is None:
        raise TrickRejected("round-over")  # (once over, only the last trick's after-powers)
    players, hand = board.players, frozenset(deck(board.players)) - board.played
    slots: list[tuple[Slot, frozenset[RebelCard]]] = []
    picked = tuple(picked)
    auto = 0  # cards the last taps leave implied
    trick = board.after_trick
    stop = split = False
    part = "more" if part == "more" else ""
    if kind == CHAIRS:  # each seat's card, passed to its right
        if trick is None or not board.chairs_due:
            raise TrickRejected("chairs-not-now")
        seat = trick.winner
        slots = [(Slot("passes", s), hand - frozenset(picked)) for s in range(players)]
    elif kind == HAGGLE:
        if not board.haggle_round or trick is None or trick.note(HAGGLE) or trick.redone:
            raise TrickRejected("haggle-not-now")
        seat = trick.winner
        own = {p.card for p in trick.plays if p.seat == seat}
        slots = [(Slot("take", seat), frozenset(trick.cards) - own), (Slot("give", seat), hand)]
    else:
        power = entry.judge.power_of(seat) if _seat_ok(board, seat) else None  # type: ignore[arg-type]
        if power is None or power.slug != kind or power.entry not in ("cards", "hidden", "after"):
            raise TrickRejected("power-not-entered")
        assert seat is not None
        if power.needs_target and entry.edition in power.target_leader and \
                board.current is not None:  # (once the round is over the judge refuses it)
            target = board.current.leader
        refused = entry.judge.power_refusal(seat, target)
        if refused is not None:
            raise _refused(refused)
        names, more = power.slots(players, board.trick_size)
        split = bool(more)
        part = part if split else ""
        if power.when() is Timing.AFTER:
            if trick is None:
                raise TrickRejected("power-after-trick")
            if power.same_suit:  # Mulan: one of her cards, then one of its suit from a hand
                mine = [p.card for p in trick.plays if p.seat == seat]
                if not mine:
                    raise TrickRejected("power-after-trick")
                if len(mine) > 1:
                    slots.append((Slot(names[0], seat), frozenset(mine)))
                old = picked[0] if len(mine) > 1 and picked else mine[0]
                slots.append((Slot(names[1], seat), frozenset(
                    c for c in hand if c.suit is old.suit and not c.is_frog)))
            else:  # Alice: the trick's cards, dealt one per seat
                dealt = list(trick.cards)
                slots = [(Slot(names[i], i % players), frozenset(dealt) - frozenset(picked))
                         for i in range(len(dealt))]
                auto = 1
        elif more and part:  # Sleeping Beauty, the new cards alone: the card each seat got
            slots = [(Slot(more[s], s), hand - frozenset(picked)) for s in range(players)]
        elif more:  # Sleeping Beauty: each seat's card, then the card each seat gets back
            gives = picked[:players]
            stop = len(picked) == players  # (the new cards may not have been seen)
            slots = [(Slot(names[s], s), hand - frozenset(gives)) for s in range(players)]
            slots += [(Slot(more[s], s), frozenset(gives) - frozenset(picked[players:]))
                      for s in range(players)]
            auto = 1
        else:  # cards of the target's hand (the Ice Princess, Scheherazade)
            if not _seat_ok(board, target) or (entry.edition in power.target_other and
                                                target == seat):
                raise TrickRejected("power-needs-target")  # (which hand to draw from)
            slots = [(Slot(name, target), hand) for name in names]
        target = target if power.needs_target and power.card_slots else None
    if len(picked) >= len(slots) - auto:
        picked = ()  # a stale or replayed pick: start again
    slot, candidates = slots[len(picked)]
    assert seat is not None
    return GridPick(kind, seat, target, picked, slot, candidates,
                    len(picked) + 1 >= len(slots) - auto, tuple(s.seat for s, _ in slots), part,
                    stop and len(picked) == players, split)
