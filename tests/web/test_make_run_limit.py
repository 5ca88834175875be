"""The stated new-games limit holds on the server `make run` starts (issue 39): the app as
:mod:`companion.ops.serve` serves it — the database upgraded first, then gunicorn as it starts it,
CSRF on, no shared store named — takes 30 new games an hour from one address, and the 31st is
refused with 429 (two worker processes, each counting its own, once let 60 through)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from companion.web.security import CREATE_LIMIT, limit_figures

NEW_GAMES = limit_figures(CREATE_LIMIT)[0][0]
TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|'
                   r'name="csrf_token" value="([^"]+)"')


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # the 302 itself is the answer looked at
        return None


@pytest.fixture
def make_run(tmp_path):
    """`make run`'s two steps with a fresh instance folder: ``flask db upgrade``, then
    ``python -m companion.ops.serve`` (loopback, a free port); yields the port, then stops it."""
    env = {**os.environ, "COMPANION_INSTANCE": str(tmp_path / "instance")}
    for name in ("DATABASE_URL", "RATELIMIT_STORAGE_URI", "CACHE_REDIS_URL"):
        env.pop(name, None)
    flask = Path(sys.executable).with_name("flask")
    subprocess.run([str(flask), "--app", "companion", "db", "upgrade"], env=env, check=True,
                   capture_output=True, timeout=120)
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "companion.ops.serve", "--host", "127.0.0.1",
                                "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("the server did not start")
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_31st_new_game_is_refused_on_the_server_make_run_starts(make_run):
    base = f"http://127.0.0.1:{make_run}"
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect())
    form = opener.open(f"{base}/rebel-princess/new", timeout=30).read().decode()
    found = TOKEN.search(form)
    assert found, "no CSRF token on the set-up page"
    token = found.group(1) or found.group(2)
    data = urllib.parse.urlencode({
        "csrf_token": token, "edition": "deluxe", "length": "5", "first_leader": "0",
        "create": "1", "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
        **{f"cards-{i}": c for i, c in enumerate("abcde")}}).encode()
    statuses = []
    for _ in range(NEW_GAMES + 1):
        try:
            statuses.append(opener.open(f"{base}/rebel-princess/new", data, timeout=30).status)
        except urllib.error.HTTPError as answer:
            statuses.append(answer.code)
    assert statuses[:NEW_GAMES] == [302] * NEW_GAMES
    assert statuses[NEW_GAMES] == 429
