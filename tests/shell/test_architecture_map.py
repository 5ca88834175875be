"""The map is true (issue 38): ``docs/architecture.md``'s tree, file by file, names every package
and module of ``companion/`` with its role, and names none that does not exist.

The tree is the fenced block under "The tree, file by file": a line ``<indent>name.py  role`` or
``<indent>name/  role``, two spaces of indent per level below ``companion/``. A folder of no
Python (``templates/``, ``static/``, ``translations/``) may be named; the migrations' numbered
modules are named together, by their folder ``versions/``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPANION = ROOT / "companion"
MAP = ROOT / "docs" / "architecture.md"

_ENTRY = re.compile(r"^(?P<indent>(?:  )*)(?P<name>[\w.]+(?:\.py|/))(?:  +(?P<role>\S.*))?$")


def mapped(text: str) -> dict[str, str]:
    """Each path the tree names (``companion/…``), with its role."""
    block = text.split("## The tree, file by file", 1)[1].split("```", 2)[1]
    found: dict[str, str] = {}
    stack: list[str] = []
    inside = False
    for line in block.splitlines():
        if line == "companion/":
            inside, stack = True, ["companion"]
            continue
        match = _ENTRY.match(line)
        if not inside or match is None or not match["indent"]:
            inside = inside and bool(line.startswith("  "))
            continue
        depth = len(match["indent"]) // 2
        del stack[depth:]
        name = match["name"]
        path = "/".join([*stack, name.rstrip("/")])
        found[path] = match["role"] or ""
        if name.endswith("/"):
            stack.append(name.rstrip("/"))
    return found


def on_disk() -> set[str]:
    """Every package and module of ``companion/`` (``__init__.py`` of a package stands for it;
    the numbered migrations for their folder)."""
    found = set()
    for path in COMPANION.rglob("*.py"):
        relative = path.relative_to(ROOT)
        if "versions" in relative.parts[:-1]:
            found.add(str(relative.parent))
        elif path.name == "__init__.py" and path.parent != COMPANION:
            found.add(str(relative.parent))
        else:
            found.add(str(relative))
        for parent in relative.parents:
            if parent != Path(".") and parent != Path("companion") and any(parent.glob("*.py")):
                found.add(str(parent))
    return found


def test_the_map_names_every_package_and_module():
    named = mapped(MAP.read_text(encoding="utf-8"))
    assert sorted(on_disk() - set(named)) == []


def test_the_map_names_nothing_that_does_not_exist():
    named = mapped(MAP.read_text(encoding="utf-8"))
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_every_module_the_map_names_has_a_role():
    named = mapped(MAP.read_text(encoding="utf-8"))
    assert sorted(p for p, role in named.items() if p.endswith(".py") and not role) == []


def test_the_reader_follows_the_indent():
    text = ("## The tree, file by file\n\n```\ncompanion/\n  games.py   the registry\n"
            "  play/      the glue\n    store.py   every game\n  models.py  tables\n"
            "tests/      the tests\n```\n")
    assert mapped(text) == {"companion/games.py": "the registry", "companion/play": "the glue",
                            "companion/play/store.py": "every game",
                            "companion/models.py": "tables"}
