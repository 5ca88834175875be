"""Glue every game shares: creating a game, finding it by code, and its append-only entry log.

The games other than Rebel Princess store what players enter as :class:`~companion.models.Entry`
rows, numbered 1, 2, 3 … per game. :func:`append` writes the entry that follows the version the
phone saw; the database itself refuses a second entry with the same number (a stale write from
a phone that had not seen the latest change) or the same key (a double tap or network retry), so
two phones or two workers can never both win. Rows never enter a rules core: each game's glue
turns ``Entry.data`` back into the core's values.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, event, insert, inspect, literal, null, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, func, select

from ..db import (
    commit_save,
    connection_of,
    first_statement,
    open_save,
    rollback_save,
    saving_on,
)
from ..models import Entry, Game, GameLink, Player, RoundRecord, table_of
from . import groups, page_reads, push, save_pipeline, saved_games
from .driver_statements import Prepared
from .entries import entry_problem
from .tokens import is_token

CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/i/l to misread
CODE_LENGTH = 6


class StaleWrite(Exception):  # a normal outcome, not a bug
    """Someone else changed the game since this phone's version: nothing was stored."""

    def __init__(self, current: int) -> None:
        super().__init__(current)
        self.current = current


class KeyConflict(Exception):  # a normal outcome, not a bug
    """The form with this idempotency key was stored already, with other content: what was
    sent now is a changed copy of a form already saved, not a replay of it. Nothing stored;
    ``stored`` is what the first sending stored."""

    def __init__(self, stored: Stored) -> None:
        super().__init__(stored.seq)
        self.stored = stored


class GameGone(Exception):  # (a normal outcome, not a bug: no "Error" in its name)
    """The game was deleted (with its group) while this write or read was on its way: nothing
    stored; the phone is told the game is gone (410)."""


def lost_race(error: BaseException) -> bool:
    """Whether ``error`` is the database refusing a write because another write got in its way:
    a unique key taken first (``IntegrityError``), or a deadlock the database broke by
    rolling this transaction back (SQLSTATE 40P01, PostgreSQL; a save that writes its group's
    totals while the group is deleted) — never a connection lost. The write is then judged
    again on the game read afresh (gone: :class:`GameGone`)."""
    if isinstance(error, IntegrityError):
        return True
    return isinstance(error, OperationalError) and not error.connection_invalidated and \
        getattr(error.orig, "sqlstate", None) == "40P01"


def check_still_there(session: Session, game: Game) -> None:
    """After a write the database refused: raise :class:`GameGone` if the game itself is no
    longer stored (its group was deleted meanwhile), so the phone is told so rather than asked
    to try again."""
    # Read before the rollback expires the row (a game read through Core: its id as it is).
    identity = inspect(game).identity
    game_id = identity[0] if identity is not None else game.id
    connection = saving_on(session)
    if connection is None:
        session.rollback()
        gone = session.exec(select(Game.id).where(Game.id == game_id)).first() is None
    else:  # (a save on its own connection: that connection's transaction)
        rollback_save(session)
        gone = connection.execute(select(Game.id).where(Game.id == game_id)).first() is None
    if gone:
        raise GameGone


KEY_MARK = "~"
"""Separates a form's idempotency key from the fingerprint of its content in ``Entry.key``."""
_KEY_ROOM = 40  # of the form's key: with the mark and 16 hex digits, within Entry.key's 64


def keyed(key: str | None, content: Sequence[tuple[str, str]]) -> str | None:
    """The key an entry is stored under: the form's idempotency key and a fingerprint of what
    the form said (its fields, in any order). The same form sent again (a double tap, a
    network retry, Back and resend) has the same key and content, so it finds its entry; the
    same form sent with a changed value finds the entry of its key with another fingerprint
    (:func:`replayed` raises :class:`KeyConflict`)."""
    if not key:
        return None
    if not (key.isascii() and key.isprintable()) or KEY_MARK in key:  # not a key a page sends
        key = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    digest = hashlib.sha256(json.dumps(sorted(content), ensure_ascii=False)
                            .encode("utf-8", "surrogatepass"))
    return f"{key[:_KEY_ROOM]}{KEY_MARK}{digest.hexdigest()[:16]}"


def replayed(session: Session, game: Game, key: str | None) -> Stored | None:
    """The entry this very form stored already (a replay: answer it like the first sending),
    or None (a new write). Raises :class:`KeyConflict` when the form's key was stored with other
    content."""
    if not key:
        return None
    # The game's entries, read once for the transaction (one query: the save that follows
    # checks and replays from them), hold every key.
    return replayed_in(entries(session, game), key)


def replayed_in(read: Sequence[Stored], key: str) -> Stored | None:
    """:func:`replayed` on the game's entries as read (oldest first; Rebel Princess's round
    records too, as :func:`stored_round` gives them)."""
    for stored in read:
        if stored.key == key:
            return stored
    if KEY_MARK in key:
        prefix = key.split(KEY_MARK, 1)[0] + KEY_MARK
        for stored in read:
            if stored.key is not None and stored.key.startswith(prefix):
                raise KeyConflict(stored)
    return None


def stored_round(record: RoundRecord) -> Stored:
    """A Rebel Princess round record as an entry: its number, what it did (``entered``,
    ``edited``, ``undone``) and which round (``{"number": n}``), with its form's key."""
    return Stored(record.seq, record.action, {"number": record.number}, record.key,
                  record.created_at)


@dataclass(frozen=True)
class Stored:
    """An entry as read back: its number, kind, data and when it was made."""

    seq: int
    kind: str
    data: dict[str, Any]
    key: str | None
    created_at: datetime


def new_code(session: Session) -> str:
    """A game code no stored game has."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if session.exec(select(Game.id).where(Game.code == code)).first() is None:
            return code


def group_for_new_game(session: Session, group_id: int | None, names: Sequence[str]) -> int:
    """The group a new game goes into: ``group_id``, or — for a phone that knows no group — a
    new group named after the players (see :func:`companion.play.groups.default_name`)."""
    if group_id is not None:
        return group_id
    group = groups.new_group(session, name=groups.default_name(names))
    assert group.id is not None
    return group.id


def create_game(*, session: Session, kind: str, names: Sequence[str],
                settings: dict[str, Any] | None = None, seats: bool = False,
                group_id: int | None = None) -> Game:
    """Store a new game of ``kind`` with its players in seat order and its set-up as JSON, in
    group ``group_id`` (a new group if None); ``seats``: with a link per seat too
    (:data:`SEAT_ROLES`)."""
    game = Game(code=new_code(session), kind=kind,
                group_id=group_for_new_game(session, group_id, names),
                settings=json.dumps(settings or {}, ensure_ascii=False, sort_keys=True))
    session.add(game)
    session.flush()
    assert game.id is not None
    for seat, name in enumerate(names):
        session.add(Player(game_id=game.id, seat=seat, name=name))
    add_links(session, game, ROLES + (SEAT_ROLES if seats else ()))
    session.commit()
    return game


def get_game(session: Session, code: str, kind: str | None = None) -> Game | None:
    """The game with this code (and of this kind, if given), or None. A game this session has
    loaded already (the link the request came through reads it) is not read again: the
    query would give back that very object, unchanged."""
    if not is_token(code):
        return None
    for row in session.identity_map.values():
        if isinstance(row, Game) and row.code == code and row not in session.deleted:
            return row if kind is None or row.kind == kind else None
    query = select(Game).where(Game.code == code)
    if kind is not None:
        query = query.where(Game.kind == kind)
    return session.exec(query).first()


def names_of(session: Session, game: Game) -> list[str]:
    """The players' names in seat order; :class:`GameGone` if there are none (every stored game
    has its seats: none means its group was deleted between reading the game and its seats)."""
    known: dict[int | None, tuple[str, ...]] = session.info.get(_NAMES, {})
    own = saving_on(session)
    if game.id in known:
        names = list(known[game.id])
    elif own is not None:  # (a save on its own connection: read there, no ORM transaction)
        names = page_reads.seat_names(own, game.id)
    else:
        names = list(session.exec(select(Player.name).where(Player.game_id == game.id)
                                  .order_by(col(Player.seat))))
    if not names:
        raise GameGone
    return names


def know_saved(session: Session, saved: saved_games.SavedGame) -> None:
    """A page drawn after a save that noted its game (:mod:`.saved_games`): its names and
    entries as the save left them (Rebel Princess's round records: its glue asks for them)."""
    saved_games.know(session, saved)
    session.info.setdefault(_NAMES, {})[saved.game.id] = saved.names
    if not saved.records:
        session.info.setdefault(_READ, {})[saved.game.id] = list(saved.entries)


def settings_of(game: Game) -> dict[str, Any]:
    return dict(json.loads(game.settings or "{}"))


_READ = "companion.store.entries"
"""Where a session keeps the entries it read, by game id, until its transaction ends or it
writes an entry: a save reads its game's entries once, and its key and version checks (and
any second replay) are answered from them."""

# (sqlmodel's ``select`` is typed for four columns at most: the library's limit, not ours)
_ENTRIES = select(Entry.seq, Entry.kind, Entry.data, Entry.key,  # type: ignore[call-overload]
                  Entry.created_at).where(
    Entry.game_id == bindparam("game")).order_by(col(Entry.seq))


def entries(session: Session, game: Game) -> list[Stored]:
    """Every entry of the game, oldest first (read once per transaction, see :data:`_READ`)."""
    read = _read_entries(session, game)
    if read is None:
        if session.new or session.dirty or session.deleted:
            session.flush()  # (what is pending is read too; then no ORM round of a query)
        direct, own = page_reads.direct(session), saving_on(session)
        rows: Sequence[Any]
        if direct is not None:  # (a page on PostgreSQL: libpq alone, on the polls' reader)
            rows = page_reads.rows(direct, page_reads.ENTRIES, game.id)
        elif own is not None and own.dialect.name == "sqlite":  # (a save: its sqlite3 cursor)
            rows = page_reads.save_rows(own, page_reads.ENTRIES, game.id)
        else:
            rows = connection_of(session).execute(_ENTRIES, {"game": game.id}).all()
        read = [Stored(seq, kind, json.loads(data), key, created_at)
                for seq, kind, data, key, created_at in rows]
        session.info.setdefault(_READ, {})[game.id] = read
    return list(read)


def _read_entries(session: Session, game: Game) -> list[Stored] | None:
    read: dict[int, list[Stored]] | None = session.info.get(_READ)
    return read.get(game.id) if read is not None and game.id is not None else None


def _forget_entries(session: OrmSession, *_args: object) -> None:
    session.info.pop(_READ, None)


def _forget_read(session: OrmSession, *_args: object) -> None:
    """As a transaction begins: what was read outside it (:mod:`.page_reads`) is read again."""
    session.info.pop(_READ, None)
    session.info.pop(_NAMES, None)  # (the live links read stay: they name the page's key)


def _forget_all(session: OrmSession, *_args: object) -> None:
    session.info.pop(_READ, None)
    session.info.pop(_NOTED, None)
    session.info.pop(_NAMES, None)
    session.info.pop(page_reads.LINKS_READ, None)


AT_SAVE: list[Callable[[Session, Game, Any], None]] = []
"""What :func:`append` writes with each entry, in its transaction, after the game's stamp:
``(session, game, replay)`` — the game's summary and its group's totals
(:func:`companion.play.summaries.keep_at_save`, put here by its ``install``)."""

_NOTED = "companion.store.replays"
"""Where a session keeps, until its commit, what each write leaves its game as (by game)."""


def note_replay(session: Session, game: Game, replay: Any) -> None:
    """Say what the write about to be committed leaves ``game`` as, replayed by the write itself
    while checking it — the value the game's ``summary_from(game, replay)`` takes (see
    :mod:`companion.play.summaries`): the summary stored with the write is made from it instead
    of reading and replaying the game again. Forgotten when the transaction ends."""
    session.info.setdefault(_NOTED, {})[id(game)] = (game, replay)


def noted_replay(session: OrmSession, game: Game) -> Any:
    """What :func:`note_replay` said of ``game`` in this transaction (taken: said once), or
    None."""
    noted: dict[int, tuple[Game, Any]] | None = session.info.get(_NOTED)
    found = noted.pop(id(game), None) if noted is not None else None
    return found[1] if found is not None and found[0] is game else None


def _forget_written(session: OrmSession, _context: object, _instances: object) -> None:
    """Before a flush: forget the names :func:`names_and_links` read (a rename may be in it);
    if it writes an entry, the entries read too (they are not all)."""
    session.info.pop(_NAMES, None)
    session.info.pop(page_reads.LINKS_READ, None)  # (a replaced link may be in it)
    if _READ in session.info and any(
            isinstance(row, Entry) for row in (*session.new, *session.dirty, *session.deleted)):
        _forget_entries(session)


_NAMES = "companion.store.names"
"""Where a session keeps the names :func:`names_and_links` read, by game, for :func:`names_of`
(a page drawn after its key was read: one read of the seats), until it flushes or its
transaction ends."""


def install() -> None:
    """Hook every session (once): the entries it read, and the replays noted, are forgotten
    when its transaction ends (commit or rollback); the entries also when it writes one, and
    what was read outside a transaction when one begins."""
    for name, hook in (("after_commit", _forget_all), ("after_rollback", _forget_all),
                       ("after_begin", _forget_read), ("before_flush", _forget_written)):
        if not event.contains(OrmSession, name, hook):
            event.listen(OrmSession, name, hook)


def version(session: Session, game: Game) -> int:
    """The number of the game's newest entry (0 before any)."""
    read = _read_entries(session, game)
    if read is not None:
        return read[-1].seq if read else 0
    return int(session.exec(select(func.coalesce(func.max(Entry.seq), 0))
                            .where(Entry.game_id == game.id)).one())


def append(*, session: Session, game: Game, kind: str, data: dict[str, Any], based_on: int,
           key: str | None = None, replay: Any = None) -> Stored:
    """Store an entry that follows version ``based_on`` of the game, atomically.

    - The same ``key`` already stored: that entry is returned and nothing new is stored (a
      double tap or a retry is answered like the first tap); the same form with other content
      (see :func:`keyed`): :class:`KeyConflict`, nothing stored.
    - The game has moved on since ``based_on``: :class:`StaleWrite` (gone: :class:`GameGone`).
    The database's unique constraints decide when two writes race; this only reads their verdict.

    ``replay``: the game as this entry leaves it, replayed by the caller while checking it
    (see :func:`note_replay`); the summary stored with the write is made from it.
    """
    assert game.id is not None
    earlier = replayed(session, game, key)
    if earlier is not None:
        return earlier
    current = version(session, game)
    if based_on != current:  # (its entries read after a delete of its group: GameGone)
        _forget_entries(session)  # a caller that tries again reads the game afresh
        check_still_there(session, game)
        raise StaleWrite(current)
    as_json = json.dumps(data, ensure_ascii=False, sort_keys=True)
    problem = entry_problem(game.kind, kind, data, as_json=as_json)
    if problem is not None:  # (every form and API call makes its game's shapes: a bug here)
        raise ValueError(f"an entry no table could have made: {problem}")
    # Written through Core (no ORM object): the entry, the game's stamp, its summary and the
    # group's totals (:data:`AT_SAVE`), one COMMIT, in the session's transaction or (``appends``)
    # on the save's own connection, the session's after-commit hooks run by ``commit_save``.
    now = datetime.now(UTC)
    before, read = game.updated_at, _read_entries(session, game)
    _forget_entries(session)  # (the entries read are no longer all of them)
    try:
        own = saving_on(session)
        connection = own if own is not None else session.connection()
        # (on PostgreSQL, queued: sent with the summary's write, in one round trip)
        save_pipeline.queue(_INSERT_ENTRY, connection, {
            "game_id": game.id, "seq": based_on + 1, "kind": kind, "key": key,
            "data": as_json, "created_at": now})
        save_pipeline.queue(_TOUCH_GAME, connection, {"game": game.id, "now": now})
        if replay is None:  # (the summary reads the game: a refusal raised here, not in it)
            save_pipeline.flush(connection)
        set_committed_value(game, "updated_at", now)
        push.changed(session, game.id)  # (published after the commit, as an ORM write is)
        if own is not None and not (session.new or session.dirty or session.deleted):
            save_pipeline.commit_follows(own)  # (PostgreSQL: the summary's write may COMMIT)
        for keep in AT_SAVE:
            keep(session, game, replay)
        if own is None:
            session.commit()
        else:
            save_pipeline.flush(own)  # (anything still queued: a refusal raised here)
            saved_games.entry_written(session, game, read, Stored(  # (for after the commit)
                based_on + 1, kind, json.loads(as_json), key, saved_games.as_read(now)))
            commit_save(session)
    except (IntegrityError, OperationalError) as error:
        set_committed_value(game, "updated_at", before)
        if not lost_race(error):
            raise
        check_still_there(session, game)
        earlier = replayed(session, game, key)
        if earlier is not None:
            return earlier
        raise StaleWrite(version(session, game)) from None
    except BaseException:
        set_committed_value(game, "updated_at", before)
        raise
    return Stored(based_on + 1, kind, data, key, now)


_ENTRY = table_of(Entry)
_INSERT_ENTRY = Prepared(insert(_ENTRY), ("game_id", "seq", "kind", "key", "data", "created_at"))
_TOUCH_GAME = Prepared(update(table_of(Game)).where(table_of(Game).c.id == bindparam("game"))
                       .values(updated_at=bindparam("now")), ("game", "now"))


# --- links: who may open a game, and as what -----------------------------------------------------

ROLES = ("scorer", "viewer")
SEAT_ROLES = ("seat1", "seat2")
"""The links of a game played on one phone per player (the Kanai duel on two phones): each
opens the game as that seat only (see :mod:`companion.play.kanai_duel`)."""


def new_token() -> str:
    """128 random bits from ``secrets``, as 32 hex digits (safe in a URL, easy to match)."""
    return secrets.token_hex(16)


def add_links(session: Session, game: Game, roles: Sequence[str] = ROLES) -> None:
    """Give a game the links it lacks, one per role (not committed: the caller commits)."""
    assert game.id is not None
    have = {link.role for link in live_links(session, game)}
    for role in roles:
        if role not in have:
            session.add(GameLink(game_id=game.id, role=role, token=new_token()))


_LIVE_LINKS = select(GameLink).where(GameLink.game_id == bindparam("game"),
                                     col(GameLink.revoked_at).is_(None))


def live_links(session: Session, game: Game) -> list[GameLink]:
    """The game's links that still open it (not replaced)."""
    links = list(session.exec(_LIVE_LINKS, params={"game": game.id}))
    page_reads.note_links(session, game.id, ((link.role, link.token) for link in links))
    return links


def links_of(session: Session, game: Game) -> dict[str, GameLink]:
    """The game's live link per role. Every game has its scorer and viewer links: they are
    stored with the game (:func:`create_game`, the import), and migration 0008 gave them to
    games stored before links — so reading them never writes."""
    return {link.role: link for link in live_links(session, game)}


_VIEWER = (select(Game.kind, GameLink.token).join(GameLink, col(GameLink.game_id) == col(Game.id))
           .where(Game.id == bindparam("game"), GameLink.role == "viewer",
                  col(GameLink.revoked_at).is_(None)))


def viewer_link(session: Session, game_id: int) -> tuple[str, str] | None:
    """The game's kind and its live viewer link's token (None: no such game or link)."""
    row = session.exec(_VIEWER, params={"game": game_id}).first()
    return (str(row[0]), str(row[1])) if row is not None else None


def link_by_token(session: Session, token: str) -> GameLink | None:
    """The live link with this token, or None (unknown, or replaced)."""
    if not is_token(token):
        return None
    link = session.exec(select(GameLink).where(GameLink.token == token)).first()
    return link if link is not None and link.revoked_at is None else None


def game_by_token(session: Session, token: str) -> Game | None:
    found = link_and_game(session, token)
    return found[1] if found is not None else None


_LINK_AND_GAME = (select(GameLink, Game).join(Game, col(Game.id) == col(GameLink.game_id))
                  .where(GameLink.token == bindparam("token"), col(GameLink.revoked_at).is_(None)))
# Built once: every page opened through a link runs it.


def link_and_game(session: Session, token: str) -> tuple[GameLink, Game] | None:
    """The live link with this token and its game, in one query; None for an unknown or
    replaced token."""
    if not is_token(token):
        return None
    # (a write's first statement: tried again on a dropped connection, not pinged first)
    row = first_statement(
        session, lambda: session.exec(_LINK_AND_GAME, params={"token": token}).first())
    return (row[0], row[1]) if row is not None else None


def link_and_game_to_append(session: Session, token: str, *, entries: bool = True
                            ) -> tuple[GameLink, Game] | None:
    """:func:`link_and_game` for a write that only appends entries through
    :func:`append` (a duel's round, its undo: views marked
    :func:`companion.routes.links.appends`): the same query, the request's first statement, in
    the save's own connection (:func:`companion.db.open_save`: no ORM transaction at all), the
    rows made into objects the session does not track (no ORM load, no identity map to expire
    at the commit). Never change them: :func:`append` writes the entry, the game's stamp and
    its summary through Core. ``entries`` false: the game keeps its rounds as records (Rebel
    Princess), so none are read with the link."""
    if not is_token(token):
        return None
    row, read, names, links = open_save(session, lambda connection: (
        page_reads.save_link_and_game(session, connection, token, entries)))
    if row is None:
        return None
    link, game = page_reads.link_and_game_of(row)
    if read is not None:  # (its entries came with it, kept for the save)
        session.info.setdefault(_READ, {})[game.id] = [
            Stored(seq, kind, json.loads(data), key, created_at)
            for seq, kind, data, key, created_at in read]
    if names is not None:  # (and its names and live links: saved_games)
        session.info.setdefault(_NAMES, {})[game.id] = names
    saved_games.read_with_link(session, link, game, names, links)
    return link, game


def replace_link(session: Session, game: Game, role: str, *, commit: bool = True) -> GameLink:
    """Revoke the game's ``role`` link and give it a new one: whoever had the old link can no
    longer open the game."""
    assert role in ROLES + SEAT_ROLES and game.id is not None
    now = datetime.now(UTC)
    for link in live_links(session, game):
        if link.role == role:
            link.revoked_at = now
            session.add(link)
    fresh = GameLink(game_id=game.id, role=role, token=new_token())
    session.add(fresh)
    if commit:
        session.commit()
    return fresh


_NAMES_AND_LINKS = (
    select(Player.seat, Player.name, literal(0).label("link"), null().label("role"))
    .where(Player.game_id == bindparam("game"))
    .union_all(select(-1, GameLink.token, GameLink.id, GameLink.role).where(
        GameLink.game_id == bindparam("game"), col(GameLink.revoked_at).is_(None)))
    .order_by("seat", "name"))


def names_and_links(session: Session, game: Game
                    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    """The players' names in seat order, the tokens of the game's live links (sorted) and those
    links' ids (in the same order), in one query: what can change a game's page without moving
    its version (a rename, a merge, a replaced link), read for every load of a page drawn once
    (:func:`companion.routes.page_store.game_page`); the ids name its live stream
    (:mod:`companion.play.push`). The names are kept for :func:`names_of` (see :data:`_NAMES`)."""
    if (direct := page_reads.direct(session)) is not None:
        rows: Sequence[Any] = page_reads.rows(direct, page_reads.NAMES_AND_LINKS, game.id)
    else:
        with page_reads.reading(session) as connection:
            rows = connection.execute(_NAMES_AND_LINKS, {"game": game.id}).all()
    names = session.info.setdefault(_NAMES, {})[game.id] = tuple(
        name for seat, name, _, _ in rows if seat >= 0)
    page_reads.note_links(session, game.id,
                          ((role, token) for seat, token, _, role in rows if seat < 0))
    return (names,
            tuple(token for seat, token, _, _ in rows if seat < 0),
            tuple(int(link) for seat, _, link, _ in rows if seat < 0))
