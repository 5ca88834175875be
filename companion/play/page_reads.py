"""A game page's reads on PostgreSQL through libpq alone (:func:`companion.db.read_rows`): the
link and its game, the players' names with the live links, the entries — what a page drawn for
every phone reads (and, the first two, what a page from the page store reads) — each one round
trip on the polls' reader, prepared there after a few uses, without SQLAlchemy's statement
machinery (issue 36: entry p99 on PostgreSQL). The statements are :mod:`companion.play.store`'s
own, written for PostgreSQL; the rows are the same values (psycopg's loaders)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Column
from sqlalchemy.engine import Dialect, Engine
from sqlmodel import Session

from ..db import once_more_if_dropped, read_rows, reader
from ..models import Entry, Game, GameLink, table_of

_LINK, _GAME, _ENTRY = table_of(GameLink), table_of(Game), table_of(Entry)


@dataclass(frozen=True)
class Read:
    """A statement sent to libpq alone: its name once prepared, its SQL, and the columns whose
    types make its values what SQLAlchemy makes them (an aware UTC datetime, not the naive one
    psycopg loads from a ``timestamp``)."""

    name: str
    sql: str
    columns: tuple[Column[Any], ...]


LINK_AND_GAME = Read(
    "companion_page_link",
    "SELECT " + ", ".join([f"gamelink.{c.name}" for c in _LINK.c]
                          + [f"game.{c.name}" for c in _GAME.c])
    + " FROM gamelink JOIN game ON game.id = gamelink.game_id "
    "WHERE gamelink.token = $1 AND gamelink.revoked_at IS NULL", (*_LINK.c, *_GAME.c))
"""``store._LINK_AND_GAME_ROW``: the link's columns, then its game's, in the tables' order."""
NAMES_AND_LINKS = Read(
    "companion_page_names",
    "SELECT seat, name, 0 AS link FROM player WHERE game_id = $1 "
    "UNION ALL SELECT -1, token, id FROM gamelink "
    "WHERE game_id = $1 AND revoked_at IS NULL ORDER BY seat, name", ())
"""``store._NAMES_AND_LINKS`` (integers and text: nothing to convert)."""
ENTRIES = Read(
    "companion_page_entries",
    'SELECT seq, kind, data, "key", created_at FROM entry WHERE game_id = $1 ORDER BY seq',
    (_ENTRY.c.seq, _ENTRY.c.kind, _ENTRY.c.data, _ENTRY.c.key, _ENTRY.c.created_at))
"""``store._ENTRIES``."""


@cache
def _converters(read: Read, dialect: Dialect) -> tuple[Callable[[Any], Any] | None, ...]:
    return tuple(c.type.dialect_impl(dialect).result_processor(dialect, None)
                 for c in read.columns)


def direct(session: Session) -> Engine | None:
    """The polls' reader when a read of ``session`` may go there through libpq: PostgreSQL,
    while the session has begun nothing and holds nothing to write (no write of its own to
    see); else None (the session's own connection)."""
    engine = session.get_bind().engine
    if (engine.dialect.name != "postgresql" or session.in_transaction()
            or session.new or session.dirty or session.deleted):
        return None
    return reader(engine)


def rows(engine: Engine, read: Read, value: object) -> list[tuple[Any, ...]]:
    """The rows of ``read`` for ``value`` ($1) on ``engine`` (:func:`direct`), each value as
    SQLAlchemy gives it; a connection the database dropped is tried once more, on a new one."""
    found = once_more_if_dropped(lambda: read_rows(engine, read.name, read.sql, (str(value),)))
    convert = _converters(read, engine.dialect)
    if not any(convert):
        return found
    return [tuple(v if c is None else c(v) for c, v in zip(convert, row, strict=True))
            for row in found]
