"""The scoring core stays pure: no web framework and no database behind it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("flask", "flask_wtf", "werkzeug", "sqlmodel", "sqlalchemy")

REPORT = (
    "import sys\n"
    "bad = sorted({{m.split('.')[0] for m in sys.modules}} & {forbidden!r})\n"
    "print(','.join(bad))\n"
)


def imported_after(setup: str) -> list[str]:
    """The forbidden top-level packages present in ``sys.modules`` after running ``setup`` in a
    fresh interpreter."""
    code = setup + REPORT.format(forbidden=set(FORBIDDEN))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return [name for name in done.stdout.strip().split(",") if name]


def test_scoring_package_itself_imports_no_flask_or_database():
    """The modules of ``companion.scoring.rebel_princess`` import neither flask, sqlmodel nor sqlalchemy (the
    parent ``companion/__init__.py`` is stubbed out, so only the scoring core is measured)."""
    stub_parent = (
        "import sys, types\n"
        "parent = types.ModuleType('companion')\n"
        f"parent.__path__ = [{str(ROOT / 'companion')!r}]\n"
        "sys.modules['companion'] = parent\n"
        "import companion.scoring.rebel_princess\n"
        "companion.scoring.rebel_princess.play_through\n"
    )
    assert imported_after(stub_parent) == []


def test_importing_companion_scoring_pulls_in_no_flask_or_database():
    """``import companion.scoring.rebel_princess`` in a fresh interpreter loads neither flask, sqlmodel nor
    sqlalchemy."""
    assert imported_after("import companion.scoring.rebel_princess\n") == []


def test_scoring_modules_do_not_import_the_rest_of_the_app():
    """No scoring module imports another part of ``companion`` (only in-package imports)."""
    for path in sorted((ROOT / "companion" / "scoring").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "from companion" not in text and "import companion" not in text, path.name
        assert "from .." not in text, path.name
        for name in FORBIDDEN:
            assert f"import {name}" not in text and f"from {name}" not in text, path.name
