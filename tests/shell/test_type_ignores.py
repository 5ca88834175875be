"""The package's ``# type: ignore`` comments only go down: each is a place ``mypy --strict`` does
not check, and a new one needs the ceiling raised here, in review, with a reason.

Lower :data:`CEILING` when you remove one (the test says so), so it cannot creep back up.
"""

from __future__ import annotations

import re
from pathlib import Path

import companion

PACKAGE = Path(companion.__file__).parent
IGNORE = re.compile(r"#\s*type:\s*ignore\b")

CEILING = 49
"""The count after the typed game contract on today's main (51 on main before it: the contract
took away the ``summary_from`` one)."""


def count_ignores(root: Path = PACKAGE) -> dict[str, int]:
    """Each module of ``root`` with its number of ``# type: ignore`` comments (none: absent)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        hits = len(IGNORE.findall(path.read_text(encoding="utf-8")))
        if hits:
            found[str(path.relative_to(root))] = hits
    return found


def test_the_type_ignore_count_only_goes_down():
    found = count_ignores()
    total = sum(found.values())
    assert total <= CEILING, f"{total} `# type: ignore` (ceiling {CEILING}): {found}"
    assert total == CEILING, f"only {total} now: lower CEILING to {total} so it stays down"


def test_the_count_sees_every_spelling(tmp_path):
    (tmp_path / "a.py").write_text("x = f()  # type: ignore[arg-type]\ny = 1  #type:ignore\n")
    (tmp_path / "b.py").write_text("z = 'type ignore'  # a comment about types\n")
    assert count_ignores(tmp_path) == {"a.py": 2}
