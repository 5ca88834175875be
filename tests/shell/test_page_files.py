"""The page store in files (issue 31, item 1): a full store serves and stores at the cost of an
empty one. Counted in files opened (Python's ``open`` audit events under the store's folder),
never timed: one file read per page served and one written per page stored, whatever the store
holds; the bound is kept in batches that open no file."""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager

import pytest

from companion.web.page_files import PageFiles

_WATCHED: list[tuple[str, list[str]]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and isinstance(args[0], str | bytes):
        path = os.fsdecode(args[0])
        for folder, seen in _WATCHED:
            if path.startswith(folder):
                seen.append(path)


sys.addaudithook(_audit)  # (an audit hook stays for the process: it counts only when asked)


@contextmanager
def opened(folder):
    """The files opened under ``folder`` while the block runs."""
    seen: list[str] = []
    _WATCHED.append((str(folder), seen))
    try:
        yield seen
    finally:
        _WATCHED.remove((str(folder), seen))


def files(folder) -> int:
    return sum(1 for name in os.listdir(folder) if name.endswith(".page"))


@pytest.fixture
def empty_and_full(tmp_path):
    empty = PageFiles(str(tmp_path / "empty"), threshold=200, default_timeout=3600)
    full = PageFiles(str(tmp_path / "full"), threshold=200, default_timeout=3600)
    for n in range(400):
        full.set(f"page {n}", b"drawing %d" % n)
    assert files(full.folder) == 200  # at its bound (oldest deleted in batches)
    return empty, full


def test_a_full_store_serves_and_stores_opening_what_an_empty_one_opens(empty_and_full):
    cost = {}
    for name, store in zip(("empty", "full"), empty_and_full, strict=True):
        store.set("a game's page", b"version 1")
        with opened(store.folder) as served:
            for _ in range(10):
                assert store.get("a game's page") == b"version 1"
        with opened(store.folder) as stored:
            for version in range(2, 12):
                assert store.set("a game's page", b"version %d" % version)
        with opened(store.folder) as missed:
            assert store.get("a page never stored") is None
        cost[name] = (len(served), len(stored), len(missed))
    assert cost["full"] == cost["empty"] == (10, 10, 1)


def test_a_new_version_replaces_the_file_of_its_key(tmp_path):
    store = PageFiles(str(tmp_path), threshold=50, default_timeout=3600)
    for version in range(30):
        store.set("a link's page", b"version %d" % version)
    assert files(tmp_path) == 1 and store.get("a link's page") == b"version 29"


def test_the_bound_is_kept_in_batches_that_open_no_file(tmp_path):
    store = PageFiles(str(tmp_path), threshold=20, default_timeout=3600)
    for n in range(20):
        store.set(f"page {n}", b"x")
    old = os.path.join(tmp_path, os.listdir(tmp_path)[0])
    os.utime(old, (time.time() - 7200, time.time() - 7200))  # past its time
    with opened(tmp_path) as seen:
        for n in range(20, 60):
            store.set(f"page {n}", b"y")
            assert files(tmp_path) <= 20 + store.sweep_every
        left = store.sweep()
    assert len(seen) == 40  # the 40 files written; the passes opened none
    assert left == files(tmp_path) == 20 and not os.path.exists(old)
    assert store.get("page 59") == b"y"  # the newest are kept


def test_a_drawing_past_its_time_is_not_served(tmp_path):
    store = PageFiles(str(tmp_path), threshold=20, default_timeout=60)
    store.set("page", b"old")
    path = os.path.join(tmp_path, os.listdir(tmp_path)[0])
    os.utime(path, (time.time() - 120, time.time() - 120))
    assert store.get("page") is None


def test_only_bytes_are_kept(tmp_path):
    with pytest.raises(TypeError):
        PageFiles(str(tmp_path)).set("page", "text")


def test_a_new_version_is_never_renamed_over_the_old_file(tmp_path, monkeypatch):
    """A drawing replacing another is renamed to the key's name once the old file is gone: on
    ext4 a rename over a file makes the process wait for the new file's data to be written out
    (module docstring). A reader in between finds nothing (a miss), never half a drawing."""
    store = PageFiles(str(tmp_path), threshold=50, default_timeout=3600)
    renamed_over: list[bool] = []
    replace = os.replace

    def watched(source, target):
        renamed_over.append(os.path.exists(target))
        replace(source, target)
    monkeypatch.setattr(os, "replace", watched)
    for version in range(3):
        assert store.set("a link's page", b"version %d" % version)
        assert store.get("a link's page") == b"version %d" % version
    assert renamed_over == [False, False, False]
    assert files(tmp_path) == 1 and not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_a_drawing_is_written_under_a_name_of_its_own_or_not_at_all(tmp_path, monkeypatch):
    """Each drawing is written to a temporary file named after this process and a count, never
    over one already there (left by a process whose id came back): that drawing is not kept (a
    miss), the file found is left alone, and the next drawing gets the next name."""
    store = PageFiles(str(tmp_path), threshold=50, default_timeout=3600)
    path = store._path("a link's page")
    monkeypatch.setattr(store, "_temporaries", iter([7, 7, 8]))
    assert store.set("a link's page", b"first")
    left = f"{path}.{os.getpid()}.7.tmp"
    with open(left, "wb") as file:
        file.write(b"someone else's")
    assert not store.set("a link's page", b"second")
    assert store.get("a link's page") == b"first"
    with open(left, "rb") as file:
        assert file.read() == b"someone else's"
    assert store.set("a link's page", b"third") and store.get("a link's page") == b"third"
