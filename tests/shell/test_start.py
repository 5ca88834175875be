"""A safe start: ``gunicorn 'companion:create_app()'`` alone, with several workers on a database
nobody has created yet, serves its first requests — the workers migrate one at a time (a lock
on the database), not all at once — and a secret key made on first start is the same for every
worker.
"""

from __future__ import annotations

import http.client
import multiprocessing
import socket
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from companion.db import database_url
from companion.factory import _secret_key

from ..conftest import POSTGRES_URL, stop_server

WORKERS = 4
BACKENDS = ["sqlite", *(["postgres"] if POSTGRES_URL else [])]
NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, method: str, path: str, data: dict | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        body = urllib.parse.urlencode(data) if data else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if data else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _drop_everything(url: str) -> None:
    """A PostgreSQL database as nobody has used it yet: no table, no migration recorded."""
    engine = create_engine(database_url(url))
    try:
        with engine.begin() as connection:
            for table in inspect(connection).get_table_names():
                connection.execute(text(f'DROP TABLE IF EXISTS "{table}" CASCADE'))
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("trial", range(4))
def test_gunicorn_started_alone_on_a_new_database_serves_its_first_requests(
        tmp_path, backend, trial):
    url = POSTGRES_URL if backend == "postgres" else None
    if url:
        _drop_everything(url)
    config = {"DATABASE": str(tmp_path / "fresh.sqlite"), "DATABASE_URL": url,
              "SECRET_KEY": "start", "WTF_CSRF_ENABLED": False, "TESTING": True}
    port = _free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "--no-control-socket", "-w",
             str(WORKERS), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
             f"companion:create_app({config!r})"],
            stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        first = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                first = _request(port, "GET", "/")
                break
            except OSError:
                time.sleep(0.05)
        assert first == 200, log.read_text()[-3000:]
        # At once, as a table does when the server comes up: every worker answers.
        requests = [("GET", "/", None), ("GET", "/new", None),
                    ("POST", "/rebel-princess/new", NEW_GAME)] * 4
        with ThreadPoolExecutor(len(requests)) as pool:
            statuses = list(pool.map(lambda r: _request(port, *r), requests))
        assert statuses == [200, 200, 302] * 4, log.read_text()[-3000:]
        assert process.poll() is None, log.read_text()[-3000:]  # no worker failed to boot
        assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
    finally:
        stop_server(process)


def _read_key(folder: str, start: float) -> str:
    time.sleep(max(0.0, start - time.time()))
    return _secret_key(Path(folder))


def test_workers_making_the_secret_key_at_once_all_read_the_same_whole_key(tmp_path):
    start = time.time() + 0.5
    context = multiprocessing.get_context("fork")
    with context.Pool(8) as pool:
        keys = pool.starmap(_read_key, [(str(tmp_path), start)] * 8)
    assert len(set(keys)) == 1 and len(keys[0]) == 64
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret_key"]  # no draft left behind
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
