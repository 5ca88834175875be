"""The engine package's imports (issue 30): its modules import each other in one direction only
(an import under ``if TYPE_CHECKING:`` is read by the type checker alone), and none imports
another module's private name (``_name``): what one module offers another is public."""

from __future__ import annotations

import ast

from tests.shell.test_import_cycles import ROOT, import_graph, loops

ENGINE = "companion.scoring.rebel_princess.engine"
FOLDER = ROOT / "companion" / "scoring" / "rebel_princess" / "engine"


def test_no_import_loop_inside_the_engine():
    graph = import_graph(ROOT, "companion")
    inside = {name: {t for t in targets if t.startswith(ENGINE)}
              for name, targets in graph.items() if name.startswith(ENGINE)}
    assert len(inside) > 20 and loops(inside) == []


def test_no_private_name_is_imported_across_engine_modules():
    found = []
    for path in sorted(FOLDER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                found += [(path.name, alias.name) for alias in node.names
                          if alias.name.startswith("_")]
    assert found == []


def test_the_checks_see_a_private_import_and_a_loop(tmp_path):
    """The checks themselves, on a package made for them."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .b import _hidden\n")
    (tmp_path / "pkg" / "b.py").write_text("from .a import thing\n")
    assert loops(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.b"]]
    tree = ast.parse((tmp_path / "pkg" / "a.py").read_text())
    assert [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            for a in n.names] == ["_hidden"]
