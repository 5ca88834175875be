"""Glue for history and statistics: each stored game's summary, kept with the game.

Every game that can say what it came to (``summary(session, game)`` in its glue module, see
:mod:`companion.history.summary`) gets a :class:`~companion.models.GameResult` row holding that
summary as JSON, stamped with the game's ``updated_at`` (every write moves it), written in the
transaction of the write that moves the stamp, whichever it is (:func:`install` hooks every
session's commit): no page ever writes. Statistics read every row of the group in one query; the
history list, a player's latest games, the group's page and home read only the games they show
(:func:`records` pages in SQL, :func:`summaries` reads a list's in one query), each from the
group's index (``ix_game_group_updated``) or a person's or a pair's (``playedby``): its cost
follows them, not the server. The cache is never exported and can be emptied: a page then replays
the games it lacks, and :func:`refresh` (``flask db upgrade``, ``flask summaries``) stores them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, bindparam, event, func, insert, inspect, or_, tuple_, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from ..db import connection_of
from ..games import GameKind, Glue, by_key, registry
from ..history import GameSummary, paging, stats
from ..history.paging import PageKey
from ..history.stats import KindStats, Line, Played
from ..history.summary import utc
from ..models import Game, GameLink, GameResult, PlayedBy, Player, stored_id, table_of
from . import group_totals, save_pipeline, store
from .driver_statements import Prepared

log = logging.getLogger(__name__)

FORMAT = "2"
"""Part of every stamp: bump it when a summary's shape or a game's ``summary`` changes, and
every cached summary is rebuilt."""

Summarize = Callable[[Session, Game], GameSummary]


@dataclass(frozen=True)
class Record:
    """A stored game as history shows it: its row, its kind, its summary, and who sat where
    (``people``: person ids by seat; ``names``: the names typed at the table)."""

    game: Game
    kind: GameKind
    summary: GameSummary
    people: tuple[int, ...]
    names: tuple[str, ...]

    @property
    def played(self) -> Played:
        return Played(self.kind.key, self.summary, self.people)

    def seat_of(self, person: int) -> int | None:
        return self.people.index(person) if person in self.people else None


def summarizer(kind: GameKind | None) -> Summarize | None:
    """The game's ``summary`` function, or None (such games are not in the history)."""
    module = _glue(kind)
    return module.summary if module is not None else None


def _glue(kind: GameKind | None) -> Glue | None:
    """The glue of a game with a history (``GameKind.glue``), or None."""
    return kind.glue() if kind is not None else None


def kinds_with_history() -> list[GameKind]:
    return [kind for kind in registry() if summarizer(kind) is not None]


def stamp_of(game: Game) -> str:
    return f"{FORMAT}:{utc(game.updated_at).isoformat()}"


def _summarize(session: Session, game: Game) -> GameSummary:
    summarize = summarizer(by_key(game.kind))
    assert summarize is not None
    try:
        return summarize(session, game)
    except Exception:  # a game the core cannot replay is shown as unfinished, never a 500
        log.exception("summary of game %s (%s) failed", game.code, game.kind)
        return GameSummary(finished=False, winners=(), scores=())


def summary_of(session: Session, game: Game) -> GameSummary | None:
    """The game's summary, from the cache when it is fresh (it always is, but for a cache
    emptied by hand: then replayed, not stored); None for a game without one."""
    if summarizer(by_key(game.kind)) is None:
        return None
    assert game.id is not None
    row = session.get(GameResult, game.id)
    if row is not None and row.stamp == stamp_of(game):
        return GameSummary.from_json(row.data, row.progress)
    return _summarize(session, game)


def cached(game: Game, summary: GameSummary) -> GameResult:
    """The cache row of ``game``'s ``summary`` (to add to a session)."""
    assert game.id is not None
    return GameResult(game_id=game.id, group_id=game.group_id, stamp=stamp_of(game),
                      finished=summary.finished,
                      data=summary.to_json(), progress=summary.progress_json())


# --- written with every write ------------------------------------------------------------------

_TOUCHED = "companion.history.touched"
"""Where a session keeps, until its commit, the games whose stamp moved in its transaction."""


def _note_touched(session: OrmSession, _context: object, _instances: object) -> None:
    """Before a flush: note every game stored or whose ``updated_at`` moved."""
    for row in (*session.new, *session.dirty):
        if isinstance(row, Game) and (
                row in session.new or inspect(row).attrs.updated_at.history.has_changes()):
            session.info.setdefault(_TOUCHED, {})[id(row)] = row


def _summary_at_save(session: OrmSession, game: Game, replay: Any = None) -> GameSummary:
    """The summary of a game a write moved: made from the replay the write did to check itself
    (``replay``, or :func:`companion.play.store.note_replay`; read by the game's
    ``summary_from``), or — for a write that gave none — by reading and replaying the game."""
    if replay is None:
        replay = store.noted_replay(session, game)
    module = _glue(by_key(game.kind))
    if replay is None or module is None:
        return _summarize(session, game)  # type: ignore[arg-type]
    try:
        return module.summary_from(game, replay)
    except Exception:  # as _summarize: never a failed save for the sake of history
        log.exception("summary of game %s (%s) failed", game.code, game.kind)
        return GameSummary(finished=False, winners=(), scores=())


_RESULTS = table_of(GameResult)
_UPDATE_RESULT = update(_RESULTS).where(_RESULTS.c.game_id == bindparam("id")).values(
    stamp=bindparam("stamp"), finished=bindparam("finished"), data=bindparam("data"),
    progress=bindparam("progress"))
# A game still in progress: ``finished`` is not named, so SQLite leaves the index on it alone
# (a column in an UPDATE's SET has its index entries rewritten, same value or not: a WAL page).
_UPDATE_OPEN_RESULT = Prepared(
    update(_RESULTS).where(_RESULTS.c.game_id == bindparam("id"),
                           _RESULTS.c.finished.is_(False)).values(
        stamp=bindparam("stamp"), data=bindparam("data"), progress=bindparam("progress")),
    ("id", "stamp", "data", "progress"))
_FINISH_OPEN_RESULT = Prepared(_UPDATE_RESULT.where(_RESULTS.c.finished.is_(False)),
                               ("id", "stamp", "finished", "data", "progress"))
_OLD_RESULT = select(_RESULTS.c.finished, _RESULTS.c.data).where(
    _RESULTS.c.game_id == bindparam("id"))


def _keep_summaries(session: OrmSession) -> None:
    """Before a commit: the summary of every game the transaction touched, written in it
    (:func:`_keep`)."""
    _note_touched(session, None, None)  # (what is not flushed yet)
    if not session.info.get(_TOUCHED):
        return
    session.flush()
    touched = session.info.pop(_TOUCHED, {})
    for game in touched.values():
        _keep(session, game)


def keep_at_save(session: OrmSession, game: Game, replay: Any) -> None:
    """A save written through Core (:func:`companion.play.store.append`): the summary of
    ``game`` (its ``updated_at`` already the save's) made from ``replay`` — what the save leaves
    the game as, replayed while checking it, or None — and written in the save's transaction,
    with the group's totals, as :func:`_keep_summaries` writes it for an ORM write."""
    _keep(session, game, replay)


def _keep(session: OrmSession, game: Game, replay: Any = None) -> None:
    """One game's summary written in the transaction (one UPDATE; a finished game's, or a
    game's first, after reading what it replaces), and the group's totals moved with it when
    the game was or is finished (:func:`companion.play.group_totals.changed`)."""
    if summarizer(by_key(game.kind)) is None or game.id is None:
        return
    row = session.identity_map.get(session.identity_key(GameResult, game.id)) \
        if session.identity_map else None  # (a save through Core loads no ORM object)
    if row is not None and row.stamp == stamp_of(game):
        return  # already written with it (an import, whose groups' totals it rebuilds)
    summary = _summary_at_save(session, game, replay)
    values = {"stamp": stamp_of(game), "finished": summary.finished, "data": summary.to_json(),
              "progress": summary.progress_json()}  # (:func:`cached`'s, no ORM object built)
    connection = connection_of(session)  # (a save on its own connection: that one)
    if row is not None:  # loaded in this session: kept in step
        before = (row.finished, row.data)
        row.stamp, row.finished = values["stamp"], values["finished"]
        row.data, row.progress = values["data"], values["progress"]
        session.flush()
    elif save_pipeline.run(_FINISH_OPEN_RESULT if summary.finished else _UPDATE_OPEN_RESULT,
                           connection, {"id": game.id, **values},
                           last=not summary.finished):  # (written: nothing follows but COMMIT)
        before = (False, "")  # a game in progress (every save but a finished game's)
    else:  # a finished game changed, or its first summary: what it replaces is read
        old = connection.execute(_OLD_RESULT, {"id": game.id}).first()
        before = (old.finished, old.data) if old is not None else (False, "")
        if old is not None:
            connection.execute(_UPDATE_RESULT, {"id": game.id, **values})
        else:
            connection.execute(insert(_RESULTS).values(game_id=game.id,
                                                       group_id=game.group_id, **values))
    if before[0] or summary.finished:
        group_totals.changed(connection, game_id=game.id, group_id=game.group_id,
                             kind=game.kind, when=game.updated_at,
                             people=_seated(session, game.id, summary),
                             before=GameSummary.from_json(before[1]) if before[0] else None,
                             after=summary)


def _seated(session: OrmSession, game_id: int, summary: GameSummary) -> list[int] | None:
    """The people by seat of a game the save read its seats of (None: they are read)."""
    seats = sorted((row.seat, row.person_id) for row in session.identity_map.values()
                   if isinstance(row, Player) and row.game_id == game_id)
    if not seats or len(seats) < summary.players or any(p is None for _, p in seats):
        return None
    return [int(person) for _, person in seats]  # type: ignore[arg-type]


def _forget_touched(session: OrmSession, *_args: object) -> None:
    session.info.pop(_TOUCHED, None)


def install() -> None:
    """Hook every session (once): a commit that stores a game or moves its ``updated_at`` writes
    its summary too, in the same transaction; so does every entry :func:`store.append` writes
    through Core (:data:`store.AT_SAVE`)."""
    for name, hook in (("before_flush", _note_touched), ("before_commit", _keep_summaries),
                       ("after_rollback", _forget_touched)):
        if not event.contains(OrmSession, name, hook):
            event.listen(OrmSession, name, hook)
    if keep_at_save not in store.AT_SAVE:
        store.AT_SAVE.append(keep_at_save)


def refresh(engine: Engine) -> int:
    """Store the summaries missing or out of date (a database from before summaries were kept
    at save time, a cache emptied, a new :data:`FORMAT`): run by ``flask db upgrade`` and
    ``flask summaries``, never by a page or a server's start. Returns how many were stored; a
    race with another process doing the same changes nothing (both computed the same
    summaries)."""
    keys = [k.key for k in kinds_with_history()]
    with Session(engine) as session:
        rows = session.connection().execute(
            select(Game.id, Game.updated_at, GameResult.stamp)
            .join(GameResult, col(GameResult.game_id) == col(Game.id), isouter=True)
            .where(col(Game.kind).in_(keys))).all()
        stale = [game_id for game_id, updated, stamp in rows
                 if stamp != f"{FORMAT}:{utc(updated).isoformat()}"]
        if not stale:
            return 0
        for start in range(0, len(stale), 500):
            games = session.exec(select(Game).where(col(Game.id).in_(stale[start:start + 500])))
            for game in games:
                session.merge(cached(game, _summarize(session, game)))
            try:
                session.commit()
            except IntegrityError:
                session.rollback()
        # The totals of the groups whose summaries changed, made again from them.
        group_ids: set[int] = set()
        for start in range(0, len(stale), 500):
            group_ids.update(session.connection().execute(select(Game.group_id).distinct().where(
                col(Game.id).in_(stale[start:start + 500]))).scalars())
        group_totals.rebuild(session.connection(), sorted(group_ids))
        try:
            session.commit()
        except IntegrityError:  # another process starting rebuilt them at the same moment
            session.rollback()
    return len(stale)


@dataclass(frozen=True)
class _Row:
    """One game as the cache holds it, read as plain columns (no ORM object: 1,000 of them
    are read for every statistics page)."""

    id: int
    kind: str
    summary: GameSummary | None  # None until parsed (only the rows kept are)
    data: str


def _rows(session: Session, *, group_id: int, finished: bool, kind: str | None,
          person: int | None, codes: Sequence[str] | None) -> list[_Row]:
    """The group's games asked for, most recently changed first, each with a fresh summary
    (stale ones — only in a cache emptied by hand — are replayed, not stored)."""
    keys = [k.key for k in kinds_with_history()]
    if kind is not None:
        keys = [k for k in keys if k == kind]
    # (sqlmodel's ``select`` is typed for four columns at most: the library's limit, not ours)
    query = (select(Game.id, Game.kind, Game.updated_at,  # type: ignore[call-overload]
                    GameResult.stamp, GameResult.finished, GameResult.data)
             .join(GameResult, col(GameResult.game_id) == col(Game.id), isouter=True)
             .where(Game.group_id == group_id, col(Game.kind).in_(keys))
             .order_by(col(Game.updated_at).desc(), col(Game.id).desc()))
    if codes is not None:
        query = query.where(col(Game.code).in_(codes))
    if person is not None:
        query = query.where(col(Game.id).in_(
            select(Player.game_id).where(Player.person_id == person)))
    # Plain columns through the Core connection: no ORM bookkeeping for 1,000 rows.
    rows = session.connection().execute(query).all()
    stale = [game_id for game_id, _, updated, stamp, _, _ in rows
             if stamp != f"{FORMAT}:{utc(updated).isoformat()}"]
    fresh: dict[int, GameSummary] = {}
    if stale:
        games = list(session.exec(select(Game).where(col(Game.id).in_(stale))))
        fresh = {game.id: _summarize(session, game) for game in games if game.id is not None}
    found = []
    for game_id, kind_key, _, _, is_finished, data in rows:
        summary = fresh.get(game_id)
        if finished and not (summary.finished if summary is not None else is_finished):
            continue
        found.append(_Row(game_id, kind_key, summary, data or ""))
    return found


_PARSED: dict[int, tuple[str, GameSummary]] = {}
"""Summaries already read back in this process, by game, with the text they were read from:
the same text gives the same summary, so a statistics page parses only what changed."""


def _summary(row: _Row, progress: str | None = None) -> GameSummary:
    if row.summary is not None:
        return row.summary
    if progress is not None:
        return GameSummary.from_json(row.data, progress)
    known = _PARSED.get(row.id)
    if known is not None and known[0] == row.data:
        return known[1]
    if len(_PARSED) > 50_000:
        _PARSED.clear()
    summary = GameSummary.from_json(row.data)
    _PARSED[row.id] = (row.data, summary)
    return summary


def played(session: Session, *, group_id: int, kind: str | None = None,
           person: int | None = None) -> list[Played]:
    """The group's finished games as statistics read them (kind, summary, people by seat)."""
    rows = _rows(session, group_id=group_id, finished=True, kind=kind, person=person,
                 codes=None)
    seats = _seats(session, [r.id for r in rows] if len(rows) < 500 else None, group_id)
    return [Played(r.kind, _summary(r), seats.get(r.id, ((), ()))[0]) for r in rows]


def _listed(*, group_id: int, finished: bool | None, kind: str | None,
            person: int | None, with_person: int | None,
            codes: Sequence[str] | None) -> list[ColumnElement[bool]]:
    """The conditions of a list of the group's games (see :func:`records`), for a query that
    outer-joins :class:`GameResult` to :class:`Game`."""
    keys = [k.key for k in kinds_with_history()]
    if kind is not None:
        keys = [k for k in keys if k == kind]
    where: list[ColumnElement[bool]] = [col(Game.kind).in_(keys)]
    # A game whose summary is missing (a cache emptied by hand) is listed, then replayed and
    # kept or dropped: a page of it may be short, never wrong. The games in progress are found
    # through their summaries' index (group, finished) instead: a group's finished games are
    # not read to find them (one missing its summary is listed again once it is stored, at the
    # next start: :func:`refresh`).
    missing = col(GameResult.game_id).is_(None)
    if finished is True:
        where += [col(Game.group_id) == group_id,
                  or_(col(GameResult.finished).is_(True), missing)]
    elif finished is False:
        where += [col(GameResult.group_id) == group_id, col(GameResult.finished).is_(False)]
    else:
        where.append(col(Game.group_id) == group_id)
    for someone in (person, with_person):
        if someone is not None:
            where.append(col(Game.id).in_(
                select(Player.game_id).where(Player.person_id == someone)))
    if codes is not None:
        where.append(col(Game.code).in_(codes))
    return where


def records(session: Session, *, group_id: int, finished: bool | None = True,
            kind: str | None = None, person: int | None = None,
            with_person: int | None = None, codes: Sequence[str] | None = None,
            offset: int = 0, limit: int | None = None, count: bool = True,
            older_than: PageKey | None = None, newer_than: PageKey | None = None,
            oldest: bool = False) -> tuple[int, list[Record]]:
    """The group's stored games with their summaries, the most recently changed first (ties
    by id, newest first: the order is total, so pages never skip nor repeat a game): how many
    there are (when ``count``; else -1), and those from ``offset`` (at most ``limit``).

    ``finished`` keeps only finished games (True), only games in progress (False) or every
    game (None); ``kind`` (a registry key), ``person`` and ``with_person`` (person ids: games
    they both sat in) and ``codes`` narrow the list. The database pages it (``LIMIT``): a page
    reads its own games, whatever the group holds — three queries (the count, the page, its
    seats).

    Pages are read by key rather than by ``offset`` (which reads and skips every game before
    the page): ``older_than`` lists the games after that one (a :func:`page_key`),
    ``newer_than`` those just before it (read oldest first from the key, shown newest first),
    and ``oldest`` the list's oldest ``limit`` games (its last page, read from the other end):
    each read from the (group, updated_at) index, a deep page costs what the first does. A
    person's (two people's) finished games come from their own list (``playedby``) instead.
    """
    where = _listed(group_id=group_id, finished=finished, kind=kind, person=person,
                    with_person=with_person, codes=codes)
    joined = (col(GameResult.game_id) == col(Game.id))
    outer = finished is not False  # (games in progress: from their summaries, joined inner)
    total = -1
    if count and finished is True and with_person is None and codes is None:
        # Finished games are counted by the group's totals (one indexed read, whatever the
        # group holds): its own lines for a game kind or all, a person's lines for a player.
        keys = {k.key for k in kinds_with_history()}
        lines, games = group_totals.read(session.connection(), group_id, kind=kind, person=person)
        total = sum(line.games for line in lines if line.person == person and line.kind in keys) \
            if person is not None else sum(n for key, n in games.items() if key in keys)
    elif count:
        total = int(session.exec(
            select(func.count()).select_from(Game).join(GameResult, joined, isouter=outer)
            .where(*where)).one())
    when, game_id = col(Game.updated_at), col(Game.id)
    if by_people := finished is True and person is not None:  # (their list, not the group's)
        low, high = sorted((person or 0, with_person or person or 0))
        when, game_id = col(PlayedBy.updated_at), col(PlayedBy.game_id)
        where = [*_listed(group_id=group_id, finished=True, kind=kind, person=None,
                          with_person=None, codes=codes),
                 col(PlayedBy.low) == low, col(PlayedBy.high) == high]
    if older_than is not None:
        where = [*where, tuple_(when, game_id) < tuple_(*older_than)]
    if newer_than is not None:
        where = [*where, tuple_(when, game_id) > tuple_(*newer_than)]
    upwards = newer_than is not None or oldest  # read oldest first, shown newest first
    order = (when.asc(), game_id.asc()) if upwards else (when.desc(), game_id.desc())
    read = table_of(PlayedBy).join(table_of(Game), col(Game.id) == game_id) if by_people else Game
    query = (select(Game, GameResult.stamp, GameResult.data, GameResult.progress)
             .select_from(read).join(GameResult, joined, isouter=outer).where(*where)
             .order_by(*order).offset(offset))
    if limit is not None:
        query = query.limit(limit)
    rows = list(session.exec(query))
    if upwards:
        rows.reverse()
    seats = _seats(session, [stored_id(game.id) for game, *_ in rows]) if rows else {}
    found = []
    for game, stamp, data, progress in rows:
        kind_of = by_key(game.kind)
        assert kind_of is not None
        if stamp == stamp_of(game):
            summary = GameSummary.from_json(data, progress)
        else:  # only in a cache emptied or outdated by hand: replayed, not stored
            summary = _summarize(session, game)
            if finished is not None and summary.finished != finished:
                continue
        people, names = seats.get(stored_id(game.id), ((), ()))
        found.append(Record(game, kind_of, summary, people, names))
    return total, found


def finished_ids(session: Session, *, group_id: int, after: int = 0, limit: int = 200
                 ) -> list[int]:
    """The ids of the group's finished games (as :func:`records` lists them: a game whose
    summary is missing too), in id order, from just after ``after``, at most ``limit``: an
    export reads a group a few games at a time."""
    where = _listed(group_id=group_id, finished=True, kind=None, person=None, with_person=None,
                    codes=None)
    return [stored_id(game_id) for game_id in session.exec(
        select(Game.id).join(GameResult, col(GameResult.game_id) == col(Game.id), isouter=True)
        .where(*where, col(Game.id) > after).order_by(col(Game.id)).limit(limit))]


def finished_people(session: Session, group_id: int) -> list[int]:
    """The people who sat in the group's finished games (those of :func:`finished_ids`), by
    id: the players of its export."""
    where = _listed(group_id=group_id, finished=True, kind=None, person=None, with_person=None,
                    codes=None)
    games = (select(Game.id).join(GameResult, col(GameResult.game_id) == col(Game.id),
                                  isouter=True).where(*where))
    return sorted(int(person) for person in session.exec(
        select(Player.person_id).where(col(Player.game_id).in_(games)).distinct())
        if person is not None)


def page_key(game: Game) -> PageKey:
    """Where ``game`` stands in a list of :func:`records` (for ``older_than``/``newer_than``)."""
    return utc(game.updated_at).replace(tzinfo=None), stored_id(game.id)


def key_text(game: Game) -> str:
    """A page link's key for ``game`` (:func:`companion.history.paging.key_text`)."""
    return paging.key_text(page_key(game))


def finished_by_person(session: Session, group_id: int) -> dict[int, int]:
    """How many finished games each person of the group sat in, from the group's totals (one
    query, whatever the group holds)."""
    return group_totals.games_by_person(session.connection(), group_id)


def statistics(session: Session, *, group_id: int, kind: str | None = None
               ) -> tuple[list[KindStats], int]:
    """Each game's statistics in the group (one game's, when ``kind``), in the registry's
    order, and how many finished games they count: from the group's totals, one query."""
    found, games = group_totals.read(session.connection(), group_id, kind=kind)
    keys = [k.key for k in kinds_with_history()]
    return stats.gathered(found, games, keys), sum(games.get(key, 0) for key in keys)


def lines_of(session: Session, *, group_id: int, person: int) -> list[Line]:
    """One person's line in each game they finished, in the registry's order (one query)."""
    found, _ = group_totals.read(session.connection(), group_id, person=person)
    by_kind = {line.kind: line for line in found}
    return [by_kind[k.key] for k in kinds_with_history() if k.key in by_kind]


def versus(session: Session, *, group_id: int, first: int, second: int
           ) -> tuple[stats.Versus, list[stats.Versus]]:
    """Two people's head-to-head record, over every game and per game in the registry's
    order, from the group's kept pair totals (one query, whatever the group holds)."""
    counts = group_totals.pair_counts(session.connection(), group_id, first, second)
    return stats.versus_of(counts, first, second, [k.key for k in kinds_with_history()])


def count_finished(session: Session, group_id: int) -> int:
    """How many finished games the group holds, from its totals (one query)."""
    return group_totals.finished_games(session.connection(), group_id)


def summaries(session: Session, games: Sequence[Game]) -> dict[int, GameSummary]:
    """The summaries of ``games`` (of kinds with history), by game id, in one query; one
    missing or out of date (a cache emptied by hand) is replayed, not stored."""
    wanted = {game.id: game for game in games
              if game.id is not None and summarizer(by_key(game.kind)) is not None}
    if not wanted:
        return {}
    rows = session.connection().execute(
        select(GameResult.game_id, GameResult.stamp, GameResult.data, GameResult.progress)
        .where(col(GameResult.game_id).in_(list(wanted)))).all()
    found = {int(game_id): GameSummary.from_json(data, progress)
             for game_id, stamp, data, progress in rows
             if stamp == stamp_of(wanted[int(game_id)])}
    for game_id, game in wanted.items():
        if game_id not in found:
            found[game_id] = _summarize(session, game)
    return found


def names_by_game(session: Session, games: Sequence[Game]) -> dict[int, tuple[str, ...]]:
    """The names typed at each game's seats, in seat order, in one query."""
    ids = [game.id for game in games if game.id is not None]
    return {game_id: names for game_id, (_, names) in _seats(session, ids).items()} \
        if ids else {}


def viewer_tokens(session: Session, game_ids: Sequence[int]) -> dict[int, str]:
    """Each game's live viewer link token, in one query (a list of games links each)."""
    if not game_ids:
        return {}
    rows = session.connection().execute(
        select(GameLink.game_id, GameLink.token)
        .where(col(GameLink.game_id).in_(game_ids), GameLink.role == "viewer",
               col(GameLink.revoked_at).is_(None))).all()
    return {int(game_id): token for game_id, token in rows}


def _seats(session: Session, game_ids: Sequence[int] | None, group_id: int | None = None
           ) -> dict[int, tuple[tuple[int, ...], tuple[str, ...]]]:
    """Who sat where in each game (every game of group ``group_id`` when ``game_ids`` is None:
    one plain query)."""
    query = select(Player.game_id, Player.person_id, Player.name).order_by(
        col(Player.game_id), col(Player.seat))
    if game_ids is not None:
        query = query.where(col(Player.game_id).in_(game_ids))
    else:
        query = query.where(col(Player.game_id).in_(
            select(Game.id).where(Game.group_id == group_id)))
    people: dict[int, list[int]] = {}
    names: dict[int, list[str]] = {}
    for game_id, person_id, name in session.connection().execute(query):
        people.setdefault(game_id, []).append(int(person_id))
        names.setdefault(game_id, []).append(name)
    return {game_id: (tuple(people[game_id]), tuple(names[game_id])) for game_id in people}


def record_of(session: Session, game: Game) -> Record | None:
    """One game as history shows it (finished or not), or None for a game without summary."""
    kind = by_key(game.kind)
    summary = summary_of(session, game)
    if summary is None or kind is None:
        return None
    assert game.id is not None
    people, names = _seats(session, [game.id]).get(game.id, ((), ()))
    return Record(game, kind, summary, people, names)
