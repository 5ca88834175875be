"""Benchmarks of the companion: HTTP throughput, page weight and taps per round.

Not tests: nothing here asserts on timings. Every bench starts and stops its own servers on
127.0.0.1 (a free port), keeps its database in a temporary folder and prints a table. Run them all
with ``python -m bench.all`` (``make bench``), or one with ``python -m bench.http`` etc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

# The players of every bench game, in seat order.
NAMES6 = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
NAMES4 = NAMES6[:4]


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, timeout: float = 20.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until ``url`` answers (any HTTP status), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited early with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of a live process, from /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks


def tree_cpu_seconds(root: int) -> float:
    """CPU time used so far by ``root`` and its live descendants (gunicorn master and workers)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (st := _stat(int(entry.name))) is not None:
            stats[int(entry.name)] = st
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
            todo.extend(child for child, (parent, _) in stats.items() if parent == pid)
    return total


@dataclass
class Server:
    """A running server: its base URL and the pid of its master process."""

    base: str
    pid: int

    def cpu_seconds(self) -> float:
        return tree_cpu_seconds(self.pid)


SHIPPED_CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
"""The shipped gunicorn settings (its workers: ``WEB_CONCURRENCY``, else 2 per core)."""
MEMORY = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
"""A folder in memory, as the shipped unit's runtime folder (``/run/companion``, a tmpfs): where
a bench keeps what the unit keeps there (the metrics' counts), and its own records of each
request, so that neither is written to the disk the database flushes its log to (None: the
system's temporary folder)."""


@contextlib.contextmanager
def gunicorn(app: str, env: dict[str, str] | None = None, workers: int | None = 2,
             probe: str = "/", cwd: Path | None = None, timeout: float = 20.0,
             config: Path | None = None) -> Iterator[Server]:
    """Serve ``app`` ("module:variable") with ``gunicorn -w N --no-control-socket`` on a free
    loopback port (from ``cwd``, this checkout by default); yields the :class:`Server` and stops
    it (only its own process group) on exit. With ``config`` (:data:`SHIPPED_CONFIG`) gunicorn
    reads that file first (the address, the app and ``-w``, when given, still win)."""
    port = free_port()
    cmd = [PYTHON, "-m", "gunicorn", *(["-c", str(config)] if config else []),
           *(["-w", str(workers)] if workers else []), "--no-control-socket",
           "-b", f"127.0.0.1:{port}", "--log-level", "warning", app]
    proc = subprocess.Popen(cmd, cwd=cwd or ROOT, env={**os.environ, **(env or {})},
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + probe, timeout=timeout, proc=proc)
        yield Server(base, proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]],
          align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table (also readable as plain text)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def fmt(row: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w)
                                 for c, w, a in zip(row, widths, align, strict=True)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2))
                          for w, a in zip(widths, align, strict=True)) + "|"
    return "\n".join([fmt(cells[0]), rule] + [fmt(row) for row in cells[1:]])


def load_line(load_start: float) -> str:
    """The closing line of a bench's table: the load average beside its figures."""
    return (f"- Load average (1 min): {load_start:.2f} at the start, "
            f"{os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} cores.")
