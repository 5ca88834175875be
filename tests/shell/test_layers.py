"""The rooms of ``companion/`` and the direction of every import between them (issue 38).

The top of the package holds the app's assembly and its storage core only; everything else lives
in a package whose name says who uses it, and whose docstring says what it holds and who imports
it. Each room imports only the rooms :data:`MAY_IMPORT` names for it — read from the source with
``ast`` (every import counted: at the top, inside a function, under ``if TYPE_CHECKING:``;
relative imports resolved), so a new import that climbs fails here with the place named.

Then what an import actually loads: each pure room, imported in a fresh interpreter with the
package's ``__init__`` stubbed out (so that the app is not built), loads no module of a room it
may not import and no web framework or database.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from .test_import_cycles import import_graph

ROOT = Path(__file__).resolve().parents[2]
COMPANION = ROOT / "companion"

TOP = {"__init__", "factory", "config", "extensions", "games", "db", "models"}
"""The modules at the top of ``companion/``: the app's assembly and registry (``__init__``,
``factory``, ``config``, ``extensions``, ``games``) and the storage core (``db``, ``models``)."""

MAY_IMPORT: dict[str, set[str]] = {
    "common": set(),
    "scoring": {"common"},
    "rulings": {"common", "scoring"},
    "history": {"common", "scoring"},
    "config": set(),
    "extensions": set(),
    "games": {"history", "models"},  # (for typing its contract only: GameSummary, Game)
    "models": set(),
    "db": {"models"},
    "migrations": {"common", "scoring", "history", "models", "db"},
    "play": {"common", "scoring", "rulings", "history", "games", "models", "db"},
    "web": {"common", "scoring", "rulings", "history", "games", "config", "models", "db",
            "play"},
    "ops": {"common", "scoring", "rulings", "history", "games", "config", "models", "db",
            "play", "web"},
    "forms": {"common", "scoring", "games", "play", "web"},
    "routes": {"common", "scoring", "rulings", "history", "games", "config", "extensions",
               "models", "db", "play", "web", "ops", "forms"},
    "factory": {"common", "scoring", "rulings", "history", "games", "config", "extensions",
                "models", "db", "play", "web", "ops", "forms", "routes"},
    "companion": {"factory", "ops"},
}
"""Each room (a package, or a module at the top) and the rooms it may import: the rules cores
and the helpers under everything, history on them, the storage core, the glue, the web edge and
the operator's tools on the glue, the routes on all of those, the factory on top."""

FORBIDDEN_LOADS = ("flask", "flask_wtf", "flask_babel", "werkzeug", "sqlmodel", "sqlalchemy",
                   "alembic", "wtforms", "jinja2")
PURE = ("common", "scoring", "history")
"""The rooms that must load no web framework and no database when imported."""


def below(name: str) -> set[str]:
    """The rooms ``name`` reaches through the rooms it may import, and theirs."""
    found: set[str] = set()
    todo = list(MAY_IMPORT[name])
    while todo:
        other = todo.pop()
        if other not in found:
            found.add(other)
            todo.extend(MAY_IMPORT[other])
    return found


def room(module: str) -> str:
    """The room of a module: its package under ``companion``, or the top module itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "companion"


def rooms_on_disk() -> set[str]:
    packages = {p.name for p in COMPANION.iterdir() if (p / "__init__.py").is_file()}
    return packages | {p.stem for p in COMPANION.glob("*.py") if p.stem != "__init__"} | {
        "companion"}


def test_the_top_holds_the_assembly_and_the_storage_core_only():
    top = {p.stem for p in COMPANION.glob("*.py")}
    assert top == TOP and len(top) <= 8, sorted(top)


def test_every_room_has_its_direction():
    assert rooms_on_disk() == set(MAY_IMPORT), sorted(rooms_on_disk() ^ set(MAY_IMPORT))


def test_the_rooms_import_each_other_in_one_direction():
    """No room may import one that may import it: the rooms form layers."""
    for name, allowed in MAY_IMPORT.items():
        for other in allowed:
            assert name not in MAY_IMPORT[other], (name, other)


def test_every_import_between_rooms_goes_down():
    graph = import_graph(ROOT, "companion", type_checking=True)
    climbing = sorted(f"{module} -> {target}" for module, targets in graph.items()
                      for target in targets
                      if room(target) != room(module)
                      and room(target) not in MAY_IMPORT[room(module)])
    assert climbing == []


@pytest.mark.parametrize("package", sorted(p.parent.name for p in COMPANION.glob("*/__init__.py")))
def test_every_package_says_what_it_holds_and_who_imports_it(package):
    """Each package's docstring: what belongs there, then who may import it (the word "import"
    in it, or "nothing below … reaches back", say)."""
    docstring = ast.get_docstring(ast.parse(
        (COMPANION / package / "__init__.py").read_text(encoding="utf-8")))
    assert docstring, package
    assert "import" in docstring.lower(), package


def test_the_graph_counts_every_kind_of_import(tmp_path):
    """The checker itself: relative imports resolved, an import in a function and one under
    ``if TYPE_CHECKING:`` counted."""
    files = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                        "    from ..high import b\n",
        "pkg/high/__init__.py": "",
        "pkg/high/b.py": "def later():\n    from ..low.a import thing\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path, "pkg", type_checking=True)
    assert graph["pkg.low.a"] == {"pkg.high.b"} and graph["pkg.high.b"] == {"pkg.low.a"}


def _loaded_after_importing(room_name: str) -> tuple[set[str], set[str]]:
    """Import every module of ``companion/<room_name>/`` in a fresh interpreter with
    ``companion/__init__.py`` stubbed out; the third-party packages and the rooms of the
    companion then loaded."""
    code = (
        "import importlib, pkgutil, sys, types\n"
        "parent = types.ModuleType('companion')\n"
        f"parent.__path__ = [{str(COMPANION)!r}]\n"
        "sys.modules['companion'] = parent\n"
        f"import companion.{room_name} as room\n"
        "for info in pkgutil.walk_packages(room.__path__, room.__name__ + '.'):\n"
        "    importlib.import_module(info.name)\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
        "print(','.join(sorted({m.split('.')[1] for m in sys.modules\n"
        "                       if m.startswith('companion.')})))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    third, ours = done.stdout.strip().split("\n")
    return set(third.split(",")), set(filter(None, ours.split(",")))


@pytest.mark.parametrize("room_name", PURE)
def test_a_pure_room_loads_no_web_framework_no_database_and_nothing_above_it(room_name):
    third, ours = _loaded_after_importing(room_name)
    assert third & set(FORBIDDEN_LOADS) == set()
    assert ours - {room_name} <= below(room_name), sorted(ours)


@pytest.mark.parametrize("room_name", ["play", "web", "ops", "forms", "routes"])
def test_a_room_loads_nothing_above_it(room_name):
    """What importing a room loads, deferred imports aside: only itself and the rooms below it
    (``__init__`` stubbed: the factory is never built here)."""
    _, ours = _loaded_after_importing(room_name)
    assert ours - {room_name} <= below(room_name), sorted(ours - below(room_name))
