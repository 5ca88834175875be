"""The engine package's imports (issue 30): its modules import each other in one direction only
(an import under ``if TYPE_CHECKING:`` included, issue 38: the modifiers and powers are handed
the round as the ``RoundForModifiers`` and ``RoundForPowers`` they declare, not as the state
that imports them), and none imports another module's private name (``_name``), by a relative
or an absolute import, nor reads one as an attribute (``state._hands``, ``module._helper``):
what one module offers another is public."""

from __future__ import annotations

import ast

from tests.shell.test_import_cycles import ROOT, import_graph, loops

ENGINE = "companion.scoring.rebel_princess.engine"
FOLDER = ROOT / "companion" / "scoring" / "rebel_princess" / "engine"


def test_no_import_loop_inside_the_engine():
    graph = import_graph(ROOT, "companion")
    inside = {name: {t for t in targets if t.startswith(ENGINE)}
              for name, targets in graph.items() if name.startswith(ENGINE)}
    # (every module of the package is in the graph, the package itself included)
    modules = {f"{ENGINE}.{p.stem}" for p in FOLDER.glob("*.py") if p.stem != "__init__"}
    assert set(inside) == modules | {ENGINE} and len(modules) > 10
    assert loops(inside) == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(tree: ast.AST) -> list[str]:
    """The private names a module imports from a module of ``companion`` (relative or absolute)."""
    return [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.level or (node.module or "").partition(".")[0] == "companion")
            for alias in node.names if _private(alias.name)]


def _own_names(tree: ast.AST) -> set[str]:
    """Every name a module defines: functions, classes, names and attributes it assigns
    (``self._x = ...``), annotations of class fields, import aliases."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name)
    return names


def foreign_private_attributes(tree: ast.AST) -> list[str]:
    """The private attributes a module reads (``x._name``) that it does not define itself: a
    private name of another module's class or of another module."""
    own = _own_names(tree)
    return [ast.unparse(node) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own]


def test_no_private_name_is_imported_across_engine_modules():
    found = [(path.name, name) for path in sorted(FOLDER.glob("*.py"))
             for name in private_imports(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_no_engine_module_reads_another_module_s_private_attribute():
    found = [(path.name, name) for path in sorted(FOLDER.glob("*.py"))
             for name in foreign_private_attributes(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_the_checks_see_a_private_import_and_a_loop(tmp_path):
    """The checks themselves, on a package made for them."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .b import _hidden\n")
    (tmp_path / "pkg" / "b.py").write_text("from .a import thing\n")
    assert loops(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.b"]]
    tree = ast.parse((tmp_path / "pkg" / "a.py").read_text())
    assert private_imports(tree) == ["_hidden"]


def test_the_checks_see_every_way_to_reach_a_private_name():
    """An absolute import of a private name, and a private attribute of another module's object,
    are seen; a class's own private fields and methods, and a dunder, are not."""
    assert private_imports(ast.parse(
        "from companion.scoring.rebel_princess.engine.state import RoundState, _power\n"
        "from . import cards as _cards\n"
        "from os.path import _joinrealpath\n")) == ["_power"]
    assert sorted(foreign_private_attributes(ast.parse(
        "from . import state\n"
        "class Judge:\n"
        "    _seen: int\n"
        "    def __init__(self, other):\n"
        "        self._count = 0\n"
        "        self._seen = other._hands\n"
        "    def _step(self):\n"
        "        return self._count + self._seen + state._power() + self.__class__.__name__\n"
        "    def again(self):\n"
        "        return self._step()\n"))) == ["other._hands", "state._power"]
