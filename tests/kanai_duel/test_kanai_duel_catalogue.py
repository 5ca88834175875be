"""The texts around the core: every problem and step code has an English and a French sentence, the
rulings content is complete in both languages and in our own words, and the core stays pure."""

from __future__ import annotations

import re
import string
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.scoring.kanai_duel import (
    CATALOGUE,
    STEPS,
    VARIANTS,
    DuelCard,
    StepCode,
    resolve_round,
)

from ..conftest import rulebook

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "companion" / "scoring" / "kanai_duel"
RULINGS = ROOT / "companion" / "rulings" / "kanai_duel" / "rulings.toml"
SEED = "004_9ef57d28d7a08499.txt"  # the rulebook, beside the checkout (tests/conftest.py)
DATA = tomllib.loads(RULINGS.read_text(encoding="utf-8"))
ENTRIES = {entry["slug"]: entry for entry in DATA["entry"]}


GLUE = ROOT / "companion" / "play" / "kanai_duel.py"  # two phones: seats, re-invites
ROUTES = ROOT / "companion" / "routes" / "kanai_duel"  # the pages' own: a form not filled in


def used_problem_codes(pages: bool = True) -> set[str]:
    """The codes the core and the glue raise, and (``pages``) the pages' own."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in [
        *CORE.glob("*.py"), GLUE, *(ROUTES.glob("*.py") if pages else ())])
    return set(re.findall(r'CATALOGUE\.problem\(\s*"([a-z-]+)"', text))


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# --- catalogues ----------------------------------------------------------------------------------

def test_every_problem_code_used_has_an_english_and_a_french_sentence():
    """Each code the core or the pages raise is in ``messages.toml``, in both languages, with the
    same fields, and none is unused (the pages word every problem through it: no ``code ==``
    in a template)."""
    used = used_problem_codes()
    assert len(used) >= 10
    assert {"tap-a-card", "form-already-saved-card", "form-already-saved-round"} <= used
    assert used == CATALOGUE.codes("en") == CATALOGUE.codes("fr")
    tables = tomllib.loads((CORE / "messages.toml").read_text(encoding="utf-8"))

    def named(template: str) -> set[str]:  # {the_en} and {the_fr} name the same thing
        return {name.removesuffix("_en").removesuffix("_fr") for name in fields(template)}

    for code in used:
        assert named(tables["messages"][code]) == named(tables["messages_fr"][code]), code


def test_every_step_code_has_an_english_and_a_french_sentence():
    """Each step code is in ``steps.toml`` in both languages, with the same fields."""
    wanted = {code.value for code in StepCode} | {"player"}
    assert STEPS.codes("en") == STEPS.codes("fr") == wanted
    en = tomllib.loads((CORE / "steps.toml").read_text(encoding="utf-8"))
    for code in wanted:
        assert fields(en["messages"][code]) == fields(en["messages_fr"][code]), code


def test_problem_sentences_use_the_same_fields_in_both_languages_but_card_names():
    """English and French sentences of a problem take the same parameters (card names aside)."""
    data = tomllib.loads((CORE / "messages.toml").read_text(encoding="utf-8"))
    for code, english in data["messages"].items():
        strip = lambda names: {n for n in names if not n.endswith(("_en", "_fr"))}  # noqa: E731
        assert strip(fields(english)) == strip(fields(data["messages_fr"][code])), code


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_step_reads_without_a_missing_field(lang):
    """Every step of every pair, with and without bonus and holds, renders to a full sentence."""
    for first in DuelCard:
        for second in DuelCard:
            for bonus in ((0, 0), (2, 0), (0, 2)):
                for step in resolve_round((first, second), bonus=bonus).steps:
                    text = step.text(lang)
                    assert text and "{" not in text and "?" not in text, (step, text)


# --- rulings content -----------------------------------------------------------------------------

def test_every_entry_has_both_languages_and_its_fields():
    """Each entry: unique kebab-case slug, a known group, name, summary and text in en and fr, a
    source; a reading (if any) in both languages."""
    assert len(ENTRIES) == len(DATA["entry"])
    for slug, entry in ENTRIES.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", slug), slug
        assert entry["group"] in DATA["groups"], slug
        for key in ("name", "summary", "text") + (("reading",) if "reading" in entry else ()):
            assert set(entry[key]) == {"en", "fr"} and all(entry[key].values()), (slug, key)
        assert entry["source"], slug
        if "keywords" in entry:
            assert set(entry["keywords"]) == {"en", "fr"}, slug
    for group in DATA["groups"].values():
        assert set(group) == {"en", "fr"}


def test_every_related_slug_exists():
    """``related`` names only entries of this game, never the entry itself."""
    for slug, entry in ENTRIES.items():
        for other in entry.get("related", []):
            assert other in ENTRIES and other != slug, (slug, other)


@pytest.mark.parametrize("card", list(DuelCard))
def test_every_card_has_an_entry_with_its_value_and_printed_names(card):
    """One entry per character, slugged by its notation, with the core's value and names."""
    entry = ENTRIES[card.value]
    assert entry["group"] == "character" and entry["value"] == card.strength
    assert entry["name"] == {"en": card.label("en"), "fr": card.label("fr")}


def test_every_variant_has_an_entry():
    """Each variant the app offers has an entry slugged like the variant, naming its letter."""
    for v in VARIANTS.values():
        assert ENTRIES[v.slug]["group"] == "variant"
        assert ENTRIES[v.slug]["name"]["en"].startswith(v.letter)


def test_every_step_links_to_an_existing_entry():
    """The resolution steps link to the rulings: every step's slug exists."""
    for first in DuelCard:
        for second in DuelCard:
            for step in resolve_round((first, second), bonus=(0, 2)).steps:
                assert step.ruling in ENTRIES, step


READINGS = ("prince", "general", "wizard", "minister", "assassin", "spy", "princess", "clown",
            "how-to-play", "resolution-order", "holds", "points", "next-round", "game-end",
            "numbers", "until-dawn", "seven", "wanderlust")


def test_every_decision_of_the_rulings_file_has_a_reading():
    """Each decision of KANAI_DUEL.md (and of the app) is shown to players as a reading."""
    for slug in READINGS:
        assert "reading" in ENTRIES[slug], slug


PROBLEM_RULING = {
    "unknown-card": "how-to-play", "card-played-twice": "how-to-play", "card-set-aside": "seven",
    "round-not-two-cards": "how-to-play", "game-over": "game-end", "too-many-rounds": "how-to-play",
    "bad-wins-needed": "impatience", "unknown-abilities": "numbers",
    "rounds-not-a-list": "how-to-play", "no-set-aside": "seven", "nothing-to-undo": "how-to-play",
    "already-picked": "how-to-play", "reveal-first-pending": "spy", "picks-missing": "how-to-play",
    "unknown-variant": "impatience", "variants-conflict": "numbers",
    "already-set-aside": "seven", "set-aside-closed": "seven",
    "two-phones-only": "how-to-play", "reinvite-not-joined": "how-to-play",
    "reinvite-pick-pending": "how-to-play",
}


def test_every_problem_is_explained_by_an_entry():
    """Each problem code the rules can raise has a rulings entry that explains the rule behind it
    (the pages' own, such as a form not filled in, name no rule)."""
    assert set(PROBLEM_RULING) == used_problem_codes(pages=False)
    assert set(PROBLEM_RULING.values()) <= set(ENTRIES)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower().replace("’", "'"))


def test_no_sentence_copies_eight_words_in_a_row_from_the_rulebook():
    """Our texts are our own words: no run of 8 words is taken from rulebook 004."""
    seed = _words(rulebook(SEED))
    runs = {tuple(seed[i:i + 8]) for i in range(len(seed) - 7)}
    texts = [value for entry in DATA["entry"] for key in ("summary", "text", "reading")
             for value in entry.get(key, {}).values()]
    texts += [line for p in ("messages.toml", "steps.toml")
              for line in (CORE / p).read_text(encoding="utf-8").splitlines()]
    for text in texts:
        words = _words(text)
        for i in range(len(words) - 7):
            assert tuple(words[i:i + 8]) not in runs, " ".join(words[i:i + 8])


# --- purity --------------------------------------------------------------------------------------

FORBIDDEN = ("flask", "flask_wtf", "werkzeug", "sqlmodel", "sqlalchemy", "pydantic")


def test_the_core_imports_no_web_framework_or_database():
    """``import companion.scoring.kanai_duel`` in a fresh interpreter (with the app package stubbed
    out) loads none of flask, sqlmodel, sqlalchemy or pydantic."""
    code = (
        "import sys, types\n"
        "parent = types.ModuleType('companion')\n"
        f"parent.__path__ = [{str(ROOT / 'companion')!r}]\n"
        "sys.modules['companion'] = parent\n"
        "import companion.scoring.kanai_duel\n"
        f"print(','.join(sorted({{m.split('.')[0] for m in sys.modules}} & {set(FORBIDDEN)!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_the_core_imports_only_itself_and_the_shared_problems():
    """Core modules import from their own package and ``companion.scoring.problems`` only."""
    for path in CORE.glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(("import companion", "from companion")):
                assert line.startswith("from companion.scoring.problems import"), (path, line)
            assert not line.startswith(("from ..", "import flask", "from flask")), (path, line)
