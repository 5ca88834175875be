"""A group's export made as a job (issue 36): the request that asks for it only starts the job
(or finds the one already made for the same link, format and group), a job runner writes the
file (:mod:`companion.ops.jobs`), a progress page follows it and then hands the file over from
the disk.

A job is two files in the export folder (``EXPORT_DIR``, default ``exports/`` beside the SQLite
database, in the instance folder): ``<job>.note``, what it is and how far it went, and the
export itself (``<job>.part`` while it is written, then ``<job>.json.gz`` / ``.json`` /
``.csv``). ``<job>`` is 128 random bits: nothing in a name is guessable, nor says which group.
A job belongs to the group link it was started through (a hash of the link, never the link):
it is found only through that link, and a replaced link finds none of its jobs again. Beside
them, ``latest-<digest>`` names the newest job of a link, format and time zone (the digest of
those), so that a second tap finds the first tap's job.

Every file of the folder left untouched for :data:`KEEP` is deleted (:func:`sweep`): a done
export is downloadable for that long after it was written; a job that stopped (its process
killed) stops touching its files and goes the same way. Nothing here writes to the database:
an export changes nothing stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, tzinfo
from pathlib import Path
from typing import BinaryIO
from zoneinfo import ZoneInfo

from sqlmodel import Session

from . import export, people, summaries

KEEP = 3600.0
"""Seconds a file of the export folder lives after it was last written: a done export can be
downloaded for an hour."""
STALE = 90.0
"""Seconds without news after which a job that writes (or waits to) is taken for stopped: its
process died (a job notes its progress every :data:`companion.play.export.CHUNK` games, a
fraction of a second apart)."""
WAIT = 600.0
"""Seconds a job may wait for its runner (behind other exports) before it is taken for lost."""


@dataclass(frozen=True)
class Kind:
    """One format of a group's export."""

    name: str
    mimetype: str
    suffix: str


FORMATS = {kind.name: kind for kind in (
    Kind("json", "application/json", "json"),
    Kind("json.gz", "application/gzip", "json.gz"),
    Kind("csv", "text/csv", "csv"))}


@dataclass
class ExportJob:
    """What ``<job>.note`` holds."""

    token: str
    group_id: int
    link: str
    """A hash of the group link it was started through (:func:`link_hash`)."""
    format: str
    zone: str
    """The phone's time zone (IANA name), for the CSV's times."""
    filename: str
    """The name the downloaded file takes."""
    stamp: str
    """What the group held when the job started (:func:`group_stamp`)."""
    state: str = "waiting"
    """``waiting``, ``writing``, ``done`` or ``failed``."""
    total: int = 0
    done: int = 0
    created: float = 0.0
    beat: float = 0.0
    """When it last noted its progress (seconds since the epoch)."""
    size: int = 0

    @property
    def kind(self) -> Kind:
        return FORMATS[self.format]

    def stopped(self, now: float | None = None) -> bool:
        """Whether the job will never end: its process died writing it, or it waited too
        long for one (a state of its own is not written: whoever looks sees it so)."""
        now = time.time() if now is None else now
        if self.state == "writing":
            return now - self.beat > STALE
        if self.state == "waiting":
            return now - self.created > WAIT
        return self.state == "failed"


def link_hash(group_token: str) -> str:
    """The hash a job keeps of the group link it was started through."""
    return hashlib.sha256(("export-job:" + group_token).encode()).hexdigest()[:32]


def group_stamp(session: Session, group_id: int) -> str:
    """What an export of the group depends on, in a few bounded queries: how many finished
    games it holds, the newest of them (a game finished, changed or undone moves it) and its
    people's names (a rename, a merge). Two equal stamps: the same export."""
    count = summaries.count_finished(session, group_id)
    _, newest = summaries.records(session, group_id=group_id, limit=1, count=False)
    key = summaries.key_text(newest[0].game) if newest else "-"
    names = hashlib.sha256(json.dumps(sorted(people.names_by_id(session, group_id).items()),
                                      ensure_ascii=False).encode()).hexdigest()[:16]
    return f"{count}:{key}:{names}"


def zone_of(name: str) -> tzinfo:
    """The time zone a job was started with (its name was checked by the request)."""
    return UTC if name == "UTC" else ZoneInfo(name)


def zone_name(zone: tzinfo) -> str:
    """The name :func:`zone_of` reads back (an IANA zone's key, else UTC)."""
    return str(getattr(zone, "key", "UTC"))


def pieces(session: Session, kind: Kind, group_id: int, zone: tzinfo,
           names: dict[int, str] | None = None, made: list[int] | None = None
           ) -> Iterator[bytes]:
    """The export's bytes as it is made, :data:`companion.play.export.CHUNK` games at a time
    (the same bytes whether a job writes them or a request sends them). ``made``, if given,
    counts the pieces made so far in its one item: the head, then one per chunk of games."""
    counter = made if made is not None else [0]
    if kind.name == "csv":
        found = names if names is not None else people.names_by_id(session, group_id)
        texts = export.stream_csv(session, group_id, found, zone)
    else:
        texts = export.stream(session, group_id)
    if kind.name != "json.gz":
        for piece in texts:
            counter[0] += 1
            yield piece.encode()
        return
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    for piece in texts:
        counter[0] += 1
        if block := packer.compress(piece.encode()):
            yield block
    yield packer.flush()


def _private(path: Path) -> BinaryIO:
    """``path`` opened to write, made readable by this user only (0600: exports hold a group's
    games; SECURITY.md)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")


class Folder:
    """The export folder: its jobs' notes and files."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _note(self, token: str) -> Path:
        return self.path / f"{token}.note"

    def part(self, job: ExportJob) -> Path:
        return self.path / f"{job.token}.part"

    def file(self, job: ExportJob) -> Path:
        """Where the done export is."""
        return self.path / f"{job.token}.{job.kind.suffix}"

    def _latest(self, link: str, kind: str, zone: str) -> Path:
        digest = hashlib.sha256(f"{link}|{kind}|{zone}".encode()).hexdigest()[:32]
        return self.path / f"latest-{digest}"

    def _write(self, path: Path, text: str) -> None:
        """Write ``text`` whole or not at all (another process may read it meanwhile)."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(path.name + f".{secrets.token_hex(4)}.tmp")
        with _private(temporary) as out:
            out.write(text.encode())
        temporary.replace(path)

    def save(self, job: ExportJob) -> None:
        self._write(self._note(job.token), json.dumps(asdict(job)))

    def load(self, token: str) -> ExportJob | None:
        """The job ``token`` (a token of any shape names none), or None."""
        if len(token) != 32 or any(c not in "0123456789abcdef" for c in token):
            return None
        try:
            data = json.loads(self._note(token).read_text(encoding="utf-8"))
            return ExportJob(**data)
        except (OSError, ValueError, TypeError):
            return None

    def of_link(self, token: str, group_id: int, group_token: str) -> ExportJob | None:
        """The job ``token`` if it belongs to this group through this very link, else None."""
        job = self.load(token)
        if job is None or job.group_id != group_id or job.link != link_hash(group_token):
            return None
        return job

    def reusable(self, group_id: int, group_token: str, kind: str, zone: str,
                 stamp: str) -> ExportJob | None:
        """The newest job of this link, format and time zone if it gives the export asked for
        now: it has not stopped, the group has not changed since it started, and (done) its
        file is still there."""
        link = link_hash(group_token)
        try:
            token = self._latest(link, kind, zone).read_text(encoding="utf-8").strip()
        except OSError:
            return None
        job = self.of_link(token, group_id, group_token)
        if job is None or job.stamp != stamp or job.stopped():
            return None
        if job.state == "done" and not self.file(job).is_file():
            return None
        return job

    def new(self, *, group_id: int, group_token: str, kind: str, zone: str, filename: str,
            stamp: str, total: int) -> ExportJob:
        """A waiting job, noted as the newest of its link, format and zone."""
        job = ExportJob(token=secrets.token_hex(16), group_id=group_id,
                        link=link_hash(group_token), format=kind, zone=zone,
                        filename=filename, stamp=stamp, total=total, created=time.time())
        self.save(job)
        self._write(self._latest(job.link, kind, zone), job.token)
        return job

    def size(self) -> int:
        """Bytes the folder holds."""
        total = 0
        for entry in self._entries():
            try:
                total += entry.stat().st_size
            except OSError:
                continue
        return total

    def _entries(self) -> list[Path]:
        try:
            return [p for p in self.path.iterdir() if p.is_file()]
        except OSError:
            return []

    def sweep(self, now: float | None = None) -> int:
        """Delete every file untouched for :data:`KEEP` (done exports an hour old, what a
        stopped job left); how many."""
        now = time.time() if now is None else now
        gone = 0
        for entry in self._entries():
            try:
                if now - entry.stat().st_mtime > KEEP:
                    entry.unlink()
                    gone += 1
            except OSError:
                continue
        return gone

    def run(self, session: Session, token: str,
            ) -> ExportJob | None:
        """Write the export of the waiting job ``token``, noting its progress; the job as it
        ended (None: there was no such job waiting)."""
        job = self.load(token)
        if job is None or job.state != "waiting":
            return None
        job.state, job.beat = "writing", time.time()
        self.save(job)
        part = self.part(job)
        try:
            with _private(part) as out:
                made = [0]
                for block in pieces(session, job.kind, job.group_id, zone_of(job.zone),
                                    made=made):
                    out.write(block)
                    now = time.time()
                    if now - job.beat > 1.0:  # (a note a second at most)
                        # the head, then one piece per chunk of games
                        job.done = min(job.total, max(0, made[0] - 1) * export.CHUNK)
                        job.beat = now
                        self.save(job)
            job.size = part.stat().st_size
            part.replace(self.file(job))
        except Exception:
            part.unlink(missing_ok=True)
            job.state, job.beat = "failed", time.time()
            self.save(job)
            raise
        job.state, job.done, job.beat = "done", job.total, time.time()
        self.save(job)
        return job
