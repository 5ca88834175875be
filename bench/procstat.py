"""CPU time and memory of processes the bench does not own, read from ``/proc`` (Linux only).

:class:`PostgresCpu` sums the CPU PostgreSQL spends on one database while a bench row runs: its
client backends (``postgres: <cluster>: <user> <database> <host>(<port>) <state>``) and the
cluster's own background processes (checkpointer, WAL writer, background writer, autovacuum
launcher...), which serve every database of the cluster. Backends come and go (a pool may close a
connection), and a process that has exited leaves nothing in ``/proc``: a sampling thread reads
them every ``interval`` seconds and each one counts up to its last sample, so a backend that
exits between two samples loses at most that interval of its CPU.
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
# A client backend's title names its client's address: 127.0.0.1(40312), [::1](5432), [local].
_CLIENT = re.compile(r"\(\d+\)|\[local\]")


def _stat(pid: int) -> tuple[str, int, float] | None:
    """(command name, parent pid, user + system CPU seconds) of a live process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    return comm, int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS


def _title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def _all() -> dict[int, tuple[str, int, float]]:
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (st := _stat(int(entry.name))) is not None:
            stats[int(entry.name)] = st
    return stats


def postmaster() -> int | None:
    """The pid of the PostgreSQL server's main process on this machine (the first found)."""
    stats = _all()
    for pid, (comm, parent, _) in sorted(stats.items()):
        if comm == "postgres" and stats.get(parent, ("",))[0] != "postgres":
            return pid
    return None


def pss_mb(pid: int) -> float | None:
    """Proportional set size of a process in MB (its private memory plus its share of pages
    shared with others, such as a gunicorn worker's with its master), or None if unreadable."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    match = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
    return int(match[1]) / 1024 if match else None


def children(pid: int) -> list[int]:
    return [child for child, (_, parent, _) in _all().items() if parent == pid]


class PostgresCpu:
    """CPU seconds PostgreSQL spent on ``database`` between :meth:`start` and :meth:`stop`:
    ``backends`` (its client backends, and autovacuum workers naming it) and ``background``
    (the cluster's own processes, shared with any other database busy at the same time)."""

    def __init__(self, database: str, interval: float = 0.5) -> None:
        self.database = database
        self.interval = interval
        self.master = postmaster()
        self.backends = 0.0
        self.background = 0.0
        self.sampler_cpu = 0.0  # the sampling thread's own CPU, part of the bench process's
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[bool, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _ours(self, pid: int) -> bool | None:
        """True for a backend of our database, False for a background process, None for a
        backend of another database."""
        title = _title(pid)
        if _CLIENT.search(title) or "autovacuum worker" in title:
            return True if self.database in title.split() else None
        return False

    def _sample(self, first: bool) -> None:
        if self.master is None:
            return
        stats = _all()
        for pid, (_, parent, cpu) in stats.items():
            if pid != self.master and parent != self.master:
                continue
            if pid not in self._last:
                kind = False if pid == self.master else self._ours(pid)
                if kind is None:
                    continue
                # Born during the row: all of its CPU is the row's.
                self._first[pid] = cpu if first else 0.0
                self._last[pid] = (kind, cpu)
            else:
                self._last[pid] = (self._last[pid][0], cpu)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample(first=False)
        self.sampler_cpu = time.thread_time()

    def start(self) -> PostgresCpu:
        self._sample(first=True)
        self._thread.start()
        return self

    def stop(self) -> PostgresCpu:
        self._stop.set()
        self._thread.join()
        self._sample(first=False)
        for pid, (backend, cpu) in self._last.items():
            used = cpu - self._first[pid]
            if backend:
                self.backends += used
            else:
                self.background += used
        return self

    @property
    def seconds(self) -> float:
        return self.backends + self.background
