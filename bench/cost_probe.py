"""Inside each gunicorn worker of :mod:`bench.push_costs` (``COMPANION_BENCH_COSTS`` set, read by
:mod:`bench.wsgi`): the thread CPU of every request the app answers, by kind (a save of each
game, the scorer's page after it, a poll, …), of the publisher calls and the viewers' drawing
made inside a save, and the worker's own CPU, while the folder holds the file ``measuring``.
Each worker writes its sums to ``<folder>/<pid>.json`` every second and at its last request.

Not part of the app: only the benches' WSGI module installs it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

GAMES = ("rebel-princess", "princesse-princesse", "reveillez", "kanai-duel")


def kind_of(method: str, path: str) -> str:
    """The bench's name for a request: ``save <game>``, ``page <game>`` (a game's own page, the
    scorer's after a save in the push rows), ``board <game>``, ``poll`` (``/live``), else
    ``other``."""
    parts = path.strip("/").split("/")
    if parts[0] == "live":
        return "poll"
    if parts[0] in GAMES and len(parts) >= 3 and parts[1] == "g":
        if method == "POST":
            return f"save {parts[0]}"
        if len(parts) == 3:
            return f"page {parts[0]}"
        if parts[3:] == ["board"]:
            return f"board {parts[0]}"
    return "other"


class Probe:
    """The sums of one worker: for each kind, [requests, CPU seconds]."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.flag = self.folder / "measuring"
        self.sums: dict[str, list[float]] = {}
        self.inside: list[str] = []  # the kind of the request being answered
        self.started: float | None = None  # the worker's CPU at the first request measured
        self.worker = 0.0
        self.written = 0.0
        self.on = False

    def add(self, kind: str, seconds: float) -> None:
        mine = self.sums.setdefault(kind, [0, 0.0])
        mine[0] += 1
        mine[1] += seconds

    def write(self) -> None:
        text = json.dumps({"sums": self.sums, "worker": self.worker})
        (self.folder / f"{os.getpid()}.json").write_text(text)
        self.written = time.monotonic()

    def wrap(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        def probed(environ: dict[str, Any], start_response: Callable[..., Any]
                   ) -> Iterable[bytes]:
            on = self.flag.exists()
            if on and self.started is None:
                self.started = time.process_time()
            if not on:
                if self.on:  # the last request of the measure: the sums as they stand
                    self.write()
                self.on = False
                return app(environ, start_response)
            self.on = True
            kind = kind_of(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""))
            self.inside.append(kind)
            start = time.thread_time()
            try:
                answer = app(environ, start_response)
                try:
                    return list(answer)  # (the whole answer made here, timed)
                finally:
                    close = getattr(answer, "close", None)
                    if close is not None:
                        close()
            finally:
                self.add(kind, time.thread_time() - start)
                self.inside.pop()
                assert self.started is not None
                self.worker = time.process_time() - self.started
                if time.monotonic() - self.written > 1.0:
                    self.write()
        return probed

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` timed as ``name`` within the request that calls it (``… in save
        rebel-princess``)."""
        def call(*args: Any, **kwargs: Any) -> Any:
            if not self.on or not self.inside:
                return function(*args, **kwargs)
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(f"{name} in {self.inside[-1]}", time.thread_time() - start)
        return call


def install(app: Any, folder: str) -> None:
    """Probe ``app`` (its WSGI callable, the publisher's calls and the viewers' drawing)."""
    from companion.play import push

    probe = Probe(folder)
    app.wsgi_app = probe.wrap(app.wsgi_app)
    real_call = push._call  # noqa: SLF001
    push._call = lambda base, method, name, body=None: probe.timed(  # noqa: SLF001
        f"publisher {method}", real_call)(base, method, name, body)
    push._drawn = probe.timed("viewers' part", push._drawn)  # noqa: SLF001
