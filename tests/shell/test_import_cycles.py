"""No import loop in ``companion/`` nor in ``bench/``: the modules import each other in one
direction only, for types included.

The graph is read from the source with ``ast``: every ``import`` and ``from … import`` naming a
module of the package, at the top of a module, inside a function (an import deferred to run time
still makes a loop) or under ``if TYPE_CHECKING:`` (a reader must hold both modules at once all
the same: issue 38). ``from package import name`` counts as importing ``package.name`` when that
is a module, else ``package``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

Graph = dict[str, set[str]]


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_checking: bool = True
             ) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, at any depth (those under ``if TYPE_CHECKING:`` only
    if ``type_checking``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not type_checking and isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path, package: str, type_checking: bool = True) -> Graph:
    """Each module of ``package`` (under ``root``), with the modules of the package it imports
    (those imported only under ``if TYPE_CHECKING:`` too, unless ``type_checking`` is false)."""
    paths = {_module_name(path, root): path for path in (root / package).rglob("*.py")}
    graph: Graph = {}
    for name, path in paths.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), type_checking):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                base = ".".join([*here[:len(here) - node.level + 1], *(
                    [node.module] if node.module else [])]) if node.level else node.module or ""
                named = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base
                         for alias in node.names]
            for target in named:
                while target and target not in paths:  # a name inside a module: that module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def loops(graph: Graph) -> list[list[str]]:
    """The import loops: each group of modules that reach one another (Tarjan's strongly
    connected components of more than one module), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: no recursion limit on a deep package
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_loop_in_the_package():
    graph = import_graph(ROOT, "companion")
    assert loops(graph) == []


def test_no_import_loop_in_the_benches():
    graph = import_graph(ROOT, "bench")
    assert loops(graph) == []


def test_the_graph_sees_the_imports_that_make_loops(tmp_path):
    """The checker itself: a loop at the top of modules, a loop through an import inside a
    function, ``from . import name`` of a module and a loop closed under ``if TYPE_CHECKING:``
    are found (the last one left out only when asked)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "from .a import thing\n",
        "pkg/c.py": "def later():\n    from pkg import d\n",
        "pkg/d.py": "import pkg.c\n",
        "pkg/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import f\n",
        "pkg/f.py": "from .e import something\n",
        "pkg/sub/__init__.py": "from ..a import thing\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.sub"] == {"pkg.a"}
    assert graph["pkg.e"] == {"pkg.f"} and graph["pkg.f"] == {"pkg.e"}
    assert loops(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"], ["pkg.e", "pkg.f"]]
    without_types = import_graph(tmp_path, "pkg", type_checking=False)
    assert without_types["pkg.e"] == set()
    assert loops(without_types) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
