"""The core's data: problem sentences in both languages, rulings content, the import boundary."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.scoring.princesse_princesse import CATALOGUE, CHARACTERS, FAULT_CODES

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "companion" / "scoring" / "princesse_princesse"
RULINGS = ROOT / "companion" / "rulings" / "princesse_princesse" / "rulings.toml"
def codes_in_source() -> set[str]:
    text = "\n".join(path.read_text(encoding="utf-8") for path in CORE.glob("*.py"))
    raised = set(re.findall(r'problem\(\s*"([a-z-]+)"', text))
    raised |= set(re.findall(r'\("([a-z]+(?:-[a-z]+)+)",\s*reveal\.', text))  # bonus seat codes
    return raised | set(FAULT_CODES)  # the faults a later reveal proves


def test_every_problem_code_has_an_english_and_a_french_sentence():
    """Each code the core raises reads as a sentence in both languages."""
    used = codes_in_source()
    assert {"spy-seat-out", "celeste-not-played", "garde-lie", "not-your-turn"} <= used
    assert used <= CATALOGUE.codes("en"), used - CATALOGUE.codes("en")
    assert used <= CATALOGUE.codes("fr"), used - CATALOGUE.codes("fr")
    assert CATALOGUE.codes("en") == CATALOGUE.codes("fr")


@pytest.mark.parametrize("code", sorted(CATALOGUE.codes("en")))
def test_every_sentence_fills_in_without_leftover_fields(code):
    """A problem with its usual fields reads without a raw ``{field}`` in either language."""
    params = dict(value=5, field="held", expected=3, got=2, count=3, copies=2, low=2, high=6,
                  players=4, turn=3, round=2, name_en="Prince Vladric",
                  name_fr="Prince Vladric")
    problem = CATALOGUE.problem(code, seat=1, card="5", **params)
    for lang in ("en", "fr"):
        text = problem.text(lang)
        assert "{" not in text and text.strip(), (code, lang, text)
    assert problem.text("en") != problem.text("fr")


def load_rulings() -> dict:
    return tomllib.loads(RULINGS.read_text(encoding="utf-8"))


def test_every_rulings_entry_has_both_languages():
    """Every entry's name, summary, text (and reading) exist in English and French."""
    data = load_rulings()
    assert data["entry"]
    for entry in data["entry"]:
        for key in ("name", "summary", "text"):
            assert entry[key]["en"].strip() and entry[key]["fr"].strip(), (entry["slug"], key)
        if "reading" in entry:
            assert entry["reading"]["en"].strip() and entry["reading"]["fr"].strip()
        for lang in ("en", "fr"):
            assert data["groups"][entry["group"]][lang]
        assert entry["source"]


def test_rulings_slugs_are_unique_kebab_case_and_related_slugs_exist():
    """Slugs are unique kebab-case words; every ``related`` slug is an entry of this game."""
    entries = load_rulings()["entry"]
    slugs = [entry["slug"] for entry in entries]
    assert len(slugs) == len(set(slugs))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in slugs)
    for entry in entries:
        assert set(entry.get("related", [])) <= set(slugs), entry["slug"]
        assert entry["slug"] not in entry.get("related", [])


def test_every_character_has_its_rulings_entry_with_its_value_and_names():
    """One entry per character, joined on the core's slug, with the same value and names."""
    by_slug = {entry["slug"]: entry for entry in load_rulings()["entry"]}
    for character in CHARACTERS:
        entry = by_slug[character.slug]
        assert entry["group"] == "character"
        assert entry["value"] == character.value
        assert entry["name"] == {"en": character.name_en, "fr": character.name_fr}


@pytest.mark.parametrize(("slug", "words"), [
    ("ties", ["tie"]), ("spy-bonus", ["exactly one", "left the round"]),
    ("princesses-bonus", ["both Princesses", "pair is broken"]),
    ("end-of-game", ["bonus token can win"]), ("oliver", ["protected"]),
    ("vladric", ["targets the player who plays him", "without drawing"]),
    ("ogre", ["Ghost King's swap"]), ("celeste", ["later shown"]),
    ("garde", ["allowed"]), ("deck-count", ["distribution"]),
    ("next-first-player", ["draw"]), ("princesses", ["single card left"]),
])
def test_each_decision_is_shown_to_players(slug, words):
    """Every decision of PRINCESSE_PRINCESSE.md and of the app is in a rulings ``reading``."""
    entry = {e["slug"]: e for e in load_rulings()["entry"]}[slug]
    reading = entry["reading"]["en"] + " " + entry["text"]["en"]
    for word in words:
        assert word in reading, (slug, word)


def test_the_core_imports_no_web_framework_or_database():
    """``companion.scoring.princesse_princesse`` loads no flask, sqlmodel, sqlalchemy or pydantic,
    and imports no other ``companion`` module but ``companion.scoring.problems``."""
    forbidden = {"flask", "flask_wtf", "werkzeug", "sqlmodel", "sqlalchemy", "pydantic"}
    code = ("import sys, types\n"
            "parent = types.ModuleType('companion')\n"
            f"parent.__path__ = [{str(ROOT / 'companion')!r}]\n"
            "sys.modules['companion'] = parent\n"
            "scoring = types.ModuleType('companion.scoring')\n"
            f"scoring.__path__ = [{str(ROOT / 'companion' / 'scoring')!r}]\n"
            "sys.modules['companion.scoring'] = scoring\n"
            "import companion.scoring.princesse_princesse\n"
            "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & "
            f"{forbidden!r})))\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith('companion.') "
            "and not m.startswith('companion.scoring.princesse_princesse'))))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    bad, others = done.stdout.splitlines()
    assert bad == ""
    assert set(filter(None, others.split(","))) <= {"companion.scoring",
                                                     "companion.scoring.problems"}
    for path in CORE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        imports = re.findall(r"^(?:from|import) (companion\S*)", text, re.M)
        assert set(imports) <= {"companion.scoring.problems"}, path.name
