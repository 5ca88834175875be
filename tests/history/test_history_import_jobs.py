"""Imports as jobs (issue 28): outside the request, a progress bar of games stored out of the
total, all or nothing even when the process running it is killed, on RQ when a worker listens
on the shared Redis and in the server's own process otherwise."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import update
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.models import ImportJob
from companion.play import imports

from ..conftest import REDIS_URL, database_config, finished_import
from .conftest import counts


def backup(client, known, copies: int) -> bytes:
    """The known group's export with each game repeated ``copies`` times under new codes."""
    document = json.loads(client.get(f"{known.base}/export.json").text)
    games = []
    for n in range(copies):
        for game in document["games"]:
            twin = copy.deepcopy(game)
            twin["code"] = f"{game['code'][:10]}{n:03d}"
            games.append(twin)
    return json.dumps({**document, "games": games}).encode()


def restore(phone, content: bytes):
    return phone.post("/import", data={"file": (io.BytesIO(content), "backup.json")},
                      content_type="multipart/form-data")


def job_row(app, token: str) -> ImportJob:
    with app.app_context():
        return get_session().exec(select(ImportJob).where(ImportJob.token == token)).one()


def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.02)


def test_the_page_shows_games_stored_out_of_the_total_then_the_result(app, client, known,
                                                                     monkeypatch):
    """Held after its first batches: the page's bar says how many of the 18 games are stored,
    nothing shows in any group yet; let go, the page leads to the new group's history."""
    monkeypatch.setattr(imports, "BATCH", 2)
    gate, add_game = threading.Event(), imports._add_game

    def held_add_game(session, data, *args):
        if data.code.endswith("001") and not gate.wait(60):
            raise AssertionError("never let go")
        return add_game(session, data, *args)

    monkeypatch.setattr(imports, "_add_game", held_add_game)
    before = counts(app)
    phone = app.test_client()
    answer = restore(phone, backup(client, known, 3))
    assert answer.status_code == 303
    token = answer.headers["Location"].rsplit("/", 1)[1]
    wait_for(lambda: job_row(app, token).done >= 6)
    page = phone.get(answer.headers["Location"])
    assert page.status_code == 200
    assert 'data-state="storing"' in page.text and 'data-total="18"' in page.text
    assert '<progress id="import-bar" max="18" value="6"' in page.text
    bar = phone.get(f"{answer.headers['Location']}/progress")
    assert bar.status_code == 200 and "HX-Refresh" not in bar.headers
    assert 'hx-trigger="every 1s"' in bar.text
    assert counts(app)["Group"] == before["Group"] + 1  # the hidden staging group, and
    assert "/group/" not in phone.get("/").text  # no group shown to the phone yet
    gate.set()
    wait_for(lambda: job_row(app, token).state == "done")
    assert phone.get(f"{answer.headers['Location']}/progress").headers["HX-Refresh"] == "true"
    final = finished_import(phone, answer)
    assert final.status_code == 303 and "/history/" in final.headers["Location"]
    assert "Imported 18 games (0 already here)." in phone.get(final.headers["Location"]).text
    after = counts(app)
    assert after["Game"] == before["Game"] + 18 and after["Group"] == before["Group"] + 1


def test_a_job_is_only_seen_through_its_own_address(app, client, known):
    answer = restore(app.test_client(), backup(client, known, 1))
    token = answer.headers["Location"].rsplit("/", 1)[1]
    assert client.get(f"/import/{token[:-1]}x").status_code == 404
    assert client.get(f"{known.base}/import/{token}").status_code == 404  # a restore's job
    assert client.get(f"/import/{'a' * 5000}").status_code == 404


RUN_JOB = """
import sys, time
from companion import create_app
from companion.db import get_session
from companion.play import imports

app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": sys.argv[1],
                  "DATABASE_URL": sys.argv[2] or None})
imports.BATCH = 2
add_game = imports._add_game
def slow_add_game(*args):
    time.sleep(0.05)
    return add_game(*args)
imports._add_game = slow_add_game
with app.app_context():
    imports.run_job(get_session(), int(sys.argv[3]))
"""


@pytest.mark.parametrize("found_by", ["page", "next start"])
def test_a_killed_import_leaves_nothing_and_the_page_says_so(app, client, known, tmp_path,
                                                            found_by):
    """A process importing 60 games is killed (SIGKILL) half-way, with games already stored
    in its staging group. Once its heartbeat is stale, its progress page (or the next start
    of any server) deletes them, and the page says the restore did not happen."""
    before = counts(app)
    with app.app_context():
        job = imports.new_job(get_session(), raw=backup(client, known, 10), group_id=None,
                              new_group_name="Restored")
    config = database_config(tmp_path)
    process = subprocess.Popen([sys.executable, "-c", RUN_JOB, config["DATABASE"],
                                config["DATABASE_URL"] or "", str(job.id)],
                               cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    try:
        wait_for(lambda: job_row(app, job.token).done >= 10 or process.poll() is not None)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    row = job_row(app, job.token)
    assert row.state == "storing" and row.staging_id is not None
    assert counts(app)["Game"] >= before["Game"] + 10  # half imported, for now
    with app.app_context():  # its heartbeat goes stale
        session = get_session()
        session.execute(update(ImportJob).where(ImportJob.id == job.id).values(
            heartbeat_at=datetime.now(UTC) - 2 * imports.STALE))
        session.commit()
    if found_by == "next start":
        create_app({"TESTING": True, "SECRET_KEY": "t", **config}) \
            .extensions["companion.engine"].dispose()
        assert job_row(app, job.token).state == "abandoned"
    page = client.get(f"/import/{job.token}")
    assert page.status_code == 422 and 'data-problem="abandoned"' in page.text
    assert "did not happen" in page.text
    assert counts(app) == before
    row = job_row(app, job.token)
    assert row.state == "abandoned" and row.file is None


def test_a_job_abandoned_while_it_runs_stops_and_publishes_nothing(app, client, known,
                                                                  monkeypatch):
    """A process only slow (not dead) whose job was declared abandoned stores nothing more:
    its next heartbeat finds the job abandoned and stops."""
    before = counts(app)
    with app.app_context():
        session = get_session()
        job = imports.new_job(session, raw=backup(client, known, 2), group_id=None)
        add_game = imports._add_game

        def add_game_then_abandoned(session, data, *args):
            if data.code.endswith("001"):  # between two batches (of one game each)
                with app.app_context():
                    other = get_session()
                    other.execute(update(ImportJob).where(ImportJob.id == job.id)
                                  .values(state="abandoned"))
                    other.commit()
            return add_game(session, data, *args)

        monkeypatch.setattr(imports, "_add_game", add_game_then_abandoned)
        monkeypatch.setattr(imports, "BATCH", 1)
        imports.run_job(session, job.id)
    row = job_row(app, job.token)
    assert row.state == "abandoned" and row.result_group_id is None and row.done < row.total
    staged = row.staging_id
    assert counts(app)["Group"] == before["Group"] + 1  # the staging group, left as it was
    with app.app_context():  # what the cleanup of an abandoned job deletes
        imports._delete_staging(get_session(), staged)
    assert counts(app) == before


@pytest.mark.skipif(not REDIS_URL, reason="needs a Redis (TEST_REDIS_URL: make test-postgres)")
def test_with_a_worker_on_the_shared_redis_the_import_runs_there(tmp_path, client, known, app):
    from redis import Redis
    from rq import Queue, SimpleWorker

    from companion.ops import jobs

    shared = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                         "CACHE_REDIS_URL": REDIS_URL, **database_config(tmp_path)})
    connection = Redis.from_url(REDIS_URL)
    queue = Queue(jobs.QUEUE, connection=connection)
    queue.empty()
    phone = shared.test_client()
    content = backup(client, known, 1)
    # No worker listening: the server runs the import itself.
    answer = restore(phone, content)
    assert finished_import(phone, answer).status_code == 303
    assert "companion.import_runner" in shared.extensions
    shared.extensions.pop("companion.import_runner")
    listening = SimpleWorker([queue], connection=connection)  # `flask worker`, elsewhere
    listening.register_birth()
    try:
        sender = shared.test_client()  # (a finished job leads only its sender to the group)
        answer = restore(sender, content)
        token = answer.headers["Location"].rsplit("/", 1)[1]
        assert job_row(shared, token).state == "waiting" and queue.count == 1
        assert "companion.import_runner" not in shared.extensions  # not run here
        with shared.app_context():  # the worker takes the job (in this process, for the test)
            SimpleWorker([queue], connection=connection).work(burst=True)
        assert job_row(shared, token).state == "done"
        assert finished_import(sender, answer).status_code == 303
    finally:
        listening.register_death()
        queue.empty()
        shared.extensions["companion.engine"].dispose()


def test_a_restore_is_read_by_its_job_not_by_the_request(app, client, known, monkeypatch):
    """A phone that knows a group restores that group's backup: the request only keeps the
    file and the groups the phone knows (reading a large file takes longer than a worker
    timeout); the job reads it, finds the group that holds its games, and adds nothing."""
    from companion.history import export_format
    from companion.ops import jobs

    started: list[int] = []
    monkeypatch.setattr(jobs, "start", started.append)  # held: the job runs below
    read: list[int] = []
    scan = export_format.scan

    def counted_scan(*args, **kwargs):
        read.append(1)
        return scan(*args, **kwargs)

    monkeypatch.setattr(imports, "scan", counted_scan)
    content = client.get(f"{known.base}/export.json").data
    client.get(f"/group/{known.token}/")  # the phone knows the group
    before = counts(app)
    answer = restore(client, content)
    assert answer.status_code == 303 and len(started) == 1 and read == []
    with app.app_context():
        job = get_session().get(ImportJob, started[0])
        assert job.state == "waiting" and job.group_id is None
        assert json.loads(job.known_groups) == [known.group_id]
        imports.run_job(get_session(), job.id)
    assert read  # the job read it
    row = job_row(app, job.token)
    assert (row.state, row.result_group_id, row.added) == ("done", known.group_id, 0)
    assert row.skipped == len(json.loads(content)["games"]) > 0 and counts(app) == before
    final = finished_import(client, answer)
    assert final.status_code == 303 and final.headers["Location"].startswith(known.base)


def _real_worker(url: str):
    """An RQ worker in a process of its own, as `flask worker` runs one (registered and beating
    on the shared Redis), to be killed with SIGKILL."""
    import subprocess
    import sys

    from redis import Redis
    from rq import Queue, Worker

    from companion.ops import jobs

    script = (f"from redis import Redis\nfrom rq import Queue, SimpleWorker\n"
              f"c = Redis.from_url({url!r})\n"
              f"SimpleWorker([Queue({jobs.QUEUE!r}, connection=c)], connection=c, "
              f"worker_ttl={jobs.WORKER_TTL}).work()\n")
    process = subprocess.Popen([sys.executable, "-c", script])
    queue = Queue(jobs.QUEUE, connection=Redis.from_url(url))
    wait_for(lambda: Worker.count(queue=queue) > 0, 60)
    return process


@pytest.mark.skipif(not REDIS_URL, reason="needs a Redis (TEST_REDIS_URL: make test-postgres)")
def test_a_worker_killed_with_sigkill_gets_no_import_and_its_queued_job_is_taken_over(
        tmp_path, client, known, monkeypatch):
    """``kill -9`` leaves the worker registered in Redis: once its heartbeat is stale the next
    import runs in the server, and the job queued to it meanwhile is taken over by the server
    its progress page asks."""
    import signal

    from redis import Redis
    from rq import Queue, Worker

    from companion.ops import jobs

    shared = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                         "CACHE_REDIS_URL": REDIS_URL, **database_config(tmp_path)})
    connection = Redis.from_url(REDIS_URL)
    queue = Queue(jobs.QUEUE, connection=connection)
    queue.empty()
    content = backup(client, known, 1)
    worker = _real_worker(REDIS_URL)
    try:
        worker.send_signal(signal.SIGSTOP)  # alive and registered, but takes nothing yet
        phone = shared.test_client()
        queued = restore(phone, content)
        token = queued.headers["Location"].rsplit("/", 1)[1]
        assert job_row(shared, token).state == "waiting"  # sent to RQ: the stopped worker's
        assert "companion.import_runner" not in shared.extensions  # pop took it; not run here
        worker.kill()  # SIGKILL: no goodbye, its registration stays in Redis
        worker.wait()
        assert Worker.count(queue=queue) > 0  # still "listening", as far as RQ can tell
        monkeypatch.setattr(jobs, "RECENT", jobs.timedelta(seconds=1))  # (45 s in service)
        monkeypatch.setattr(jobs, "TAKE_OVER", jobs.timedelta(seconds=0))
        time.sleep(1.5)
        with shared.app_context():
            assert jobs.live_workers(connection) == 0
        # The next import runs here and finishes.
        sender = shared.test_client()  # (a finished job leads only its sender to the group)
        answer = restore(sender, content)
        assert finished_import(sender, answer, 120).status_code == 303
        # The job queued to the dead worker: taken over when its page is asked, and finishes.
        assert finished_import(phone, queued, 120).status_code == 303
        assert job_row(shared, token).state == "done"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        for dead in Worker.all(queue=queue):
            dead.register_death()
        queue.empty()
        shared.extensions["companion.engine"].dispose()


def _held(monkeypatch) -> list[int]:
    """Jobs put on a server's own runner are held there, not run (the page is read meanwhile)."""
    from companion.ops import jobs

    held: list[int] = []
    monkeypatch.setattr(jobs._Runner, "put", lambda self, job_id: held.append(job_id))
    return held


def _runner_said(phone, page: str, language: str = "en") -> tuple[str, str]:
    html = phone.get(page, headers={"Accept-Language": language}).text
    found = re.search(r'data-runner="([a-z-]+)">(.*?)</p>', html, re.S)
    assert found, html
    return found.group(1), " ".join(found.group(2).split())


def test_the_progress_page_says_this_server_runs_it_without_redis(app, client, known,
                                                                  monkeypatch):
    held = _held(monkeypatch)
    answer = restore(client, backup(client, known, 1))
    page = answer.headers["Location"]
    assert held  # run by this server (held here for the test)
    assert _runner_said(client, page) == ("server", "This server runs it itself.")
    assert _runner_said(client, page, "fr") == ("server", "Ce serveur s’en occupe lui-même.")
    assert 'data-runner="server"' in client.get(f"{page}/progress").text  # the polled part


def test_the_progress_page_says_which_runs_it_worker_or_server(tmp_path, client, known,
                                                              monkeypatch):
    """Sent to a live worker (waiting for it, then run by it); that worker gone (a server will
    take it); taken over (said by every server, not only the one that took it); and no live
    worker when the file came (the server that took it runs it)."""
    if not REDIS_URL:
        pytest.skip("needs a Redis (TEST_REDIS_URL)")
    from redis import Redis
    from rq import Queue, SimpleWorker
    from rq.job import Job

    from companion.ops import jobs

    config = {"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
              "CACHE_REDIS_URL": REDIS_URL, **database_config(tmp_path)}
    shared = create_app(config)
    other = create_app(config)  # a second server on the same database and Redis
    connection = Redis.from_url(REDIS_URL)
    queue = Queue(jobs.QUEUE, connection=connection)
    held = _held(monkeypatch)
    content = backup(client, known, 1)
    listening = SimpleWorker([queue], connection=connection)  # `flask worker`, elsewhere
    listening.register_birth()
    try:
        phone = shared.test_client()
        page = restore(phone, content).headers["Location"]
        token = page.rsplit("/", 1)[1]
        assert Job.fetch(jobs.rq_id(token), connection=connection).id == jobs.rq_id(token)
        assert token not in jobs.rq_id(token)  # (RQ logs its ids: never the page's token)
        assert _runner_said(phone, page) == (
            "worker-waiting", "Sent to an import worker, which has not taken it yet.")
        assert _runner_said(phone, page, "fr")[1] == (
            "Confié à un processus d’import, qui ne l’a pas encore pris.")
        with shared.app_context():  # the worker has taken it (its first heartbeat)
            get_session().execute(update(ImportJob).where(ImportJob.token == token)
                                  .values(state="checking", heartbeat_at=datetime.now(UTC)))
            get_session().commit()
        assert _runner_said(phone, page) == ("worker", "An import worker is running it.")
        with shared.app_context():
            get_session().execute(update(ImportJob).where(ImportJob.token == token)
                                  .values(state="waiting"))
            get_session().commit()
        listening.register_death()  # (as good as a worker whose heartbeat went stale)
        assert _runner_said(phone, page)[0] == "no-worker" and not held  # within TAKE_OVER
        monkeypatch.setattr(jobs, "TAKE_OVER", jobs.timedelta(seconds=0))
        assert _runner_said(phone, page) == (
            "taken-over",
            "The import worker it was sent to stopped: a server took it over and is running it.")
        assert len(held) == 1
        assert connection.exists(jobs.rq_id(token) + ":taken-over")  # said to every server
        assert _runner_said(other.test_client(), page)[0] == "taken-over"  # any server says it
        # No live worker when the file comes: the server that took it runs it, and says so.
        queue.empty()
        again = restore(shared.test_client(), content).headers["Location"]
        assert _runner_said(phone, again) == (
            "server-no-worker",
            "No import worker is running: the server that received the file runs it itself.")
    finally:
        listening.register_death()
        queue.empty()
        for app in (shared, other):
            app.extensions["companion.engine"].dispose()


def test_two_runners_never_both_run_one_job(app, client, known, monkeypatch):
    """A job read as waiting by two runners at once (a worker back from the dead, and the server
    that took the job over): only the one whose claim changes the row runs it."""
    from sqlmodel import Session

    from companion.db import get_engine

    content = backup(client, known, 1)
    with app.app_context():
        job = imports.new_job(get_session(), raw=content, group_id=None, new_group_name="x")
        job_id = job.id
        before = counts(app)
        with Session(get_engine()) as late:
            read = late.get

            def read_then_lose_the_race(model, ident, **options):
                found = read(model, ident, **options)  # read as waiting here...
                with Session(get_engine()) as first:  # ...as the other runner starts it
                    assert imports.claim(first, job_id)
                return found

            monkeypatch.setattr(late, "get", read_then_lose_the_race)
            imports.run_job(late, job_id)
        row = get_session().get(ImportJob, job_id)
        get_session().refresh(row)
        assert row.state == "checking" and row.file is not None  # left to the other runner
    assert counts(app) == before  # nothing stored by the one that lost
    with app.app_context(), Session(get_engine()) as session:
        assert not imports.claim(session, job_id)  # claimed once only
