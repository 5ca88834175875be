"""The duel's identical taps under many server processes: eight copies of one pick sent at the
same moment to gunicorn with eight workers are all answered like the first (303) and stored once;
the database's unique key decides, not the timing (SQLite, and PostgreSQL in ``make
test-postgres``)."""

from __future__ import annotations

import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from . import test_concurrency as race


@pytest.fixture(scope="module", params=race.BACKENDS)
def server(request, tmp_path_factory):
    """gunicorn with eight sync workers (see :func:`test_concurrency.gunicorn`)."""
    yield from race.gunicorn(request.param, tmp_path_factory.mktemp("taps"), 8)


@pytest.mark.parametrize("trial", range(5))
def test_identical_picks_at_once_are_all_answered_like_the_first(server, trial):
    port, database = server
    status, seat1, cookie = race._browser_request(port, "/kanai-duel/new", {
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert status == 303
    path = urllib.parse.urlsplit(seat1).path
    before = len(race._entries(database, "pick"))
    start = threading.Barrier(8)

    def tap(_: int) -> int:
        start.wait()
        return race._browser_request(port, f"{path}/pick",
                                     {"card": "spy", "version": "1", "round": "1"}, cookie)[0]

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(tap, range(8)))
    assert answers == [303] * 8, answers
    assert len(race._entries(database, "pick")) == before + 1
