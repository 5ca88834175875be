"""A module's name says its layer (issue 38): the same file name in two layers is allowed only as a
feature's mould across the web and glue layers — ``routes/groups.py``, ``forms/groups.py`` and
``play/groups.py`` are one feature's three rooms — never between a pure layer (the rules cores,
history, the helpers) and another (``history/transfer.py`` beside ``play/transfer.py`` was the
export format beside its glue: now ``history/export_format.py`` and ``play/export.py``).

Inside one layer a name may come back once per game (each core's ``state.py``, each game's
``routes/<key>/pages.py``): the mould of a game, whose folder says which.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMPANION = ROOT / "companion"

MOULD_LAYERS = {"routes", "forms", "play"}
"""The web and glue layers, where one feature may keep one name in each."""


def layer(path: Path) -> str:
    """The first folder under ``companion/`` (``top`` for a module at the top)."""
    parts = path.relative_to(COMPANION).parts
    return parts[0] if len(parts) > 1 else "top"


def names_across_layers(root: Path) -> dict[str, list[str]]:
    """Each file name (``__init__.py`` and the migrations' numbered files aside) found in more
    than one layer, where the layers are not all web and glue, with its paths."""
    found: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        if path.name != "__init__.py" and "versions" not in path.parts:
            found[path.name].append(path)
    hiding = {}
    for name, paths in found.items():
        layers = {layer(p) if root == COMPANION else p.relative_to(root).parts[0]
                  for p in paths}
        if len(layers) > 1 and not layers <= MOULD_LAYERS:
            hiding[name] = sorted(str(p.relative_to(root)) for p in paths)
    return hiding


def test_no_module_name_hides_its_layer():
    assert names_across_layers(COMPANION) == {}


def test_the_check_tells_a_mould_from_a_name_that_hides_its_layer(tmp_path):
    for name in ("routes/groups.py", "forms/groups.py", "play/groups.py",
                 "history/transfer.py", "play/transfer.py",
                 "scoring/a/state.py", "scoring/b/state.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    assert names_across_layers(tmp_path) == {
        "transfer.py": ["history/transfer.py", "play/transfer.py"]}
