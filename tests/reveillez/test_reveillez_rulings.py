"""The rulings content of « Réveillez »: both languages everywhere, links that exist, every problem
code explained by an entry, every card type and the variant covered, the decisions of
REVEILLEZ.md written as readings."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from companion.scoring.reveillez import CATALOGUE, ROSE_VALUE, PowerCard

ROOT = Path(__file__).resolve().parents[2]
DATA = tomllib.loads((ROOT / "companion/rulings/reveillez/rulings.toml").read_text("utf-8"))
ENTRIES = DATA["entry"]
SLUGS = [entry["slug"] for entry in ENTRIES]
BILINGUAL = ("name", "summary", "text", "reading")


def test_slugs_are_unique_kebab_case():
    """Every entry has a unique kebab-case slug."""
    assert len(SLUGS) == len(set(SLUGS))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in SLUGS)


def test_groups_have_both_languages_and_are_used():
    """Every group has an English and a French title and holds at least one entry."""
    groups = DATA["groups"]
    assert all(set(title) == {"en", "fr"} and all(title.values()) for title in groups.values())
    assert {entry["group"] for entry in ENTRIES} == set(groups)


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_entry_has_both_languages(entry):
    """Name, summary and text (and reading, keywords when present) exist in English and French."""
    for key in BILINGUAL:
        if key == "reading" and key not in entry:
            continue
        assert set(entry[key]) == {"en", "fr"} and all(entry[key][lang].strip()
                                                       for lang in ("en", "fr")), key
    assert entry["source"].strip()
    if "keywords" in entry:
        assert set(entry["keywords"]) == {"en", "fr"}


@pytest.mark.parametrize("entry", ENTRIES, ids=SLUGS)
def test_related_slugs_exist(entry):
    """Every ``related`` slug names another entry of this game."""
    assert entry.get("related"), entry["slug"]
    for slug in entry["related"]:
        assert slug in SLUGS and slug != entry["slug"], slug


def test_every_problem_code_is_explained_by_an_entry():
    """Each problem code the app can show is among the keywords of some entry."""
    keywords = {word for entry in ENTRIES for word in entry.get("keywords", {}).get("en", [])}
    assert CATALOGUE.codes("en") - {"notation"} <= keywords
    assert "notation" in keywords


def test_every_card_type_has_an_entry():
    """Princesses, the six power cards and the number cards each have an entry, under their
    French printed names."""
    assert {str(power) for power in PowerCard} - {"prince"} <= set(SLUGS)
    assert {"prince", "princesses", "number-cards"} <= set(SLUGS)
    fr_names = {entry["name"]["fr"].lower() for entry in ENTRIES}
    assert {"prince", "chevalier", "dragon", "potion", "baguette", "bouffon"} <= fr_names


def test_variant_entries():
    """The variant, the Rose (worth 5), the Dog and Cat and the knight reading have entries."""
    by_slug = {entry["slug"]: entry for entry in ENTRIES}
    assert {"caprices", "princesse-rose", "chien-et-chat", "chevalier-et-animaux"} <= set(SLUGS)
    assert by_slug["princesse-rose"]["value"] == ROSE_VALUE
    assert all(by_slug[slug]["group"] == "variant"
               for slug in ("caprices", "princesse-rose", "chien-et-chat"))


@pytest.mark.parametrize(("slug", "words"), [
    ("princesses", ["value", "remember", "1 to 50"]),          # no invented value table
    ("dragon", ["cannot be played later"]),                     # late defence is lost
    ("baguette", ["forgotten wand is lost"]),
    ("bouffon", ["even though it is not their turn"]),          # win outside one's turn
    ("winning-target", ["after every action"]),                 # immediate win
    ("all-awake", ["checked first", "share the win"]),          # thresholds first; tie
    ("discard-pair", ["power cards", "exactly two"]),           # pairs of power cards
    ("discard-one", ["1 to 5"]),                                # discard size
    ("potion", ["first empty place"]),                          # default slot
    ("princesse-rose", ["jester", "last one asleep", "together"]),
    ("chien-et-chat", ["place she came from"]),                 # sent back where she was
    ("chevalier-et-animaux", ["our reading"]),                  # knight and pets
])
def test_decisions_are_readings(slug, words):
    """Each decision of REVEILLEZ.md and of the app is stated in the entry's reading."""
    entry = next(entry for entry in ENTRIES if entry["slug"] == slug)
    for word in words:
        assert word in entry["reading"]["en"], (slug, word)
