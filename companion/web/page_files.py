"""The page store in files, for the server processes of one machine: one file per key, and no
scan on the way of a page.

cachelib's ``FileSystemCache`` keeps each value's expiry inside its file and, once it holds
``threshold`` files, opens every one of them on each ``set`` to find what to delete: at 1,000
drawings that is 27 ms of CPU per page stored (issue 31). Here a file's age is its
modification time, so:

- ``get`` opens one file (its age read from the open file), ``set`` writes one (a temporary
  file renamed to the key's name once the key's old file is deleted: a reader sees the old
  drawing, the new one or none — a miss, and that request draws the page — never half). Not
  renamed *over* the old file: on ext4 (``auto_da_alloc``, the default) a rename that replaces
  a file writes the new one's data out at once and waits for it, about 1.5 ms of a server
  process's time per page stored on this project's machines, against 0.1 ms this way;
- the bound is kept **in batches**: every ``threshold // 10`` sets a process lists the folder
  (names and ages, no file opened), deletes what is older than ``default_timeout`` and, if more
  than ``threshold`` files are left, the oldest until ``threshold`` remain. Between two such
  passes the folder may hold ``threshold // 10`` more files than the bound, per process.

Only ``bytes`` values are kept (a page drawing, as drawn: ``packed = False`` asks the page store
not to zlib-compress what it gives, :func:`companion.routes.page_store.packs_drawings`): that is
all the page store is given (:func:`companion.routes.page_store.cached_page`).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from datetime import timedelta
from typing import Any

from flask import Flask
from flask_caching.backends.base import BaseCache

SUFFIX = ".page"
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class PageFiles(BaseCache):
    """``CACHE_TYPE = "companion.web.page_files.PageFiles"``: files in ``CACHE_DIR``, at most about
    ``CACHE_THRESHOLD``, each kept ``CACHE_DEFAULT_TIMEOUT`` seconds after it was written."""

    packed = False
    """Drawings are given as drawn, not zlib-compressed (routes/page_store.packs_drawings)."""

    def __init__(self, folder: str, threshold: int = 1000, default_timeout: int = 300) -> None:
        super().__init__(default_timeout=default_timeout)
        self.folder = folder
        self.threshold = max(threshold, 1)
        self.sweep_every = max(self.threshold // 10, 1)
        self._sets = 0
        self._temporaries = itertools.count(1)  # (next() is one step: threads never share one)
        os.makedirs(folder, mode=0o700, exist_ok=True)

    @classmethod
    def factory(cls, app: Flask, config: dict[str, Any], args: list[Any],
                kwargs: dict[str, Any]) -> PageFiles:
        return cls(config["CACHE_DIR"], threshold=config["CACHE_THRESHOLD"],
                   default_timeout=kwargs.get("default_timeout", 300))

    def _path(self, key: str) -> str:
        name = hashlib.sha256(key.encode()).hexdigest()
        return os.path.join(self.folder, name + SUFFIX)

    def get(self, key: str) -> Any:
        try:
            with open(self._path(key), "rb") as file:
                age = time.time() - os.fstat(file.fileno()).st_mtime
                if self.default_timeout and age > self.default_timeout:
                    return None
                return file.read()
        except OSError:
            return None

    def has(self, key: str) -> bool:
        return self.get(key) is not None

    def set(self, key: str, value: Any, timeout: int | timedelta | None = None) -> bool:
        if not isinstance(value, bytes):
            raise TypeError("the page store keeps bytes only")
        path = self._path(key)
        # A name no other writer uses (this process's id and count; ``O_EXCL`` refuses one
        # left by a process whose id came back): what ``mkstemp`` gives, without its random
        # name and file object (a tenth of storing a page).
        temporary = f"{path}.{os.getpid()}.{next(self._temporaries)}.tmp"
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC,
                                 0o600)
        except OSError:
            return False
        try:
            try:
                written = 0
                while written < len(value):  # (a write may take only part: the rest again)
                    written += os.write(descriptor, value[written:] if written else value)
            finally:
                os.close(descriptor)
            self._unlink(path)  # (see the module's docstring: never renamed over a file)
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return False
        self._sets += 1
        if self._sets % self.sweep_every == 0:
            self.sweep()
        return True

    def add(self, key: str, value: Any, timeout: int | timedelta | None = None) -> bool:
        return False if self.has(key) else self.set(key, value, timeout)

    def delete(self, key: str) -> bool:
        try:
            os.unlink(self._path(key))
        except OSError:
            return False
        return True

    def clear(self) -> bool:
        for entry in os.scandir(self.folder):
            if entry.name.endswith((SUFFIX, ".tmp")):
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
        return True

    def sweep(self) -> int:
        """Delete the files past their time, then the oldest beyond ``threshold``: names and
        ages only (no file is opened). Returns how many files are left."""
        now = time.time()
        ages: list[tuple[float, str]] = []
        for entry in os.scandir(self.folder):
            try:
                written = entry.stat().st_mtime
            except OSError:
                continue  # (deleted meanwhile by another process)
            stale = entry.name.endswith(".tmp") and now - written > 60
            if stale or self.default_timeout and now - written > self.default_timeout:
                self._unlink(entry.path)
            elif entry.name.endswith(SUFFIX):
                ages.append((written, entry.path))
        ages.sort()
        extra = len(ages) - self.threshold
        for _, path in ages[:max(extra, 0)]:
            self._unlink(path)
        return min(len(ages), self.threshold)

    @staticmethod
    def _unlink(path: str) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass
