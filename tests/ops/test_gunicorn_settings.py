"""The shipped gunicorn settings (deploy/gunicorn.conf.py): each worker, once it has loaded the
app, freezes what loading made (``gc.freeze``), so that a full collection of the garbage
collector walks only what the worker made since — a pause of about 100 ms with the app's
objects, about 2 ms without them (issue 36). The app is still loaded by each worker (no
``preload_app``): a reload (HUP) must start workers with the new code.
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

import pytest

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


@pytest.fixture
def settings(tmp_path, monkeypatch) -> dict[str, object]:
    """The file's names, read as gunicorn reads it (its metrics folder in tmp_path)."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "metrics"))
    return runpy.run_path(str(CONF))


class Loaded:
    """An object made while the app loads (as a module's or the engine's)."""


def test_a_worker_freezes_what_loading_the_app_made(settings):
    from gunicorn.config import Config

    Config().set("post_worker_init", settings["post_worker_init"])  # a hook gunicorn accepts
    loaded = Loaded()
    garbage = [Loaded()]
    garbage.append(garbage)  # a cycle: only a collection frees it
    del garbage
    try:
        settings["post_worker_init"](object())
        assert gc.get_freeze_count() > 0
        assert not any(o is loaded for o in gc.get_objects())  # out of the collector's reach
        assert not any(isinstance(o, Loaded) for o in gc.get_objects(generation=2))
        assert sum(isinstance(o, Loaded) for o in _frozen()) == 1  # the cycle was collected
        made_after = Loaded()
        assert any(o is made_after for o in gc.get_objects())  # what comes after is collected
    finally:
        gc.unfreeze()


def _frozen() -> list[object]:
    """The objects gc.freeze moved out (gc.get_objects does not list them)."""
    before = {id(o) for o in gc.get_objects()}
    gc.unfreeze()
    try:
        return [o for o in gc.get_objects() if id(o) not in before]
    finally:
        gc.freeze()


def test_the_app_is_loaded_by_each_worker_not_the_master(settings):
    assert not settings.get("preload_app", False)


APP = '''
import gc

def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(gc.get_freeze_count()).encode()]
'''


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
