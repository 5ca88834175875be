"""A game's reads on PostgreSQL through libpq alone (:func:`read_rows`): what every open page
asks once a second (the polls' version, :func:`companion.play.versions.version_by_token`) and what
a page reads — the link and its game, the players' names with the live links, the entries: what
a page drawn for every phone reads (and, the first two, what a page from the page store reads)
— each one round trip on the polls' reader, prepared there after a few uses, without
SQLAlchemy's statement machinery (issue 36: a 304 and entry p99 on PostgreSQL). The statements
are :mod:`companion.play.store`'s own, written for PostgreSQL; the rows are the same values
(psycopg's loaders). On SQLite, or while a session has begun (or a save has opened its own
connection: :func:`companion.db.open_save`), each read goes through the session's connection —
on SQLite, a save's first read (the link and its game, with its names, live links and
entries: :func:`save_link_and_game`) to that connection's own ``sqlite3`` cursor."""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from sqlalchemy import Column, bindparam, event, select
from sqlalchemy.engine import Connection, Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from ..db import once_more_if_dropped, reader, saving_on
from ..models import Entry, Game, GameLink, Player, RoundRecord, loaded, table_of
from . import save_pipeline, saved_games
from .driver_statements import PREPARE_AFTER, USES, check, on_driver, prepare, sqlstate
from .save_pipeline import begin_save, read_together
from .tokens import is_token

_LINK, _GAME, _ENTRY = table_of(GameLink), table_of(Game), table_of(Entry)
_PLAYER, _ROUND = table_of(Player), table_of(RoundRecord)


@dataclass(frozen=True)
class Read:
    """A statement sent to libpq alone: its name once prepared, its SQL, and the columns whose
    types make its values what SQLAlchemy makes them (an aware UTC datetime, not the naive one
    psycopg loads from a ``timestamp``)."""

    name: str
    sql: str
    columns: tuple[Column[Any], ...]


_LINK_AND_GAME_COLUMNS = ", ".join([f"gamelink.{c.name}" for c in _LINK.c]
                                   + [f"game.{c.name}" for c in _GAME.c])
_BY_TOKEN = "WHERE gamelink.token = $1 AND gamelink.revoked_at IS NULL"
LINK_AND_GAME = Read(
    "companion_page_link",
    f"SELECT {_LINK_AND_GAME_COLUMNS} FROM gamelink JOIN game ON game.id = gamelink.game_id "
    + _BY_TOKEN, (*_LINK.c, *_GAME.c))
"""``LINK_AND_GAME_ROW``: the link's columns, then its game's, in the tables' order."""
NAMES_AND_LINKS = Read(
    "companion_page_names",
    "SELECT seat, name, 0 AS link, NULL AS role FROM player WHERE game_id = $1 "
    "UNION ALL SELECT -1, token, id, role FROM gamelink "
    "WHERE game_id = $1 AND revoked_at IS NULL ORDER BY seat, name", ())
"""``store._NAMES_AND_LINKS`` (integers and text: nothing to convert)."""
SEAT_NAMES = Read(
    "companion_page_seat_names", "SELECT name FROM player WHERE game_id = $1 ORDER BY seat", ())
"""A game's players' names in seat order (a save's read of them on its own connection:
:func:`companion.play.store.names_of`)."""
SEATS_AND_LINKS = Read(
    "companion_page_seats",
    "SELECT 0, id, seat, name, princess, person_id, NULL::timestamp FROM player "
    "WHERE game_id = $1 UNION ALL SELECT 1, id, -1, token, role, NULL, created_at FROM gamelink "
    "WHERE game_id = $1 AND revoked_at IS NULL ORDER BY 1, 3, 2",
    (_PLAYER.c.seat, _PLAYER.c.id, _PLAYER.c.seat, _PLAYER.c.name, _PLAYER.c.princess,
     _PLAYER.c.person_id, _LINK.c.created_at))
"""A game's seats (every column, in seat order) then its live links (every column but
``revoked_at``, empty for a live link), in one round trip: :func:`seats_and_links`."""
ENTRIES = Read(
    "companion_page_entries",
    'SELECT seq, kind, data, "key", created_at FROM entry WHERE game_id = $1 ORDER BY seq',
    (_ENTRY.c.seq, _ENTRY.c.kind, _ENTRY.c.data, _ENTRY.c.key, _ENTRY.c.created_at))
"""``store._ENTRIES``."""
ROUND_RECORDS = Read(
    "companion_page_rounds",
    "SELECT " + ", ".join(f'"{c.name}"' for c in _ROUND.c)
    + " FROM roundrecord WHERE game_id = $1 ORDER BY id", tuple(_ROUND.c))
"""A Rebel Princess game's round records, every column, oldest first (its ``_history``)."""
SAVE_ENTRIES = Read(
    "companion_save_entries",
    'SELECT seq, kind, data, "key", created_at FROM entry WHERE game_id = '
    "(SELECT game_id FROM gamelink WHERE token = $1 AND revoked_at IS NULL) ORDER BY seq",
    ENTRIES.columns)
""":data:`ENTRIES` of the game a live link opens, by the link's token: read with the link and
its game (:func:`save_reads`)."""
_OF_TOKEN = "(SELECT game_id FROM gamelink WHERE token = $1 AND revoked_at IS NULL)"
SAVE_SEATS = Read(
    "companion_save_seats",
    "SELECT " + ", ".join(f'"{c.name}"' for c in _PLAYER.c)
    + f" FROM player WHERE game_id = {_OF_TOKEN} ORDER BY seat", tuple(_PLAYER.c))
"""The seats (every column, in seat order) of the game a live link opens, by the link's token:
read with the link and its game by a save of a game that keeps its rounds as records
(:func:`save_reads`)."""
SAVE_ROUNDS = Read(
    "companion_save_rounds",
    "SELECT " + ", ".join(f'"{c.name}"' for c in _ROUND.c)
    + f" FROM roundrecord WHERE game_id = {_OF_TOKEN} ORDER BY id", tuple(_ROUND.c))
""":data:`ROUND_RECORDS` of the game a live link opens, by the link's token (as
:data:`SAVE_SEATS`)."""
SAVE_LINK = (
    f"SELECT {_LINK_AND_GAME_COLUMNS}, seats.names, live.ids, live.roles, live.tokens "
    "FROM gamelink JOIN game ON game.id = gamelink.game_id LEFT JOIN LATERAL (SELECT "
    "array_agg(name ORDER BY seat) AS names FROM player WHERE player.game_id = game.id) AS seats "
    "ON true LEFT JOIN LATERAL (SELECT array_agg(id ORDER BY id) AS ids, array_agg(role ORDER BY "
    "id) AS roles, array_agg(token ORDER BY id) AS tokens FROM gamelink AS other WHERE "
    "other.game_id = game.id AND other.revoked_at IS NULL) AS live ON true " + _BY_TOKEN)
""":data:`LINK_AND_GAME`'s row, then its game's players' names in seat order (an array; NULL
when it has none) and its live links' ids, roles and tokens, oldest first (three arrays), in
the same statement: what a save's glue asks of :func:`companion.play.store.names_of`, and what
the publisher and the page drawn after the commit need (:mod:`.saved_games`): :func:`save_reads`."""
_LIVE_AND_NAMES_ON_SQLITE = (
    "(SELECT json_group_array(json_array(live.id, live.role, live.token)) FROM gamelink AS live "
    "WHERE live.revoked_at IS NULL AND live.game_id = gamelink.game_id), (SELECT "
    "json_group_array(json_array(seat, name)) FROM player WHERE player.game_id = "
    "gamelink.game_id)")
_OF_LINK_ON_SQLITE = f"FROM gamelink JOIN game ON game.id = gamelink.game_id {_BY_TOKEN}"
SAVE_LINK_ON_SQLITE = Read(
    "companion_save_link",
    f"SELECT {_LINK_AND_GAME_COLUMNS}, {_LIVE_AND_NAMES_ON_SQLITE} {_OF_LINK_ON_SQLITE}",
    (*_LINK.c, *_GAME.c))
""":data:`SAVE_LINK` as SQLite takes it: the live links and the names (with their seats) as JSON
arrays (each sorted here: SQLite's aggregates keep no order), each a subquery of the one row
the token finds (the token looked up once, no table made for them: a third of the statement,
issue 36). Read by a save of a game that keeps its rounds as records (no entries)."""
SAVE_LINK_AND_ENTRIES_ON_SQLITE = Read(
    "companion_save_link_entries",
    f"SELECT {_LINK_AND_GAME_COLUMNS}, {_LIVE_AND_NAMES_ON_SQLITE}, (SELECT json_group_array("
    'json_array(seq, kind, data, "key", created_at)) FROM entry WHERE entry.game_id = '
    f"gamelink.game_id) {_OF_LINK_ON_SQLITE}",
    (*_LINK.c, *_GAME.c))
""":data:`SAVE_LINK_ON_SQLITE` with the game's entries (the columns of :data:`ENTRIES`, each
``data`` as its stored text) as a third JSON array, sorted here by number: a save's first read
on SQLite is then its only one, as on PostgreSQL (:data:`SAVE_LINK` and :data:`SAVE_ENTRIES`
in one round trip), the link and the entries read in one statement (so in one snapshot: what
the save checks and replays is what the link found; issue 36, a statement a save)."""


@cache
def _converters(read: Read, dialect: Dialect) -> tuple[Callable[[Any], Any] | None, ...]:
    return tuple(c.type.dialect_impl(dialect).result_processor(dialect, None)
                 for c in read.columns)


def direct(session: Session) -> Engine | None:
    """The polls' reader when a read of ``session`` may go there through libpq: PostgreSQL,
    while the session has begun nothing, opened no save and holds nothing to write (no
    write of its own to see); else None (the session's own connection)."""
    engine = session.get_bind().engine
    if (engine.dialect.name != "postgresql" or session.in_transaction()
            or saving_on(session) is not None  # (a save's reads: in its own transaction)
            or session.new or session.dirty or session.deleted):
        return None
    return reader(engine)


def rows(engine: Engine, read: Read, value: object) -> list[tuple[Any, ...]]:
    """The rows of ``read`` for ``value`` ($1) on ``engine`` (:func:`direct`), each value as
    SQLAlchemy gives it; a connection the database dropped is tried once more, on a new one."""
    found = once_more_if_dropped(lambda: read_rows(engine, read.name, read.sql, (str(value),)))
    return _as_sqlalchemy(read, engine.dialect, found)


def _as_sqlalchemy(read: Read, dialect: Dialect,
                   found: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``found``, the driver's rows of ``read``, with each value as SQLAlchemy gives it (the
    columns' own result conversion)."""
    convert = _converters(read, dialect)
    if not any(convert):
        return found
    return [tuple(v if c is None else c(v) for c, v in zip(convert, row, strict=True))
            for row in found]


@cache
def _on_sqlite(read: Read) -> str:
    """``read``'s SQL as SQLite takes it (its ``$1`` numbered ``?1``)."""
    return read.sql.replace("$1", "?1")


def save_rows(connection: Connection, read: Read, value: object) -> list[tuple[Any, ...]]:
    """The rows of ``read`` for ``value`` ($1) on a save's own connection on SQLite
    (:func:`companion.db.open_save`), sent to its ``sqlite3`` connection alone: SQLAlchemy's
    statement and result machinery was most of a save's link lookup (issue 36). The same
    connection, so the same transaction and locks as the connection's own ``execute`` (which
    sends a SELECT to that very cursor; the driver begins nothing before a SELECT), through
    :func:`.driver_statements.on_driver` (statement events see it); each value as SQLAlchemy gives
    it (the columns' own result conversion)."""
    assert connection.dialect.name == "sqlite"
    found: list[tuple[Any, ...]] = on_driver(connection, _on_sqlite(read), (value,),
                                             fetch=True)
    return _as_sqlalchemy(read, connection.dialect, found)


def _first(row: Sequence[Any]) -> Any:
    return row[0]


Links = tuple[tuple[int, str, str], ...]
"""A game's live links, oldest first: (id, role, token)."""


def save_reads(connection: Connection, token: str, entries: bool = True
               ) -> tuple[tuple[Any, ...] | None, list[tuple[Any, ...]] | None,
                          tuple[str, ...] | None, Links | None]:
    """A save's first reads on its own connection on PostgreSQL (:func:`companion.db.open_save`,
    :func:`.save_pipeline.begin_save`): the link of ``token`` with its game (a row of
    :data:`LINK_AND_GAME`, or None), that game's entries (:data:`SAVE_ENTRIES`; None when
    ``entries`` is false: a game that keeps its rounds as records, whose seats and records
    (:data:`SAVE_SEATS`, :data:`SAVE_ROUNDS`) are read instead and kept on the connection for
    :mod:`.round_records` to take, :func:`.save_pipeline.keep`), its players' names in seat
    order (None: none read) and its live links (:data:`SAVE_LINK`), sent together, one round
    trip (:func:`companion.db.read_together`), each value as SQLAlchemy gives it."""
    reads = [(SAVE_LINK, (token,)),
             *([(SAVE_ENTRIES.sql, (token,))] if entries
               else [(SAVE_SEATS.sql, (token,)), (SAVE_ROUNDS.sql, (token,))])]
    link, *read = read_together(connection, reads)
    if not link:
        return None, [] if entries else None, None, None
    *row, names, ids, roles, tokens = link[0]
    found = _as_sqlalchemy(LINK_AND_GAME, connection.dialect, [tuple(row)])[0]
    live = tuple(zip(ids, roles, tokens, strict=True)) if ids else None
    if not entries:
        game_id = found[len(_LINK.c)]  # (the game's id: its first column, after the link's)
        for what, kept, rows in (("seats", SAVE_SEATS, read[0]), ("rounds", SAVE_ROUNDS, read[1])):
            save_pipeline.keep(connection, what, game_id,
                               _as_sqlalchemy(kept, connection.dialect, rows))
    return (found, _as_sqlalchemy(SAVE_ENTRIES, connection.dialect, read[0]) if entries else None,
            tuple(names) if names else None, live)


def save_link_and_game(session: Session, connection: Connection, token: str,
                       entries: bool = True
                       ) -> tuple[Any, Sequence[Any] | None, tuple[str, ...] | None, Links | None]:
    """A save's first read (:func:`companion.play.store.link_and_game_to_append`): the link and
    game's row (None: no live link of this token), with its players' names and its live links
    (None: not read), and the game's entries (None: not read): on PostgreSQL, on a save's own
    connection (:mod:`.save_pipeline`), in the same round trip (:func:`save_reads`); on SQLite
    in the same statement (:data:`SAVE_LINK_AND_ENTRIES_ON_SQLITE`); unless ``entries`` is
    false (a game that keeps its rounds as records)."""
    if connection.dialect.name == "sqlite":  # (its sqlite3 cursor alone: same connection)
        read = SAVE_LINK_AND_ENTRIES_ON_SQLITE if entries else SAVE_LINK_ON_SQLITE
        found = on_driver(connection, _on_sqlite(read), (token,), fetch=True)
        if not found:
            return None, [] if entries else None, None, None
        row, kept = list(found[0]), None
        if entries:
            kept = _as_sqlalchemy(ENTRIES, connection.dialect,
                                  [tuple(entry) for entry in sorted(json.loads(row.pop()),
                                                                     key=_first)])
        *row, links, names = row
        seats = sorted(json.loads(names))
        return (_as_sqlalchemy(read, connection.dialect, [tuple(row)])[0], kept,
                tuple(name for _, name in seats) or None,
                tuple((int(i), str(r), str(t)) for i, r, t in sorted(json.loads(links))) or None)
    if saving_on(session) is connection and begin_save(connection):
        return save_reads(connection, token, entries)
    return connection.execute(LINK_AND_GAME_ROW, {"token": token}).first(), None, None, None


def seat_names(connection: Connection, game_id: int | None) -> list[str]:
    """Game ``game_id``'s players' names in seat order, read on a save's own connection
    (:func:`companion.play.store.names_of`): on SQLite through its sqlite3 cursor."""
    if connection.dialect.name == "sqlite":
        return [row[0] for row in save_rows(connection, SEAT_NAMES, game_id)]
    return [row[0] for row in connection.execute(_SEAT_NAMES, {"game": game_id})]


_SEAT_NAMES = select(_PLAYER.c.name).where(_PLAYER.c.game_id == bindparam("game")).order_by(
    _PLAYER.c.seat)


LINKS_READ = "companion.page_reads.links"
"""Where a session keeps the role and token of each of a game's live links it read, by game
(:func:`note_links`), until it flushes or its transaction ends (companion.play.store): the links
a page's key was read with (a transaction begun since, to read this browser's own games, does
not forget them; a replaced link moves the key)."""


def note_links(session: Session, game_id: int | None,
               links: Iterable[tuple[str, str]]) -> None:
    """This session read game ``game_id``'s live links: ``(role, token)`` each."""
    session.info.setdefault(LINKS_READ, {})[game_id] = dict(links)


def links_read(session: Session, game_id: int | None) -> dict[str, str] | None:
    """The token of each role's live link of game ``game_id``, if this session read them
    (:func:`note_links`), else None."""
    found: dict[int | None, dict[str, str]] | None = session.info.get(LINKS_READ)
    return found.get(game_id) if found is not None else None


def seats_and_links(session: Session, game_id: int) -> tuple[list[Player], list[GameLink]] | None:
    """On PostgreSQL's reader (:func:`direct`): game ``game_id``'s seats in play order and its
    live links, read in one round trip, as objects tracked by no session (never write them: a
    page that only reads); else None, and the caller reads them through the session (Rebel
    Princess's page: its players' Princesses and persons are part of its drawing's name)."""
    if (saved := saved_games.known(session, game_id)) is not None and saved.players is not None:
        note_links(session, game_id, ((role, token) for _, role, token in saved.links))
        return list(saved.players), saved.link_rows()  # (drawn after a save: as it left them)
    if (engine := direct(session)) is None:
        return None
    players: list[Player] = []
    links: list[GameLink] = []
    for what, row_id, seat, text, other, person, created in rows(engine, SEATS_AND_LINKS,
                                                                 game_id):
        if what == 0:
            players.append(loaded(Player, _PLAYER, (row_id, game_id, seat, text, other, person)))
        else:
            links.append(loaded(GameLink, _LINK, (row_id, game_id, other, text, created, None)))
    note_links(session, game_id, ((link.role, link.token) for link in links))
    return players, links


def round_records(session: Session, game_id: int) -> list[RoundRecord] | None:
    """On PostgreSQL's reader (:func:`direct`): game ``game_id``'s round records, oldest first,
    read in one round trip to libpq, as objects tracked by no session (never write them: a page
    that only reads; a write, in its transaction, reads through its session); else None, and
    the caller reads them through the session. Through the ORM, this read was a quarter of
    Rebel Princess's drawing on PostgreSQL."""
    if (engine := direct(session)) is None:
        return None
    return [loaded(RoundRecord, _ROUND, row) for row in rows(engine, ROUND_RECORDS, game_id)]


# (the row's columns are labelled so one select reads both objects)
LINK_AND_GAME_ROW = (
    select(*(c.label(f"link__{c.name}") for c in _LINK.c),
           *(c.label(f"game__{c.name}") for c in _GAME.c))
    .join_from(_LINK, _GAME, _LINK.c.game_id == _GAME.c.id)
    .where(_LINK.c.token == bindparam("token"), _LINK.c.revoked_at.is_(None)))
"""A link and its game by the link's token, as Core rows (:func:`link_and_game_of`)."""


@contextmanager
def reading(session: Session) -> Iterator[Connection]:
    """A connection for one read of a page: on PostgreSQL, while ``session`` has begun nothing
    and opened no save (so holds no write of its own to see), the polls' reader
    (:func:`companion.db.reader`: autocommit, no pre-ping, no rollback on return — one round
    trip where the session's connection pays a ping, a ``BEGIN`` and a ``ROLLBACK``); else the
    session's own."""
    engine = session.get_bind().engine
    if (engine.dialect.name == "postgresql" and not session.in_transaction()
            and saving_on(session) is None):
        with reader(engine).connect() as connection:
            yield connection
    else:
        yield session.connection()


def link_and_game_to_read(session: Session, token: str) -> tuple[GameLink, Game] | None:
    """:func:`companion.play.store.link_and_game` for a request that only reads (a page, a
    drawing from the page store): the same query through Core, the rows made into objects the
    session does not track (no identity map, nothing to flush or expire). Never write them: a
    write reads the game with ``link_and_game``. On the polls' reader (no ping) a connection the
    database dropped is tried once more, on a new one."""
    if not is_token(token):  # (a NUL never reaches PostgreSQL, which refuses it with an error)
        return None
    if (engine := direct(session)) is not None:
        found = rows(engine, LINK_AND_GAME, token)
        return link_and_game_of(found[0]) if found else None

    def read() -> Any:
        with reading(session) as connection:
            return connection.execute(LINK_AND_GAME_ROW, {"token": token}).first()

    row = read() if session.in_transaction() else once_more_if_dropped(read)
    return link_and_game_of(row) if row is not None else None


def link_and_game_of(row: Sequence[Any]) -> tuple[GameLink, Game]:
    """The link and the game of a row of :data:`LINK_AND_GAME_ROW` (tracked by no session)."""
    width = len(_LINK.c)
    return loaded(GameLink, _LINK, row[:width]), loaded(Game, _GAME, row[width:])




def read_row(engine: Engine, name: str, sql: str, params: Sequence[str]) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (:func:`read_rows`), or None."""
    rows = read_rows(engine, name, sql, params, first=True)
    return rows[0] if rows else None


def read_rows(engine: Engine, name: str, sql: str, params: Sequence[str], *,
              first: bool = False) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (only the first with ``first``; PostgreSQL's ``$1`` parameters, given
    as text) on a pooled connection of :func:`reader`'s ``engine``, through libpq alone:
    neither SQLAlchemy's statement machinery nor psycopg's cursor (most of a poll's own work
    on PostgreSQL, issue 36). One round trip a read: the statement is sent with its values for
    its first :data:`PREPARE_AFTER` uses on a connection, then prepared there once, as
    ``name``, and run by name (planned once, where the plain statement is parsed and planned
    each time). The rows come back in binary and are loaded by psycopg's own loaders (the same
    values as a cursor's). A driver error is raised as SQLAlchemy's
    (``connection_invalidated`` when the connection was lost; it then leaves the pool):
    :func:`once_more_if_dropped` tries again."""
    from psycopg import pq
    from psycopg.adapt import Transformer

    driver_error: type[Exception] = engine.dialect.loaded_dbapi.Error
    with taken(engine) as connection:
        try:
            driver = cast(Any, connection.dbapi_connection)
            pgconn = driver.pgconn
            values = [value.encode() for value in params]
            uses = connection.info.get((USES, name), 0)
            if uses < PREPARE_AFTER:
                result = pgconn.exec_params(sql.encode(), values,
                                            result_format=pq.Format.BINARY)
            else:
                if uses == PREPARE_AFTER:
                    prepare(pgconn, name, sql)
                result = pgconn.exec_prepared(name.encode(), values,
                                              result_format=pq.Format.BINARY)
                if sqlstate(result) == "26000":  # gone (a DEALLOCATE ALL, a DISCARD ALL)
                    prepare(pgconn, name, sql)
                    result = pgconn.exec_prepared(name.encode(), values,
                                                  result_format=pq.Format.BINARY)
            check(result)
            connection.info[(USES, name)] = min(uses + 1, PREPARE_AFTER + 1)
            if result.ntuples == 0:
                return []
            loader = Transformer(driver)
            loader.set_pgresult(result, format=pq.Format.BINARY)
            return [loader.load_row(0, tuple)] if first else loader.load_rows(
                0, result.ntuples, tuple)
        except driver_error as error:
            lost = engine.dialect.is_disconnect(cast(Any, error), connection.dbapi_connection,
                                                None)
            if lost:
                connection.invalidate(error)
            raise DBAPIError.instance(sql, tuple(params), error, driver_error,
                                      hide_parameters=True,  # (a link token: never in a log)
                                      connection_invalidated=lost) from error


class _Held:
    """The pooled connection of a reader this process keeps taken for its reads (:func:`taken`),
    and who is reading on it."""

    __slots__ = ("connection", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.connection: Any = None


_HELD: weakref.WeakKeyDictionary[Engine, _Held] = weakref.WeakKeyDictionary()
_HELD_LOCK = threading.Lock()


def _held(engine: Engine) -> _Held:
    found = _HELD.get(engine)
    if found is None:
        with _HELD_LOCK:
            found = _HELD.get(engine)
            if found is None:
                found = _HELD[engine] = _Held()
                kept = found
                event.listen(engine, "engine_disposed", lambda _engine: _let_go(kept))
    return found


@contextmanager
def taken(engine: Engine) -> Iterator[Any]:
    """A pooled connection of :func:`reader`'s ``engine`` for one read (:func:`read_rows`): the
    one this process keeps taken from the pool after its first read, so that a read (a poll's
    whole work on the database) pays no check-out and no check-in of SQLAlchemy's pool (issue 36:
    a few % of the row's CPU). One thread at a time reads on it; a thread that finds it in use
    takes one from the pool as before and gives it back. A read that fails (a connection the
    database dropped included) gives the kept one back to the pool (invalidated if it was lost):
    the next read takes another. The engine's disposal closes it."""
    held = _held(engine)
    if not held.lock.acquire(blocking=False):  # (another thread is reading on it)
        connection = engine.raw_connection()
        try:
            yield connection
        finally:
            connection.close()
        return
    try:
        connection = held.connection
        if connection is None or connection.dbapi_connection is None:
            connection = held.connection = engine.raw_connection()
        try:
            yield connection
        except BaseException:
            held.connection = None
            connection.close()
            raise
    finally:
        held.lock.release()


def kept(engine: Engine) -> Any | None:
    """The driver's connection this process keeps taken for ``engine``'s reads (:func:`taken`),
    if it holds one now."""
    found = _HELD.get(engine)
    connection = found.connection if found is not None else None
    return connection.dbapi_connection if connection is not None else None


def _let_go(held: _Held) -> None:
    """The kept connection closed (its engine's pool was disposed: nothing gives it back)."""
    with held.lock:
        connection, held.connection = held.connection, None
    if connection is not None:
        connection.detach()
        connection.close()


