"""Glue for "Enter tricks": a round tapped in card by card, judged as it goes, then scored.

One :class:`~companion.models.TrickLog` row per game and round holds what was tapped: the cards in
the order they hit the table, the Princess powers announced (with the number of cards played
before), the rule breaches the players accepted, the game's rule-check switch and a version.
Seats are never stored: the app decides whose turn it is (the first leader, then clockwise; the
winner of a trick leads the next), so a card can never be entered for the wrong seat, and fixing
an earlier card re-derives every later seat and winner.

Rows never enter the engine, and a tap replays nothing: :func:`open_round` reads the row once and
brings the round's one judge, :class:`~companion.scoring.rebel_princess.engine.TableRound`, to it
(taken from a small per-process cache and moved only by the entries that differ: usually one
card), and the screen is drawn from that judge's queries (:class:`Board`). Every command checks
its change on the same judge before storing it (:meth:`TrickEntry.apply`), then stores it with
one conditional update. :func:`confirm` hands the cards each seat took to
:func:`companion.play.rebel_princess.save_round`, which checks the whole game again. Commands
raise :class:`TrickRejected` (with a stable ``code``) and store nothing then.

What each power needs, when it acts and what limits it are read from its declaration
(:class:`~companion.scoring.rebel_princess.engine.Power`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..models import Game, RoundRecord, TrickLog
from ..scoring.problems import EntryError, Problem
from ..scoring.rebel_princess import (
    Card,
    Edition,
    IncompleteEntryError,
    InvalidValueError,
    PlayedRound,
    RoundResult,
    Scoring,
    Suit,
    deck,
    needs_no_tricks,
    round_card,
)
from ..scoring.rebel_princess.engine import (
    Haggle,
    Power,
    PowerUse,
    TableRound,
    Timing,
    WinReason,
    parse_card,
    power_class,
    round_card_class,
)
from ..scoring.rebel_princess.engine.cards import cards_of
from ..scoring.rebel_princess.engine.table import TableTrick
from . import rebel_princess as play

HAGGLE = "haggle"
#: Round cards whose hidden cards (kept cards, gift piles) the trick screen cannot see.
_UNSEEN = frozenset({Scoring.KEPT, Scoring.GIFTS})
SUITS = (Suit.PRINCE, Suit.QUEEN, Suit.FAIRY, Suit.PET)


class TrickRejected(EntryError):
    """A tap that cannot be stored; its one problem's ``code`` says why (templates word it) and
    its ``params`` give the details. Nothing was stored."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__([Problem(code, params=params)])

    @property
    def code(self) -> str:
        return self.problems[0].code

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.problems[0].params)


@dataclass(frozen=True)
class PowerNote:
    """A Princess power taking effect after ``at`` cards of the round had been played (Snow
    White: ``at`` is the position of her zero card; Alice, Mulan, classic Pocahontas and the
    haggle: the end of the trick they follow), entered after ``entered`` cards (``at`` unless
    later). ``power`` is ``"haggle"`` for a Haggle with the Hag step: ``seat`` the trick's
    winner, ``cards`` (the card taken from the trick, the card given from the hand), empty when
    the winner did not haggle. ``cards`` and ``more`` are the power's cards (codes)."""

    at: int
    seat: int
    power: str
    target: int | None = None
    suit: str | None = None
    cards: tuple[str, ...] = ()
    more: tuple[str, ...] = ()
    entered: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "more", tuple(self.more))

    @property
    def since(self) -> int:
        """Cards played when the note was entered."""
        return self.at if self.entered is None else self.entered

    @property
    def card_list(self) -> tuple[Card, ...]:
        return tuple(Card.from_code(code) for code in self.cards)

    def to_step(self) -> PowerUse | Haggle | None:
        """The engine's step (``None`` for a declined haggle)."""
        cards = self.card_list
        if self.power == HAGGLE:
            return Haggle(self.seat, cards[1], cards[0]) if cards else None
        return PowerUse(self.seat, self.power, self.target,
                        Suit(self.suit) if self.suit else None, cards,
                        tuple(Card.from_code(code) for code in self.more))

    def as_json(self) -> dict[str, Any]:
        data = {"at": self.at, "seat": self.seat, "power": self.power}
        for name in ("target", "suit", "entered"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        for name in ("cards", "more"):
            if getattr(self, name):
                data[name] = list(getattr(self, name))
        return data


@dataclass(frozen=True)
class PlayedCard:
    """One card of a trick as the trick screen shows it: its position in the round's plays,
    the seat, the card, whether it wins the trick."""

    position: int  # index in the round's plays
    seat: int
    card: Card
    wins: bool = False


@dataclass(frozen=True)
class TrickView:
    index: int  # 0-based
    leader: int
    plays: tuple[PlayedCard, ...]
    powers: tuple[PowerNote, ...]
    winner: int | None = None
    reason: WinReason | None = None
    after: tuple[PowerNote, ...] = ()  # Mulan, Alice, classic Pocahontas, the haggle
    final: tuple[Card, ...] = ()  # the cards as the trick ended (the judge's: Mulan's swap in)
    redone: bool = False  # dealt back to be played again (Alice)

    def note(self, power: str) -> PowerNote | None:
        """The after-trick note of ``power`` (a Princess slug or ``haggle``), if any."""
        return next((n for n in self.after if n.power == power), None)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The trick's cards as they ended (Mulan's swap included), in play order."""
        return self.final or tuple(p.card for p in self.plays)


@dataclass
class Board:
    """Everything the trick screen shows about a round being entered, read from its judge."""

    players: int
    edition: Edition
    letter: str
    first_leader: int
    trick_size: int
    total_tricks: int
    version: int
    validate: bool
    plays: tuple[Card, ...]
    tricks: list[TrickView] = field(default_factory=list)  # complete tricks
    current: TrickView | None = None  # the trick being played (None when the round is over)
    issues: list[Problem] = field(default_factory=list)  # the rules broken (checks on)
    accepted: frozenset[str] = frozenset()  # the keys of the breaches the players accepted
    taken: tuple[frozenset[Card], ...] | None = None
    tricks_won: tuple[int, ...] | None = None
    last_winner: int | None = None
    round_leader: int = 0
    powers_used: frozenset[int] = frozenset()
    out: frozenset[Card] = frozenset()  # cards in no hand: played (and not back) or given away
    forced: Card | None = None  # the card the seat to play must play (the judge's answer)

    @property
    def over(self) -> bool:
        return self.current is None

    @property
    def turn(self) -> int | None:
        """The seat whose card is tapped next."""
        if self.current is None:
            return None
        return (self.current.leader + len(self.current.plays)) % self.players

    @property
    def played(self) -> frozenset[Card]:
        """Cards that cannot be played now: on the table, or played and not back in a hand
        (Alice deals a trick back, Mulan and the haggle take a card back into a hand)."""
        return self.out

    @property
    def haggle_round(self) -> bool:
        return round_card_class(self.edition, self.letter).haggle_after_trick

    @property
    def after_trick(self) -> TrickView | None:
        """The trick just finished while the next one has not started: Alice, Mulan and the
        haggle act now."""
        if self.current is None or self.current.plays or not self.tricks:
            return None
        return self.tricks[-1]

    def forced_card(self) -> Card | None:
        """The card a power made the seat whose turn it is play (the Ice Princess's frozen
        card), if any: the cards show whether it was played, so another card is refused while
        the rule checks are on."""
        return self.forced

    def play_at(self, position: int) -> PlayedCard | None:
        """The play at ``position`` in the round's plays."""
        for trick in [*self.tricks, *([self.current] if self.current else [])]:
            for p in trick.plays:
                if p.position == position:
                    return p
        return None

    def last_trick_with(self, card: Card) -> int:
        """The 1-based number of the last trick where ``card`` was played."""
        positions = [i for i, c in enumerate(self.plays) if c == card]
        return positions[-1] // self.trick_size + 1 if positions else 0

    @staticmethod
    def issue_key(issue: Problem) -> str:
        """A breach's stable key (stored when the players accept it)."""
        return f"{issue.trick}:{issue.code}:{issue.seat}:{issue.card or ''}"

    @property
    def open_issues(self) -> list[Problem]:
        return [i for i in self.issues if self.issue_key(i) not in self.accepted]

    def trick_at(self, index: int) -> TrickView | None:
        """A played trick, or the one being played."""
        if index < len(self.tricks):
            return self.tricks[index]
        return self.current if self.current and self.current.index == index else None

    @property
    def last_trick(self) -> TrickView | None:
        return self.tricks[-1] if self.tricks else None

    def seat_order(self) -> list[int]:
        """The seats of the current trick in play order (twice under u)."""
        leader = self.current.leader if self.current else self.first_leader
        return [(leader + i) % self.players for i in range(self.trick_size)]

    def deck_by_suit(self) -> list[tuple[str, list[Card]]]:
        cards = deck(self.players)
        return [(suit.value, [c for c in cards if c.suit is suit]) for suit in SUITS]

    def played_round(self) -> PlayedRound | None:
        """The round as the score pad stores it, once every trick is in."""
        if self.taken is None or self.tricks_won is None:
            return None
        no_tricks = (frozenset(s for s, won in enumerate(self.tricks_won) if not won)
                     if needs_no_tricks(self.edition, self.letter) else None)
        return PlayedRound(
            taken=self.taken, no_tricks=no_tricks,
            leader=self.round_leader if self.round_leader != self.first_leader else None,
            last_trick_winner=self.last_winner if self.edition is Edition.CLASSIC else None)


# --- the judge of a round, kept between requests --------------------------------------------------

Event = Card | PowerUse | Haggle
Views = dict[tuple[Any, ...], "TrickView"]


class _Judges:
    """The judges of the rounds entered lately, one per round, for this process. A request takes
    its round's judge out (so no two requests move it at once) and puts it back when done;
    :meth:`TrickEntry.reconcile` moves it to whatever the database holds, so a judge left behind
    by another process's writes is only moved, never trusted."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._judges: OrderedDict[tuple[Any, ...], tuple[TableRound, list[Event], Views]] = \
            OrderedDict()

    def take(self, key: tuple[Any, ...]) -> tuple[TableRound, list[Event], Views] | None:
        with self._lock:
            return self._judges.pop(key, None)

    def clear(self) -> None:
        """Forget every judge (the next request of each round builds its own)."""
        with self._lock:
            self._judges.clear()

    def give_back(self, key: tuple[Any, ...], judge: TableRound, events: list[Event],
                  views: Views) -> None:
        with self._lock:
            self._judges[key] = (judge, events, views)
            while len(self._judges) > self._size:
                self._judges.popitem(last=False)


JUDGES = _Judges()


def _power(edition: Edition, slug: str) -> Power | None:
    try:
        return power_class(slug)(edition)
    except KeyError:
        return None


def acts_after(edition: Edition, note: PowerNote) -> bool:
    """Whether ``note`` acts right after the trick before it (its power's timing, or the
    haggle) rather than before or during the trick it is in."""
    if note.power == HAGGLE:
        return True
    power = _power(edition, note.power)
    return power is not None and power.when() is Timing.AFTER and note.at > 0


def _after_order(edition: Edition, note: PowerNote) -> int:
    """After a trick, the power that comes first (Mulan, before the winner is settled), then
    the others, the haggle last."""
    if note.power == HAGGLE:
        return 2
    power = _power(edition, note.power)
    return 0 if power is not None and power.first_after_trick else 1


def events_of(edition: Edition, size: int, plays: Sequence[Card],
              notes: Sequence[PowerNote]) -> list[Event]:
    """The round's entries in the judge's order: for each trick, the powers used before or
    during it (in the order entered), its cards, then what follows it."""
    before: dict[int, list[PowerNote]] = {}
    after: dict[int, list[PowerNote]] = {}
    for note in notes:
        if acts_after(edition, note):
            after.setdefault(note.at // size - 1, []).append(note)
        else:
            before.setdefault(note.at // size, []).append(note)
    events: list[Event] = []
    tricks = max([len(plays) // size + 1, *(k + 1 for k in before), *(k + 2 for k in after)])
    for index in range(tricks):
        for note in sorted(after.get(index - 1, ()),
                           key=lambda n: _after_order(edition, n)):
            step = note.to_step()
            if step is not None:
                events.append(step)
        for note in before.get(index, ()):
            step = note.to_step()
            if step is not None:
                events.append(step)
        events.extend(plays[index * size:(index + 1) * size])
    return events


def _refusal(judge: TableRound, event: Event) -> list[Problem]:
    if isinstance(event, Card):
        return judge.check_card(event)
    if isinstance(event, Haggle):
        return judge.check_haggle(event)
    return judge.check_power(event)


def _push(judge: TableRound, event: Event) -> None:
    if isinstance(event, Card):
        judge.push_card(event)
    elif isinstance(event, Haggle):
        judge.push_haggle(event)
    else:
        judge.push_power(event)


def _move(judge: TableRound, events: list[Event], target: Sequence[Event],
          checked: bool = False) -> Problem | None:
    """Bring ``judge`` (holding ``events``) to ``target``: undo back to the common start, enter
    the rest. With ``checked``, stop at the first entry the judge refuses and return why."""
    common = 0
    for old, new in zip(events, target, strict=False):
        if old != new:
            break
        common += 1
    while len(events) > common:
        judge.pop()
        events.pop()
    for event in target[common:]:
        if checked:
            refused = _refusal(judge, event)
            if refused:
                return refused[0]
        _push(judge, event)
        events.append(event)
    return None


@dataclass
class TrickEntry:
    """A round being entered: its stored row, read once per request, and its judge."""

    session: Session
    view: play.GameView
    number: int
    letter: str
    leader: int
    log: Any  # the stored row (see :func:`get_log`), None before the first tap
    plays: list[Card]
    notes: list[PowerNote]
    accepted: set[str]
    validate: bool
    version: int
    judge: TableRound
    events: list[Event]
    _board: Board | None = None
    #: The round's complete tricks as the screen shows them, kept with its judge: each tap
    #: shows every trick played so far, and only the last one is new (see :func:`board_of`).
    views: Views = field(default_factory=dict)

    @property
    def edition(self) -> Edition:
        return self.view.edition

    @property
    def key(self) -> tuple[Any, ...]:
        return _key(self.view, self.number, self.letter, self.leader)

    @property
    def size(self) -> int:
        return self.judge.trick_size

    def reconcile(self) -> None:
        """Move the judge to the stored plays and notes (trusted: they were checked when
        stored)."""
        _move(self.judge, self.events, events_of(self.edition, self.size, self.plays, self.notes))
        self._board = None

    def apply(self, plays: Sequence[Card], notes: Sequence[PowerNote]) -> Problem | None:
        """Try ``plays`` and ``notes`` on the judge; if it refuses an entry, move it back and
        return why (nothing changes), else keep them (not stored yet)."""
        target = events_of(self.edition, self.size, plays, notes)
        refused = _move(self.judge, self.events, target, checked=True)
        if refused is not None:
            self.reconcile()
            return refused
        self.plays, self.notes = list(plays), list(notes)
        self._board = None
        return None

    def invalidate(self) -> None:
        """Forget the board drawn: something it shows has changed."""
        self._board = None

    def done(self) -> None:
        """Hand the judge back for the next request of this round."""
        JUDGES.give_back(self.key, self.judge, self.events, self.views)

    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = board_of(self)
        return self._board


# --- reading ---------------------------------------------------------------------------------

class _Views:
    """The games whose rounds are entered lately, as :func:`companion.play.rebel_princess.
    view_game` replayed them, for this process. A tap costs one small query to check that the
    game has no new round record since (records are only ever added: an edit or an undo adds
    one), instead of loading the game, its players and its records and replaying it. The views
    are only read (a write that needs the game, saving the round, loads it afresh)."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._views: OrderedDict[tuple[str, str], tuple[Any, play.GameView]] = OrderedDict()

    def get(self, session: Session, code: str) -> play.GameView | None:
        """The game ``code`` (of Rebel Princess) replayed, or ``None`` when there is none."""
        mark = session.execute(_GAME_MARK, {"code": code, "kind": play.KIND}).first()
        if mark is None:
            return None
        key = (str(session.get_bind().url), code)
        with self._lock:
            kept = self._views.get(key)
        if kept is not None and kept[0] == tuple(mark):
            return kept[1]
        game = play.get_game(session, code)
        if game is None:
            return None
        view = play.view_game(session, game)
        with self._lock:
            self._views[key] = (tuple(mark), view)
            self._views.move_to_end(key)
            while len(self._views) > self._size:
                self._views.popitem(last=False)
        return view

    def forget(self, code: str | None = None) -> None:
        """Drop the view of ``code`` (every view when ``None``): a rollback in the request that
        loaded it expires its rows."""
        with self._lock:
            for key in [k for k in self._views if code is None or k[1] == code]:
                del self._views[key]


_GAMES, _RECORDS = Game.__table__, RoundRecord.__table__  # type: ignore[attr-defined]
#: What a kept view must match: the game's id, and how many round records it has and the last.
_GAME_MARK = select(_GAMES.c.id, func.count(_RECORDS.c.id), func.max(_RECORDS.c.id)).select_from(
    _GAMES.outerjoin(_RECORDS, _RECORDS.c.game_id == _GAMES.c.id)).where(
    _GAMES.c.code == bindparam("code"), _GAMES.c.kind == bindparam("kind")).group_by(
    _GAMES.c.id)

VIEWS = _Views()


def game_view(session: Session, code: str) -> play.GameView | None:
    """The game ``code`` as the trick screen reads it (kept between taps, see :class:`_Views`)."""
    return VIEWS.get(session, code)

def is_supported(edition: Edition, letter: str) -> bool:
    """Whether the trick screen can score this Round card: kept cards and gift piles are never
    seen at the table."""
    return round_card(edition, letter).scoring not in _UNSEEN


_LOG = TrickLog.__table__
# Statements built once (a plain SELECT or UPDATE of the row: no ORM object is loaded).
_READ_LOG = select(_LOG).where(_LOG.c.game_id == bindparam("game"),
                               _LOG.c.number == bindparam("number"))
_WRITES: dict[tuple[str, ...], Any] = {}


def get_log(session: Session, game: Game, number: int) -> Any:
    """The round's stored log (a row with the columns of :class:`TrickLog`), or ``None``."""
    return session.execute(_READ_LOG, {"game": game.id, "number": number}).first()


def _write(columns: tuple[str, ...]) -> Any:
    """``UPDATE tricklog SET <columns> WHERE id = :row AND version = :seen``, built once."""
    if columns not in _WRITES:
        _WRITES[columns] = update(_LOG).where(
            _LOG.c.id == bindparam("row"), _LOG.c.version == bindparam("seen")).values(
            {name: bindparam(f"new_{name}") for name in columns})
    return _WRITES[columns]


def _game_validates(session: Session, game: Game) -> bool:
    """The game's rule-check switch: as last set on any of its rounds (on by default)."""
    last = session.exec(select(TrickLog).where(TrickLog.game_id == game.id)
                        .order_by(col(TrickLog.updated_at).desc())).first()
    return True if last is None else last.checks


def open_round(*, session: Session, view: play.GameView, number: int, letter: str,
               leader: int) -> TrickEntry:
    """The round being entered: its row read once, its judge brought to it."""
    log = get_log(session, view.game, number)
    plays = [parse_card(code) for code in log.plays.split()] if log else []
    notes = [PowerNote(**item) for item in json.loads(log.powers)] if log else []
    accepted = set(json.loads(log.accepted)) if log else set()
    validate = log.checks if log else _game_validates(session, view.game)
    princesses = [p.princess for p in view.players]
    kept = JUDGES.take(_key(view, number, letter, leader))
    views: Views = {}
    if kept is not None:
        judge, events, views = kept
    else:
        judge = TableRound(len(view.players), edition=view.edition, round_card=letter,
                           leader=leader, princesses=princesses)
        events = []
    entry = TrickEntry(session, view, number, letter, leader, log, plays, notes, accepted,
                       validate, log.version if log else 0, judge, events, views=views)
    entry.reconcile()
    return entry


def _key(view: play.GameView, number: int, letter: str, leader: int) -> tuple[Any, ...]:
    """What a judge is kept under: the round, and the setup it was built for."""
    return (view.game.code, number, letter, leader, tuple(p.princess for p in view.players))


def trick_size(edition: Edition, letter: str, players: int) -> int:
    return players * round_card_class(edition, letter).plays_per_seat


def _trick_view(trick: TableTrick, start: int, players: int, before: Sequence[PowerNote],
                after: Sequence[PowerNote], edition: Edition) -> TrickView:
    plays = [PlayedCard(start + i, trick.seat_of(i, players), card) for i, card in
             enumerate(trick.cards)]
    if trick.winner is None:
        return TrickView(trick.index, trick.leader, tuple(plays), tuple(before))
    reason = trick.reason
    assert reason is not None
    plays = [PlayedCard(p.position, p.seat, p.card, p.seat == trick.winner and (
        reason.code != "sum" or p.card.suit.value == reason.suit)) for p in plays]
    return TrickView(trick.index, trick.leader, tuple(plays), tuple(before), trick.winner,
                     reason, tuple(sorted(after, key=lambda n: _after_order(edition, n))),
                     trick.final, trick.redone)


def board_of(entry: TrickEntry) -> Board:
    """The trick screen's view of the round, from the judge's queries (no replay)."""
    judge = entry.judge
    edition, players, size = entry.edition, judge.players, judge.trick_size
    board = Board(players, edition, entry.letter, entry.leader, size, judge.expected_tricks,
                  entry.version, entry.validate, tuple(entry.plays),
                  accepted=frozenset(entry.accepted))
    before: dict[int, list[PowerNote]] = {}
    after: dict[int, list[PowerNote]] = {}
    for note in entry.notes:
        if acts_after(edition, note):
            after.setdefault(note.at // size - 1, []).append(note)
        else:
            before.setdefault(note.at // size, []).append(note)
    views = entry.views
    if len(views) > 4 * judge.expected_tricks + 8:  # (fixes and undos left old ones behind)
        views.clear()
    for trick in judge.tricks:
        # What the view is made of, so a kept one is only reused for the very same trick.
        key = (trick.index, trick.leader, tuple(trick.cards), trick.winner, trick.reason,
               tuple(before.get(trick.index, ())), tuple(after.get(trick.index, ())),
               trick.final, trick.redone)
        found = views.get(key)
        if found is None:
            found = views[key] = _trick_view(trick, trick.index * size, players,
                                             before.get(trick.index, ()),
                                             after.get(trick.index, ()), edition)
        board.tricks.append(found)
    number = len(board.tricks)
    current = judge.current
    if current is not None:
        board.current = _trick_view(current, number * size, players, before.get(number, ()), (),
                                    edition)
    elif not judge.is_over():
        board.current = TrickView(number, judge.leader, (), tuple(before.get(number, ())))
    board.round_leader = board.tricks[0].leader if board.tricks else (
        board.current.leader if board.current else entry.leader)
    board.powers_used = judge.used_seats
    board.out = judge.cards_out
    turn = judge.turn
    board.forced = judge.forced_card(turn) if turn is not None else None
    if entry.validate:
        board.issues = judge.findings()
    if board.current is None:
        taken, won = judge.tally()
        board.taken = tuple(cards_of(mask) for mask in taken)
        board.tricks_won = tuple(won)
        board.last_winner = board.tricks[-1].winner if board.tricks else None
    return board


# --- writing ---------------------------------------------------------------------------------

def _store(entry: TrickEntry, **values: Any) -> None:
    """Write ``values`` if the row is still at the version read (one conditional UPDATE, so two
    phones tapping at once cannot both win); raises ``TrickRejected("stale")`` otherwise."""
    session, game = entry.session, entry.view.game
    assert game.id is not None
    version = entry.version
    values = {**values, "version": version + 1, "updated_at": datetime.now(UTC)}
    if entry.log is None:
        row = TrickLog(game_id=game.id, number=entry.number, checks=entry.validate)
        for key, value in values.items():
            setattr(row, key, value)
        session.add(row)
        try:
            _commit(session)
        except IntegrityError:
            session.rollback()
            VIEWS.forget(game.code)
            raise TrickRejected("stale") from None
        entry.log = row
    else:
        result = session.execute(_write(tuple(sorted(values))), {
            "row": entry.log.id, "seen": version,
            **{f"new_{name}": value for name, value in values.items()}})
        if result.rowcount != 1:
            session.rollback()
            VIEWS.forget(game.code)
            raise TrickRejected("stale")
        _commit(session)
    entry.version = version + 1
    if "checks" in values:
        entry.validate = values["checks"]
    if "accepted" in values:
        entry.accepted = set(json.loads(values["accepted"]))
    entry.invalidate()


def _commit(session: Session) -> None:
    """Commit the one row written, keeping the game, its players and records loaded: the page
    drawn next shows them, and reloading each (one query per object, as an expiring commit
    would) would cost more than the whole judgement of a tap."""
    expire = session.expire_on_commit
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = expire


def _save(entry: TrickEntry, plays: Sequence[Card], notes: Sequence[PowerNote]) -> None:
    """Store ``plays`` and ``notes`` (already on the judge)."""
    _store(entry, plays=" ".join(c.code for c in plays),
           powers=json.dumps([n.as_json() for n in notes]))


def _check_version(entry: TrickEntry, version: int) -> None:
    if version != entry.version:
        raise TrickRejected("stale")


def _check_card(board: Board, card: Card) -> None:
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    if card in board.played:
        raise TrickRejected("card-already-played", card=card, trick=board.last_trick_with(card))


def _rule_slug(board: Board, note: PowerNote) -> str:
    return round_card_class(board.edition, board.letter).slug if note.power == HAGGLE \
        else note.power


def _card_or_none(code: str | None) -> Card | None:
    try:
        return Card.from_code(code) if code else None
    except (InvalidValueError, ValueError, KeyError):
        return None


def _trial(entry: TrickEntry, plays: Sequence[Card], notes: Sequence[PowerNote],
           new: PowerNote | None = None) -> None:
    """Check a change on the judge before storing it: every entry must be one the judge takes;
    with the rule checks on, the ``new`` power or haggle must break none of its own rules.
    Raises :class:`TrickRejected` (the judge is back as it was)."""
    known = {Board.issue_key(p) for p in entry.judge.findings()}
    stored = (entry.plays, entry.notes)
    refused = entry.apply(plays, notes)
    if refused is not None:
        if new is not None:
            raise _refused(refused)
        raise TrickRejected("entry-refused", why=refused.code, seat=refused.seat,
                            card=_card_or_none(refused.card), message=refused.message,
                            problem=refused)
    if new is None or not entry.validate:
        return
    slug = _rule_slug(entry.board, new)
    for problem in entry.judge.findings():
        if problem.params.get("rule") == slug and Board.issue_key(problem) not in known:
            entry.plays, entry.notes = stored
            entry.reconcile()
            raise _refused(problem)


def play_card(entry: TrickEntry, *, version: int, card: Card, zero: bool = False) -> None:
    """Record ``card`` as played by the seat whose turn it is; ``zero``: Snow White plays it as
    a zero (her power, recorded with the card)."""
    if not is_supported(entry.edition, entry.letter):
        raise TrickRejected("round-card-not-supported")
    board = entry.board
    if board.over:
        raise TrickRejected("round-over")
    _check_version(entry, version)
    _check_card(board, card)
    forced = board.forced_card()
    if forced is not None and forced != card and board.validate:
        raise TrickRejected("ice-forced", seat=board.turn, card=forced)
    plays = [*entry.plays, card]
    notes = list(entry.notes)
    new = None
    if zero:
        seat = board.turn
        assert seat is not None
        new = _zero_note(entry, seat, card, len(entry.plays), len(plays))
        notes.append(new)
    _trial(entry, plays, notes, new)
    _save(entry, plays, notes)


def _zero_note(entry: TrickEntry, seat: int, card: Card, at: int, entered: int) -> PowerNote:
    """Snow White's zero on ``card``, played at position ``at``: her power's declaration says
    which cards may be."""
    power = entry.judge.power_of(seat)
    if power is None or power.when() is not Timing.TURN or not power.card_slots:
        raise TrickRejected("zero-not-hers")
    return PowerNote(at, seat, power.slug, cards=(card.code,),
                     entered=entered if entered != at else None)


def fix_card(entry: TrickEntry, *, version: int, position: int, card: Card) -> None:
    """Replace the card at ``position``; every later seat and winner is derived again (a zero
    follows its card while the card is within the power's rank)."""
    board = entry.board
    _check_version(entry, version)
    if not 0 <= position < len(entry.plays):
        raise TrickRejected("bad-position")
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    plays = list(entry.plays)
    old = plays[position]
    plays[position] = card
    notes = []
    for note in entry.notes:
        power = entry.judge.power_of(note.seat) if note.power != HAGGLE else None
        if power is not None and power.when() is Timing.TURN and power.card_slots and \
                note.at == position:
            if not power.allows_rank(card):
                continue
            note = PowerNote(note.at, note.seat, note.power, cards=(card.code,),
                             entered=note.entered)
        notes.append(note)
    if card != old:
        try:
            _trial(entry, plays, notes)
        except TrickRejected as error:
            if error.params.get("why") in ("card-already-played", "duplicate-card") or \
                    card in board.plays:
                raise TrickRejected("card-already-played", card=card,
                                    trick=board.last_trick_with(card) or position //
                                    board.trick_size + 1) from None
            raise
    else:
        entry.apply(plays, notes)
    _save(entry, plays, notes)


def undo(entry: TrickEntry, *, version: int) -> None:
    """Take back the last thing entered: a power or haggle entered after the last card, else the
    card (with a zero on it)."""
    _check_version(entry, version)
    plays, notes = list(entry.plays), list(entry.notes)
    bound = len(plays) - 1  # the last card's position

    def is_zero(note: PowerNote) -> bool:
        power = entry.judge.power_of(note.seat) if note.power != HAGGLE else None
        return power is not None and power.when() is Timing.TURN and bool(power.card_slots)

    if notes and notes[-1].since >= len(plays) and not (is_zero(notes[-1]) and
                                                        notes[-1].at == bound):
        notes.pop()
    elif plays:
        plays.pop()
        notes = [n for n in notes if n.at < len(plays) or
                 (n.at == len(plays) and not (is_zero(n) or acts_after(entry.edition, n)))]
    else:
        raise TrickRejected("nothing-to-undo")
    entry.apply(plays, notes)
    _save(entry, plays, notes)


def _seat_ok(board: Board, seat: int | None) -> bool:
    return seat is not None and 0 <= seat < board.players


def _refused(problem: Problem) -> TrickRejected:
    """The judge's refusal, as the trick screen reports it."""
    return TrickRejected("power-refused", why=problem.code, seat=problem.seat,
                         card=_card_or_none(problem.card), message=problem.message,
                         problem=problem)


def use_power(entry: TrickEntry, *, version: int, seat: int, target: int | None = None,
              suit: str | None = None, cards: Sequence[Card] = ()) -> None:
    """Record the power of ``seat``'s Princess with what was tapped (``cards`` on the grid,
    completed with what the taps leave implied); the judge alone says whether it may act now
    and with these arguments (its refusal stores nothing)."""
    board = entry.board
    _check_version(entry, version)
    power = entry.judge.power_of(seat)
    if power is not None and power.entry == "zero":  # on her card just played: judged with it
        last = board.play_at(len(entry.plays) - 1)
        if last is None or last.seat != seat:
            raise TrickRejected("zero-not-hers")
        _store_note(entry, _zero_note(entry, seat, last.card, last.position, len(entry.plays)))
        return
    refused = entry.judge.power_refusal(seat, target)
    if power is None or refused is not None:
        assert refused is not None
        raise _refused(refused)
    if power.needs_target and entry.edition in power.target_leader:
        target = board.current.leader if board.current else target  # the leader's hand
    codes = tuple(c.code for c in cards)
    slots, more_slots = power.slots(board.players, board.trick_size)
    more: tuple[str, ...] = ()
    trick = board.after_trick
    if power.entry == "after" and trick is not None:
        codes = _complete(power, seat, trick, codes)
    elif slots and more_slots:  # (Sleeping Beauty: each seat's card, then each seat's new one)
        players = board.players
        if len(codes) == len(slots) + len(more_slots) - 1:
            codes = (*codes, *_left_over(codes[:players], codes[players:]))
        codes, more = codes[:len(slots)], codes[len(slots):]
    elif not slots:
        codes = ()
    note = PowerNote(len(entry.plays), seat, power.slug,
                     target if power.needs_target else None,
                     suit if power.needs_suit and suit in {s.value for s in SUITS} else None,
                     codes, more)
    _store_note(entry, note)


def _left_over(cards: Sequence[str], picked: Sequence[str]) -> tuple[str, ...]:
    rest = list(cards)
    for code in picked:
        if code in rest:
            rest.remove(code)
    return tuple(rest[:1])


def _complete(power: Power, seat: int, trick: TrickView,
              codes: tuple[str, ...]) -> tuple[str, ...]:
    """The cards of an after-trick power, with what the taps leave implied: Mulan's played card
    when she played one, the last card Alice deals back."""
    if power.redecides_trick:  # Mulan: her card in the trick, then the card she swaps in
        mine = [p.card.code for p in trick.plays if p.seat == seat]
        if len(codes) == 1 and len(mine) == 1:
            codes = (mine[0], *codes)
        return codes
    dealt = [c.code for c in trick.cards]
    if len(codes) == len(dealt) - 1:
        codes = (*codes, *_left_over(dealt, codes))
    return codes


def haggle(entry: TrickEntry, *, version: int, cards: Sequence[Card] = ()) -> None:
    """Haggle with the Hag after the trick just finished: ``cards`` is (the card taken from the
    trick, the card given from the winner's hand), or empty when the winner does not haggle."""
    board = entry.board
    _check_version(entry, version)
    if not board.haggle_round:
        raise TrickRejected("no-haggle-here")
    trick = board.after_trick
    if trick is None or trick.redone:
        raise TrickRejected("haggle-not-now")
    if trick.note(HAGGLE) is not None:
        raise TrickRejected("haggle-done")
    if len(cards) not in (0, 2):
        raise TrickRejected("power-needs-cards")
    assert trick.winner is not None
    note = PowerNote(len(entry.plays), trick.winner, HAGGLE, cards=tuple(c.code for c in cards))
    _store_note(entry, note)


def _store_note(entry: TrickEntry, note: PowerNote) -> None:
    notes = [*entry.notes, note]
    _trial(entry, entry.plays, notes, note)
    _save(entry, entry.plays, notes)


# --- choosing cards on the grid ----------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """One card to tap: ``what`` it is (a power's card slot: ``mulan-old``, ``mulan-new``,
    ``dealt``, ``ice``, ``taken``, ``given``, ``gives``, ``gets``; or the haggle's ``take``,
    ``give``) and whose card (a seat)."""

    what: str
    seat: int | None


@dataclass(frozen=True)
class Pick:
    """Cards being tapped for a power or a haggle: nothing is stored until the last tap."""

    kind: str  # a Princess slug or "haggle"
    seat: int
    target: int | None
    picked: tuple[Card, ...]
    slot: Slot
    candidates: frozenset[Card]
    final: bool  # the next tap stores the entry
    seats: tuple[int | None, ...] = ()  # whose card each tap is

    @property
    def action(self) -> str:
        return "haggle" if self.kind == HAGGLE else "power"

    @property
    def codes(self) -> str:
        return ".".join(c.code for c in self.picked)


def parse_cards(text: str | None) -> tuple[Card, ...]:
    """Card codes joined by dots or spaces (``Q3.F2``); raises ``TrickRejected``."""
    cards = []
    for code in (text or "").replace(".", " ").replace(",", " ").split():
        try:
            cards.append(Card.from_code(code.strip().upper()))
        except (InvalidValueError, ValueError, KeyError):
            raise TrickRejected("unknown-card", typed=code) from None
    return tuple(cards)


def pick_for(entry: TrickEntry, *, kind: str, seat: int | None, target: int | None,
             picked: Sequence[Card]) -> Pick:
    """The next card to tap for ``kind`` (a power needing cards, or ``haggle``), given the cards
    ``picked`` so far: the slots come from the power's declaration. Raises
    :class:`TrickRejected` when it cannot be entered now."""
    board = entry.board
    if board.current is None:
        raise TrickRejected("round-over")
    players, hand = board.players, frozenset(deck(board.players)) - board.played
    slots: list[tuple[Slot, frozenset[Card]]] = []
    picked = tuple(picked)
    auto = 0  # cards the last taps leave implied
    trick = board.after_trick
    if kind == HAGGLE:
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
        if power.needs_target and entry.edition in power.target_leader:
            target = board.current.leader
        refused = entry.judge.power_refusal(seat, target)
        if refused is not None:
            raise _refused(refused)
        names, more = power.slots(players, board.trick_size)
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
        elif more:  # Sleeping Beauty: each seat's card, then the card each seat gets back
            gives = picked[:players]
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
    return Pick(kind, seat, target, picked, slot, candidates,
                len(picked) + 1 >= len(slots) - auto, tuple(s.seat for s, _ in slots))


def accept(entry: TrickEntry, *, version: int, key: str) -> None:
    """The players saw the breach ``key`` and play on."""
    _check_version(entry, version)
    if key not in {Board.issue_key(i) for i in entry.board.issues}:
        raise TrickRejected("stale")
    _store(entry, accepted=json.dumps(sorted(entry.accepted | {key})))


def set_validation(entry: TrickEntry, *, version: int, on: bool) -> None:
    """Switch the rule checks on or off for this game (new rounds start as the last one was)."""
    _check_version(entry, version)
    _store(entry, checks=on)


def confirm(entry: TrickEntry, *, version: int) -> None:
    """Save the round to the score pad from the cards each seat took. Raises
    :class:`TrickRejected` (``round-not-over``, ``issues-open``, ``saved``: already stored with
    these very cards) or the errors of :func:`companion.play.rebel_princess.save_round`."""
    if not is_supported(entry.edition, entry.letter):
        raise TrickRejected("round-card-not-supported")
    board = entry.board
    played = board.played_round()
    record = entry.view.record(entry.number)
    if record is not None:
        if played is not None and play.played_from_record(record) == played:
            raise TrickRejected("saved")  # a double tap: the first one stored it
        raise TrickRejected("stale")
    _check_version(entry, version)
    if played is None:
        raise TrickRejected("round-not-over")
    if board.open_issues:
        raise TrickRejected("issues-open", count=len(board.open_issues))
    VIEWS.forget(entry.view.game.code)
    game = play.get_game(entry.session, entry.view.game.code)  # (loaded afresh: it is written)
    assert game is not None
    play.save_round(session=entry.session, game=game, number=entry.number, played=played,
                    mode="cards", base_id=None)


def preview(entry: TrickEntry) -> RoundResult | None:
    """The round's result (scores, lines, totals after) as the pad would show it, or None."""
    played = entry.board.played_round()
    if played is None:
        return None
    try:
        state = play.replay(entry.view, extra=played)
    except (IncompleteEntryError, InvalidValueError):
        return None
    number = entry.number
    return state.rounds[number - 1] if len(state.rounds) >= number else None
