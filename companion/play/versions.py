"""A game's version, as every page that follows the game asks for it: its id and the stamp every
write moves (``Game.updated_at``), read through one of its live links — the live polls' one
read (issue 31), on PostgreSQL sent to libpq alone on the polls' reader
(:func:`companion.play.page_reads.read_row`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from ..db import READER, once_more_if_dropped
from ..models import Game, GameLink
from . import page_reads
from .tokens import is_token

_VERSION = (select(Game.id, Game.updated_at).join(GameLink, col(GameLink.game_id) == col(Game.id))
            .where(GameLink.token == bindparam("token"), col(GameLink.revoked_at).is_(None)))
# Built once: every live poll runs it.

_VERSION_SQL = ("SELECT game.id, game.updated_at FROM game JOIN gamelink "
                "ON gamelink.game_id = game.id "
                "WHERE gamelink.token = $1 AND gamelink.revoked_at IS NULL")
""":data:`_VERSION` as PostgreSQL takes it: the polls' reads go to libpq alone
(:func:`companion.play.page_reads.read_row`, prepared on a connection as :data:`_VERSION_NAME`)."""
_VERSION_NAME = "companion_poll_version"


def version_by_token(engine: Engine, token: str) -> str | None:
    """The version of the game this live link opens (as :func:`version_string` gives it): what
    every open page asks once a second, so one query of two columns through the unique token
    index, on a pooled connection of ``engine`` (no ORM session, nothing to flush or expire).
    On the polls' reader (:func:`companion.db.reader`: PostgreSQL in autocommit) the statement
    goes to libpq alone (:func:`.page_reads.read_row`, on the connection the process keeps taken:
    :func:`.page_reads.taken`); a connection the database dropped is tried once more on a new
    one."""
    if not is_token(token):
        return None
    direct = engine.dialect.name == "postgresql" and bool(
        engine.get_execution_options().get(READER))
    def read() -> Any:
        if direct:
            return page_reads.read_row(engine, _VERSION_NAME, _VERSION_SQL, (token,))
        with engine.connect() as connection:
            return connection.execute(_VERSION, {"token": token}).first()

    row = once_more_if_dropped(read)
    return version_string(row[0], row[1]) if row is not None else None


def version_string(game_id: int | None, updated_at: datetime) -> str:
    """A game's version for pages that follow it: it changes whenever anything is stored for
    the game (every write touches ``updated_at``)."""
    stamp = updated_at if updated_at.tzinfo else updated_at.replace(tzinfo=UTC)  # (libpq's)
    return f"{game_id}-{stamp.timestamp():.6f}"
