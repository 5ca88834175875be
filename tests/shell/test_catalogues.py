"""Every French catalogue is complete and current: the shell's (with Rebel Princess's) and each
game's own (``companion/translations/<key>/``).

A string marked in a template or in Python belongs to the catalogue of the game whose folders
hold the file (``templates/<key>``, ``routes/<key>``, ``scoring/<key>``) if that game has its own
catalogue, else to the shell's; ``make messages`` (or ``make messages GAME=<key>``) extracts it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from babel.support import Translations

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "companion" / "translations"
OWN = sorted(p.name for p in TRANSLATIONS.iterdir() if p.is_dir() and p.name != "fr")
CATALOGUES = ["shell", *OWN]


def po_of(name: str) -> Path:
    folder = TRANSLATIONS if name == "shell" else TRANSLATIONS / name
    return folder / "fr" / "LC_MESSAGES" / "messages.po"


def read(name: str):
    with po_of(name).open("rb") as f:
        return read_po(f, locale="fr")


def owner(filename: str) -> str:
    """The catalogue a source file's strings belong to."""
    parts = Path(filename).parts
    for key in OWN:
        if key in parts[:3] and parts[0] == "companion":
            return key
    return "shell"


def _extracted() -> dict[str, set[str]]:
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    keywords = {**DEFAULT_KEYWORDS, "_l": None}
    found: dict[str, set[str]] = {name: set() for name in CATALOGUES}
    for filename, _, msgid, *_ in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=keywords,
            directory_filter=lambda path: not Path(path).name.startswith(".")):
        found[owner(filename)].add(msgid if isinstance(msgid, str) else msgid[0])
    return found


EXTRACTED = _extracted()


@pytest.mark.parametrize("name", CATALOGUES)
def test_catalogue_is_up_to_date_with_the_code_and_templates(name):
    """Every string marked in this catalogue's files is in its .po (run ``make messages``)."""
    known = {m.id if isinstance(m.id, str) else m.id[0] for m in read(name) if m.id}
    assert EXTRACTED[name], f"nothing extracted for {name}: is babel.cfg right?"
    missing = EXTRACTED[name] - known
    command = "make messages" + ("" if name == "shell" else f" GAME={name}")
    assert not missing, f"run `{command}` and translate: {missing}"


@pytest.mark.parametrize("name", CATALOGUES)
def test_no_untranslated_or_fuzzy_message(name):
    untranslated = [m.id for m in read(name) if m.id and (
        not all(m.string) if isinstance(m.string, tuple) else not m.string)]
    fuzzy = [m.id for m in read(name) if m.id and m.fuzzy]
    assert not untranslated, f"translate these in {po_of(name)}: {untranslated}"
    assert not fuzzy, f"check and unmark these fuzzy entries: {fuzzy}"


@pytest.mark.parametrize("name", CATALOGUES)
def test_placeholders_match_between_english_and_french(name):
    pattern = re.compile(r"%\((\w+)\)[sd]")
    for m in read(name):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set(pattern.findall(ids[-1])) - {"num"}
        for translated in strings:
            assert set(pattern.findall(translated)) - {"num"} == wanted, m.id


@pytest.mark.parametrize("name", CATALOGUES)
def test_compiled_catalogue_matches_the_po(name):
    """The .mo the app reads is built from the current .po (``make install`` compiles it)."""
    mo = po_of(name).with_suffix(".mo")
    assert mo.exists(), "no compiled catalogue: run `make install`"
    with mo.open("rb") as f:
        compiled = Translations(f)
    for m in read(name):
        if not m.id:
            continue
        if isinstance(m.id, tuple):
            got = compiled.ngettext(m.id[0], m.id[1], 1)
            assert got == m.string[0], f"{m.id[0]!r}: stale .mo, run `make install`"
        else:
            assert compiled.gettext(m.id) == m.string, f"{m.id!r}: stale .mo, run `make install`"


# French puts a space before « : ; ? ! » that must not break (U+00A0, as everywhere in the app);
# a plain space lets a phone's line break leave the colon alone at the start of a line.
PLAIN_SPACE_BEFORE_HIGH_PUNCTUATION = re.compile(r"(?<=\S) [:;?!](?=\s|$)")


def french_strings_of_data_files():
    """Every string of the app's TOML data (rulings, problem catalogues, Round card names) that
    is French: under a ``fr`` or ``messages_fr`` key, or in French quotes (a rulebook source)."""
    import tomllib

    def walk(value, french):
        if isinstance(value, dict):
            for key, item in value.items():
                yield from walk(item, french or key in ("fr", "messages_fr"))
        elif isinstance(value, list):
            for item in value:
                yield from walk(item, french)
        elif isinstance(value, str) and (french or "«" in value):
            yield value

    for path in sorted((ROOT / "companion").rglob("*.toml")):
        for text in walk(tomllib.loads(path.read_text("utf-8")), False):
            yield path.relative_to(ROOT), text


@pytest.mark.parametrize("name", CATALOGUES)
def test_french_high_punctuation_has_a_no_break_space_in_the_catalogue(name):
    with po_of(name).open("rb") as f:
        catalogue = read_po(f)
    wrong = [m.string for m in catalogue if m.id for s in
             ([m.string] if isinstance(m.string, str) else m.string)
             if PLAIN_SPACE_BEFORE_HIGH_PUNCTUATION.search(s)]
    assert not wrong, wrong[:5]


def test_french_high_punctuation_has_a_no_break_space_in_the_data_files():
    strings = list(french_strings_of_data_files())
    assert len(strings) > 500  # the rulings of four games, in French
    wrong = [(str(path), text[:80]) for path, text in strings
             if PLAIN_SPACE_BEFORE_HIGH_PUNCTUATION.search(text)]
    assert not wrong, wrong[:5]
