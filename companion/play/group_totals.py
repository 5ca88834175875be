"""Glue for a group's totals: its finished games added up per person and game kind.

Statistics and the players' pages read :class:`~companion.models.Total` rows — one per line
they show, whatever the group holds — instead of every finished game's summary. The rows are
kept in the transaction of the write that changes a game's summary (:func:`changed`, called by
:mod:`companion.play.summaries`'s commit hook): a game that finishes adds its seats (one line
per person who sat there, and the group's count of that game), a finished game edited or
reopened takes its old seats away first. Merging two people adds one's lines to the other's
(:func:`merge`); an import and a summary rebuilt at start-up make the group's rows again from
its games (:func:`rebuild`), as migration 0011 did for the games stored before. Each pair of
people's head-to-head counts (:class:`~companion.models.PairTotal`, one row per pair and game
kind) are kept alongside, by the same functions (migration 0014 filled them).

The rows are counted by :mod:`companion.history.stats`' :class:`~companion.history.stats.Line`
(pure code): this module only reads and writes them, with Core statements (no ORM objects).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Select, and_, delete, insert, or_, select, text, update
from sqlalchemy.engine import Connection, Engine, Row

from ..history import Aggregate, GameSummary, ScoreUnit
from ..history.stats import FactTotal, Line, PairCounts, Played, lines, pairs
from ..history.summary import utc
from ..models import Game, GameResult, PairTotal, PlayedBy, Player, Total, table_of

GROUP_LINE = 0
"""The ``person_id`` of a group's own line of a game: its count of finished games."""

_TOTAL = table_of(Total)
_PAIR = table_of(PairTotal)
_COUNTS = ("games", "wins_low", "wins_high", "ahead_low", "ahead_high", "level")
_RESULT = table_of(GameResult)
_GAME = table_of(Game)
_PLAYER = table_of(Player)
_PLAYED = table_of(PlayedBy)
_UNITS = {unit.value: unit for unit in ScoreUnit}
_AGGREGATES = {aggregate.value: aggregate for aggregate in Aggregate}


def _line(row: Row) -> Line:  # type: ignore[type-arg]
    facts = {key: FactTotal(key, label, _AGGREGATES[aggregate], total, count)
             for key, label, aggregate, total, count in json.loads(row.facts)}
    return Line(row.person_id, row.kind, _UNITS[row.unit], row.lower_wins, games=row.games,
                wins=row.wins, score_sum=row.score_sum, best=row.best,
                best_count=row.best_count, facts=facts, last=row.last_at)


def _values(line: Line) -> dict[str, object]:
    return {"games": line.games, "wins": line.wins, "score_sum": line.score_sum,
            "best": line.best, "best_count": line.best_count, "unit": str(line.unit),
            "lower_wins": line.lower_wins, "last_at": line.last,
            "facts": json.dumps([[f.key, f.label, str(f.aggregate), f.total, f.count]
                                 for f in line.facts.values()], ensure_ascii=False)}


def read(connection: Connection, group_id: int, *, kind: str | None = None,
         person: int | None = None) -> tuple[list[Line], dict[str, int]]:
    """The group's lines (of one game kind, of one person, when given) and its finished games
    per kind, in one query."""
    query = select(_TOTAL).where(_TOTAL.c.group_id == group_id)
    if kind is not None:
        query = query.where(_TOTAL.c.kind == kind)
    if person is not None:
        query = query.where(_TOTAL.c.person_id.in_((GROUP_LINE, person)))
    found: list[Line] = []
    games: dict[str, int] = {}
    for row in connection.execute(query):
        if row.person_id == GROUP_LINE:
            games[row.kind] = row.games
        else:
            found.append(_line(row))
    return found, games


def finished_games(connection: Connection, group_id: int) -> int:
    """How many finished games the group holds (of every kind), from its own lines."""
    return sum(read_group_lines(connection, group_id).values())


def read_group_lines(connection: Connection, group_id: int) -> dict[str, int]:
    """The group's finished games per kind (its own lines alone)."""
    rows = connection.execute(select(_TOTAL.c.kind, _TOTAL.c.games).where(
        _TOTAL.c.group_id == group_id, _TOTAL.c.person_id == GROUP_LINE))
    return {kind: games for kind, games in rows}


def games_by_person(connection: Connection, group_id: int) -> dict[int, int]:
    """How many finished games each person of the group sat in (every kind)."""
    found: dict[int, int] = {}
    for person, games in connection.execute(
            select(_TOTAL.c.person_id, _TOTAL.c.games).where(
                _TOTAL.c.group_id == group_id, _TOTAL.c.person_id != GROUP_LINE)):
        found[int(person)] = found.get(int(person), 0) + int(games)
    return found


def _locked(connection: Connection, group_id: int, kind: str | None,
            persons: Iterable[int]) -> dict[tuple[int, str], Line]:
    """The lines to change, read for update (PostgreSQL locks them, in one order, until the
    transaction ends: two saves of one person's games wait for each other)."""
    query = select(_TOTAL).where(_TOTAL.c.group_id == group_id,
                                 _TOTAL.c.person_id.in_(sorted(set(persons))))
    if kind is not None:
        query = query.where(_TOTAL.c.kind == kind)
    query = query.order_by(_TOTAL.c.kind, _TOTAL.c.person_id).with_for_update()
    return {(row.person_id, row.kind): _line(row) for row in connection.execute(query)}


def _write(connection: Connection, group_id: int, before: set[tuple[int, str]],
           after: dict[tuple[int, str], Line]) -> None:
    """Store the changed lines: a line left with no game is deleted."""
    for (person, kind), line in after.items():
        where = (_TOTAL.c.group_id == group_id, _TOTAL.c.kind == kind,
                 _TOTAL.c.person_id == person)
        if line.games <= 0:
            if (person, kind) in before:
                connection.execute(delete(_TOTAL).where(*where))
        elif (person, kind) in before:
            connection.execute(update(_TOTAL).where(*where).values(**_values(line)))
        else:
            connection.execute(insert(_TOTAL).values(group_id=group_id, kind=kind,
                                                     person_id=person, **_values(line)))


def changed(connection: Connection, *, game_id: int, group_id: int, kind: str,
            when: datetime, people: Sequence[int] | None, before: GameSummary | None,
            after: GameSummary | None) -> None:
    """A game's summary moved from ``before`` to ``after`` (None: none stored) in this
    transaction, its new summary already written: its seats are taken away from the group's
    lines as ``before`` counted them and added as ``after`` does (``when``: the game's new
    ``updated_at``, the newest time of its seats' lines). ``people``: the person of
    each seat, when the caller has them (else read). Nothing to do (no query) unless one of
    them is finished."""
    counted = [s for s in (before, after) if s is not None and s.finished]
    if not counted:
        return
    if people is None:
        people = list(connection.execute(select(_PLAYER.c.person_id).where(
            _PLAYER.c.game_id == game_id).order_by(_PLAYER.c.seat)).scalars())
    listed(connection, game_id=game_id, when=when, people=people,
           finished=after is not None and after.finished)
    found = _locked(connection, group_id, kind, [GROUP_LINE, *people])
    stored = set(found)
    unit, lower = counted[-1].unit, counted[-1].lower_wins
    for who in (GROUP_LINE, *people):
        if (who, kind) not in found:
            found[(who, kind)] = Line(who, kind, unit, lower)
    for summary, sign in ((before, -1), (after, 1)):
        if summary is None or not summary.finished:
            continue
        found[(GROUP_LINE, kind)].games += sign
        for seat, who in enumerate(people):
            if seat >= summary.players:
                continue
            line = found[(who, kind)]
            if sign > 0:
                line.add(summary, seat)
                line.last = utc(when) if line.last is None else max(utc(line.last), utc(when))
            else:
                line.take_away(summary, seat)
    for (who, _), line in found.items():
        if who != GROUP_LINE and line.best_lost:
            line.best, line.best_count = _best(connection, group_id, kind, who, line.lower_wins)
    _write(connection, group_id, stored, found)
    moved: dict[tuple[int, int], list[int]] = {}
    for summary, sign in ((before, -1), (after, 1)):
        if summary is not None:
            for pair, counts in pairs(summary, people).items():
                kept = moved.setdefault(pair, [0] * len(_COUNTS))
                for index, value in enumerate(counts):
                    kept[index] += sign * value
    _add_pairs(connection, group_id, kind, moved)


def _add_pairs(connection: Connection, group_id: int, kind: str,
               moved: dict[tuple[int, int], list[int]]) -> None:
    """Add ``moved`` (counts by pair, lower id first) to the group's pair totals of ``kind``:
    one read of the rows to change, then a write per pair (a row left with no game deleted)."""
    moved = {pair: counts for pair, counts in moved.items() if any(counts)}
    if not moved:
        return
    stored = {(row.low, row.high): row for row in connection.execute(
        select(_PAIR).where(_PAIR.c.group_id == group_id, _PAIR.c.kind == kind, or_(*(
            and_(_PAIR.c.low == low, _PAIR.c.high == high) for low, high in sorted(moved)))))}
    for (low, high), counts in sorted(moved.items()):
        row = stored.get((low, high))
        where = (_PAIR.c.group_id == group_id, _PAIR.c.kind == kind, _PAIR.c.low == low,
                 _PAIR.c.high == high)
        if row is None:
            if counts[0] > 0:
                connection.execute(insert(_PAIR).values(
                    group_id=group_id, kind=kind, low=low, high=high,
                    **dict(zip(_COUNTS, counts, strict=True))))
            continue
        total = [getattr(row, name) + value for name, value in zip(_COUNTS, counts, strict=True)]
        if total[0] <= 0:
            connection.execute(delete(_PAIR).where(*where))
        else:
            connection.execute(update(_PAIR).where(*where).values(
                **dict(zip(_COUNTS, total, strict=True))))


def pair_counts(connection: Connection, group_id: int, first: int, second: int
                ) -> list[tuple[str, int, int, PairCounts]]:
    """Two people's kept head-to-head counts in each game kind (one indexed query):
    ``(kind, low, high, counts)``, for :func:`companion.history.stats.versus_of`."""
    low, high = sorted((first, second))
    return [(row.kind, row.low, row.high,
             (row.games, row.wins_low, row.wins_high, row.ahead_low, row.ahead_high, row.level))
            for row in connection.execute(select(_PAIR).where(
                _PAIR.c.group_id == group_id, _PAIR.c.low == low, _PAIR.c.high == high))]


def _best(connection: Connection, group_id: int, kind: str, person: int,
          lower_wins: bool) -> tuple[int | None, int]:
    """A person's best score in a game, and how many games scored it, from their finished
    games' stored summaries (only when the one game that held it changed: rare)."""
    scores = [GameSummary.from_json(data).scores[seat] for data, seat in connection.execute(
        select(_RESULT.c.data, _PLAYER.c.seat)
        .join(_PLAYER, _PLAYER.c.game_id == _RESULT.c.game_id)
        .join(_GAME, _GAME.c.id == _RESULT.c.game_id)
        .where(_GAME.c.group_id == group_id, _GAME.c.kind == kind,
               _PLAYER.c.person_id == person, _RESULT.c.finished.is_(True)))]
    if not scores:
        return None, 0
    best = min(scores) if lower_wins else max(scores)
    return best, scores.count(best)


def merge(connection: Connection, *, group_id: int, source: int, target: int) -> None:
    """Two people found to be one: ``source``'s lines are added to ``target``'s and removed
    (they never sat at one game, so no game is counted twice)."""
    found = _locked(connection, group_id, None, (source, target))
    stored = set(found)
    for (who, kind), line in list(found.items()):
        if who != source:
            continue
        kept = found.setdefault((target, kind), Line(target, kind, line.unit, line.lower_wins))
        kept.merge(line)
        line.games = 0  # (deleted)
    _write(connection, group_id, stored, found)
    _merge_pairs(connection, group_id, source=source, target=target)
    _relist(connection, select(_PLAYER.c.game_id).where(_PLAYER.c.person_id == target))


def _merge_pairs(connection: Connection, group_id: int, *, source: int, target: int) -> None:
    """``source``'s pair totals become ``target``'s (added to those of the same pair), the
    counts turned round where the other person's place in the pair changes."""
    rows = connection.execute(select(_PAIR).where(
        _PAIR.c.group_id == group_id,
        or_(_PAIR.c.low == source, _PAIR.c.high == source))).all()
    if not rows:
        return
    connection.execute(delete(_PAIR).where(
        _PAIR.c.group_id == group_id, or_(_PAIR.c.low == source, _PAIR.c.high == source)))
    by_kind: dict[str, dict[tuple[int, int], list[int]]] = {}
    for row in rows:
        other = row.high if row.low == source else row.low
        if other == target:  # (never: people who sat at one game are not merged)
            continue
        games, wins, ahead, level = row.games, (row.wins_low, row.wins_high), \
            (row.ahead_low, row.ahead_high), row.level
        if row.low != source:  # the source's counts first
            wins, ahead = wins[::-1], ahead[::-1]
        if target > other:  # the target is the pair's higher id: its counts second
            wins, ahead = wins[::-1], ahead[::-1]
        pair = (min(target, other), max(target, other))
        by_kind.setdefault(row.kind, {})[pair] = [games, *wins, *ahead, level]
    for kind, moved in by_kind.items():
        _add_pairs(connection, group_id, kind, moved)


def rows_of(games: Iterable[Played]) -> list[dict[str, object]]:
    """The rows of one group's lines from its games (kind, summary, people by seat; only the
    finished ones count), without ``group_id``."""
    played = list(games)
    counted: dict[str, Line] = {}
    for game in played:
        if game.summary.finished:
            counted.setdefault(game.kind, Line(GROUP_LINE, game.kind, game.summary.unit,
                                               game.summary.lower_wins)).games += 1
    every = [*counted.values(), *lines(played).values()]
    return [{"kind": line.kind, "person_id": line.person, **_values(line)} for line in every]


def rebuild(connection: Connection, group_ids: Sequence[int]) -> None:
    """Make the groups' lines again from their games' stored summaries (an import, summaries
    rebuilt at start-up): one pass over each group's finished games."""
    for group_id in group_ids:
        connection.execute(delete(_TOTAL).where(_TOTAL.c.group_id == group_id))
        connection.execute(delete(_PAIR).where(_PAIR.c.group_id == group_id))
        _relist(connection, select(_GAME.c.id).where(_GAME.c.group_id == group_id))
        rows = connection.execute(
            select(_GAME.c.id, _GAME.c.kind, _RESULT.c.data)
            .join(_RESULT, _RESULT.c.game_id == _GAME.c.id)
            .where(_GAME.c.group_id == group_id, _RESULT.c.finished.is_(True))).all()
        if not rows:
            continue
        people: dict[int, list[int]] = {}
        for game_id, person in connection.execute(
                select(_PLAYER.c.game_id, _PLAYER.c.person_id)
                .where(_PLAYER.c.game_id.in_(select(_GAME.c.id).where(
                    _GAME.c.group_id == group_id)))
                .order_by(_PLAYER.c.game_id, _PLAYER.c.seat)):
            people.setdefault(int(game_id), []).append(int(person))
        played = [Played(kind, GameSummary.from_json(data), tuple(people.get(game_id, ())))
                  for game_id, kind, data in rows]
        values = rows_of(played)
        connection.execute(insert(_TOTAL), [{"group_id": group_id, **v} for v in values])
        connection.execute(_LAST_AT, {"group": group_id})
        paired = pair_rows(played)
        if paired:
            connection.execute(insert(_PAIR), [{"group_id": group_id, **v} for v in paired])


def listed(connection: Connection, *, game_id: int, when: datetime, people: Sequence[int],
           finished: bool) -> None:
    """A game's rows in the lists of its people's and pairs' finished games
    (:class:`~companion.models.PlayedBy`), written in the transaction of the write that
    changed it: taken away, and written again with its new time ``when`` (its ``updated_at``)
    when it is finished. ``people``: every seat's person. Two statements for a game that
    finishes or a finished game changed, one for a game reopened; none for a game in progress
    (:func:`changed` is not called for it). (Taken away even when it was not finished: a game
    whose summary was emptied by hand may still be listed.)"""
    connection.execute(delete(_PLAYED).where(_PLAYED.c.game_id == game_id))
    if finished:
        seated = sorted(set(people))
        connection.execute(insert(_PLAYED), [
            {"game_id": game_id, "low": low, "high": high, "updated_at": when}
            for index, low in enumerate(seated) for high in seated[index:]])


def _relist(connection: Connection, games: Select[tuple[int]]) -> None:
    """The rows of ``games`` (a query of game ids) in the people's and pairs' lists made
    again from the games: each finished game (as its stored summary says) under each of its
    people and each pair of them, with its ``updated_at`` (a rebuild, a merge; migration
    0015 filled the table with the same statement)."""
    connection.execute(delete(_PLAYED).where(_PLAYED.c.game_id.in_(games)))
    first, second = _PLAYER.alias("first"), _PLAYER.alias("second")
    connection.execute(insert(_PLAYED).from_select(
        ["game_id", "low", "high", "updated_at"],
        select(first.c.game_id, first.c.person_id, second.c.person_id, _GAME.c.updated_at)
        .join(second, and_(second.c.game_id == first.c.game_id,
                           second.c.person_id >= first.c.person_id))
        .join(_GAME, _GAME.c.id == first.c.game_id)
        .join(_RESULT, _RESULT.c.game_id == first.c.game_id)
        .where(_RESULT.c.finished.is_(True), first.c.game_id.in_(games))))


def pair_rows(games: Iterable[Played]) -> list[dict[str, object]]:
    """The rows of one group's pair totals from its games (kind, summary, people by seat;
    only the finished ones count), without ``group_id`` (also migration 0014's)."""
    counted: dict[tuple[str, int, int], list[int]] = {}
    for game in games:
        for (low, high), counts in pairs(game.summary, game.people).items():
            kept = counted.setdefault((game.kind, low, high), [0] * len(_COUNTS))
            for index, value in enumerate(counts):
                kept[index] += value
    return [{"kind": kind, "low": low, "high": high, **dict(zip(_COUNTS, counts, strict=True))}
            for (kind, low, high), counts in counted.items()]


_LAST_AT = text(
    "UPDATE total SET last_at = (SELECT max(game.updated_at) FROM game"
    " JOIN player ON player.game_id = game.id JOIN gameresult ON gameresult.game_id = game.id"
    " WHERE gameresult.finished = :yes AND game.group_id = total.group_id"
    " AND game.kind = total.kind AND player.person_id = total.person_id)"
    " WHERE total.person_id != 0 AND total.group_id = :group").bindparams(yes=True)
"""Each person's lines' newest time, from their finished games (:func:`rebuild`)."""


def last_played(connection: Connection, group_id: int) -> dict[int, datetime]:
    """When each person of the group last played: their newest finished game (from their
    lines) or game in progress (through the summaries' index of the group's games in
    progress), whatever the group has finished."""
    found: dict[int, datetime] = {}
    rows = [*connection.execute(
        select(_TOTAL.c.person_id, _TOTAL.c.last_at).where(
            _TOTAL.c.group_id == group_id, _TOTAL.c.person_id != GROUP_LINE)),
        *connection.execute(
            select(_PLAYER.c.person_id, _GAME.c.updated_at)
            .join(_GAME, _GAME.c.id == _PLAYER.c.game_id)
            .join(_RESULT, _RESULT.c.game_id == _GAME.c.id)
            .where(_RESULT.c.group_id == group_id, _RESULT.c.finished.is_(False)))]
    for person, when in rows:
        if when is not None and (person not in found or utc(when) > found[person]):
            found[int(person)] = utc(when)
    return found


def rebuild_all(engine: Engine) -> int:
    """Every group's totals made again from its games' stored summaries (``flask summaries
    --totals``); how many groups."""
    with engine.begin() as connection:
        ids = sorted(connection.execute(select(_GAME.c.group_id).distinct()).scalars())
        rebuild(connection, ids)
    return len(ids)
