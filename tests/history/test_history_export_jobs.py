"""A group's export as a job (issue 36, item 4): a tap on Export starts (or finds) a job that
writes the file, a progress page hands it over; the file holds the same bytes as the export made
in one piece; the job's pages open only through the group link it was started through; files
expire; the export limit counts the tap and the download; nothing stored changes."""

from __future__ import annotations

import gzip
import json
import logging
import os
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

from companion import create_app
from companion.db import get_session
from companion.models import Group
from companion.ops import jobs
from companion.play import export, groups, people, summaries
from companion.play.export_jobs import KEEP, STALE
from companion.routes import exports
from companion.web import security

from ..conftest import REDIS_URL, database_config, dispose, empty_tables
from .conftest import store_known_games
from .test_history_export_stream import in_one_piece
from .test_history_page_cost import copy_games


def written(app, timeout: float = 60) -> None:
    """Wait until this process's export runner has written every job put to it."""
    runner = app.extensions.get("companion.export_runner")
    assert runner is None or runner.idle(timeout)


def via_job(app, client, path: str, **kw):
    """The answer to a tap on ``path`` once its job has written the file: the job page's
    address and the download's answer (asked as a browser does, accepting compression)."""
    kw.setdefault("headers", {"Accept-Encoding": "gzip, deflate, br, zstd"})
    tap = client.get(path, **kw)
    assert tap.status_code == 303, tap.status_code
    page = tap.headers["Location"]
    written(app)
    shown = client.get(page)
    assert shown.status_code == 200 and 'data-action="download"' in shown.text
    answer = client.get(page + "/file", headers=kw["headers"])
    answer.get_data()  # read whole, then let the file go (as a server does)
    answer.close()
    return page, answer


@pytest.fixture(autouse=True)
def _every_job_written(app):
    """No export job outlives its test (its thread would read the next test's tables)."""
    yield
    written(app)


@pytest.fixture
def big(app, known):
    """The known group with 3 more copies of its games (24 finished: past IMMEDIATE)."""
    copy_games(app, known.group_id, 3)
    return known


def test_a_small_group_gets_its_export_at_once(app, client, known):
    with app.app_context():
        assert summaries.count_finished(get_session(), known.group_id) <= exports.IMMEDIATE
    answer = client.get(f"{known.base}/export.json")
    assert answer.status_code == 200
    assert answer.get_data(as_text=True) == in_one_piece(app, known.group_id)
    assert not Path(app.config["EXPORT_DIR"]).exists()  # no job, no file


def test_a_larger_group_gets_a_job_whose_file_is_the_export(app, client, big, monkeypatch):
    monkeypatch.setattr(export, "CHUNK", 4)
    page, answer = via_job(app, client, f"{big.base}/export.json")
    assert page.startswith(f"{big.base}/export/")
    assert answer.status_code == 200 and answer.mimetype == "application/octet-stream"
    assert "Content-Encoding" not in answer.headers  # (sent as written: no CPU to pack it)
    assert answer.headers["Content-Disposition"].startswith("attachment;")
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.get_data(as_text=True) == in_one_piece(app, big.group_id)
    assert len(json.loads(answer.data)["games"]) == 24


def test_the_packed_job_is_the_packed_stream(app, client, big, monkeypatch):
    """The job's .json.gz is byte for byte what the stream sends (the same compressor), and
    unpacks to the export."""
    monkeypatch.setattr(export, "CHUNK", 4)
    _, answer = via_job(app, client, f"{big.base}/export.json.gz")
    assert answer.mimetype == "application/gzip"
    assert gzip.decompress(answer.data).decode() == in_one_piece(app, big.group_id)
    monkeypatch.setattr(exports, "IMMEDIATE", 1000)  # the same group, sent at once
    assert client.get(f"{big.base}/export.json.gz").data == answer.data


def test_the_csv_job_writes_the_phones_times(app, client, big):
    client.set_cookie("tz", "Europe/Paris")
    _, answer = via_job(app, client, f"{big.base}/export.csv")
    with app.app_context():
        session = get_session()
        _, found = summaries.records(session, group_id=big.group_id)
        from zoneinfo import ZoneInfo
        whole = export.export_csv(found, people.names_by_id(session, big.group_id),
                                  ZoneInfo("Europe/Paris"))
    assert answer.get_data(as_text=True) == whole
    assert "+01:00" in whole or "+02:00" in whole


def test_a_second_tap_finds_the_first_job_until_the_group_changes(app, client, big):
    first = client.get(f"{big.base}/export.json").headers["Location"]
    assert client.get(f"{big.base}/export.json").headers["Location"] == first  # running
    written(app)
    assert client.get(f"{big.base}/export.json").headers["Location"] == first  # done
    other = client.get(f"{big.base}/export.csv").headers["Location"]
    assert other != first  # another format, another job
    written(app)
    with app.app_context():  # a rename changes the export: a new job
        session = get_session()
        people.rename(session=session, group_id=big.group_id, person_id=big.person["Ana"],
                      name="Anna")
        session.commit()
    again = client.get(f"{big.base}/export.json").headers["Location"]
    assert again != first
    written(app)
    _, answer = via_job(app, client, f"{big.base}/export.json")
    assert "Anna" in answer.get_data(as_text=True)


def test_the_progress_page_shows_a_bar_then_the_download(app, client, big, monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(jobs, "start_export", started.append)  # held: not written yet
    page = client.get(f"{big.base}/export.json").headers["Location"]
    waiting = client.get(page)
    assert waiting.status_code == 200 and "<progress" in waiting.text
    assert 'http-equiv="refresh"' in waiting.text  # (without JS: the page reloads itself)
    assert 'data-action="download"' not in waiting.text
    bar = client.get(page + "/progress")
    assert bar.status_code == 200 and 'hx-get="' in bar.text and "HX-Refresh" not in bar.headers
    assert client.get(page + "/file").status_code == 303  # nothing to send yet
    jobs.run_export(app, started[0])
    bar = client.get(page + "/progress")
    assert bar.headers["HX-Refresh"] == "true" and 'data-action="download"' in bar.text
    done = client.get(page)
    assert 'data-state="done"' in done.text and 'http-equiv="refresh"' not in done.text
    assert 'data-total="24"' in done.text


def test_a_job_opens_only_through_the_link_it_was_started_through(app, client, big):
    page, answer = via_job(app, client, f"{big.base}/export.json")
    job = page.rsplit("/", 1)[1]
    near = job[:-1] + ("1" if job.endswith("0") else "0")  # one digit off
    with app.app_context():
        session = get_session()
        other = groups.new_group(session, name="Others")
        session.commit()
        other_token = other.token
        group = session.get(Group, big.group_id)
        assert group is not None
        old_token = group.token
    # another group's link does not open it, nor does a job token of another shape
    for path in (f"/group/{other_token}/history/export/{job}",
                 f"/group/{other_token}/history/export/{job}/file",
                 f"/group/{other_token}/history/export/{job}/progress",
                 f"{big.base}/export/{near}", f"{big.base}/export/{near}/file",
                 f"{big.base}/export/{job.upper()}", f"{big.base}/export/..%2F{job}",
                 f"{big.base}/export/{job}.json", f"{big.base}/export/latest-{job}"):
        assert client.get(path).status_code == 404, path
    # the group's link replaced: the old one is a closed door, the new one finds no old job
    with app.app_context():
        session = get_session()
        group = session.get(Group, big.group_id)
        groups.replace_links(session=session, group=group)
        new_token = group.token
    assert client.get(f"/group/{old_token}/history/export/{job}/file").status_code in (404, 410)
    assert client.get(f"/group/{new_token}/history/export/{job}").status_code == 404
    assert client.get(f"/group/{new_token}/history/export/{job}/file").status_code == 404
    assert answer.status_code == 200  # (it was served while the link was live)


def test_no_token_is_written_in_the_logs_or_file_names(app, client, big, caplog):
    caplog.set_level(logging.INFO, logger="companion.access")
    page, _ = via_job(app, client, f"{big.base}/export.json")
    client.get(page + "/progress")
    job = page.rsplit("/", 1)[1]
    with app.app_context():
        group = get_session().get(Group, big.group_id)
        token = group.token
    lines = [record.getMessage() for record in caplog.records]
    assert lines and all(token not in line and job not in line for line in lines)
    names = os.listdir(app.config["EXPORT_DIR"])
    assert all(token not in name for name in names)
    folder = Path(app.config["EXPORT_DIR"])  # the folder and its files: this user's only
    assert all(path.stat().st_mode & 0o077 == 0 for path in (folder, *folder.iterdir()))
    note = next(Path(app.config["EXPORT_DIR"]).glob("*.note")).read_text()
    assert token not in note


def test_a_stopped_job_says_so_and_a_tap_starts_another(app, client, big, monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(jobs, "start_export", started.append)
    page = client.get(f"{big.base}/export.json").headers["Location"]
    folder = jobs.export_folder(app)
    job = folder.load(started[0])
    job.state, job.beat = "writing", time.time() - STALE - 1  # its process died mid-way
    folder.save(job)
    shown = client.get(page)
    assert 'data-action="again"' in shown.text and 'http-equiv="refresh"' not in shown.text
    assert client.get(page + "/progress").headers["HX-Refresh"] == "true"
    assert client.get(f"{big.base}/export.json").headers["Location"] != page


def test_files_expire_after_an_hour(app, client, big):
    page, _ = via_job(app, client, f"{big.base}/export.json")
    folder = Path(app.config["EXPORT_DIR"])
    assert jobs.sweep_exports(app) == 0  # fresh: kept
    old = time.time() - KEEP - 1
    for entry in folder.iterdir():
        os.utime(entry, (old, old))
    assert jobs.sweep_exports(app) == 3  # the note, the file, the newest-job pointer
    assert list(folder.iterdir()) == []
    assert client.get(page + "/file").status_code == 404
    assert client.get(f"{big.base}/export.json").headers["Location"] != page  # a new job


def test_a_full_folder_refuses_new_jobs(app, client, big):
    app.config["EXPORT_DIR_MAX_BYTES"] = 0
    via_job(app, client, f"{big.base}/export.json")  # (the folder was empty)
    refused = client.get(f"{big.base}/export.csv")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert client.get(f"{big.base}/export.json").status_code == 303  # the one made: found


def _stored(app) -> dict[str, list]:
    with app.extensions["companion.engine"].connect() as connection:
        return {name: sorted(map(repr, connection.execute(text(f'SELECT * FROM "{name}"'))))
                for name in SQLModel.metadata.tables}


def test_an_export_job_changes_nothing_stored(app, client, big):
    before = _stored(app)
    for path in ("export.json", "export.json.gz", "export.csv"):
        page, _ = via_job(app, client, f"{big.base}/{path}")
        client.get(page + "/progress")
    assert _stored(app) == before


# --- the limit per link ---------------------------------------------------------------------

@pytest.fixture
def limited(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": True, **database_config(tmp_path)})
    empty_tables(app)
    with app.app_context():
        session = get_session()
        codes = store_known_games(session)
        from companion.play import store
        group_id = store.get_game(session, codes["rp1"]).group_id
        other = store_known_games(session, groups.new_group(session, name="Two").id)
        other_group = store.get_game(session, other["rp1"]).group_id
        tokens = [session.get(Group, group_id).token, session.get(Group, other_group).token]
    copy_games(app, group_id, 3)
    yield app, tokens
    written(app)
    dispose(app)


@pytest.fixture
def three_a_minute(monkeypatch):
    monkeypatch.setattr(security, "EXPORT_LIMIT", "3 per minute")


def test_starting_a_job_and_downloading_count_as_exports(three_a_minute, limited):
    app, (token, other) = limited
    client = app.test_client()
    page, answer = via_job(app, client, f"/group/{token}/history/export.json")  # 1 and 2
    for _ in range(5):  # the progress page and its bar are not counted
        assert client.get(page + "/progress").status_code == 200
        assert client.get(page).status_code == 200
    assert client.get(f"/group/{token}/history/export.json").status_code == 303  # 3
    refused = client.get(page + "/file", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert client.get(f"/group/{token}/history/export.csv").status_code == 429
    # another group's link counts on its own
    # (read whole, as a phone does: a streamed export left unread would hold its database
    # connection until collected, after this test's engine is gone)
    answer = client.get(f"/group/{other}/history/export.json")
    assert answer.status_code == 200 and answer.data


@pytest.mark.skipif(not REDIS_URL, reason="needs a Redis (TEST_REDIS_URL: make test-postgres)")
def test_with_a_worker_on_the_shared_redis_the_export_is_written_there(tmp_path, app, big):
    from redis import Redis
    from rq import Queue, SimpleWorker

    shared = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                         "CACHE_REDIS_URL": REDIS_URL, "DATABASE": app.config["DATABASE"],
                         "DATABASE_URL": app.config.get("DATABASE_URL")})
    connection = Redis.from_url(REDIS_URL)
    queue = Queue(jobs.QUEUE, connection=connection)
    queue.empty()
    listening = SimpleWorker([queue], connection=connection)  # `flask worker`, elsewhere
    listening.register_birth()
    phone = shared.test_client()
    try:
        page = phone.get(f"{big.base}/export.json").headers["Location"]
        assert queue.count == 1 and "companion.export_runner" not in shared.extensions
        token = page.rsplit("/", 1)[1]
        assert all(token not in (job.description or "") for job in queue.jobs)  # (RQ logs it)
        assert 'data-state="waiting"' in phone.get(page).text
        with shared.app_context():  # the worker takes the job (in this process, for the test)
            SimpleWorker([queue], connection=connection).work(burst=True)
        answer = phone.get(page + "/file")
        assert answer.get_data(as_text=True) == in_one_piece(app, big.group_id)
        answer.close()
    finally:
        listening.register_death()
        queue.empty()
        shared.extensions["companion.engine"].dispose()
