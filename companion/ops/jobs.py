"""Where an import runs: outside the request that sent its file, so that no worker timeout can
cut it short and the phone watches its progress instead (:mod:`companion.play.imports`).

- **On the Redis the servers share** (``CACHE_REDIS_URL``, or a Redis
  ``RATELIMIT_STORAGE_URI``: see the factory) the job goes to the RQ queue
  :data:`QUEUE` — when at least one worker listens on it: ``flask --app companion worker``,
  beside the servers (``make worker``). Any server's phone can then follow any job: its
  progress is in the database.
- **Otherwise** (one server without Redis, or no worker listening, or Redis not answering)
  the job runs in the server process that took the file, on a thread of its own, one job after
  another.

Either way a job whose process dies is cleaned up at the next start of any server (and by its
progress page): :func:`companion.play.imports.abandon_stale`.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlmodel import Session

from ..db import get_engine
from ..play import imports

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


def _queue(app: Flask) -> Any:
    """The RQ queue when a worker listens on it, else None."""
    try:
        connection = _redis(app)
        if connection is None:
            return None
        from rq import Queue, Worker

        found = Queue(QUEUE, connection=connection)
        return found if Worker.count(queue=found) else None
    except Exception as error:  # (Redis away, or RQ not installed: run here)
        log.warning("import queue unavailable, running in this process: %s", error)
        return None


def start(job_id: int) -> str:
    """Run the waiting job ``job_id``: on RQ (``"rq"``) or in this process (``"thread"``)."""
    app = _this_app()
    found = _queue(app)
    if found is not None:
        found.enqueue(perform, job_id, job_timeout=JOB_TIMEOUT, result_ttl=0,
                      failure_ttl=24 * 3600)
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


class _Runner:
    """One thread per server process running its jobs one after another; it ends when it has
    nothing left to do and starts again with the next job."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.jobs: queue.Queue[int] = queue.Queue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, job_id: int) -> None:
        with self.lock:
            self.jobs.put(job_id)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._work, name="companion-imports",
                                               daemon=True)
                self.thread.start()

    def _work(self) -> None:
        while True:
            with self.lock:
                try:
                    job_id = self.jobs.get_nowait()
                except queue.Empty:
                    self.thread = None
                    return
            try:
                run(self.app, job_id)
            except Exception:  # (logged; the job's heartbeat stops, it is abandoned)
                log.exception("import job %s stopped", job_id)

    def idle(self, timeout: float) -> bool:
        """Wait until every job put here has run (tests); True if so."""
        thread = self.thread
        if thread is not None:
            thread.join(timeout)
        return self.thread is None and self.jobs.empty()


def _runner(app: Flask) -> _Runner:
    runner: _Runner = app.extensions.setdefault("companion.import_runner", _Runner(app))
    return runner


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
    SimpleWorker([Queue(QUEUE, connection=connection)], connection=connection).work(
        burst=burst, with_scheduler=False)


def init_app(app: Flask) -> None:
    """Clean up after imports whose process stopped (a server killed mid-import), and add the
    ``worker`` command. A database whose schema is not this code's yet (``flask db upgrade``
    not run: :mod:`companion.ops.schema`) may have no job table: it is left alone."""
    guard = app.extensions.get("companion.schema")
    if guard is None or guard.is_ready():
        with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
            imports.abandon_stale(session)
    app.cli.add_command(worker_command)
