"""Glue between stored entries and the Kanai duel's rules core.

A game is stored with :mod:`companion.play.store`: its set-up in the game's settings (mode, variant
slugs, the cards set aside) and what players did as append-only entries:

- referee mode (one phone, real cards): ``round`` ``{"cards": [player 0's card, player 1's]}``
  and ``undo`` ``{}`` (takes back the last round);
- two-phone mode: each seat has its own link (roles ``seat1`` and ``seat2``, see
  :data:`store.SEAT_ROLES`), and a seat's link acts for that seat only, from the one browser that
  took the seat: ``join`` ``{"seat": s, "link": <the link's name, see link_name>, "browser":
  <sha-256 of the browser's secret>}`` (the creator's phone takes seat 0 when it creates the game;
  the other phone takes seat 1 with the button of its join page; the key ``join-<the link's name>``
  makes the database refuse a second browser on the same link); ``reinvite`` ``{"seat": 1}`` when
  the creator gives seat 1 a new link (a lost phone: the old link then opens nothing and the seat
  waits for a new browser; shown to both phones); and ``pick`` ``{"seat": s, "card": c, "round":
  r}``, stored under the key ``pick-<r>-<s>``, so the database itself refuses a second pick of a
  seat for a round. A round is revealed when both picks of a round are in: replaying the entries
  plays it then, so no "reveal" is stored and no phone can be answered with a round half revealed.
  Under variant B on two phones the game starts with ``aside`` ``{"seat": s, "card": c}`` (key
  ``pick-0-<s>``), each player's secret card out of play, revealed the same way once both are in
  (the set-up stores no card then).

Every write replays the game through the core first and is refused (nothing stored) when the core
refuses it. What a phone may see of the picks in progress is decided here, in :class:`SeatView`:
a template never receives the other player's secret pick, only whether it is in (and, after a Spy,
the card the Spy lets this player see). A two-phone game stored before seat links (a secret key
per seat in its settings, kept by each phone) got its seat links from migration 0010; a phone
that kept a seat's key is sent to that seat's join page (:func:`legacy_seat`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, cast

from pydantic import Field
from sqlmodel import Session

from ..games import GameGlue
from ..history import N_, Fact, GameSummary, ScoreUnit
from ..history.summary import running_totals
from ..models import Game, GameLink
from ..scoring.kanai_duel import (
    Duel,
    DuelCard,
    DuelRoundResult,
    DuelSetAside,
    HeldRound,
    Picks,
    Result,
    Rules,
    parse_card,
)
from ..scoring.kanai_duel.problems import CATALOGUE
from ..scoring.problems import EntryError
from . import saved_games, store
from .entries import Empty, EntryShape, Seat, Short

KIND = "kanai_duel"


class _DuelRound(EntryShape):
    cards: tuple[DuelCard, DuelCard]


class _Join(EntryShape):
    # (A game stored before seat links has a join naming its seat alone; the first joins
    # named no seat: the second's.)
    seat: Seat = 1
    link: Short | None = None
    browser: Short | None = None


class _Reinvite(EntryShape):
    seat: Seat


class _Pick(EntryShape):
    seat: Seat
    card: DuelCard
    round: Annotated[int, Field(ge=0, le=100)] | None = None  # (absent in the first picks)


ENTRY_SHAPES: Mapping[str, type[EntryShape]] = {
    "round": _DuelRound, "undo": Empty, "join": _Join, "reinvite": _Reinvite, "pick": _Pick,
    "aside": _Pick}
"""What each kind of a duel's entries holds (:mod:`companion.play.entries`)."""
REFEREE = "referee"
PHONES = "phones"
MODES = (REFEREE, PHONES)

__all__ = [
    "DuelView", "KIND", "MODES", "PHONES", "REFEREE", "SeatView", "Taken", "claim", "create",
    "holder", "pick", "play_round", "reinvite", "seat_link", "undo", "view_game",
]

SEAT_ROLES = store.SEAT_ROLES


class Taken(Exception):  # a normal outcome, not a bug
    """This seat's link was taken by another browser: it opens nothing for this one."""


@dataclass(frozen=True)
class SeatView:
    """What one phone may know of the round being picked (two-phone mode).

    ``seat`` is this phone's seat (``None``: a phone that is not a player: the viewer link, or a
    referee game). ``mine`` is its own
    pick, ``other_picked`` whether the opponent's pick is in, ``seen`` the opponent's card when
    this player's Spy lets them see it, ``can_pick`` whether it may pick now, ``waits_for_first``
    whether it waits for the opponent to pick first (its own Spy), ``goes_first`` whether it must
    pick first (the opponent's Spy).
    """

    seat: int | None
    mine: DuelCard | None = None
    other_picked: bool = False
    seen: DuelCard | None = None
    can_pick: bool = False
    waits_for_first: bool = False
    goes_first: bool = False


@dataclass(frozen=True)
class DuelView:
    """A game replayed for one phone: the state of play and what this phone may see.

    ``joined``: seat 1 is taken by a browser (two phones); ``stage`` is what a pick is for now
    (0: the cards set aside under B, else the round number) and ``opened_at`` the version at
    which it opened; ``reinvites`` the (round, seat) of each re-invitation."""

    game: Game
    names: list[str]
    mode: str
    rules: Rules
    duel: Duel
    version: int
    joined: bool
    seat: SeatView
    stage: int = 1
    opened_at: int = 0
    reinvites: tuple[tuple[int, int], ...] = ()
    out_known: tuple[DuelCard | None, DuelCard | None] = (None, None)
    picked: tuple[bool, bool] = (False, False)
    extra: dict[str, Any] = field(default_factory=dict)
    played: tuple[DuelRoundLine, ...] = ()  # the history: every round in order, undone ones too

    @property
    def results(self) -> tuple[DuelRoundResult, ...]:
        return self.duel.results

    @property
    def last(self) -> DuelRoundResult | None:
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


def _out(data: dict[str, Any]) -> tuple[DuelCard | None, DuelCard | None]:
    out = data.get("out") or [None, None]
    return (None if out[0] is None else DuelCard(out[0]),
            None if out[1] is None else DuelCard(out[1]))


def _fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create(*, session: Session, names: Sequence[str], mode: str, variants: Sequence[str],
           out: tuple[DuelCard | None, DuelCard | None] = (None, None), group_id: int | None = None
           ) -> tuple[Game, str | None]:
    """Store a new game; returns it and, in two-phone mode, the secret of the creator's browser,
    which holds seat 0 (the ``join`` of seat 0 is stored with the game).

    Raises :class:`EntryError` if the core refuses the set-up (conflicting variants, a card set
    aside without B or C). Under C on two phones each hidden card is drawn here, at random.
    """
    rules = Rules.with_variants(variants)
    if rules.set_aside is DuelSetAside.RANDOM and mode == PHONES:
        pool = sorted(DuelCard)
        out = (secrets.choice(pool), secrets.choice(pool))
    Duel(rules, out=out)  # raises if the core refuses this set-up
    data: dict[str, Any] = {"mode": mode, "variants": list(variants),
                            "out": [None if c is None else c.value for c in out]}
    game = store.create_game(session=session, kind=KIND, names=list(names), settings=data,
                             seats=mode == PHONES, group_id=group_id)
    if mode != PHONES:
        return game, None
    secret = secrets.token_urlsafe(16)
    link = seat_link(session, game, 0)
    assert link is not None
    store.append(session=session, game=game, kind="join", based_on=0,
                 key=f"join-{link_name(link)}",
                 data={"seat": 0, "link": link_name(link), "browser": _fingerprint(secret)})
    return game, secret


def seat_link(session: Session, game: Game, seat: int) -> GameLink | None:
    """The live link of ``seat`` (two phones), or None."""
    role = SEAT_ROLES[seat]
    return next((link for link in store.live_links(session, game) if link.role == role), None)


def legacy_seat(game: Game, key: str | None) -> int | None:
    """The seat whose secret key is ``key`` in a two-phone game stored before seat links (its
    settings kept one key per seat), else None."""
    keys = settings(game).get("seat_keys") or []
    return keys.index(key) if key and key in keys else None


def link_name(link: GameLink) -> str:
    """What a ``join`` names its link by: a digest of the token (never the token, which opens
    the game, nor a database id, which an export does not keep)."""
    return _fingerprint(link.token)[:16]


def seat_of_link(link: GameLink | None) -> int | None:
    """The seat a link acts for, or None (a scorer or viewer link)."""
    return SEAT_ROLES.index(link.role) if link is not None and link.role in SEAT_ROLES else None


@dataclass(frozen=True)
class DuelRoundLine:
    """A line of the duel's history: a round as it was decided when it was played, and whether
    it was undone since (it then keeps its words, struck through)."""

    result: DuelRoundResult
    undone: bool = False


@dataclass
class _Replay:
    duel: Duel
    picks: Picks
    version: int = 0
    claims: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat: its newest join
    joined: bool = False
    opened_at: int = 0  # the version at which the stage picked for now opened
    reinvites: list[tuple[int, int]] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    played: list[DuelRoundLine] = field(default_factory=list)  # every round, undone ones too

    def push(self, first: DuelCard, second: DuelCard) -> None:
        self.played.append(DuelRoundLine(self.duel.push(first, second)))

    def pop(self) -> None:
        """Take back the last round; its line stays in the history, as it read, undone."""
        self.duel.pop()
        undone = next(i for i in reversed(range(len(self.played)))
                      if not self.played[i].undone)
        self.played[undone] = DuelRoundLine(self.played[undone].result, undone=True)

    @property
    def stage(self) -> int:
        """What a pick is for now: 0 for the cards set aside under B, else the round number."""
        return 0 if self.duel.awaits_set_aside() else self.duel.round_number()


def _replay(session: Session, game: Game) -> _Replay:
    """The game replayed from its entries (trusted: each was checked when stored)."""
    data = settings(game)
    state = _Replay(Duel(Rules.with_variants(data.get("variants", [])), out=_out(data)), Picks())
    for entry in store.entries(session, game):
        _apply(state, entry)
    return state


def _apply(state: _Replay, entry: store.Stored) -> None:
    """Replay one stored entry on ``state`` (trusted: it was checked when stored)."""
    duel = state.duel
    state.version = entry.seq
    if entry.key:
        state.keys.add(entry.key)
    if entry.kind == "round":
        first, second = entry.data["cards"]
        state.push(DuelCard(first), DuelCard(second))
    elif entry.kind == "undo":
        state.pop()
        state.opened_at = entry.seq
    elif entry.kind == "join":
        seat = int(entry.data.get("seat", 1))
        state.claims[seat] = entry.data
        state.joined = state.joined or seat == 1
    elif entry.kind == "reinvite":
        seat = int(entry.data["seat"])
        state.claims.pop(seat, None)
        state.reinvites.append((duel.round_number(), seat))
    elif entry.kind in ("pick", "aside"):
        cards = list(state.picks.cards)
        cards[entry.data["seat"]] = DuelCard(entry.data["card"])
        state.picks = Picks((cards[0], cards[1]))
        if state.picks.is_complete():
            first, second = state.picks.cards
            assert first is not None and second is not None
            if entry.kind == "aside":
                duel.set_aside(first, second)
            else:
                state.push(first, second)
            state.picks = Picks()
            state.opened_at = entry.seq


def holder(session: Session, game: Game, link: GameLink, secret: str | None) -> int | None:
    """The seat ``link`` acts for when the browser holding ``secret`` opens it: the seat of a seat
    link that this browser took. None when the seat is not taken yet (the join page). Raises
    :class:`Taken` when another browser took it."""
    seat = seat_of_link(link)
    if seat is None:
        return None
    claim = _replay(session, game).claims.get(seat)
    if claim is None or claim.get("link") != link_name(link):
        return None
    if secret and secrets.compare_digest(str(claim.get("browser", "")), _fingerprint(secret)):
        return seat
    raise Taken


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
    """The game as phone ``seat`` may see it (``None``: the referee phone or an onlooker;
    drawn after a referee's save: the view it left, :mod:`.saved_games`)."""
    if seat is None and (known := saved_games.known_view(session, game)) is not None:
        return cast(DuelView, known)
    return _view_of(_replay(session, game), game, store.names_of(session, game), seat)


def _view_of(state: _Replay, game: Game, names: list[str], seat: int | None) -> DuelView:
    """:func:`view_game` of the game replayed as ``state``."""
    duel = state.duel
    mode = settings(game).get("mode", REFEREE)
    out = duel.out  # under B on two phones: (None, None) until both cards are revealed
    # Variant C: a hidden card is shown to its owner only; B's cards are shown to everyone.
    rules = duel.rules
    if rules.set_aside is DuelSetAside.RANDOM:
        out = (out[0] if seat == 0 else None, out[1] if seat == 1 else None)
    return DuelView(game=game, names=names, mode=mode, rules=rules,
                    duel=duel, version=state.version, joined=1 in state.claims,
                    seat=_seat_view(duel, state.picks, seat), out_known=out,
                    picked=(state.picks.has_picked(0), state.picks.has_picked(1)),
                    stage=state.stage, opened_at=state.opened_at,
                    reinvites=tuple(state.reinvites), played=tuple(state.played))


def _referee_only(game: Game) -> None:
    if settings(game).get("mode") == PHONES:
        raise EntryError(CATALOGUE.problem("two-phones-only"))


def play_round(*, session: Session, game: Game, cards: Sequence[str], based_on: int,
               key: str | None) -> None:
    """Referee mode: check the round against the replayed game, then store it. The same form
    sent again (a double tap) is answered like the first, storing nothing; a changed copy of a
    form already stored raises :class:`store.KeyConflict`. Two-phone games refuse it: each
    player picks on their own phone.

    Raises :class:`EntryError` (nothing stored) or :class:`store.StaleWrite`.
    """
    _referee_only(game)
    if store.replayed(session, game, key) is not None:
        return
    state = _replay(session, game)
    duel = state.duel
    first, second = (parse_card(text, seat=seat, round=duel.round_number())
                     for seat, text in enumerate(cards))
    state.played.append(DuelRoundLine(duel.play(first, second)))  # (as _apply pushes it)
    _leaves(session, state, based_on + 1)
    store.append(session=session, game=game, kind="round", based_on=based_on, key=key,
                 data={"cards": [first.value, second.value]}, replay=duel)


def undo(*, session: Session, game: Game, based_on: int, key: str | None) -> None:
    """Referee mode: take back the last round (a double tap takes back one). Two-phone games
    refuse it: a revealed pick is never reopened. Raises :class:`EntryError`
    (``nothing-to-undo``, ``two-phones-only``) or :class:`store.StaleWrite`."""
    _referee_only(game)
    if store.replayed(session, game, key) is not None:
        return
    state = _replay(session, game)
    state.pop()  # (as _apply takes it back: nothing-to-undo raised first, nothing changed)
    state.opened_at = based_on + 1
    _leaves(session, state, based_on + 1)
    store.append(session=session, game=game, kind="undo", based_on=based_on, key=key, data={},
                 replay=state.duel)


def _leaves(session: Session, state: _Replay, version: int) -> None:
    """The game a referee's write leaves, ``state`` at ``version``, as the page after the
    commit shows it (:func:`companion.play.saved_games.leaves`): nothing replayed again."""
    state.version = version
    saved_games.leaves(session, lambda game, names, _: _view_of(state, game, list(names), None))


def claim(*, session: Session, game: Game, link: GameLink, secret: str | None = None) -> str:
    """Two-phone mode: the browser that pressed Join takes ``link``'s seat; returns the secret it
    keeps (its session): ``secret`` when given (the browser that held the seat's replaced link
    keeps its seat under the new one), else a new one. Raises :class:`Taken` when another
    browser took the seat first (the database refuses a second ``join`` of one link)."""
    seat = seat_of_link(link)
    assert seat is not None
    name = link_name(link)
    secret = secret or secrets.token_urlsafe(16)
    data = {"seat": seat, "link": name, "browser": _fingerprint(secret)}
    for _attempt in range(3):
        state = _replay(session, game)
        if state.claims.get(seat, {}).get("link") == name or f"join-{name}" in state.keys:
            raise Taken
        try:
            stored = store.append(session=session, game=game, kind="join",
                                  based_on=state.version, key=f"join-{name}", data=data,
                                  replay=state.duel)
        except store.StaleWrite:
            continue  # another write came first: judge again
        if stored.data.get("browser") == data["browser"]:
            return secret
        raise Taken  # another browser's join of this link won the race
    raise Taken


def reinvite(*, session: Session, game: Game, seat: int, based_on: int,
             key: str | None) -> GameLink:
    """Two-phone mode, by the creator's phone (seat 0): give ``seat`` a new link (a lost phone).
    The old link opens nothing; the seat waits for a browser to take it; every phone sees it was
    done. Refused (``reinvite-pick-pending``) while that seat's pick is in and not revealed: the
    new phone would see it. Raises :class:`EntryError` or :class:`store.StaleWrite`."""
    state = _replay(session, game)
    if seat not in state.claims:
        raise EntryError(CATALOGUE.problem("reinvite-not-joined", seat=seat))
    if state.picks.has_picked(seat):
        raise EntryError(CATALOGUE.problem("reinvite-pick-pending", seat=seat))
    if store.replayed(session, game, key) is not None:
        return seat_link(session, game, seat)  # type: ignore[return-value]
    if based_on != state.version:
        raise store.StaleWrite(state.version)
    fresh = store.replace_link(session, game, SEAT_ROLES[seat], commit=False)
    try:
        store.append(session=session, game=game, kind="reinvite", based_on=based_on, key=key,
                     data={"seat": seat}, replay=state.duel)
    except (store.StaleWrite, store.KeyConflict):
        session.rollback()  # the new link goes with the entry, or neither is stored
        raise
    return fresh


def pick(*, session: Session, game: Game, seat: int, card: str, for_stage: int, based_on: int,
         key: str | None = None) -> None:
    """Two-phone mode: store ``seat``'s secret pick, checked by the core (:meth:`Picks.check`):
    under B before round 1 (:meth:`Duel.awaits_set_aside`), the card it sets aside.

    The pick names what it was made for: ``for_stage`` (the round, or 0 for the card set aside)
    and ``based_on`` (the version the phone showed). A pick made for a round that is over, or on a
    page older than the opening of the round, is refused (:class:`store.StaleWrite`): it never
    becomes the next round's pick. The two phones pick concurrently by design, so the other
    seat's pick stored meanwhile does not make a pick stale. Each pick is stored under the key
    ``pick-<round>-<seat>``: the database refuses a second pick of a seat for a round; the same
    pick sent again is answered like the first, another card raises :class:`store.KeyConflict`
    (the stored pick). Raises :class:`EntryError`.
    """
    key = f"pick-{for_stage}-{seat}"
    for attempt in range(2):
        state = _replay(session, game)
        earlier = store.replayed(session, game, key)
        if earlier is not None:
            if earlier.data.get("card") != card.strip().lower():
                raise store.KeyConflict(earlier)
            return
        if for_stage != state.stage or not state.opened_at <= based_on <= state.version:
            raise store.StaleWrite(state.version)
        duel, picks = state.duel, state.picks
        chosen = parse_card(card, seat=seat, round=duel.round_number())
        picks.pick(duel, seat, chosen)  # raises if the core refuses it
        kind = "aside" if duel.awaits_set_aside() else "pick"
        data = {"seat": seat, "card": chosen.value, "round": for_stage}
        version = state.version
        # The duel as this pick leaves it (a round revealed when both picks are in): the
        # summary stored with the pick is made from it.
        _apply(state, store.Stored(version + 1, kind, data, key, datetime.now(UTC)))
        try:
            stored = store.append(session=session, game=game, kind=kind, based_on=version,
                                  key=key, data=data, replay=state.duel)
        except store.StaleWrite:
            if attempt:
                raise
            continue
        if stored.data.get("card") != chosen.value:  # another pick of this seat won the race
            raise store.KeyConflict(stored)
        return


# --- history: what a game came to (stored with every save, see companion.play.summaries) ----

def summary(session: Session, game: Game) -> GameSummary:
    """What a duel came to, for history and statistics: round wins round by round, the winner
    (none on a draw), and whether the Princess won it against the Prince."""
    return summary_from(game, view_game(session, game).duel)


def summary_from(_game: Game, duel: Duel) -> GameSummary:
    """:func:`summary` of the game replayed as ``duel`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    outcome = duel.outcome()
    winners = (outcome.winner,) if outcome is not None and outcome.winner is not None else ()
    by_princess = outcome is not None and outcome.result is Result.PRINCESS
    return GameSummary(
        finished=outcome is not None, winners=winners, scores=tuple(duel.score()),
        unit=ScoreUnit.ROUND_WINS,
        progress=running_totals([r.points for r in duel.results]),
        facts=(Fact("wins-by-princess", N_("Wins by the Princess"),
                    tuple(int(by_princess and seat in winners) for seat in range(2))),))


GLUE = GameGlue(Duel, summary, summary_from, ENTRY_SHAPES)
"""This game in history and statistics (:class:`companion.games.GameGlue`)."""
