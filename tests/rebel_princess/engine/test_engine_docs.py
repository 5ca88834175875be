"""docs/engine.md matches the code: its module table lists every module of the engine package,
and each name it gives a module exists; the package path it names exists; and every engine
class's member any page of docs/ names (``RoundState.key``) exists."""

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


def _engine_classes() -> dict[str, type]:
    """Every class defined in a module of the engine, by name."""
    import importlib
    import inspect

    found = {}
    for path in sorted(ENGINE.glob("*.py")):
        module = importlib.import_module(
            f"companion.scoring.rebel_princess.engine.{path.stem}".removesuffix(".__init__"))
        found |= {name: cls for name, cls in vars(module).items()
                  if inspect.isclass(cls) and cls.__module__ == module.__name__}
    return found


def _has(cls: type, member: str) -> bool:
    """A method, property or class attribute, or a declared field (``a: int`` in the body)."""
    return hasattr(cls, member) or any(member in getattr(k, "__annotations__", {})
                                       for k in cls.__mro__)


def test_every_engine_member_the_docs_name_exists():
    """``RoundState.key``, ``Power.blocker``, ``TableRound._prove`` … named in any page of docs/
    are members of that engine class (methods get renamed: a page naming the old one is stale)."""
    classes = _engine_classes()
    assert {"RoundState", "TableRound", "Power"} <= set(classes)
    stale = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for name, member in re.findall(r"`([A-Z]\w*)\.(\w+)", page.read_text(encoding="utf-8")):
            if name in classes and not _has(classes[name], member):
                stale.append((page.name, f"{name}.{member}"))
    assert stale == []
