"""Importing an export file (:mod:`companion.history.export_format`) into a group, as a job.

An import is all or nothing, and costs what the file brings:

- **Read as a stream, twice.** :func:`~companion.history.export_format.scan` reads the file once, a
  game at a time, and checks it whole (shape, caps, codes, players) before anything is stored;
  then :func:`~companion.history.export_format.games_of` reads it again, a game at a time, to store
  it. Memory holds one game, never the file's games.
- **Staged, then published.** The games are stored a few at a time, each batch in a short
  transaction of its own (each game replayed through its rules core there, its summary kept),
  into a hidden staging group that no link opens. Once every game is stored they join their
  group (and the group is made, if new) in one short transaction. A refusal deletes the
  staging group, a few games at a time.
- **Never stopping the others.** A batch lasts at most :data:`BATCH_SECONDS`; on SQLite (one
  writer at a time) the import then waits :data:`PAUSE`, longer than SQLite's busy handler
  sleeps between two tries, so every save waiting for the database gets in before the next
  batch.
- **Watched.** Every import has an :class:`~companion.models.ImportJob` row: its progress
  (games done out of the total), its outcome, and a heartbeat written with every batch. An
  import whose process stopped (a server or worker killed) stops beating: :func:`abandon_stale`
  (run at every start and by the progress page) marks it ``abandoned`` and deletes what it had
  staged, so nothing is ever half imported, and the page says the import did not happen.

:func:`import_file` is the whole import, run where it is called (the job runner of
:mod:`companion.ops.jobs` calls it through :func:`run_job`; a command line may call it directly).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from ..common.person_names import name_key
from ..games import by_key
from ..history import GameSummary
from ..history.export_format import (
    Contents,
    GameOut,
    ImportProblem,
    TransferError,
    games_of,
    scan,
)
from ..models import (
    JOB_FINISHED,
    Entry,
    Game,
    GameLink,
    GameResult,
    Group,
    ImportJob,
    Person,
    Player,
    RoundRecord,
    TrickLog,
)
from . import group_totals, groups, store, summaries
from .entries import entry_problem
from .tokens import is_token

log = logging.getLogger(__name__)

BATCH = 20
"""Games stored per transaction at most."""
BATCH_SECONDS = 0.2
"""A batch is committed once it has taken this long, however few games it holds: the longest
another save waits for an import's transaction."""
PAUSE = 0.15
"""Seconds an import waits after each batch on SQLite, so that the saves waiting for the one
writer get in (SQLite's busy handler sleeps up to 0.1 s between two tries)."""
STAGING = "(import in progress)"
"""The name of the hidden group an import fills before its games join their group."""
STALE = timedelta(seconds=90)
"""An import that has not written its heartbeat for this long has stopped (its process died):
a batch, or 200 games read, take well under a second."""
STALE_WAITING = timedelta(minutes=10)
"""A job still waiting for a runner after this long will never run (its queue was lost)."""

RUNNING = ("checking", "storing")
FINISHED = JOB_FINISHED


@dataclass(frozen=True)
class Imported:
    """What an import did: the codes of the games stored, and of those already here."""

    added: tuple[str, ...]
    skipped: tuple[str, ...]
    players: int
    group_id: int = 0  # the group the games went into


class Abandoned(Exception):
    """The job was marked abandoned while it ran (its heartbeat was late): stop, store nothing
    more; the cleanup that marked it deletes what it staged."""


def _now() -> datetime:
    return datetime.now(UTC)


# --- jobs ------------------------------------------------------------------------------------

def new_job(session: Session, *, raw: bytes | None, group_id: int | None,
            new_group_name: str = "", known: Sequence[int] = ()) -> ImportJob:
    """A job waiting to import ``raw`` into group ``group_id`` (None: a restore, into a new
    group named ``new_group_name`` — or into the one of the groups ``known`` that holds the
    file's games already: :func:`restore_target`); committed."""
    job = ImportJob(token=secrets.token_hex(16), state="waiting", group_id=group_id,
                    new_group_name=groups.clean_name(new_group_name)[:groups.NAME_MAX],
                    known_groups=json.dumps(list(known)) if known and group_id is None
                    else None, file=raw)
    session.add(job)
    session.commit()
    return job


def job_of(session: Session, token: str) -> ImportJob | None:
    """The job whose progress page is ``token``, if any (a NUL or any byte no token holds: none,
    never sent to the database)."""
    if not is_token(token):
        return None
    return session.exec(select(ImportJob).where(ImportJob.token == token)).first()


def problems_of(job: ImportJob) -> list[ImportProblem]:
    """Why a refused job was refused."""
    return [ImportProblem(p["code"], game=p.get("game"), detail=p.get("detail"))
            for p in json.loads(job.problems or "[]")]


def run_job(session: Session, job_id: int) -> None:
    """Run a waiting job to its end (done, refused or abandoned); never raises for a refused
    file. The file is let go of when the job ends."""
    job = session.get(ImportJob, job_id)
    if job is None or job.state != "waiting" or job.file is None:
        return
    raw, target = job.file, job.group_id
    known = [int(n) for n in json.loads(job.known_groups or "[]")]
    session.expunge(job)
    if not claim(session, job_id):
        return  # another runner took it between the read and now (a worker back from the dead)
    try:
        if target is None and known:  # (read here, not in the request: a large file takes long)
            _beat(session, job_id, state="checking", done=0)
            session.commit()
            target = restore_target(session, raw, known,
                                    progress=lambda n: _beat_and_commit(session, job_id, n))
        import_file(session=session, raw=raw, group_id=target,
                    new_group_name=job.new_group_name, job_id=job_id)
    except (TransferError, Abandoned):
        pass  # recorded in the job by import_file, or by the cleanup that abandoned it
    except Exception:
        log.exception("import job %s failed", job_id)
        session.rollback()
        _finish(session, job_id, "refused", [ImportProblem("not-stored", detail="error")])
    finally:
        session.rollback()
        session.execute(update(ImportJob).where(col(ImportJob.id) == job_id).values(file=None))
        session.commit()


def claim(session: Session, job_id: int) -> bool:
    """Take the waiting job ``job_id`` for this runner: one UPDATE from ``waiting`` to
    ``checking``, which only one of two runners can make (the other changes no row); whether
    this one did. Committed."""
    taken = _updated(session.execute(
        update(ImportJob).where(col(ImportJob.id) == job_id, col(ImportJob.state) == "waiting")
        .values(state="checking", done=0, heartbeat_at=_now())))
    session.commit()
    return bool(taken)


def abandon_stale(session: Session, token: str | None = None) -> int:
    """Mark every job whose process stopped (or only the job ``token``) abandoned and delete
    what it staged; how many there were."""
    now = _now()
    query = select(ImportJob).where(col(ImportJob.state).not_in(FINISHED))
    if token is not None:
        query = query.where(ImportJob.token == token)
    found = 0
    for job in session.exec(query).all():
        late = now - (STALE_WAITING if job.state == "waiting" else STALE)
        beat = job.heartbeat_at if job.heartbeat_at.tzinfo else \
            job.heartbeat_at.replace(tzinfo=UTC)
        if beat >= late:
            continue
        # Only if it is still late now (it may have beaten since it was read).
        marked = _updated(session.execute(
            update(ImportJob).where(col(ImportJob.id) == job.id,
                                    col(ImportJob.heartbeat_at) == job.heartbeat_at,
                                    col(ImportJob.state).not_in(FINISHED))
            .values(state="abandoned", file=None)))
        session.commit()
        if marked and job.staging_id is not None:
            _delete_staging(session, job.staging_id)
        found += marked
    return found


QUIET = timedelta(seconds=15)
"""A running job silent this long may have lost its process: its page says so until the job is
found stale (:data:`STALE`) and abandoned."""


def is_quiet(job: ImportJob) -> bool:
    """Whether a running job has given no sign of life for :data:`QUIET`."""
    beat = job.heartbeat_at if job.heartbeat_at.tzinfo else job.heartbeat_at.replace(tzinfo=UTC)
    return job.state in RUNNING and _now() - beat > QUIET


def abandon(session: Session, job_id: int) -> bool:
    """Mark the job ``job_id`` abandoned now, if it has not ended (its server is stopping), and
    delete what it staged; whether it was. A runner still storing it finds it abandoned at its
    next heartbeat and stores nothing more."""
    staging = session.exec(select(ImportJob.staging_id).where(col(ImportJob.id) == job_id)
                           ).first()
    marked = _updated(session.execute(
        update(ImportJob).where(col(ImportJob.id) == job_id,
                                col(ImportJob.state).not_in(FINISHED))
        .values(state="abandoned", file=None)))
    session.commit()
    if marked:
        staging = session.exec(select(ImportJob.staging_id).where(col(ImportJob.id) == job_id)
                               ).first() or staging
        if staging is not None:
            _delete_staging(session, staging)
    return bool(marked)


def _updated(result: object) -> int:
    """The rows an UPDATE changed (SQLAlchemy types ``execute()`` as the wider ``Result``; an
    UPDATE's is a ``CursorResult``)."""
    return int(cast("CursorResult[Any]", result).rowcount)


def _beat_and_commit(session: Session, job_id: int, done: int) -> None:
    """The job's progress while a file is read (each piece's count), committed at once."""
    _beat(session, job_id, done=done)
    session.commit()


def _beat(session: Session, job_id: int, **values: object) -> None:
    """Write the job's progress and heartbeat (in the caller's transaction); raises
    :class:`Abandoned` if it was abandoned meanwhile."""
    done = _updated(session.execute(update(ImportJob).where(col(ImportJob.id) == job_id,
                                                            col(ImportJob.state).not_in(FINISHED))
                                    .values(heartbeat_at=_now(), **values)))
    if not done:
        session.rollback()
        raise Abandoned(job_id)


def _finish(session: Session, job_id: int, state: str,
            problems: list[ImportProblem] | None = None, **values: object) -> None:
    """The job's end (refused, abandoned …), its file dropped in the same commit."""
    session.execute(update(ImportJob).where(col(ImportJob.id) == job_id,
                                            col(ImportJob.state).not_in(FINISHED))
                    .values(state=state, heartbeat_at=_now(), file=None, problems=json.dumps(
                        [{"code": p.code, "game": p.game, "detail": p.detail}
                         for p in problems]) if problems else None, **values))
    session.commit()


# --- the import ------------------------------------------------------------------------------

def import_file(*, session: Session, raw: bytes, group_id: int | None,
                new_group_name: str = "", job_id: int | None = None) -> Imported:
    """Store every game of an export file that is not in group ``group_id`` yet, with its
    players, in that group — or, when ``group_id`` is None (restoring a backup on a phone that
    knows no group), in a new group named ``new_group_name``. Raises :class:`TransferError`
    (nothing stored) or :class:`Abandoned` (see :func:`abandon_stale`).

    ``job_id`` is the :class:`~companion.models.ImportJob` that follows it (its progress,
    heartbeat and outcome); without one, one is made, so that an import from the command line
    killed half-way is cleaned up like any other. Runs where it is called, for as long as the
    file takes (about 3 ms a game, plus the pauses on SQLite).
    """
    if job_id is None:
        job_id = new_job(session, raw=None, group_id=group_id,
                         new_group_name=new_group_name).id
        assert job_id is not None
    try:
        _beat(session, job_id, state="checking", done=0)
        session.commit()
        contents = scan(raw, _kinds(),
                        progress=lambda n: _beat_and_commit(session, job_id, n),
                        check=entry_problems)
        keys = [name_key(p.name) for p in contents.players]
        doubled = sorted({key for key in keys if keys.count(key) > 1})
        if doubled:
            raise TransferError([ImportProblem("duplicate-player", detail=k) for k in doubled])
    except TransferError as error:
        _finish(session, job_id, "refused", error.problems)
        raise
    staging = groups.new_group(session, name=STAGING)
    _beat(session, job_id, state="storing", staging_id=staging.id, done=0,
          total=contents.total)
    session.commit()
    assert staging.id is not None
    try:
        result = _store(session, raw, contents, group_id, staging.id, job_id)
        target = group_id
        if target is None:
            made = _new_group(session, contents, new_group_name)
            assert made.id is not None
            target = made.id
        # The games (their summaries with them) and the new people join their group at once.
        for model in (Game, Person, GameResult):
            session.execute(update(model).where(col(model.group_id) == staging.id)
                            .values(group_id=target))
        session.execute(delete(Group).where(col(Group.id) == staging.id))
        group_totals.rebuild(session.connection(), [target])  # (its totals count the new games)
        _beat(session, job_id, state="done", result_group_id=target, added=len(result.added),
              skipped=len(result.skipped), done=contents.total, staging_id=None,
              file=None)  # (the file goes in the same commit: a finished job holds none)
        session.commit()
    except Abandoned:
        raise
    except TransferError as error:
        _abandon(session, staging.id, job_id, error.problems)
        raise
    except SQLAlchemyError as error:
        log.warning("import refused by the database: %s", error)
        problems = [ImportProblem("not-stored", detail=type(error).__name__)]
        _abandon(session, staging.id, job_id, problems)
        raise TransferError(problems) from None
    return Imported(result.added, result.skipped, result.players, target)


def _new_group(session: Session, contents: Contents, fallback_name: str) -> Group:
    """The group a file goes into when it names none here: the file's group's name (else
    ``fallback_name``), and its link when the operator's copy carries one no group holds."""
    name = contents.group.name if contents.group is not None else fallback_name
    made = groups.new_group(session, name=name or "?")
    token = contents.group.token if contents.group is not None else None
    if token and groups.by_token(session, token) is None:
        made.token = token
        session.flush()
    return made


def _kinds() -> frozenset[str]:
    return frozenset(k.key for k in summaries.kinds_with_history())


def entry_problems(game: GameOut) -> list[ImportProblem]:
    """Each entry of ``game`` that no table could have made: not of a shape its kind of game
    stores (:mod:`companion.play.entries`, the same shapes every save is held to)."""
    found = []
    for entry in game.entries:
        problem = entry_problem(game.kind, entry.kind, entry.data)
        if problem is not None:
            found.append(ImportProblem("bad-entry", game=game.code, detail=problem))
    return found[:5]


def group_of_file(session: Session, raw: bytes) -> Group | None:
    """The group here whose link the file (the operator's copy) carries, if any: importing
    the file again goes into it, and so adds nothing. Raises :class:`TransferError`."""
    contents = scan(raw, _kinds())
    if contents.group is None or contents.group.token is None:
        return None
    return groups.by_token(session, contents.group.token)


def restore_target(session: Session, raw: bytes, known: Sequence[int],
                   progress: Callable[[int], None] | None = None) -> int | None:
    """The group a phone's restore goes into instead of a new one: among the groups this phone
    knows (``known``: their ids), the one that already holds a game of the file — the same
    backup restored again, which then adds nothing. None: a new group (and a phone that knows
    no group has the file read once only, by its import). ``progress`` as :func:`scan`'s."""
    if not known:
        return None
    try:
        codes = list(scan(raw, _kinds(), progress=progress).seated)
    except TransferError:
        return None  # (the import says why)
    for start in range(0, len(codes), 500):
        found = session.exec(select(Game.group_id).where(
            col(Game.group_id).in_(known), col(Game.code).in_(codes[start:start + 500]))).first()
        if found is not None:
            return found
    return None


def _abandon(session: Session, staging: int, job_id: int,
             problems: list[ImportProblem]) -> None:
    """An import refused half-way: its staging group and every row in it are deleted, then
    the job says it was refused (a process dying meanwhile leaves it to :func:`abandon_stale`)."""
    session.rollback()
    _delete_staging(session, staging, job_id)
    _finish(session, job_id, "refused", problems)


def _delete_staging(session: Session, staging: int, job_id: int | None = None) -> None:
    """Delete a staging group and its games, a few games per transaction (with the import's
    pause on SQLite), so that the deletion never holds the database long either; the job
    ``job_id``, if given, beats meanwhile."""
    while True:
        ids = list(session.exec(select(Game.id).where(Game.group_id == staging)
                                .limit(BATCH * 5)).all())
        if not ids:
            break
        groups.delete_games(session=session, game_ids=[int(i) for i in ids if i is not None])
        if job_id is not None:
            session.execute(update(ImportJob).where(col(ImportJob.id) == job_id)
                            .values(heartbeat_at=_now()))
            session.commit()
        _pause(session)
    groups.delete_group(session=session, group_id=staging)


def _pause(session: Session) -> None:
    if session.get_bind().dialect.name == "sqlite":
        time.sleep(PAUSE)


def _store(session: Session, raw: bytes, contents: Contents, group_id: int | None,
           staging: int, job_id: int) -> Imported:
    codes = list(contents.seated)
    taken: dict[str, int] = {}
    for start in range(0, len(codes), 500):
        taken.update(session.exec(select(Game.code, Game.group_id)
                                  .where(col(Game.code).in_(codes[start:start + 500]))).all())
    here = {code for code, group in taken.items() if group == group_id}
    used = {pid for code, ids in contents.seated.items() if code not in here for pid in ids}
    person_of: dict[int, int] = {}
    created = 0
    for player in contents.players:
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
    added: list[str] = []
    batch, started, done = 0, time.monotonic(), 0
    for data in games_of(raw):
        done += 1
        if data.code in here:
            continue
        # A code another group's game holds: this group gets the game under a new code.
        code = store.new_code(session) if data.code in taken else data.code
        game = _add_game(session, data, person_of, staging, code)
        # Replayed once to check it; the summary is kept, so statistics need not replay it.
        session.add(summaries.cached(game, _check_replays(session, game)))
        added.append(data.code)
        batch += 1
        if batch >= BATCH or time.monotonic() - started >= BATCH_SECONDS:
            _beat(session, job_id, done=done)
            session.commit()
            _pause(session)
            batch, started = 0, time.monotonic()
    _beat(session, job_id, done=done)
    session.commit()
    return Imported(tuple(added), tuple(sorted(here)), created, group_id or 0)


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
    for trick in data.trick_logs:
        session.add(TrickLog(game_id=game.id, number=trick.number, plays=trick.plays,
                             powers=json.dumps(trick.powers),
                             accepted=json.dumps(trick.accepted), checks=trick.checks,
                             version=trick.version, updated_at=trick.updated_at))
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
    summarize = summaries.summarizer(by_key(game.kind))
    assert summarize is not None
    try:
        return summarize(session, game)
    except Exception as error:  # any failure of a core on foreign data: refuse the file
        raise TransferError([ImportProblem("does-not-replay", game=game.code,
                                           detail=type(error).__name__)]) from None
