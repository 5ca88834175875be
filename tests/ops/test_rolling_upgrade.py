"""The documented upgrade of a two-server install (docs/hosting.md, "Upgrade"), against the
previous releases' own code (1.1.0, 59c609a, the last one; and 584e0b5, a release from before
version numbers, at schema 0007), taken from this repository's history:

1. server A runs the previous release; a table plays on it;
2. server B is started with this release's code before the database is migrated: it serves
   nothing but health and metrics (503, pages included) and its ``/readyz`` answers 503
   naming the schema, so the
   load balancer keeps the phones on A;
3. ``flask db upgrade`` (this release) migrates while A serves; A, still the previous release,
   goes on saving on the upgraded schema (a migration keeps the previous release working);
4. B becomes ready by itself (no restart) and serves the games A stored, and A's game goes on
   on B;
5. a server of the previous release started after the migration does not serve the games: 1.1.0
   starts, refuses writes (503) and its ``/readyz`` answers 503 naming the schema, so the load
   balancer sends it nothing; 584e0b5 refuses to start (it does not know the database's
   revision) — rather than answering 500s.

On SQLite (both servers share the file; ``make test``) and on PostgreSQL (``make test-postgres``).
"""

from __future__ import annotations

import http.client
import io
import os
import secrets
import socket
import subprocess
import sys
import tarfile
import time
import urllib.parse
from pathlib import Path

import pytest

from companion.db import head
from companion.web.catalogues import compile_catalogue

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS = {"59c609a": ("/rebel-princess/g/", "0014", True), "584e0b5": ("/g/", "0007", False)}
"""Earlier releases (tests/data/make_db_<release>.py): where their game pages are, the revision
of the schema they make, and whether one started on a newer schema starts (and waits, not
ready) rather than exits."""
NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def _in_history(release: str) -> bool:
    found = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{release}^{{commit}}"],
                           capture_output=True)
    return found.returncode == 0


RELEASES = [pytest.param(release, marks=pytest.mark.skipif(
    not _in_history(release), reason=f"release {release} is not in this clone's history"))
    for release in PREVIOUS]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, code: Path, environment: dict[str, str], log: Path,
                 games: str = "/rebel-princess/g/") -> None:
        self.port = _free_port()
        self.games = games  # where its game pages are (the previous release: /g/<token>)
        self.log = log
        with log.open("wb") as output:
            self.process = subprocess.Popen(
                [str(Path(sys.executable).with_name("gunicorn")), "--no-control-socket", "-w",
                 "2", "-b", f"127.0.0.1:{self.port}", "companion:create_app()"],
                cwd=code, env={**environment, "PYTHONPATH": str(code)},
                stdout=output, stderr=subprocess.STDOUT)

    def request(self, method: str, path: str, form: dict[str, str] | None = None
                ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            body = urllib.parse.urlencode(form) if form is not None else None
            headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read().decode()
        finally:
            connection.close()

    def wait(self) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if self.request("GET", "/rules")[0] in (200, 503):  # answering (503: not ready)
                    return
            except OSError:
                time.sleep(0.2)
        pytest.fail(f"{self.log.name} did not start: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=60)


def _save(server: Server, token: str, number: int) -> int:
    scores = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])}, "confirm": "y"}
    return server.request("POST", f"{server.games}{token}/round/{number}/numbers", scores)[0]


def _new_game(server: Server) -> str:
    status, headers, _ = server.request("POST", "/rebel-princess/new", NEW_GAME)
    assert status == 302, status
    return headers["Location"].rsplit("/", 1)[1]


@pytest.fixture(params=RELEASES)
def install(request, tmp_path, second_database):
    """A previous release's code in a folder of its own, and the environment both releases'
    servers read (one database, one secret key; CSRF off as in the other server tests)."""
    old = tmp_path / request.param
    old.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", request.param,
                              "companion"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(old, filter="data")
    # Its French catalogues, as its `make install` compiled them.
    for po in old.glob("companion/translations/**/LC_MESSAGES/*.po"):
        compile_catalogue(po)
    instance = old / "instance"  # the previous release's instance folder (beside its code)
    instance.mkdir()
    (instance / "config.py").write_text("WTF_CSRF_ENABLED = False\n", encoding="utf-8")
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DATABASE_URL", "RATELIMIT_STORAGE_URI", "PYTHONPATH")}
    environment.update({"COMPANION_SECRET_KEY": secrets.token_hex(16),
                        "COMPANION_INSTANCE": str(instance)})
    if second_database["DATABASE_URL"]:
        environment["DATABASE_URL"] = second_database["DATABASE_URL"]
    # The previous release made this database (its own `flask init-db`).
    made = subprocess.run([str(Path(sys.executable).with_name("flask")), "--app", "companion",
                           "init-db"], cwd=old, env={**environment, "PYTHONPATH": str(old)},
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    return old, environment, PREVIOUS[request.param]


def test_the_documented_upgrade_of_two_servers(install, tmp_path):
    old, environment, (games, revision, late_starts) = install
    running: list[Server] = []
    try:
        a = Server(old, environment, tmp_path / "a.log", games=games)  # 1. the previous release
        running.append(a)
        a.wait()
        token = _new_game(a)
        assert _save(a, token, 1) == 302

        b = Server(ROOT, environment, tmp_path / "b.log")  # 2. this release, not migrated
        running.append(b)
        b.wait()
        status, _, body = b.request("GET", "/readyz")
        assert status == 503 and body.startswith("schema: ") and "flask db upgrade" in body
        # Its pages wait too: they read tables and columns the old schema does not have yet.
        assert b.request("GET", f"/rebel-princess/g/{token}")[0] == 503
        status, _, page = b.request("POST", "/rebel-princess/new", NEW_GAME)
        assert status == 503 and 'data-error="503"' in page  # a write refused, not a 500
        assert f"schema: the database is at revision {revision}" in b.log.read_text()

        migrated = subprocess.run(  # 3. the one step that migrates, while A serves
            [str(Path(sys.executable).with_name("flask")), "--app", "companion", "db",
             "upgrade"], cwd=ROOT, env={**environment, "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True)
        assert migrated.returncode == 0, migrated.stderr
        assert _save(a, token, 2) == 302  # the previous release saves on the new schema
        second = _new_game(a)
        assert a.request("GET", f"{games}{second}")[0] == 200

        deadline = time.monotonic() + 30  # 4. B ready by itself
        while b.request("GET", "/readyz")[0] != 200:
            assert time.monotonic() < deadline, b.request("GET", "/readyz")
            time.sleep(0.5)
        assert _save(b, token, 3) == 302
        assert _save(b, second, 1) == 302
        status, _, page = b.request("GET", f"/rebel-princess/g/{token}")
        assert status == 200 and "Ana" in page
        assert _save(a, token, 4) == 302  # and A, until it is upgraded in its turn

        # 5. the previous release, started after the migration: it serves no game
        late = Server(old, environment, tmp_path / "late.log", games=games)
        running.append(late)
        if late_starts:
            late.wait()
            status, _, body = late.request("GET", "/readyz")
            assert status == 503 and head() in body  # (the revision it does not know)
            assert late.request("POST", f"{games}{token}/round/5/numbers", {})[0] == 503
            assert late.process.poll() is None
        else:
            assert late.process.wait(timeout=90) != 0
        assert head() in late.log.read_text()
    finally:
        for server in running:
            server.stop()
