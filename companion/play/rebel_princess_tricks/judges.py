"""The round being entered (:class:`TrickEntry`) and its judge, kept between requests: the
entries in the judge's order (:func:`events_of`), the judge moved only by the entries that
differ, the games lately replayed (:data:`VIEWS`), the stored row read once
(:func:`open_round`) and the board drawn from the judge's queries (:func:`board_of`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, func, update
from sqlmodel import Session, col, select

from ...models import Game, RoundRecord, TrickLog, table_of
from ...scoring.problems import Problem
from ...scoring.rebel_princess import (
    Edition,
    RebelCard,
    round_card,
)
from ...scoring.rebel_princess.engine import (
    Chairs,
    Haggle,
    Power,
    PowerUse,
    TableRound,
    Timing,
    parse_card,
    power_class,
    round_card_class,
)
from ...scoring.rebel_princess.engine.cards import cards_of
from ...scoring.rebel_princess.engine.errors import ViolationCode
from ...scoring.rebel_princess.engine.table_trick import TableTrick
from .. import rebel_princess as play
from .board import _UNSEEN, CHAIRS, HAGGLE, Board, PlayedCard, PowerNote, TrickView

# --- the judge of a round, kept between requests --------------------------------------------------

Event = RebelCard | PowerUse | Haggle | Chairs
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
    """Whether ``note`` acts right after the trick before it (its power's timing, the haggle
    or the passes) rather than before or during the trick it is in."""
    if note.is_step:
        return True
    power = _power(edition, note.power)
    return power is not None and power.when() is Timing.AFTER and note.at > 0


def _after_order(edition: Edition, note: PowerNote) -> int:
    """After a trick, the power that comes first (Mulan, before the winner is settled), then
    the others, the passes (k / E: the powers before the next trick act once they are done),
    the haggle last."""
    if note.power == HAGGLE:
        return 3
    if note.power == CHAIRS:
        return 2
    power = _power(edition, note.power)
    return 0 if power is not None and power.first_after_trick else 1


def events_of(edition: Edition, size: int, plays: Sequence[RebelCard],
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
    if isinstance(event, RebelCard):
        return judge.check_card(event)
    if isinstance(event, Haggle):
        return judge.check_haggle(event)
    if isinstance(event, Chairs):
        return judge.check_chairs(event)
    return judge.check_power(event)


def _push(judge: TableRound, event: Event) -> None:
    if isinstance(event, RebelCard):
        judge.push_card(event)
    elif isinstance(event, Haggle):
        judge.push_haggle(event)
    elif isinstance(event, Chairs):
        judge.push_chairs(event)
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
    view: play.RebelGameView
    number: int
    letter: str
    leader: int
    log: Any  # the stored row (see :func:`get_log`), None before the first tap
    plays: list[RebelCard]
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

    def apply(self, plays: Sequence[RebelCard], notes: Sequence[PowerNote]) -> Problem | None:
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
        self._views: OrderedDict[tuple[str, str], tuple[Any, play.RebelGameView]] = OrderedDict()

    def get(self, session: Session, code: str) -> play.RebelGameView | None:
        """The game ``code`` (of Rebel Princess) replayed, or ``None`` when there is none."""
        mark = session.execute(_GAME_MARK, {"code": code, "kind": play.KIND}).first()
        if mark is None:
            return None
        key = (str(session.get_bind().engine.url), code)
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


_GAMES, _RECORDS = table_of(Game), table_of(RoundRecord)
#: What a kept view must match: the game's id, and how many round records it has and the last.
_GAME_MARK = select(_GAMES.c.id, func.count(_RECORDS.c.id), func.max(_RECORDS.c.id)).select_from(
    _GAMES.outerjoin(_RECORDS, _RECORDS.c.game_id == _GAMES.c.id)).where(
    _GAMES.c.code == bindparam("code"), _GAMES.c.kind == bindparam("kind")).group_by(
    _GAMES.c.id)

VIEWS = _Views()


def game_view(session: Session, code: str) -> play.RebelGameView | None:
    """The game ``code`` as the trick screen reads it (kept between taps, see :class:`_Views`)."""
    return VIEWS.get(session, code)

def is_supported(edition: Edition, letter: str) -> bool:
    """Whether the trick screen can score this Round card: kept cards and gift piles are never
    seen at the table."""
    return round_card(edition, letter).scoring not in _UNSEEN


_LOG = table_of(TrickLog)
# Statements built once (a plain SELECT or UPDATE of the row: no ORM object is loaded).
_READ_LOG = _LOG.select().where(_LOG.c.game_id == bindparam("game"),
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


def open_round(*, session: Session, view: play.RebelGameView, number: int, letter: str,
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


def _key(view: play.RebelGameView, number: int, letter: str, leader: int) -> tuple[Any, ...]:
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
    if judge.card_rule.chairs_after_trick and board.current is not None and \
            not board.current.plays and board.tricks and \
            board.tricks[-1].note(CHAIRS) is None:  # (and the judge says they are due now)
        board.chairs_due = judge.check_chairs(Chairs(()))[0].code != ViolationCode.STEP_NOT_DUE
    if entry.validate:
        board.issues = judge.findings()
    if board.current is None:
        taken, won = judge.tally()
        board.taken = tuple(cards_of(mask) for mask in taken)
        board.tricks_won = tuple(won)
        board.last_winner = board.tricks[-1].winner if board.tricks else None
    return board
