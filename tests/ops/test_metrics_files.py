"""The counts of gunicorn's workers in ``PROMETHEUS_MULTIPROC_DIR`` (companion.web.metrics): each
process writes its own file, told its id by :func:`companion.web.metrics.this_process` (kept,
read again in a child at the fork) rather than by ``os.getpid()`` at every count; every count is
written as it is made, so ``/metrics`` is exact at any time and a worker that exits — or is
killed — loses none.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, values
from prometheus_client.multiprocess import MultiProcessCollector

from companion.web import metrics

from ..conftest import stop_server

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


def _total(folder: Path, name: str) -> float:
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    return sum(sample.value for family in registry.collect() for sample in family.samples
               if sample.name == name)


@pytest.mark.parametrize("ending", ["exit", "killed"])
def test_a_forked_child_counts_in_its_own_file_and_loses_nothing(tmp_path, monkeypatch, ending):
    """A parent counts, forks, the child counts and ends (exits, or is killed at once): every
    count is in the files, the child's under its own id — with the id kept rather than asked,
    a child that went on with its parent's would write over the parent's counts."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setattr(values, "ValueClass", metrics.counted_in_files())
    counter = Counter("forked_things", "Things counted.", registry=None)
    counter.inc(3)
    assert metrics.this_process() == os.getpid()
    child = os.fork()
    if child == 0:  # (the child: count, then end without running the parent's test any further)
        try:
            counter.inc(2)
            if metrics.this_process() != os.getpid():
                os._exit(3)
            if ending == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(0)
    _, status = os.waitpid(child, 0)
    assert (os.WIFSIGNALED(status) if ending == "killed" else os.WEXITSTATUS(status) == 0)
    counter.inc(1)
    assert metrics.this_process() == os.getpid()
    assert _total(tmp_path, "forked_things_total") == 6
    assert {p.name for p in tmp_path.iterdir()} == {f"counter_{os.getpid()}.db",
                                                     f"counter_{child}.db"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()


def _healthz(text: str) -> float:
    found = re.search(r'^companion_requests_total\{method="GET",route="/healthz",status="200"\}'
                      r" (\S+)$", text, re.M)
    return float(found[1]) if found else 0.0


def _workers(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(pid) for pid in children.read_text().split()}


def _wait(condition, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_metrics_under_gunicorn_sum_every_workers_counts_exactly_through_exits(tmp_path):
    """Two workers with the shipped settings: ``/metrics`` counts every request answered, at
    once, whichever worker answers; the workers replaced by a reload (HUP: they exit when done)
    and one killed outright (SIGKILL, as gunicorn kills a worker past its timeout) take none of
    their counts with them."""
    config = {"DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": "metrics", "TESTING": True}
    port = _free_port()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
           "WEB_CONCURRENCY": "2"}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(CONF), "--bind", f"127.0.0.1:{port}",
         "--log-level", "warning", f"companion:create_app({config!r})"],
        env=env, start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        def up() -> bool:
            try:
                return _get(port, "/healthz")[0] == 200
            except OSError:
                assert server.poll() is None, "gunicorn stopped"
                return False

        _wait(up, "no answer")
        _wait(lambda: len(_workers(server.pid)) == 2, "two workers")
        asked = 1
        for _ in range(40):
            assert _get(port, "/healthz")[0] == 200
            asked += 1
            assert _healthz(_get(port, "/metrics")[1]) == asked  # (exact at once)
        first = _workers(server.pid)
        os.kill(server.pid, signal.SIGHUP)  # a reload: new workers, the old ones exit
        _wait(lambda: len(_workers(server.pid)) == 2 and not _workers(server.pid) & first,
              "the workers replaced")
        assert _healthz(_get(port, "/metrics")[1]) == asked
        for _ in range(20):
            assert _get(port, "/healthz")[0] == 200
            asked += 1
        killed = sorted(_workers(server.pid))[0]
        os.kill(killed, signal.SIGKILL)
        _wait(lambda: killed not in _workers(server.pid) and len(_workers(server.pid)) == 2,
              "the killed worker replaced")
        assert _healthz(_get(port, "/metrics")[1]) == asked
        counted = {p.name for p in (tmp_path / "metrics").iterdir()
                   if p.name.startswith("counter_")}
        assert len(counted) >= 3  # (the first two workers' files, and the ones after them)
    finally:
        stop_server(server)
