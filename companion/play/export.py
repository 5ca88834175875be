"""Export: games as the versioned JSON of :mod:`companion.history.export_format`, and CSV.

An export holds every row players' entries made — the game and its set-up, its seats and the
group's players, the append-only entries, Rebel Princess's round records (an undo names the
record it reverts by its number) and trick logs — with their times, never database ids. Importing
it into a fresh install and exporting again gives the same file, byte for byte.

An import goes into one group and is all or nothing (:mod:`companion.play.imports`). Games
already in the group (same code) are left as they are. Nothing in the file can reach another
group: its players are matched by name among the group's own people only, and a game whose code
another group's game has is stored as a new game with a new code (the file holds no database
ids). Scorer and viewer links are not in the export phones download (they are keys to the games,
not part of them): an imported game gets new ones. The operator's copy (``flask groups export
--with-links``) carries them, and the group's link: imported on another server, each game keeps
the links phones hold (unless a link of that server has the same token), and a second import of
the same file goes into the same group and adds nothing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any

from sqlmodel import Session, col, select

from ..history.export_format import FORMAT, VERSION
from ..history.paging import PageKey
from ..history.summary import utc
from ..models import Entry, Game, GameLink, Group, Person, Player, RoundRecord, TrickLog
from . import summaries
from .imports import Imported, group_of_file, import_file, restore_target

__all__ = ["Imported", "export", "export_csv", "dumps", "group_of_file", "import_file",
           "restore_target"]
"""The import (``import_file``, ``group_of_file``, ``restore_target``) lives in
:mod:`companion.play.imports`; it is named here too for the callers that import and export
through one module."""


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
    people_ids = sorted({pid for pid in session.exec(
        select(Player.person_id).where(col(Player.game_id).in_(ids))) if pid is not None})
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if group is not None:
        document["group"] = {"name": group.name,
                             **({"token": group.token} if with_links else {})}
    return {**document, **_players(session, people_ids),
            "games": _games(session, games, _numbers(people_ids), with_links)}


def _numbers(people_ids: Sequence[int]) -> dict[int, int]:
    """Each person's number in the file (1, 2 …, in id order): the file holds no database id."""
    return {pid: n for n, pid in enumerate(people_ids, start=1)}


def _players(session: Session, people_ids: Sequence[int]) -> dict[str, Any]:
    people = {p.id: p for p in session.exec(select(Person).where(col(Person.id).in_(people_ids)))}
    number = _numbers(people_ids)
    return {"players": [{"id": number[pid], "name": people[pid].name,
                         "created_at": _time(people[pid].created_at)} for pid in people_ids]}


def _games(session: Session, games: Sequence[Game], number: dict[int, int],
           with_links: bool = False) -> list[dict[str, Any]]:
    ids = [g.id for g in games if g.id is not None]
    seats: dict[int, list[Player]] = {}
    for row in session.exec(select(Player).where(col(Player.game_id).in_(ids))
                            .order_by(col(Player.game_id), col(Player.seat))):
        seats.setdefault(row.game_id, []).append(row)
    entries = _by_game(session, Entry, ids, Entry.seq)
    records = _by_game(session, RoundRecord, ids, RoundRecord.seq)
    logs = _by_game(session, TrickLog, ids, TrickLog.number)
    links = _links_by_game(session, ids) if with_links else {}
    return [_game(session, game, seats.get(game.id or 0, []), number,
                  entries.get(game.id or 0, []), records.get(game.id or 0, []),
                  logs.get(game.id or 0, []), links.get(game.id or 0)) for game in games]


CHUNK = 200
"""Games an export reads (and holds) at a time."""


def stream(session: Session, group_id: int) -> Iterator[str]:
    """The group's export (every finished game, in id order), the same text as
    ``dumps(export(session, games))``, made :data:`CHUNK` games at a time: a request's memory
    holds one chunk of games, whatever the group holds. ``session`` is the stream's own (its
    objects are let go after each chunk)."""
    people_ids = summaries.finished_people(session, group_id)
    number = _numbers(people_ids)
    head = dumps({"format": FORMAT, "version": VERSION, **_players(session, people_ids),
                  "games": []})
    assert head.endswith("[]\n}\n")
    yield head[:-len("[]\n}\n")] + "["
    after, first = 0, True
    while ids := summaries.finished_ids(session, group_id=group_id, after=after, limit=CHUNK):
        games = list(session.exec(select(Game).where(col(Game.id).in_(ids))
                                  .order_by(col(Game.id))))
        pieces = []
        for game in _games(session, games, number):
            text = json.dumps(game, ensure_ascii=False, indent=1).replace("\n", "\n  ")
            pieces.append(("\n  " if first else ",\n  ") + text)
            first = False
        yield "".join(pieces)
        after = ids[-1]
        session.expunge_all()
    yield "]\n}\n" if first else "\n ]\n}\n"


def stream_csv(session: Session, group_id: int, people: dict[int, str],
               zone: tzinfo = UTC) -> Iterator[str]:
    """The group's finished games as :func:`export_csv` writes them (the most recent first),
    :data:`CHUNK` games at a time, each chunk read by key from where the last one ended."""
    yield export_csv([], people, zone)
    key: PageKey | None = None
    while True:
        _, found = summaries.records(session, group_id=group_id, limit=CHUNK, count=False,
                                     older_than=key)
        if not found:
            return
        yield export_csv(found, people, zone, header=False)
        key = summaries.page_key(found[-1].game)
        session.expunge_all()


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
    summary = summaries.summary_of(session, game)
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


def export_csv(records: Sequence[summaries.Record], people: dict[int, str],
               zone: tzinfo = UTC, *, header: bool = True) -> str:
    """One row per player per game (:data:`CSV_COLUMNS`), the most recent game first; times in
    ``zone`` (the phone's, for a spreadsheet read at the table) with their offset."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if header:
        writer.writerow(CSV_COLUMNS)
    for record in records:
        summary = record.summary
        ranks = summary.ranks() if summary.scores else ()
        for seat, name in enumerate(record.names):
            person = record.people[seat] if seat < len(record.people) else None
            writer.writerow([_cell(v) for v in (
                record.game.code, record.kind.game_name(record.game.edition, "en"),
                utc(record.game.created_at).astimezone(zone).isoformat(),
                utc(record.game.updated_at).astimezone(zone).isoformat(), seat + 1,
                people.get(person or 0, name), name,
                summary.scores[seat] if seat < len(summary.scores) else "", str(summary.unit),
                int(seat in summary.winners), ranks[seat] if seat < len(ranks) else "",
                int(summary.first == seat))])
    return out.getvalue()
