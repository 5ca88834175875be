"""The shipped gunicorn settings (deploy/gunicorn.conf.py): each worker, once it has loaded the
app, freezes what loading made (``gc.freeze``), so that a full collection of the garbage
collector walks only what the worker made since — a pause of about 100 ms with the app's
objects, about 2 ms without them (issue 36) — and its young collections run after each answer,
not during the request. The app is still loaded by each worker (no ``preload_app``): a reload
(HUP) must start workers with the new code.
"""

from __future__ import annotations

import gc
import os
import runpy
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


@pytest.fixture
def settings(tmp_path, monkeypatch) -> dict[str, object]:
    """The file's names, read as gunicorn reads it (its metrics folder in tmp_path); gunicorn's
    ``http_date``, which a worker's start replaces, put back after the test."""
    from gunicorn import util

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    monkeypatch.setattr(util, "http_date", util.http_date)
    return runpy.run_path(str(CONF))


def _worker() -> SimpleNamespace:
    """What ``post_worker_init`` is given: a worker, with its settings (gunicorn's defaults)."""
    from gunicorn.config import Config

    return SimpleNamespace(cfg=Config())


class Loaded:
    """An object made while the app loads (as a module's or the engine's)."""


def test_a_worker_freezes_what_loading_the_app_made(settings):
    from gunicorn.config import Config

    Config().set("post_worker_init", settings["post_worker_init"])  # a hook gunicorn accepts
    loaded = Loaded()
    garbage = [Loaded()]
    garbage.append(garbage)  # a cycle: only a collection frees it
    del garbage
    threshold = gc.get_threshold()  # (the hook sets the worker's: this process's put back)
    try:
        settings["post_worker_init"](_worker())
        assert gc.get_freeze_count() > 0
        assert not any(o is loaded for o in gc.get_objects())  # out of the collector's reach
        assert not any(isinstance(o, Loaded) for o in gc.get_objects(generation=2))
        assert sum(isinstance(o, Loaded) for o in _frozen()) == 1  # the cycle was collected
        made_after = Loaded()
        assert any(o is made_after for o in gc.get_objects())  # what comes after is collected
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _frozen() -> list[object]:
    """The objects gc.freeze moved out (gc.get_objects does not list them)."""
    before = {id(o) for o in gc.get_objects()}
    gc.unfreeze()
    try:
        return [o for o in gc.get_objects() if id(o) not in before]
    finally:
        gc.freeze()


def test_a_worker_collects_between_requests_where_python_would_have_during_one(settings):
    from gunicorn.config import Config

    Config().set("post_request", settings["post_request"])  # a hook gunicorn accepts
    threshold = gc.get_threshold()
    collected: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["generation"])

    try:
        settings["post_worker_init"](_worker())
        young = settings["YOUNG"]
        assert gc.get_threshold() == (settings["IN_REQUEST"], *threshold[1:])
        assert settings["IN_REQUEST"] > 10 * young
        gc.callbacks.append(note)
        kept = [[] for _ in range(young * 3)]  # a request that makes thrice Python's threshold
        garbage = [Loaded()]
        garbage.append(garbage)
        del garbage
        assert collected == []  # none during it
        settings["post_request"](object(), object(), {}, object())
        assert collected == [0]  # one, after it: the young generation, as Python would
        assert gc.get_count()[0] < young
        assert not any(isinstance(o, Loaded) for o in gc.get_objects())  # the cycle freed
        settings["post_request"](object(), object(), {}, object())
        assert collected == [0]  # nothing made since: nothing to collect
        gc.collect(0)
        for _ in range(threshold[1]):  # Python's count of young collections passed: the next
            gc.collect(0)              # one takes the middle generation with it
        kept += [[] for _ in range(young * 2)]
        seen = len(collected)
        settings["post_request"](object(), object(), {}, object())
        assert collected[seen:] == [1]
        del kept
    finally:
        if note in gc.callbacks:
            gc.callbacks.remove(note)
        gc.set_threshold(*threshold)
        gc.unfreeze()


def test_the_app_is_loaded_by_each_worker_not_the_master(settings):
    assert not settings.get("preload_app", False)


def test_what_workers_write_at_every_request_is_kept_in_memory(settings, tmp_path, monkeypatch):
    """The workers' heartbeat files and the metrics' counts: in the unit's runtime folder (a
    tmpfs), else the user's, else /dev/shm — never on the disk where a busy journal makes a
    worker's mark before each request wait (gunicorn's note on ``worker_tmp_dir``)."""
    in_memory = settings["in_memory"]
    run, user = tmp_path / "run", tmp_path / "user"
    run.mkdir()
    user.mkdir()
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    assert in_memory({"RUNTIME_DIRECTORY": str(run), "XDG_RUNTIME_DIR": str(user)}) == str(run)
    assert in_memory({"RUNTIME_DIRECTORY": f"{run}:{user}"}) == str(run)  # (systemd's list)
    assert in_memory({"XDG_RUNTIME_DIR": str(user)}) == str(user)
    assert in_memory({"RUNTIME_DIRECTORY": str(tmp_path / "gone"),
                      "XDG_RUNTIME_DIR": str(user)}) == str(user)  # (a folder that is not)
    assert in_memory({}) == shm
    assert settings["worker_tmp_dir"] == in_memory(os.environ)
    # As gunicorn reads the file under the unit: the heartbeat and the counts in its folder.
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(run))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    monkeypatch.delenv("COMPANION_BIND", raising=False)
    under_unit = runpy.run_path(str(CONF))
    assert under_unit["worker_tmp_dir"] == str(run)
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(run / "companion-metrics-8000")


APP = '''
import gc

def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(gc.get_freeze_count()).encode()]
'''


COLLECTING_APP = '''
import gc

collections = []
gc.callbacks.append(lambda phase, info: collections.append(info["generation"])
                    if phase == "stop" else None)
kept = []

def app(environ, start_response):
    before = len(collections)
    kept.extend([] for _ in range(3000))  # past Python's own threshold, four times
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [f"{before} {len(collections) - before}".encode()]
'''


def test_a_worker_of_the_shipped_settings_collects_after_its_answers(tmp_path):
    """Requests that each make 3,000 objects: no collection runs while one is answered (Python's
    thresholds alone would run four), one runs after each."""
    answers = _served(tmp_path, COLLECTING_APP, "collecting_app", 3)
    inside = [int(a.split()[1]) for a in answers]
    before = [int(a.split()[0]) for a in answers]
    assert inside == [0, 0, 0]
    assert before[2] - before[1] == 1 and before[1] - before[0] == 1


def _served(tmp_path, source: str, name: str, requests: int) -> list[str]:
    """The answers of a worker of the shipped settings serving ``source`` to ``requests``
    GETs, one after another."""
    (tmp_path / f"{name}.py").write_text(source)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
           "WEB_CONCURRENCY": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(CONF), "--bind", f"127.0.0.1:{port}",
         "--pythonpath", str(tmp_path), f"{name}:app"], env=env, start_new_session=True)
    answers: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while len(answers) < requests:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    answers.append(answer.read().decode())
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no answer"
                time.sleep(0.2)
        return answers
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_worker_of_the_shipped_settings_serves_with_the_app_frozen(tmp_path):
    (tmp_path / "frozen_app.py").write_text(APP)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
           "WEB_CONCURRENCY": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(CONF), "--bind", f"127.0.0.1:{port}",
         "--pythonpath", str(tmp_path), "frozen_app:app"], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    frozen = int(answer.read())
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no answer"
                time.sleep(0.2)
        assert frozen > 1000  # the worker's imports (gunicorn's own, at least)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_worker_reads_its_settings_as_gunicorn_gives_them_without_looking_them_up(
        settings, monkeypatch):
    """Every setting reads as gunicorn's own lookup gives it (the shipped file's values set
    as gunicorn sets them, the rest its defaults), and none goes through that lookup once the
    worker has started."""
    from gunicorn.config import Config

    cfg = Config()
    for name, value in settings.items():
        if name in cfg.settings and not name.startswith("_"):
            cfg.set(name, value)
    cfg.set("forwarded_allow_ips", "127.0.0.1,::1,10.0.0.0/8")
    expected = {name: getattr(cfg, name) for name in cfg.settings}
    assert expected["timeout"] == 180 and expected["post_request"] is settings["post_request"]
    networks_before = cfg.forwarded_allow_networks()
    assert settings["settled"](cfg) is cfg

    def looked_up(self, name):
        raise AssertionError(f"{name} looked up")

    monkeypatch.setattr(Config, "__getattr__", looked_up)
    for name, value in expected.items():
        if isinstance(getattr(Config, name, None), property):
            continue  # (the class's own: gunicorn reads them as it did)
        assert getattr(cfg, name) == value, name
    assert cfg.forwarded_allow_ips == ["127.0.0.1", "::1", "10.0.0.0/8"]
    assert cfg.forwarded_allow_networks() == networks_before
    assert not cfg.is_ssl and cfg.secure_scheme_headers["X-FORWARDED-PROTO"] == "https"


def test_a_gunicorn_that_reads_its_settings_or_dates_otherwise_is_left_as_it_is(settings,
                                                                                monkeypatch):
    """The two shortcuts of a worker's start step aside, rather than stop the worker, on a
    gunicorn without what they rely on (a ``settings`` table of objects with ``get``,
    ``util.http_date``)."""
    from gunicorn import util

    bare = SimpleNamespace(timeout=30)
    assert settings["settled"](bare) is bare and vars(bare) == {"timeout": 30}
    odd = SimpleNamespace(settings={"timeout": 30})  # (values, not settings with ``get``)
    assert settings["settled"](odd) is odd and vars(odd) == {"settings": {"timeout": 30}}
    monkeypatch.delattr(util, "http_date")
    settings["dated_once_a_second"]()
    assert not hasattr(util, "http_date")


def test_a_workers_date_is_gunicorns_made_once_a_second(settings, monkeypatch):
    from gunicorn import util

    own = util.http_date
    settings["dated_once_a_second"]()
    dated = util.http_date
    assert dated is not own
    settings["dated_once_a_second"]()  # (a second start in one process wraps gunicorn's own)
    assert util.http_date.made_by is own
    for moment in (0, 1_700_000_000, 1_764_460_799, 1_764_460_800.25):
        assert util.http_date(moment) == own(moment)
    now = time.time()
    text = util.http_date()
    assert text in (own(int(now)), own(int(now) + 1))
    assert text.endswith(" GMT") and len(text) == 29  # "Mon, 30 Nov 2026 07:30:00 GMT"
    seconds = iter([1_764_460_800.1, 1_764_460_800.9, 1_764_460_801.0])
    monkeypatch.setattr(time, "time", lambda: next(seconds))
    texts = [util.http_date() for _ in range(3)]
    assert texts == [own(1_764_460_800), own(1_764_460_800), own(1_764_460_801)]
    assert texts[0] == "Sun, 30 Nov 2025 00:00:00 GMT"


SCHEME_APP = '''
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [environ["wsgi.url_scheme"].encode()]
'''


def test_a_worker_of_the_shipped_settings_believes_the_proxys_scheme_and_dates_its_answers(
        tmp_path):
    """A worker's settings as plain attributes: the proxy on loopback (``forwarded_allow_ips``,
    gunicorn's default) is still believed when it says the request came over HTTPS, and every
    answer carries one ``Date`` of gunicorn's form, this second's."""
    import email.utils
    import http.client

    (tmp_path / "scheme_app.py").write_text(SCHEME_APP)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
           "WEB_CONCURRENCY": "1"}
    env.pop("FORWARDED_ALLOW_IPS", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(CONF), "--bind", f"127.0.0.1:{port}",
         "--pythonpath", str(tmp_path), "scheme_app:app"], env=env, start_new_session=True)

    def ask(headers: dict[str, str]) -> tuple[str, list[str]]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", "/", headers=headers)
            answer = connection.getresponse()
            return answer.read().decode(), answer.headers.get_all("Date") or []
        finally:
            connection.close()

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                ask({})
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no answer"
                time.sleep(0.2)
        for _ in range(3):
            before = int(time.time())
            scheme, dates = ask({"X-Forwarded-Proto": "https"})
            after = int(time.time())
            assert scheme == "https"
            assert len(dates) == 1
            when = email.utils.parsedate_to_datetime(dates[0]).timestamp()
            assert before <= when <= after
            assert dates[0] == email.utils.formatdate(when, usegmt=True)
        assert ask({})[0] == "http"
    finally:
        server.terminate()
        server.wait(timeout=30)


def _stopped_server(tmp_path, env: dict[str, str]) -> Path:
    """A server of the shipped settings (one worker serving ``APP``) started with ``env`` and
    stopped as systemd stops it (SIGTERM) once it answered; its counts' folder while it ran."""
    (tmp_path / "counted_app.py").write_text(APP)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(CONF), "--bind", f"127.0.0.1:{port}",
         "--pythonpath", str(tmp_path), "counted_app:app"],
        env={**env, "WEB_CONCURRENCY": "1"}, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5):
                    break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no answer"
                time.sleep(0.2)
        folder = Path(env.get("PROMETHEUS_MULTIPROC_DIR")
                      or tmp_path / "run" / f"companion-metrics-{port}")
        assert folder.is_dir()  # (made at the start, the workers count there)
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0
    return folder


def test_a_stopped_server_leaves_no_folder_of_counts_behind(tmp_path):
    """Outside a unit the counts' folder is in /dev/shm, which nothing else empties before the
    machine restarts: a server of the shipped settings removes the one it named when it stops
    (one per port it was ever started on was left before)."""
    (tmp_path / "run").mkdir()
    env = {name: value for name, value in os.environ.items()
           if name not in ("PROMETHEUS_MULTIPROC_DIR", "XDG_RUNTIME_DIR")}
    folder = _stopped_server(tmp_path, {**env, "RUNTIME_DIRECTORY": str(tmp_path / "run")})
    assert folder.parent == tmp_path / "run"
    assert not folder.exists()
    assert list((tmp_path / "run").iterdir()) == []


def test_a_folder_of_counts_the_operator_named_stays_when_the_server_stops(tmp_path):
    named = tmp_path / "operator-metrics"
    folder = _stopped_server(tmp_path, {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(named)})
    assert folder == named and named.is_dir()


def test_the_counts_folder_stays_where_a_binary_upgrade_shares_it(tmp_path, monkeypatch):
    """A master that started a new master of itself (USR2), or was started by one, shares the
    folder with the other: stopping, it leaves it (gunicorn's own rule for its Unix socket);
    a master on its own removes it."""
    # (set first, so that the folder the file names is forgotten after the test)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "unused"))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path))
    monkeypatch.delenv("COMPANION_BIND", raising=False)
    conf = runpy.run_path(str(CONF))
    folder = tmp_path / "companion-metrics-8000"
    assert conf["OWN_METRICS_FOLDER"] and os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(folder)
    cfg = SimpleNamespace(bind=["127.0.0.1:8000"])
    for reexec_pid, master_pid in ((4321, 0), (0, 1234)):
        folder.mkdir(exist_ok=True)
        conf["on_exit"](SimpleNamespace(cfg=cfg, reexec_pid=reexec_pid, master_pid=master_pid))
        assert folder.is_dir()
    conf["on_exit"](SimpleNamespace(cfg=cfg, reexec_pid=0, master_pid=0))
    assert not folder.exists()


def test_each_server_counts_in_a_folder_named_after_where_it_listens(settings):
    """Named by the port (or a Unix socket's path, made a name): two servers on one machine
    never mix their counts, nor wipe each other's folder when one starts or stops."""
    folder = settings["counts_folder"]
    assert folder("127.0.0.1:8000", "/run/x") == "/run/x/companion-metrics-8000"
    assert folder("[::1]:8123", None) == "/tmp/companion-metrics-8123"
    assert folder("unix:/run/companion/web.sock", "/dev/shm") == (
        "/dev/shm/companion-metrics-run_companion_web.sock")
    assert folder("unix:/", "/dev/shm") == "/dev/shm/companion-metrics-server"
