"""Problem codes: every code the core uses has an English and a French sentence that formats,
and the core stays pure (no web framework, no database, no other part of the app)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from companion.scoring.reveillez import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "companion" / "scoring" / "reveillez"
USED = {code for path in CORE.glob("*.py")
        for code in re.findall(r'problem\(\s*"([a-z-]+)"', path.read_text("utf-8"))}


def test_every_used_code_has_english_and_french():
    """Each code raised by the core has a sentence in both languages, and no sentence is dead."""
    assert USED
    assert USED == CATALOGUE.codes("en") == CATALOGUE.codes("fr")


def test_codes_are_kebab_case():
    """Codes are stable kebab-case strings."""
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code) for code in USED)


def test_sentences_format_with_their_parameters():
    """Every sentence formats without leftover braces when its problem's parameters are given."""
    params = dict(given="x", low=2, high=5, players=3, limit=5, value=5, count=6, total=11,
                  expected=12, cards="2 3", card="dragon", number=4, name="Aurore")
    for lang in ("en", "fr"):
        for code in USED:
            text = CATALOGUE.text(code, lang, seat=1, **params)
            assert "{" not in text and "}" not in text, (lang, code)


def test_player_is_named_from_the_seat():
    """``{player}`` is filled from the problem's seat."""
    problem = CATALOGUE.problem("pets-apart", seat=2)
    assert "player 3" in problem.text("en") and "joueur 3" in problem.text("fr")


def test_core_imports_no_web_framework_or_database():
    """Importing the core in a fresh interpreter loads neither flask, werkzeug, sqlmodel,
    sqlalchemy nor pydantic, and the core imports no other part of the app but problems."""
    code = ("import sys\nimport companion.scoring.reveillez\n"
            "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'flask', 'werkzeug', 'sqlmodel', 'sqlalchemy', 'pydantic', 'flask_wtf'})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
    for path in CORE.glob("*.py"):
        text = path.read_text("utf-8")
        imports = re.findall(r"^\s*(?:from|import) (companion[\w.]*)", text, re.MULTILINE)
        assert set(imports) <= {"companion.scoring.problems"}, path.name
        assert "from .." not in text, path.name
