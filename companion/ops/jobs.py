"""Where an import runs: outside the request that sent its file, so that no worker timeout can
cut it short and the phone watches its progress instead (:mod:`companion.play.imports`).

- **On the Redis the servers share** (``CACHE_REDIS_URL``, or a Redis
  ``RATELIMIT_STORAGE_URI``: see the factory) the job goes to the RQ queue
  :data:`QUEUE` — when at least one worker listens on it: ``flask --app companion worker``,
  beside the servers (``make worker``). Any server's phone can then follow any job: its
  progress is in the database.
- **Otherwise** (one server without Redis, or no worker that beat within :data:`RECENT` —
  one killed with ``kill -9`` stays registered in Redis — or Redis not answering)
  the job runs in the server process that took the file, on a thread of its own, one job after
  another.

A job sent to a worker that died before taking it is run by the server whose progress page
is asked for it once it has waited :data:`TAKE_OVER` (:func:`take_over`).

A server that stops gracefully (gunicorn's TERM, ``systemctl stop`` or a reload) abandons the
jobs it was running or holding as it exits, deleting what they staged. A job whose process was
killed is cleaned up by the sweep every server process (and worker) runs every
``JOB_SWEEP_SECONDS`` once its heartbeat is stale, at the next start of any server, and by its
progress page: :func:`companion.play.imports.abandon_stale`. Nobody needs to open its page.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import queue
import threading
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlmodel import Session, col, select

from ..db import get_engine
from ..models import ImportJob
from ..play import export_jobs, imports

log = logging.getLogger(__name__)

QUEUE = "companion-imports"
JOB_TIMEOUT = 6 * 3600
"""Seconds RQ lets an import run (the largest file takes minutes)."""


def _redis(app: Flask) -> Any:
    url = app.config.get("CACHE_REDIS_URL")
    if not url:
        return None
    from redis import Redis

    return Redis.from_url(url, socket_timeout=2, socket_connect_timeout=1)


WORKER_TTL = 30
"""Seconds an idle worker's RQ registration lives between its heartbeats (it beats every
``WORKER_TTL - 15`` s while it waits for a job; RQ's default, 420 s, kept a dead worker looking
alive for minutes)."""
RECENT = timedelta(seconds=WORKER_TTL + 15)
"""A worker whose last heartbeat is older than this is taken for dead (``kill -9`` leaves its
registration in Redis): imports are not sent to it. (A worker busy with a long import beats
less often: meanwhile the servers run new imports themselves, which costs nothing.)"""
TAKE_OVER = timedelta(seconds=60)
"""A job still waiting this long after it was sent, with no live worker, is run by the server
whose progress page is asked for it (a job queued to a worker that died since)."""


def live_workers(connection: Any, now: datetime | None = None) -> int:
    """How many RQ workers listening on :data:`QUEUE` have beaten within :data:`RECENT`."""
    from rq import Queue, Worker

    now = now or datetime.now(UTC)
    count = 0
    for worker in Worker.all(queue=Queue(QUEUE, connection=connection)):
        beat = worker.last_heartbeat
        if beat is None:
            continue
        if beat.tzinfo is None:
            beat = beat.replace(tzinfo=UTC)
        count += now - beat <= RECENT
    return count


def workers_state(app: Flask) -> str | None:
    """For /readyz: ``"2 live"`` (workers with a recent heartbeat), None without Redis."""
    try:
        connection = _redis(app)
        if connection is None:
            return None
        return f"{live_workers(connection)} live"
    except Exception as error:
        return f"unknown ({type(error).__name__})"


def _queue(app: Flask) -> Any:
    """The RQ queue when a worker listening on it has beaten recently, else None."""
    try:
        connection = _redis(app)
        if connection is None:
            return None
        from rq import Queue

        found = Queue(QUEUE, connection=connection)
        return found if live_workers(connection) else None
    except Exception as error:  # (Redis away, or RQ not installed: run here)
        from ..web import logs

        logs.redis_down(__name__, error)  # once a minute, with what happens meanwhile
        return None


TAKEN_FOR = 24 * 3600
"""Seconds the note that a server took an import over is kept (a progress page is read while
the import runs, and a little after)."""


def rq_id(token: str) -> str:
    """The RQ job id of the import whose progress page is ``token``: a digest of it (RQ logs
    its job ids; the token itself opens the page), the same on every server."""
    return "companion-import-" + hashlib.sha256(token.encode()).hexdigest()[:24]


RUNNERS = ("worker-waiting", "worker", "no-worker", "taken-over", "server-no-worker", "server")
"""What the progress page says of who runs an import (:func:`runner_of`)."""


def runner_of(job: Any) -> str | None:
    """Who runs ``job`` (an :class:`~companion.models.ImportJob` not finished), for its progress
    page: one of :data:`RUNNERS` — sent to a live worker that has not taken it yet
    (``worker-waiting``) or is running it (``worker``); sent to a worker that no longer beats
    (``no-worker``: a server takes it over after :data:`TAKE_OVER`); taken over from such a
    worker by a server (``taken-over``); run by the server that took the file, no worker having
    beaten when it came (``server-no-worker``) or no Redis configured (``server``). None when
    it has ended or the shared Redis does not answer (nothing to say for sure)."""
    if job.state in imports.FINISHED:
        return None
    app = _this_app()
    runner = app.extensions.get("companion.import_runner")
    if runner is not None and job.id in runner.taken:
        return "taken-over"
    try:
        connection = _redis(app)
        if connection is None:
            return "server"
        from rq.job import Job

        if not Job.exists(rq_id(job.token), connection=connection):
            return "server-no-worker"  # (start() ran it in the server that took the file)
        if connection.exists(_taken_key(job.token)):
            return "taken-over"
        if job.state != "waiting":
            return "worker"
        return "worker-waiting" if live_workers(connection) else "no-worker"
    except Exception as error:
        from ..web import logs

        logs.redis_down(__name__, error)
        return None


def _sent_to_rq(app: Flask, token: str) -> bool:
    """Whether the import ``token`` was sent to RQ (True too when Redis does not answer: no
    worker can take it then either)."""
    try:
        connection = _redis(app)
        if connection is None:
            return False
        from rq.job import Job

        return bool(Job.exists(rq_id(token), connection=connection))
    except Exception:
        return True


def _taken_key(token: str) -> str:
    """The shared Redis key that says a server took the import ``token`` over (beside its RQ
    job, named by the same digest; kept as long as RQ keeps a finished job's result)."""
    return rq_id(token) + ":taken-over"


def _mark_taken_over(app: Flask, token: str) -> None:
    """Note in the shared Redis that a server took the import over, for every server's progress
    page."""
    try:
        connection = _redis(app)
        if connection is None:
            return
        connection.set(_taken_key(token), 1, ex=TAKEN_FOR)
    except Exception as error:  # (Redis away: only this server's page says it)
        log.info("import job taken over, not noted in Redis: %s", type(error).__name__)


def take_over(job: Any) -> bool:
    """Run ``job`` (an :class:`~companion.models.ImportJob`) here when it was sent to RQ, has
    waited :data:`TAKE_OVER` and no live worker would take it (sent to a worker that died
    since); True if so. A job a server runs itself (waiting behind another on its runner) is
    not taken. Whoever runs it second — the dead worker's copy if it ever runs, another server
    that took it over too — finds it claimed (:func:`companion.play.imports.claim`)."""
    if job.state != "waiting" or job.id is None:
        return False
    created = job.created_at if job.created_at.tzinfo else job.created_at.replace(tzinfo=UTC)
    if datetime.now(UTC) - created < TAKE_OVER:
        return False
    app = _this_app()
    runner = _runner(app)
    if job.id in runner.taken or not _sent_to_rq(app, job.token) or _queue(app) is not None:
        return False
    runner.taken.add(job.id)
    _mark_taken_over(app, job.token)
    log.warning("import job %s waited %s s with no live worker: run in this process",
                job.id, int((datetime.now(UTC) - created).total_seconds()))
    runner.put(job.id)
    return True


def start(job_id: int) -> str:
    """Run the waiting job ``job_id``: on RQ (``"rq"``, under :func:`rq_id` of its token) or in
    this process (``"thread"``)."""
    app = _this_app()
    found = _queue(app)
    if found is not None:
        with Session(get_engine()) as session:
            token = session.exec(select(ImportJob.token).where(col(ImportJob.id) == job_id)
                                 ).one()
        found.enqueue(perform, job_id, job_id=rq_id(token), job_timeout=JOB_TIMEOUT,
                      result_ttl=0, failure_ttl=24 * 3600)
        return "rq"
    _runner(app).put(job_id)
    return "thread"


def perform(job_id: int) -> None:
    """RQ's entry point, in a worker started by ``flask --app companion worker`` (inside the
    app's context)."""
    run(_this_app(), job_id)


def _this_app() -> Flask:
    """The app itself behind ``current_app`` (a thread outlives the request's context)."""
    # (werkzeug documents _get_current_object as the way to unwrap the proxy: not our private)
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]  # noqa: SLF001
    return app


def run(app: Flask, job_id: int) -> None:
    """Run one job to its end, in a session of its own."""
    with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
        imports.run_job(session, job_id)


J = TypeVar("J")


class _OneThread(Generic[J]):
    """One thread per server process running its jobs one after another; it ends when it has
    nothing left to do and starts again with the next job. ``_run_one`` runs a job."""

    name = "companion-jobs"

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.jobs: queue.Queue[J] = queue.Queue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, job: J) -> None:
        with self.lock:
            self.jobs.put(job)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._work, name=self.name, daemon=True)
                self.thread.start()

    def _work(self) -> None:
        while True:
            with self.lock:
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    self.thread = None
                    return
            self._run_one(job)

    def _run_one(self, job: J) -> None:
        raise NotImplementedError

    def idle(self, timeout: float) -> bool:
        """Wait until every job put here has run (tests); True if so."""
        thread = self.thread
        if thread is not None:
            thread.join(timeout)
        return self.thread is None and self.jobs.empty()


class _Runner(_OneThread[int]):
    """The imports' thread (:class:`_OneThread`), which abandons its jobs when the process
    stops."""

    name = "companion-imports"

    def __init__(self, app: Flask) -> None:
        super().__init__(app)
        self.taken: set[int] = set()  # jobs taken over from a dead worker (take_over)
        self.running: int | None = None  # the job being run now
        atexit.register(self.stop)

    def stop(self) -> None:
        """This process is exiting (a graceful stop): abandon the job it runs and those it
        holds, deleting what they staged, rather than leave them for a sweep."""
        with self.lock:
            held = [self.running] if self.running is not None else []
            while True:
                try:
                    held.append(self.jobs.get_nowait())
                except queue.Empty:
                    break
        for job_id in held:
            try:
                with self.app.app_context(), \
                        Session(get_engine(), expire_on_commit=False) as session:
                    if imports.abandon(session, job_id):
                        log.warning("import job %s abandoned: this server is stopping", job_id)
            except Exception:  # (the database away too: the sweep of another server will do)
                log.exception("import job %s left for the sweep", job_id)

    def _run_one(self, job_id: int) -> None:
        self.running = job_id
        try:
            run(self.app, job_id)
        except Exception:  # (logged; the job's heartbeat stops, it is abandoned)
            log.exception("import job %s stopped", job_id)
        finally:
            self.running = None


def _runner(app: Flask) -> _Runner:
    runner: _Runner | None = app.extensions.get("companion.import_runner")
    if runner is None:
        runner = app.extensions.setdefault("companion.import_runner", _Runner(app))
    return runner


# --- a group's export, as a job (issue 36) -----------------------------------------------------

def export_folder(app: Flask) -> export_jobs.Folder:
    """The export folder of ``app`` (``EXPORT_DIR``)."""
    return export_jobs.Folder(app.config["EXPORT_DIR"])


def export_rq_id(token: str) -> str:
    """The RQ job id of the export job ``token``: a digest (RQ logs its ids)."""
    return "companion-export-" + hashlib.sha256(token.encode()).hexdigest()[:24]


def start_export(token: str) -> str:
    """Write the waiting export job ``token``: on RQ when a worker listens (``"rq"``; it runs
    on this machine, beside the servers, and writes to the same folder), else on this
    process's export thread (``"thread"``), one export after another."""
    app = _this_app()
    found = _queue(app)
    if found is not None:
        # (described by its digest: RQ's worker logs a job's description, by default its call
        # with the token in it)
        found.enqueue(perform_export, token, job_id=export_rq_id(token),
                      description=export_rq_id(token), job_timeout=JOB_TIMEOUT, result_ttl=0,
                      failure_ttl=3600)
        return "rq"
    runner: _ExportRunner | None = app.extensions.get("companion.export_runner")
    if runner is None:
        runner = app.extensions.setdefault("companion.export_runner", _ExportRunner(app))
    runner.put(token)
    return "thread"


def export_job(app: Flask, session: Session, *, group_id: int, group_token: str, kind: str,
               zone: str, filename: str, total: int) -> export_jobs.ExportJob | None:
    """The job that makes this export of the group: the newest one of this link, format and
    time zone when the group has not changed since it started (done or under way), else a new
    one, started. None when the export folder is over ``EXPORT_DIR_MAX_BYTES`` (nothing
    started: the phone is told to try again later)."""
    folder = export_folder(app)
    stamp = export_jobs.group_stamp(session, group_id)
    job = folder.reusable(group_id, group_token, kind, zone, stamp)
    if job is not None:
        return job
    folder.sweep()
    if folder.size() > app.config["EXPORT_DIR_MAX_BYTES"]:
        return None
    job = folder.new(group_id=group_id, group_token=group_token, kind=kind, zone=zone,
                     filename=filename, stamp=stamp, total=total)
    start_export(job.token)
    return job


def perform_export(token: str) -> None:
    """RQ's entry point for an export job (in a worker, inside the app's context)."""
    run_export(_this_app(), token)


def run_export(app: Flask, token: str) -> None:
    """Write one export job, on a database session of its own (reads only)."""
    with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
        export_folder(app).run(session, token)


class _ExportRunner(_OneThread[str]):
    """The export jobs' thread (:class:`_OneThread`), apart from the imports' runner: a long
    import does not hold an export back."""

    name = "companion-exports"

    def _run_one(self, token: str) -> None:
        try:
            run_export(self.app, token)
        except Exception:  # (logged by a digest; the job's note says it failed)
            log.exception("export job %s stopped", export_rq_id(token))


@click.command("worker")
@click.option("--burst", is_flag=True, help="Run the jobs waiting, then stop.")
@with_appcontext
def worker_command(burst: bool) -> None:
    """Run imports sent to any server, from the shared Redis (RQ); without one, each server
    runs its own."""
    connection = _redis(current_app)
    if connection is None:
        raise click.ClickException("no Redis configured (CACHE_REDIS_URL or a Redis "
                                   "RATELIMIT_STORAGE_URI): every server runs its own imports")
    from rq import Queue, SimpleWorker

    # SimpleWorker: the jobs run in this process, in this app's context (no fork per job).
    SimpleWorker([Queue(QUEUE, connection=connection)], connection=connection,
                 worker_ttl=WORKER_TTL).work(
        burst=burst, with_scheduler=False)


def sweep(app: Flask) -> int:
    """Abandon every job whose process stopped (its heartbeat stale) and delete what it
    staged; how many. A database whose schema is not this code's yet (``flask db upgrade``
    not run: :mod:`companion.ops.schema`) may have no job table: it is left alone."""
    guard = app.extensions.get("companion.schema")
    if guard is not None and not guard.is_ready():
        return 0
    with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
        return imports.abandon_stale(session)


def sweep_exports(app: Flask) -> int:
    """Delete the export files kept past :data:`companion.play.export_jobs.KEEP`; how many."""
    return export_folder(app).sweep()


def _sweeping(app: Flask, every: float, stopped: threading.Event) -> None:
    while not stopped.wait(every):
        try:
            sweep_exports(app)
        except OSError as error:  # (the folder unreadable: said, tried again next time)
            log.warning("export sweep failed: %s", error)
        try:
            found = sweep(app)
            if found:
                log.warning("%s import job(s) abandoned: their process stopped", found)
        except Exception as error:  # (the database away: said, tried again next time)
            log.warning("import sweep failed: %s", error)


def init_app(app: Flask) -> None:
    """Clean up after imports whose process stopped (a server killed mid-import), and the
    export files kept past their hour, now and every ``JOB_SWEEP_SECONDS`` on a thread of this
    process; add the ``worker`` command."""
    sweep(app)
    sweep_exports(app)
    every = app.config.get("JOB_SWEEP_SECONDS")
    # (Test apps are many and short-lived: a test that wants the sweep says so.)
    if every and (not app.testing or app.config.get("JOB_SWEEP_IN_TESTS")):
        stopped = app.extensions["companion.import_sweep"] = threading.Event()
        threading.Thread(target=_sweeping, args=(app, float(every), stopped), daemon=True,
                         name="companion-import-sweep").start()
    app.cli.add_command(worker_command)
