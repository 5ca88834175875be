"""docs/engine.md matches the code: its module table lists every module of the engine package,
and each name it gives a module exists; the package path it names exists."""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
ENGINE = ROOT / "companion" / "scoring" / "rebel_princess" / "engine"


def test_the_title_names_the_engine_package():
    title = DOC.splitlines()[0]
    path = re.search(r"`([\w/]+)/`", title)
    assert path and (ROOT / path.group(1)) == ENGINE


def test_the_module_table_lists_every_module_and_no_other():
    listed = set(re.findall(r"^\| `([\w.]+\.(?:py|toml))` \|", DOC, re.M))
    present = {p.name for p in ENGINE.iterdir() if p.suffix in (".py", ".toml")} - {"__init__.py"}
    assert listed == present


def _code_names(path: Path) -> set[str]:
    """Every name the module's code uses or defines (docstrings and comments left out)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.rpartition(".")[2])
    return names


def test_the_names_the_table_gives_a_module_are_in_its_code():
    missing = []
    for module, text in re.findall(r"^\| `([\w]+)\.py` \| (.*) \|$", DOC, re.M):
        code = _code_names(ENGINE / f"{module}.py") | set(dir(builtins))
        missing += [(module, name) for name in re.findall(r"`([A-Za-z_]\w*)`", text)
                    if name not in code]
    assert missing == []
