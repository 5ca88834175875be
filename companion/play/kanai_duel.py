"""Glue between stored entries and the Kanai duel's rules core.

A game is stored with :mod:`companion.play.store`: its set-up in the game's settings (mode, variant
slugs, the cards set aside, and for two phones one secret key per seat) and what players did as
append-only entries:

- referee mode (one phone, real cards): ``round`` ``{"cards": [player 0's card, player 1's]}``
  and ``undo`` ``{}`` (takes back the last round);
- two-phone mode: ``join`` ``{"seat": 1}`` when the second phone opens its link, and ``pick``
  ``{"seat": s, "card": c}``. A round is revealed when both picks of a round are in: replaying the
  entries plays it then, so no "reveal" is stored and no phone can be answered with a round half
  revealed. Under variant B on two phones the game starts with ``aside`` ``{"seat": s, "card":
  c}``, each player's secret card out of play, revealed the same way once both are in (the set-up
  stores no card then).

Every write replays the game through the core first and is refused (nothing stored) when the core
refuses it. What a phone may see of the picks in progress is decided here, in :class:`SeatView`:
a template never receives the other player's secret pick, only whether it is in (and, after a Spy,
the card the Spy lets this player see).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from ..models import Game
from ..scoring.kanai_duel import (
    Card,
    Duel,
    HeldRound,
    Picks,
    RoundResult,
    Rules,
    SetAside,
    parse_card,
)
from . import store

KIND = "kanai_duel"
REFEREE = "referee"
PHONES = "phones"
MODES = (REFEREE, PHONES)

__all__ = ["DuelView", "KIND", "MODES", "PHONES", "REFEREE", "SeatView", "create", "join", "pick",
           "play_round", "seat_of", "undo", "view_game"]


@dataclass(frozen=True)
class SeatView:
    """What one phone may know of the round being picked (two-phone mode).

    ``seat`` is this phone's seat (``None``: a phone that is not a player). ``mine`` is its own
    pick, ``other_picked`` whether the opponent's pick is in, ``seen`` the opponent's card when
    this player's Spy lets them see it, ``can_pick`` whether it may pick now, ``waits_for_first``
    whether it waits for the opponent to pick first (its own Spy), ``goes_first`` whether it must
    pick first (the opponent's Spy).
    """

    seat: int | None
    mine: Card | None = None
    other_picked: bool = False
    seen: Card | None = None
    can_pick: bool = False
    waits_for_first: bool = False
    goes_first: bool = False


@dataclass(frozen=True)
class DuelView:
    """A game replayed for one phone: the state of play and what this phone may see."""

    game: Game
    names: list[str]
    mode: str
    rules: Rules
    duel: Duel
    version: int
    joined: bool
    seat: SeatView
    out_known: tuple[Card | None, Card | None] = (None, None)
    picked: tuple[bool, bool] = (False, False)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def results(self) -> tuple[RoundResult, ...]:
        return self.duel.results

    @property
    def last(self) -> RoundResult | None:
        return self.duel.results[-1] if self.duel.results else None

    @property
    def held(self) -> tuple[HeldRound, ...]:
        return self.duel.held()

    def held_worth(self, seat: int) -> int:
        """What taking every round on hold would bring ``seat``."""
        return sum(h.worth[seat] for h in self.duel.held())


def settings(game: Game) -> dict[str, Any]:
    return store.settings_of(game)


def rules_of(game: Game) -> Rules:
    return Rules.with_variants(settings(game).get("variants", []))


def _out(data: dict[str, Any]) -> tuple[Card | None, Card | None]:
    out = data.get("out") or [None, None]
    return (None if out[0] is None else Card(out[0]), None if out[1] is None else Card(out[1]))


def create(*, session: Session, names: Sequence[str], mode: str, variants: Sequence[str],
           out: tuple[Card | None, Card | None] = (None, None), group_id: int | None = None
           ) -> tuple[Game, str | None]:
    """Store a new game; returns it and, in two-phone mode, the first phone's seat key.

    Raises :class:`EntryError` if the core refuses the set-up (conflicting variants, a card set
    aside without B or C). Under C on two phones each hidden card is drawn here, at random.
    """
    rules = Rules.with_variants(variants)
    if rules.set_aside is SetAside.RANDOM and mode == PHONES:
        pool = sorted(Card)
        out = (secrets.choice(pool), secrets.choice(pool))
    Duel(rules, out=out)  # raises if the core refuses this set-up
    data: dict[str, Any] = {"mode": mode, "variants": list(variants),
                            "out": [None if c is None else c.value for c in out]}
    keys = None
    if mode == PHONES:
        keys = [secrets.token_urlsafe(12), secrets.token_urlsafe(12)]
        data["seat_keys"] = keys
    game = store.create_game(session=session, kind=KIND, names=list(names), settings=data,
                             group_id=group_id)
    return game, (keys[0] if keys else None)


def seat_of(game: Game, key: str | None) -> int | None:
    """The seat whose secret key is ``key`` (two-phone mode), else ``None``."""
    keys = settings(game).get("seat_keys") or []
    return keys.index(key) if key and key in keys else None


def seat_key(game: Game, seat: int) -> str:
    return str(settings(game)["seat_keys"][seat])


def _replay(session: Session, game: Game) -> tuple[Duel, Picks, bool, int]:
    """The game replayed from its entries (trusted: each was checked when stored)."""
    duel, picks, joined, version, _ = _replay_keys(session, game)
    return duel, picks, joined, version


def _replay_keys(session: Session, game: Game) -> tuple[Duel, Picks, bool, int, set[str]]:
    """:func:`_replay`, and the idempotency keys already stored."""
    data = settings(game)
    duel = Duel(Rules.with_variants(data.get("variants", [])), out=_out(data))
    picks = Picks()
    joined = False
    version = 0
    keys: set[str] = set()
    for entry in store.entries(session, game):
        version = entry.seq
        if entry.key:
            keys.add(entry.key)
        if entry.kind == "round":
            first, second = entry.data["cards"]
            duel.push(Card(first), Card(second))
        elif entry.kind == "undo":
            duel.pop()
        elif entry.kind == "join":
            joined = True
        elif entry.kind in ("pick", "aside"):
            cards = list(picks.cards)
            cards[entry.data["seat"]] = Card(entry.data["card"])
            picks = Picks((cards[0], cards[1]))
            if picks.is_complete():
                first, second = picks.cards
                assert first is not None and second is not None
                if entry.kind == "aside":
                    duel.set_aside(first, second)
                else:
                    duel.push(first, second)
                picks = Picks()
    return duel, picks, joined, version, keys


def _seat_view(duel: Duel, picks: Picks, seat: int | None) -> SeatView:
    if seat is None:
        return SeatView(None)
    first = duel.reveals_first()
    return SeatView(
        seat=seat, mine=picks.cards[seat], other_picked=picks.has_picked(1 - seat),
        seen=picks.seen_by(duel, seat), can_pick=picks.can_pick(duel, seat),
        waits_for_first=first is not None and first != seat and not picks.has_picked(first),
        goes_first=first == seat and not picks.has_picked(seat))


def view_game(session: Session, game: Game, seat: int | None = None) -> DuelView:
    """The game as phone ``seat`` may see it (``None``: the referee phone or an onlooker)."""
    duel, picks, joined, version = _replay(session, game)
    mode = settings(game).get("mode", REFEREE)
    out = duel.out  # under B on two phones: (None, None) until both cards are revealed
    # Variant C: a hidden card is shown to its owner only; B's cards are shown to everyone.
    rules = duel.rules
    if rules.set_aside is SetAside.RANDOM:
        out = (out[0] if seat == 0 else None, out[1] if seat == 1 else None)
    return DuelView(game=game, names=store.names_of(session, game), mode=mode, rules=rules,
                    duel=duel, version=version, joined=joined, seat=_seat_view(duel, picks, seat),
                    out_known=out, picked=(picks.has_picked(0), picks.has_picked(1)))


def play_round(*, session: Session, game: Game, cards: Sequence[str], based_on: int,
               key: str | None) -> None:
    """Referee mode: check the round against the replayed game, then store it. A key already
    stored (a double tap) is answered like the first tap, storing nothing.

    Raises :class:`EntryError` (nothing stored) or :class:`store.StaleWrite`.
    """
    duel, _, _, _, keys = _replay_keys(session, game)
    if key is not None and key in keys:
        return
    first, second = (parse_card(text, seat=seat, round=duel.round_number())
                     for seat, text in enumerate(cards))
    duel.play(first, second)
    store.append(session=session, game=game, kind="round", based_on=based_on, key=key,
                 data={"cards": [first.value, second.value]})


def undo(*, session: Session, game: Game, based_on: int, key: str | None) -> None:
    """Referee mode: take back the last round (a double tap takes back one). Raises
    :class:`EntryError` (``nothing-to-undo``) or :class:`store.StaleWrite`."""
    duel, _, _, _, keys = _replay_keys(session, game)
    if key is not None and key in keys:
        return
    duel.pop()
    store.append(session=session, game=game, kind="undo", based_on=based_on, key=key, data={})


def join(*, session: Session, game: Game) -> None:
    """Two-phone mode: the second phone has opened its link (stored once)."""
    _, _, joined, version = _replay(session, game)
    if not joined:
        try:
            store.append(session=session, game=game, kind="join", based_on=version,
                         key="join-1", data={"seat": 1})
        except store.StaleWrite:
            pass  # another write came first; the join is recorded by the next open


def pick(*, session: Session, game: Game, seat: int, card: str, key: str | None) -> None:
    """Two-phone mode: store ``seat``'s secret pick, checked by the core (:meth:`Picks.check`):
    under B before round 1 (:meth:`Duel.awaits_set_aside`), the card it sets aside.

    Picks of the two phones come concurrently by design, so a pick is based on the newest version
    (a pick is for the round in progress whatever the other phone did meanwhile); a write that
    loses a race is checked again on the new state once. Raises :class:`EntryError`.
    """
    for attempt in range(2):
        duel, picks, _, version, keys = _replay_keys(session, game)
        if key is not None and key in keys:
            return
        chosen = parse_card(card, seat=seat, round=duel.round_number())
        picks.pick(duel, seat, chosen)  # raises if the core refuses it
        try:
            kind = "aside" if duel.awaits_set_aside() else "pick"
            store.append(session=session, game=game, kind=kind, based_on=version, key=key,
                         data={"seat": seat, "card": chosen.value})
            return
        except store.StaleWrite:
            if attempt:
                raise
