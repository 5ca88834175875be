"""Rebel Princess's round records on a save's own connection: its seats and rounds read, and a
round's record written with the game's stamp and summary, through Core.

A Rebel Princess round entry or undo through a view marked
:func:`companion.routes.links.appends` runs on the pooled connection
:func:`companion.db.open_save` took for it, without an ORM transaction (issue 36), as an entry
of the other games does (:func:`companion.play.store.append`): what it reads is made into
objects no session tracks, never changed; what it writes goes through Core. Every other caller
(the trick screen's confirm, a session that loaded the game) writes through the session as
before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from ..db import commit_save, saving_on
from ..models import Game, Player, RoundRecord, loaded, table_of
from . import push, save_pipeline, saved_games, store
from .driver_statements import Prepared

_RECORDS, _PLAYERS, _GAMES = table_of(RoundRecord), table_of(Player), table_of(Game)
_SEATS = select(*_PLAYERS.c).where(_PLAYERS.c.game_id == bindparam("game")).order_by(
    _PLAYERS.c.seat)
_ROUNDS = select(*_RECORDS.c).where(_RECORDS.c.game_id == bindparam("game")).order_by(
    _RECORDS.c.id)


def seats(connection: Connection, game_id: int | None) -> list[Player]:
    """The game's seats in play order, read on a save's own connection (tracked by no
    session): on PostgreSQL, those its first reads brought with the link, the first time."""
    rows: Iterable[Any] | None = save_pipeline.taken(connection, "seats", game_id)
    if rows is None:
        rows = connection.execute(_SEATS, {"game": game_id})
    return [loaded(Player, _PLAYERS, row) for row in rows]


def rounds(connection: Connection, game_id: int) -> list[RoundRecord]:
    """The game's round records in the order they were made, read on a save's own connection
    (tracked by no session): on PostgreSQL, those its first reads brought with the link, the
    first time (a save judged again after a refusal reads them afresh)."""
    rows: Iterable[Any] | None = save_pipeline.taken(connection, "rounds", game_id)
    if rows is None:
        rows = connection.execute(_ROUNDS, {"game": game_id})
    return [loaded(RoundRecord, _RECORDS, row) for row in rows]


def write(session: Session, game: Game, record: RoundRecord, replay: Any,
          players: Sequence[Player] | None = None, view: saved_games.View | None = None,
          *, history: Sequence[RoundRecord] = ()) -> None:
    """Write ``record`` (a new round record of ``game``) and the game's stamp, with the game's
    summary made from ``replay`` (the game as the record leaves it, or None: read and replayed
    again), and commit. In a save on its own connection (a view marked
    :func:`companion.routes.links.appends`): through Core, as
    :func:`companion.play.store.append` writes an entry — no ORM object built or changed; for a
    game loaded in the session, through the session. A record that loses a race (the
    database's unique keys) raises ``IntegrityError``, nothing stored. (A game read through
    Core by a session begun before the save — the request's own, already in a transaction — is
    written through Core on that session's connection, and committed with it, as
    :func:`~companion.play.store.append` does.)

    On its own connection, the save notes the game it leaves for after its commit
    (:mod:`.saved_games`): its seats ``players`` and ``view(game)``, the game's view as the
    record leaves it (a round saved), or its records then, ``history`` (an undo)."""
    own = saving_on(session)
    if own is None and game in session:  # (the game loaded in the session: an ORM write)
        session.add(record)
        game.updated_at = datetime.now(UTC)
        session.add(game)
        if replay is not None:
            store.note_replay(session, game, replay)
        session.commit()
        return
    assert game.id is not None
    now, before = datetime.now(UTC), game.updated_at
    try:
        # (a session begun before the save opened: its own connection and commit, as append's)
        connection = own if own is not None else session.connection()
        # (on PostgreSQL, queued: sent with the BEGIN and the summary's write, one round trip;
        # the record's key, which the view noted for after the commit shows, set when sent)
        save_pipeline.queue(_INSERT_RECORD, connection,
                            {name: getattr(record, name) for name in _INSERT_RECORD.keys},
                            key=lambda made: setattr(record, "id", made))
        save_pipeline.queue(_TOUCH_GAME, connection, {"game": game.id, "now": now})
        if replay is None:  # (the summary reads the game: the writes sent first, so that a
            save_pipeline.flush(connection)  # refusal is raised here, not inside that read)
        set_committed_value(game, "updated_at", now)
        push.changed(session, game.id)  # (published after the commit)
        if own is not None and not (session.new or session.dirty or session.deleted):
            save_pipeline.commit_follows(own)  # (PostgreSQL: the summary's write may COMMIT)
        for keep in store.AT_SAVE:
            keep(session, game, replay)
        if own is None:
            session.commit()
        else:
            save_pipeline.flush(own)  # (anything still queued: a refusal raised here)
            saved_games.entry_written(session, game, history, players=players, view=view,
                                      records=True)
            commit_save(session)
    except BaseException:
        set_committed_value(game, "updated_at", before)
        raise


_INSERT_RECORD = Prepared(insert(_RECORDS), tuple(c.name for c in _RECORDS.c if c.name != "id"))
_TOUCH_GAME = Prepared(update(_GAMES).where(_GAMES.c.id == bindparam("game"))
                       .values(updated_at=bindparam("now")), ("game", "now"))
"""The game's stamp (the statement :func:`companion.play.store.append` sends)."""

