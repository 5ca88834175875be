"""Export and import: games as the versioned JSON of :mod:`companion.history.transfer`, and CSV.

An export holds every row players' entries made — the game and its set-up, its seats and the
group's players, the append-only entries, Rebel Princess's round records (an undo names the
record it reverts by its number) and trick logs — with their times, never database ids. Importing
it into a fresh install and exporting again gives the same file, byte for byte.

An import goes into one group and is all or nothing: the file is checked (shape, numbering,
players), then its games are stored a few at a time, each replayed through its own rules core
(``summary``), in short transactions into a hidden staging group, and join their group together
at the end; any problem deletes what was staged (see :func:`import_file`). Games already in the
group (same code) are left as they are. Nothing in the file can reach another group: its
players are matched by name among the group's own people only, and a game whose code another
group's game has is stored as a new game with a new code (the file holds no database ids).
Scorer and viewer links are not in the export phones download (they are keys to the games, not
part of them): an imported game gets new ones. The operator's copy (``flask groups export
--with-links``) carries them, and the group's link: imported on another server, each game keeps
the links phones hold (unless a link of that server has the same token), and a second import of
the same file goes into the same group and adds nothing.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, select

from ..games import by_key
from ..history import GameSummary
from ..history.summary import utc
from ..history.transfer import (
    FORMAT,
    VERSION,
    Export,
    GameOut,
    ImportProblem,
    TransferError,
    parse,
)
from ..models import Entry, Game, GameLink, GameResult, Group, Person, Player, RoundRecord, TrickLog
from . import groups, history, store, totals
from .players import name_key

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Imported:
    """What an import did: the codes of the games stored, and of those already here."""

    added: tuple[str, ...]
    skipped: tuple[str, ...]
    players: int
    group_id: int = 0  # the group the games went into


def _time(value: datetime) -> str:
    """A stored time in the file: ISO 8601, UTC, with its offset ("…+00:00")."""
    return utc(value).isoformat()


def _json_value(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# --- export ----------------------------------------------------------------------------------

def export(session: Session, games: Sequence[Game], *, group: Group | None = None,
           with_links: bool = False) -> dict[str, Any]:
    """The export document of ``games`` (in the order given) and the players who sat in them;
    with ``group``, its name. ``with_links`` (the operator's copy, ``flask groups export
    --with-links``; never a phone's download) adds the group's link and each game's live links,
    so that a server the file is imported into opens the games at the links phones hold."""
    ids = [g.id for g in games if g.id is not None]
    seats: dict[int, list[Player]] = {}
    for row in session.exec(select(Player).where(col(Player.game_id).in_(ids))
                            .order_by(col(Player.game_id), col(Player.seat))):
        seats.setdefault(row.game_id, []).append(row)
    people_ids = sorted({p.person_id for rows in seats.values() for p in rows
                         if p.person_id is not None})
    people = {p.id: p for p in session.exec(select(Person).where(col(Person.id).in_(people_ids)))}
    number = {pid: n for n, pid in enumerate(people_ids, start=1)}
    entries = _by_game(session, Entry, ids, Entry.seq)
    records = _by_game(session, RoundRecord, ids, RoundRecord.seq)
    logs = _by_game(session, TrickLog, ids, TrickLog.number)
    links = _links_by_game(session, ids) if with_links else {}
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if group is not None:
        document["group"] = {"name": group.name,
                             **({"token": group.token} if with_links else {})}
    return {
        **document,
        "players": [{"id": number[pid], "name": people[pid].name,
                     "created_at": _time(people[pid].created_at)} for pid in people_ids],
        "games": [_game(session, game, seats.get(game.id or 0, []), number,
                        entries.get(game.id or 0, []), records.get(game.id or 0, []),
                        logs.get(game.id or 0, []), links.get(game.id or 0))
                  for game in games],
    }


def _links_by_game(session: Session, ids: Sequence[int]) -> dict[int, list[dict[str, str]]]:
    found: dict[int, list[dict[str, str]]] = {}
    for link in session.exec(select(GameLink).where(col(GameLink.game_id).in_(ids),
                                                    col(GameLink.revoked_at).is_(None))
                             .order_by(col(GameLink.game_id), col(GameLink.role))):
        found.setdefault(link.game_id, []).append({"role": link.role, "token": link.token})
    return found


def _by_game(session: Session, model: Any, ids: Sequence[int], order: Any
             ) -> dict[int, list[Any]]:
    found: dict[int, list[Any]] = {}
    for row in session.exec(select(model).where(col(model.game_id).in_(ids))
                            .order_by(col(model.game_id), col(order))):
        found.setdefault(row.game_id, []).append(row)
    return found


def _game(session: Session, game: Game, seats: list[Player], number: dict[int, int],
          entries: list[Entry], records: list[RoundRecord], logs: list[TrickLog],
          links: list[dict[str, str]] | None = None) -> dict[str, Any]:
    seq_of = {r.id: r.seq for r in records}
    summary = history.summary_of(session, game)
    return {
        "code": game.code,
        "kind": game.kind,
        "created_at": _time(game.created_at),
        "updated_at": _time(game.updated_at),
        "settings": _json_value(game.settings),
        "edition": game.edition,
        "round_cards": game.round_cards,
        "first_leader": game.first_leader,
        "seats": [{"seat": p.seat, "name": p.name, "princess": p.princess,
                   "player": number[p.person_id or 0]} for p in seats],
        "entries": [{"seq": e.seq, "kind": e.kind, "data": json.loads(e.data), "key": e.key,
                     "created_at": _time(e.created_at)} for e in entries],
        "round_records": [{
            "seq": r.seq, "number": r.number, "action": r.action, "deleted": r.deleted,
            "undoes": seq_of.get(r.undoes) if r.undoes is not None else None, "mode": r.mode,
            "round_card": r.round_card, "taken": r.taken, "no_tricks": r.no_tricks,
            "scores": r.scores, "counts": r.counts, "leader": r.leader,
            "last_trick_winner": r.last_trick_winner,
            "created_at": _time(r.created_at)} for r in records],
        "trick_logs": [{"number": t.number, "plays": t.plays, "powers": json.loads(t.powers),
                        "accepted": json.loads(t.accepted), "checks": t.checks,
                        "version": t.version, "updated_at": _time(t.updated_at)}
                       for t in logs],
        "result": None if summary is None else {
            "finished": summary.finished, "winners": list(summary.winners),
            "scores": list(summary.scores), "unit": str(summary.unit),
            "lower_wins": summary.lower_wins},
        **({"links": links} if links else {}),
    }


def dumps(document: dict[str, Any]) -> str:
    """The file's text: UTF-8 JSON, one level indented, keys in the documented order."""
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


CSV_COLUMNS = ("game_code", "game", "started_at", "ended_at", "seat", "player", "name_at_table",
               "score", "unit", "winner", "rank", "started")


def _cell(value: Any) -> Any:
    """A spreadsheet reads a cell starting with = + - @ as a formula: such text is quoted."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def export_csv(records: Sequence[history.Record], people: dict[int, str],
               zone: tzinfo = UTC) -> str:
    """One row per player per game (:data:`CSV_COLUMNS`), the most recent game first; times in
    ``zone`` (the phone's, for a spreadsheet read at the table) with their offset."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for record in records:
        summary = record.summary
        ranks = summary.ranks() if summary.scores else ()
        for seat, name in enumerate(record.names):
            person = record.people[seat] if seat < len(record.people) else None
            writer.writerow([_cell(v) for v in (
                record.game.code, record.kind.names["en"],
                utc(record.game.created_at).astimezone(zone).isoformat(),
                utc(record.game.updated_at).astimezone(zone).isoformat(), seat + 1,
                people.get(person or 0, name), name,
                summary.scores[seat] if seat < len(summary.scores) else "", str(summary.unit),
                int(seat in summary.winners), ranks[seat] if seat < len(ranks) else "",
                int(summary.first == seat))])
    return out.getvalue()


# --- import ----------------------------------------------------------------------------------

BATCH = 20
"""Games stored per transaction by an import: each transaction is short (tens of milliseconds),
so the other tables' saves never wait long for the database (SQLite has one writer at a time)."""
STAGING = "(import in progress)"
"""The name of the hidden group an import fills before its games join their group."""


def import_file(*, session: Session, raw: bytes, group_id: int | None,
                new_group_name: str = "") -> Imported:
    """Store every game of an export file that is not in group ``group_id`` yet, with its
    players, in that group — or, when ``group_id`` is None (restoring a backup on a phone that
    knows no group), in a new group named ``new_group_name``. Raises :class:`TransferError`.

    All or nothing, as the group sees it, without holding the database for the whole import:
    the games are stored :data:`BATCH` at a time, each batch replayed through its rules core and
    committed on its own, into a hidden staging group that no link opens; once every game is
    stored they join the group (and the group is made, if new) in one short transaction. Any
    refusal deletes the staging group and everything in it: nothing is left.
    """
    kinds = frozenset(k.key for k in history.kinds_with_history())
    document = parse(raw, kinds)
    keys = [name_key(p.name) for p in document.players]
    doubled = {key for key in keys if keys.count(key) > 1}
    if doubled:
        raise TransferError([ImportProblem("duplicate-player", detail=key) for key in doubled])
    staging = groups.new_group(session, name=STAGING)
    session.commit()
    assert staging.id is not None
    try:
        result = _store(session, document, group_id, staging.id)
        target = group_id
        if target is None:
            made = _new_group(session, document, new_group_name)
            assert made.id is not None
            target = made.id
        # The games (their summaries with them) and the new people join their group at once.
        for model in (Game, Person, GameResult):
            session.execute(update(model).where(col(model.group_id) == staging.id)
                            .values(group_id=target))
        session.execute(delete(Group).where(col(Group.id) == staging.id))
        totals.rebuild(session.connection(), [target])  # (its totals count the new games)
        session.commit()
    except TransferError:
        _abandon(session, staging.id)
        raise
    except (IntegrityError, SQLAlchemyError) as error:
        log.warning("import refused by the database: %s", error)
        _abandon(session, staging.id)
        raise TransferError([ImportProblem("not-stored", detail=type(error).__name__)]) from None
    return dataclasses.replace(result, group_id=target)


def _new_group(session: Session, document: Export, fallback_name: str) -> Group:
    """The group a file goes into when it names none here: the file's group's name (else
    ``fallback_name``), and its link when the operator's copy carries one no group holds."""
    name = document.group.name if document.group is not None else fallback_name
    made = groups.new_group(session, name=name or "?")
    token = document.group.token if document.group is not None else None
    if token and groups.by_token(session, token) is None:
        made.token = token
        session.flush()
    return made


def group_of_file(session: Session, raw: bytes) -> Group | None:
    """The group here whose link the file (the operator's copy) carries, if any: importing
    the file again goes into it, and so adds nothing."""
    document = parse(raw, frozenset(k.key for k in history.kinds_with_history()))
    if document.group is None or document.group.token is None:
        return None
    return groups.by_token(session, document.group.token)


def restore_target(session: Session, raw: bytes, remembered: Sequence[str]) -> int | None:
    """The group a phone's restore goes into instead of a new one: among the groups this phone
    knows (``remembered``: their link tokens), the one that already holds a game of the file —
    the same backup restored again, which then adds nothing. None: a new group."""
    try:
        document = parse(raw, frozenset(k.key for k in history.kinds_with_history()))
    except TransferError:
        return None  # (the import says why)
    known = [group.id for group in groups.by_tokens(session, list(remembered))]
    codes = [game.code for game in document.games]
    if not known or not codes:
        return None
    return session.exec(select(Game.group_id).where(col(Game.group_id).in_(known),
                                                    col(Game.code).in_(codes))).first()


def _abandon(session: Session, staging: int) -> None:
    """An import refused half-way: its staging group and every row in it are deleted."""
    session.rollback()
    groups.delete_group(session=session, group_id=staging)


def _store(session: Session, document: Export, group_id: int | None, staging: int) -> Imported:
    codes = [g.code for g in document.games]
    taken = dict(session.exec(select(Game.code, Game.group_id)
                              .where(col(Game.code).in_(codes))).all()) if codes else {}
    here = {code for code, group in taken.items() if group == group_id}
    wanted = [g for g in document.games if g.code not in here]
    used = {s.player for g in wanted for s in g.seats}
    person_of: dict[int, int] = {}
    created = 0
    for player in document.players:
        if player.id not in used:
            continue
        key = name_key(player.name)
        found = session.exec(select(Person).where(Person.group_id == group_id,
                                                  Person.key == key)).first() \
            if group_id is not None else None
        if found is None:  # a new person of the group: made in the staging group for now
            found = Person(name=" ".join(player.name.split()), key=key, group_id=staging,
                           created_at=player.created_at)
            session.add(found)
            session.flush()
            created += 1
        assert found.id is not None
        person_of[player.id] = found.id
    session.commit()
    for start in range(0, len(wanted), BATCH):
        for data in wanted[start:start + BATCH]:
            # A code another group's game holds: this group gets the game under a new code.
            code = store.new_code(session) if data.code in taken else data.code
            game = _add_game(session, data, person_of, staging, code)
            # Replayed once to check it; the summary is kept, so statistics need not replay it.
            session.add(history.cached(game, _check_replays(session, game)))
        session.commit()
    return Imported(tuple(g.code for g in wanted), tuple(sorted(here)), created, group_id or 0)


def _add_game(session: Session, data: GameOut, person_of: dict[int, int], group_id: int,
              code: str) -> Game:
    game = Game(code=code, kind=data.kind, group_id=group_id,
                settings=None if data.settings is None else json.dumps(
                    data.settings, ensure_ascii=False, sort_keys=True),
                edition=data.edition, round_cards=data.round_cards,
                first_leader=data.first_leader, created_at=data.created_at,
                updated_at=data.updated_at)
    session.add(game)
    session.flush()
    assert game.id is not None
    for seat in sorted(data.seats, key=lambda s: s.seat):
        session.add(Player(game_id=game.id, seat=seat.seat, name=seat.name,
                           princess=seat.princess, person_id=person_of[seat.player]))
    for entry in sorted(data.entries, key=lambda e: e.seq):
        session.add(Entry(game_id=game.id, seq=entry.seq, kind=entry.kind,
                          data=json.dumps(entry.data, ensure_ascii=False, sort_keys=True),
                          key=entry.key, created_at=entry.created_at))
    id_of: dict[int, int] = {}
    for record in sorted(data.round_records, key=lambda r: r.seq):
        row = RoundRecord(
            game_id=game.id, seq=record.seq, number=record.number, action=record.action,
            deleted=record.deleted, undoes=id_of[record.undoes] if record.undoes else None,
            mode=record.mode, round_card=record.round_card, taken=record.taken,
            no_tricks=record.no_tricks, scores=record.scores, counts=record.counts,
            leader=record.leader,
            last_trick_winner=record.last_trick_winner, created_at=record.created_at)
        session.add(row)
        session.flush()  # the id an undo after it refers to
        assert row.id is not None
        id_of[record.seq] = row.id
    for log in data.trick_logs:
        session.add(TrickLog(game_id=game.id, number=log.number, plays=log.plays,
                             powers=json.dumps(log.powers), accepted=json.dumps(log.accepted),
                             checks=log.checks, version=log.version, updated_at=log.updated_at))
    for link in data.links:  # the operator's copy: the links phones hold, if free here
        if session.exec(select(GameLink.id).where(GameLink.token == link.token)).first() is None:
            session.add(GameLink(game_id=game.id, role=link.role, token=link.token))
    session.flush()
    store.add_links(session, game)  # the links it still lacks, stored with it
    session.flush()
    return game


def _check_replays(session: Session, game: Game) -> GameSummary:
    """Replay the stored game through its rules core; a game that does not replay refuses the
    whole file."""
    summarize = history.summarizer(by_key(game.kind))
    assert summarize is not None
    try:
        return summarize(session, game)
    except Exception as error:  # any failure of a core on foreign data: refuse the file
        raise TransferError([ImportProblem("does-not-replay", game=game.code,
                                           detail=type(error).__name__)]) from None
