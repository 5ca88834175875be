"""The time the app takes to answer, measured inside the process: the WSGI middleware the
save and tap benches put around the app (:mod:`bench.trick_tap`, :mod:`bench.check_round`,
:mod:`bench.saves`)."""

from __future__ import annotations

import time
from typing import Any


class ServerClock:
    """WSGI middleware: the time the app takes from the request coming in to the whole answer
    going out (the test client's own work around it is left out)."""

    def __init__(self, app: Any) -> None:
        self.app, self.last = app, (0.0, 0.0)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        wall, cpu = time.perf_counter(), time.process_time()
        body = b"".join(self.app(environ, start_response))
        self.last = ((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)
        return [body]
