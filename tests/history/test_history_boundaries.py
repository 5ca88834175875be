"""History is part of the shell: it names no game (each game speaks through its own ``summary``),
and its core (``companion/history/``) is pure — no web framework, no database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from companion.games import registry

ROOT = Path(__file__).resolve().parents[2] / "companion"
SHELL_FILES = [*sorted((ROOT / "history").glob("*.py")), ROOT / "play" / "summaries.py",
               ROOT / "play" / "people.py", ROOT / "play" / "export.py",
               ROOT / "routes" / "history.py", ROOT / "forms" / "history.py",
               *sorted((ROOT / "templates" / "history").glob("*.html"))]
NAMES = sorted({word for kind in registry() for word in (kind.key, kind.slug)})


@pytest.mark.parametrize("path", SHELL_FILES, ids=lambda p: p.name)
def test_history_names_no_game(path):
    text = path.read_text(encoding="utf-8")
    assert [name for name in NAMES if name in text] == []


@pytest.mark.parametrize("path", sorted((ROOT / "history").glob("*.py")), ids=lambda p: p.name)
def test_the_history_core_imports_no_web_framework_or_database(path):
    """Relative imports resolved: of the companion, history imports only itself, the cores'
    problem type and the helpers (what an import then loads: ``tests/shell/test_layers.py``)."""
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ["companion", "history"][:2 - node.level + 1] if node.level else []
            imported.add(".".join([*base, *([node.module] if node.module else [])]))
    assert {name.split(".")[0] for name in imported} & {
        "flask", "flask_babel", "sqlmodel", "sqlalchemy", "werkzeug", "jinja2"} == set()
    ours = {name for name in imported if name.split(".")[0] == "companion"}
    allowed = ("companion.history", "companion.scoring.problems", "companion.common")
    assert [name for name in ours if not name.startswith(allowed)] == []
