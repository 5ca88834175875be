"""More than one server: two gunicorn app servers (two workers each) on loopback, sharing one
PostgreSQL and one Redis (the rate-limit store), as a host that outgrew one machine runs them
behind a proxy. A phone on one server and a phone on the other are one table:

- a write on one is seen on the other's live poll at once (pages poll every second, so they
  reload within 2 s);
- the version guard holds across them: two scorers editing from the same version, one on each
  server, store one edit and the other is told;
- the rate limits are one count across them: writes split between the servers meet the 429 at
  the documented total.

Runs in ``make test-postgres`` (which starts both PostgreSQL and Redis); skipped without them.
"""

from __future__ import annotations

import http.client
import itertools
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from companion import create_app
from companion.web.security import WRITE_LIMITS, limit_figures

from ..conftest import POSTGRES_URL, REDIS_URL, empty_tables, stop_server

pytestmark = pytest.mark.skipif(
    not (POSTGRES_URL and REDIS_URL),
    reason="needs TEST_DATABASE_URL and TEST_REDIS_URL (make test-postgres starts both)")

PER_MINUTE = next(count for count, seconds in limit_figures(WRITE_LIMITS) if seconds == 60)
_ADDRESSES = (f"198.51.100.{n}" for n in itertools.count(1))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Phone:
    """One phone: its own address (as the proxy in front of both servers reports it), talking
    to one server."""

    def __init__(self, port: int, address: str) -> None:
        self.port = port
        self.address = address

    def request(self, method: str, path: str, data: dict | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"X-Forwarded-For": self.address, **(headers or {})}
            body = urllib.parse.urlencode(data) if data is not None else None
            if body is not None:
                sent["Content-Type"] = "application/x-www-form-urlencoded"
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read().decode()
        finally:
            connection.close()


def new_game(phone: Phone) -> str:
    """Start a Rebel Princess game from ``phone``; its scorer link's token. (The one place that
    knows how a game is started here.)"""
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    status, headers, _ = phone.request("POST", "/rebel-princess/new", data)
    assert status == 302, status
    return headers["Location"].rsplit("/", 1)[1]


def _numbers(scores: list[int], **extra: str) -> dict[str, str]:
    return {**{f"score_{s}": str(v) for s, v in enumerate(scores)}, "confirm": "y", **extra}


def _records(database: Engine, token: str) -> list[tuple[int, str, str | None]]:
    with database.connect() as db:
        return [tuple(row) for row in db.execute(text(
            "SELECT r.number, r.action, r.scores FROM roundrecord r JOIN gamelink k ON "
            "k.game_id = r.game_id WHERE k.token = :token ORDER BY r.id"), {"token": token})]


def _start(config: dict, log: Path) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "--no-control-socket", "-w", "2",
             "-b", f"127.0.0.1:{port}", "--log-level", "warning",
             f"companion:create_app({config!r})"],
            stdout=output, stderr=subprocess.STDOUT)
    return process, port


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """Two app servers on one PostgreSQL and one Redis, behind (as they believe) one proxy; a
    key prefix of their own in Redis, so no other run's counts are theirs."""
    folder = tmp_path_factory.mktemp("two-servers")
    config = {"DATABASE": str(folder / "unused.sqlite"), "DATABASE_URL": POSTGRES_URL,
              "SECRET_KEY": "two-servers", "TESTING": True, "WTF_CSRF_ENABLED": False,
              "RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": REDIS_URL,
              "RATELIMIT_KEY_PREFIX": f"test-{secrets.token_hex(6)}", "TRUSTED_PROXIES": 1}
    app = create_app(config)  # migrated once here (the servers would wait for each other)
    empty_tables(app)
    database = app.extensions["companion.engine"]
    started = [_start(config, folder / f"server-{n}.log") for n in (1, 2)]
    try:
        for (process, port), n in zip(started, (1, 2), strict=True):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    if Phone(port, "192.0.2.1").request("GET", "/")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            else:
                pytest.fail(f"server {n} did not start: "
                            + (folder / f"server-{n}.log").read_text()[-2000:])
        yield [port for _, port in started], database
    finally:
        for process, _ in started:
            process.terminate()  # both at once, then each waited for (and killed if need be)
        for process, _ in started:
            stop_server(process)
        database.dispose()


@pytest.fixture
def table(servers):
    """Two phones of one table (one address each), one on each server."""
    (port_a, port_b), database = servers
    return Phone(port_a, next(_ADDRESSES)), Phone(port_b, next(_ADDRESSES)), database


def test_a_write_on_one_server_is_seen_live_on_the_other(table):
    scorer, viewer, database = table
    token = new_game(scorer)
    status, headers, before = viewer.request("GET", f"/live/{token}")
    assert status == 200
    etag = headers["ETag"]
    assert viewer.request("GET", f"/live/{token}", headers={"If-None-Match": etag})[0] == 304
    assert scorer.request("POST", f"/rebel-princess/g/{token}/round/1/numbers",
                          _numbers([3, 4, 4, 4]))[0] == 302
    # The very next poll on the other server (a page polls every second) has the new version.
    status, headers, after = viewer.request("GET", f"/live/{token}",
                                            headers={"If-None-Match": etag})
    assert status == 200 and after != before and headers["ETag"] != etag
    # And the page it then loads shows the round.
    page = viewer.request("GET", f"/rebel-princess/g/{token}")[2]
    assert _records(database, token) == [(1, "entered", "3,4,4,4")]
    assert re.search(r"\b3\b", page) and "Ana" in page


def _base(phone: Phone, token: str) -> str:
    page = phone.request("GET", f"/rebel-princess/g/{token}/round/1/numbers")[2]
    field = re.search(r'<input[^>]*name="base"[^>]*>', page)[0]
    return re.search(r'value="(\d+)"', field)[1]


@pytest.mark.parametrize("trial", range(3))
def test_two_scorers_on_two_servers_from_one_version_store_one_edit(table, trial):
    """Each scorer opens round 1's edit on its own server (the same stored version), both save
    at the same moment: one edit is stored, the other scorer is told someone changed it."""
    phone_a, phone_b, database = table
    token = new_game(phone_a)
    assert phone_a.request("POST", f"/rebel-princess/g/{token}/round/1/numbers",
                           _numbers([3, 4, 4, 4]))[0] == 302
    base_a, base_b = _base(phone_a, token), _base(phone_b, token)
    assert base_a == base_b
    edits = [(phone_a, _numbers([0, 5, 5, 5], base=base_a)),
             (phone_b, _numbers([5, 0, 5, 5], base=base_b))]
    start = threading.Barrier(2)

    def save(edit: tuple[Phone, dict]) -> tuple[int, dict[str, str], str]:
        start.wait()
        return edit[0].request("POST", f"/rebel-princess/g/{token}/round/1/numbers", edit[1])

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(save, edits))
    assert sorted(status for status, _, _ in answers) == [302, 422]
    winner = edits[[status for status, _, _ in answers].index(302)][1]
    loser = next(body for status, _, body in answers if status == 422)
    assert 'data-problem="stale-edit"' in loser
    assert _records(database, token) == [
        (1, "entered", "3,4,4,4"),
        (1, "edited", ",".join(winner[f"score_{s}"] for s in range(4)))]


def test_the_rate_limit_is_one_count_across_both_servers(table):
    """Writes from one phone's address, alternating between the two servers (and so between
    four worker processes): the documented 120 a minute, in total, then 429 on either."""
    phone_a, phone_b, _ = table
    on_b = Phone(phone_b.port, phone_a.address)  # the same phone, sent to the other server
    token = new_game(phone_a)  # write 1
    statuses = [(phone_a if n % 2 else on_b).request("POST", "/rebel-princess"
                                                             f"/g/{token}/undo", {})[0]
                for n in range(PER_MINUTE - 1)]
    assert 429 not in statuses and set(statuses) == {302}
    assert phone_a.request("POST", f"/rebel-princess/g/{token}/undo", {})[0] == 429
    assert on_b.request("POST", f"/rebel-princess/g/{token}/undo", {})[0] == 429
    # Another phone at the table, behind the same proxy, has its own count.
    assert phone_b.request("POST", f"/rebel-princess/g/{token}/undo", {})[0] == 302
