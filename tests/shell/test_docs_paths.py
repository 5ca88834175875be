"""Every path the documentation names exists: README.md and every ``docs/**/*.md``.

A path is what is written in backticks (``like this``) and starts with one of the repository's
folders (:data:`FOLDERS`); fenced code blocks are left out (their trees and commands are read as
a whole, not path by path). A part written as a pattern — ``<key>``, ``<game>``, ``*``, ``…`` —
matches any name, and the path must then match at least one file or folder: ``companion/
scoring/<key>/problems.py`` passes while one game has it. What is after the path in the same
backticks (``tests/x.py::test_y``, ``bench/pages.py --redis …``) is not part of it.

Only files that exist are read, so a page another change will write is checked once it is there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FOLDERS = ("companion/", "tests/", "bench/", "deploy/", "docs/")

ALLOWED = {
    "tests/artifacts/",  # the browser tests' screenshots: made by a run, git-ignored
}
"""Paths named on purpose that no checkout holds."""

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"`([^`\n]+)`")
_PATTERN_PART = re.compile(r"<[^<>/]*>|…|\.\.\.|\*")


def documents() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [page for page in pages if page.is_file()]


def named_paths(text: str) -> list[str]:
    """The repository paths written in backticks in ``text``, outside fenced blocks."""
    found = []
    for span in _SPAN.findall(_FENCE.sub("", text)):
        words = span.strip().split()
        if not words or not words[0].startswith(FOLDERS):
            continue
        path = words[0].split("::")[0].rstrip(".,;:)")
        found.append(path)
    return found


def exists(path: str) -> bool:
    if path in ALLOWED:
        return True
    if not _PATTERN_PART.search(path):
        return (ROOT / path).exists()
    pattern = _PATTERN_PART.sub("*", path.rstrip("/"))
    return any(ROOT.glob(pattern))


def test_the_extraction_reads_paths_as_written() -> None:
    text = ("See `companion/games.py`, `tests/shell/test_x.py::test_y`, `bench/pages.py --redis"
            " url`, `make run` and `companion.play.store`.\n```\ncompanion/not_read.py\n```\n"
            "`docs/README.md`.")
    assert named_paths(text) == ["companion/games.py", "tests/shell/test_x.py", "bench/pages.py",
                                 "docs/README.md"]


def test_a_pattern_must_match_something() -> None:
    assert exists("companion/scoring/<key>/problems.py")
    assert exists("companion/routes/<key>/")
    assert not exists("companion/scoring/<key>/no_such_module.py")
    assert not exists("companion/no_such_module.py")


@pytest.mark.parametrize("document", documents(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_path_named_exists(document: Path) -> None:
    missing = [path for path in named_paths(document.read_text(encoding="utf-8"))
               if not exists(path)]
    assert missing == [], f"{document.relative_to(ROOT)} names paths that do not exist: {missing}"
