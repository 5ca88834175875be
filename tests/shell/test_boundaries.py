"""Every game's rules core stays pure: no web framework, no database, no other game.

A core is a package ``companion/scoring/<game>/``. It may import the standard library, its own
modules and the shell's generic types (``companion.scoring.problems``), nothing else of the app.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCORING = ROOT / "companion" / "scoring"
FORBIDDEN = ("flask", "flask_wtf", "flask_babel", "werkzeug", "sqlmodel", "sqlalchemy", "alembic",
             "wtforms", "jinja2")
CORES = sorted(p.name for p in SCORING.iterdir() if (p / "__init__.py").is_file())

REPORT = (
    "import sys\n"
    "bad = sorted({{m.split('.')[0] for m in sys.modules}} & {forbidden!r})\n"
    "print(','.join(bad))\n"
)


def imported_after(setup: str) -> list[str]:
    """The forbidden top-level packages in ``sys.modules`` after ``setup`` in a fresh
    interpreter."""
    code = setup + REPORT.format(forbidden=set(FORBIDDEN))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return [name for name in done.stdout.strip().split(",") if name]


def test_rebel_princess_is_one_of_the_cores():
    assert "rebel_princess" in CORES


@pytest.mark.parametrize("core", CORES)
def test_a_core_imports_no_flask_or_database(core):
    """Importing a core, with the app's ``companion/__init__.py`` stubbed out, loads no web or
    database package."""
    stub_parent = (
        "import sys, types\n"
        "parent = types.ModuleType('companion')\n"
        f"parent.__path__ = [{str(ROOT / 'companion')!r}]\n"
        "sys.modules['companion'] = parent\n"
        f"import importlib, pkgutil, companion.scoring.{core} as core\n"
        "for info in pkgutil.walk_packages(core.__path__, core.__name__ + '.'):\n"
        "    importlib.import_module(info.name)\n"
    )
    assert imported_after(stub_parent) == []


def _imports(path: Path, package: str) -> list[str]:
    """The absolute names of the modules ``path`` imports (relative imports resolved)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                names.append(".".join(base + ([node.module] if node.module else [])))
            else:
                names.append(node.module or "")
    return names


@pytest.mark.parametrize("core", CORES)
def test_a_core_imports_nothing_else_of_the_app(core):
    """A core's modules import only themselves, the shell's problems and the standard library."""
    allowed = (f"companion.scoring.{core}", "companion.scoring.problems")
    for path in sorted((SCORING / core).rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("")
        package = ".".join(relative.parts[:-1])  # a module's package (__init__: its own)
        for name in _imports(path, package):
            top = name.split(".")[0]
            assert top not in FORBIDDEN, (path, name)
            if top == "companion":
                assert name.startswith(allowed) or name == "companion.scoring", (path, name)


def test_the_shared_problem_module_imports_no_game():
    for name in _imports(SCORING / "problems.py", "companion.scoring"):
        assert not name.startswith("companion"), name
