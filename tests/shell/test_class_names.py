"""One name per concept: a class of the web layer (``companion/routes/``, the API's shared
models in ``companion/api_schema.py``) has a name no other class of ``companion/`` has, so a
form, a request or an answer model says which game it belongs to (``KanaiDuelNewGameForm``,
``ReveillezStandingsRequest``)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
WEB = (PACKAGE / "routes", PACKAGE / "api_schema.py")


def classes() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(path)
    return found


def test_no_two_classes_of_the_web_layer_share_a_name():
    doubled = {name: [str(p.relative_to(PACKAGE)) for p in paths]
               for name, paths in classes().items()
               if len(paths) > 1 and any(p == web or web in p.parents
                                         for p in paths for web in WEB)}
    assert not doubled, doubled


def test_the_forms_of_each_game_are_named_after_it():
    names = classes()
    for game in ("KanaiDuel", "RebelPrincess", "PrincessePrincesse", "Reveillez"):
        assert f"{game}NewGameForm" in names, game
    assert "NewGameForm" not in names and "WriteForm" not in names
