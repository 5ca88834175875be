"""Completeness and hygiene of the rulings content (companion/rulings/*.toml).

Every Round card and Princess of both editions has an entry in English and French, names agree with
the scoring catalogue, links resolve, every entry cites a source, summaries are short, search finds
what players type, and no sentence of ours copies eight words in a row from a rulebook.
"""

from __future__ import annotations

import re

import pytest

from companion.rulings import rebel_princess as rulings
from companion.scoring.rebel_princess import Edition, round_cards

from ..conftest import rulebook

RULEBOOKS = ("001_cce5b9de1830e4f3.txt", "000_c7ce481120464ddd.txt")  # Deluxe (en), classic (fr)

DELUXE_PRINCESSES = (
    "alice", "cinderella", "ice-princess", "little-mermaid", "mulan", "pea-princess",
    "pocahontas", "rapunzel", "scheherazade", "sleeping-beauty", "snow-white", "thumbelina",
)
CLASSIC_PRINCESSES = tuple(p for p in DELUXE_PRINCESSES if p not in ("rapunzel", "thumbelina"))
PRINCESS_NAMES = {
    "alice": ("Alice", "Alice"),
    "cinderella": ("Cinderella", "Cendrillon"),
    "ice-princess": ("The Ice Princess", "La Princesse des glaces"),
    "little-mermaid": ("The Little Mermaid", "La petite Sirène"),
    "mulan": ("Mulan", "Mulan"),
    "pea-princess": ("The Pea Princess", "La Princesse au petit pois"),
    "pocahontas": ("Pocahontas", "Pocahontas"),
    "rapunzel": ("Rapunzel", "Raiponce"),
    "scheherazade": ("Scheherazade", "Shéhérazade"),
    "sleeping-beauty": ("Sleeping Beauty", "La Belle au bois dormant"),
    "snow-white": ("Snow White", "Blanche-Neige"),
    "thumbelina": ("Thumbelina", "Poucette"),
}
ALL_CARDS = [card for edition in Edition for card in round_cards(edition)]
ALL_PRINCESSES = [("deluxe", p) for p in DELUXE_PRINCESSES] + [
    ("classic", p) for p in CLASSIC_PRINCESSES
]


def word_count(text: str) -> int:
    """Words as a reader counts them: punctuation on its own (French ' : ') is not a word."""
    return len(re.findall(r"[^\W_]+(?:['’-][^\W_]+)*", text))


# --- completeness ---------------------------------------------------------------------------------


def test_every_round_card_of_both_editions_has_an_entry():
    """26 Deluxe + 21 classic Round cards, no more and no fewer."""
    assert len(ALL_CARDS) == 47
    expected = {card.slug for card in ALL_CARDS}
    assert {e.slug for e in rulings.entries("round-card")} == expected


@pytest.mark.parametrize("card", ALL_CARDS, ids=lambda c: c.slug)
def test_round_card_names_and_summaries(card):
    """Names match the scoring catalogue; both languages have a summary; the helper returns it."""
    e = rulings.entry(card.slug)
    assert (e.kind, e.edition, e.letter) == ("round-card", card.edition.value, card.letter)
    assert e.name("en") == card.name_en
    assert e.name("fr") == card.name_fr
    for lang in rulings.LANGUAGES:
        assert e.summary(lang).strip()
        assert rulings.round_card_summary(card.edition.value, card.letter, lang) == e.summary(lang)


def test_round_card_summary_accepts_either_letter_case_and_defaults_to_english():
    assert rulings.round_card_summary("deluxe", "Z") == rulings.entry("deluxe-z").summary("en")
    assert rulings.round_card_summary("classic", "k", "fr-FR") == rulings.entry(
        "classic-K").summary("fr")
    with pytest.raises(KeyError):
        rulings.round_card_summary("classic", "Z")


def test_passing_only_where_the_rulebooks_give_it():
    """Arranged Marriage (deluxe e) and Cadeau de mariage (classic M): 1 card each way."""
    with_pass = {e.slug: dict(e.passing) for e in rulings.entries() if e.passing}
    assert with_pass == {
        "deluxe-e": {"left": 1, "right": 1},
        "classic-M": {"left": 1, "right": 1},
    }


@pytest.mark.parametrize(("edition", "name"), ALL_PRINCESSES, ids=lambda x: str(x))
def test_every_princess_of_both_editions_has_an_entry(edition, name):
    """12 Deluxe and 10 classic Princesses, printed names in both languages, power and timing."""
    e = rulings.entry(f"{edition}-{name}")
    assert (e.kind, e.edition) == ("princess", edition)
    assert (e.name("en"), e.name("fr")) == PRINCESS_NAMES[name]
    for lang in rulings.LANGUAGES:
        text = e.in_language(lang)
        assert text.summary.strip() and text.power.strip() and text.timing.strip()


def test_princess_counts():
    assert len(rulings.entries("princess", "deluxe")) == 12
    assert len(rulings.entries("princess", "classic")) == 10
    for missing in ("classic-rapunzel", "classic-thumbelina"):
        with pytest.raises(KeyError):
            rulings.entry(missing)


def test_basics_and_interactions_exist():
    assert len(rulings.entries("basics")) >= 9
    assert len(rulings.entries("interaction")) >= 10
    for topic in ("basics-following-suit", "basics-princes-sneak-in", "basics-scoring",
                  "basics-deck-by-player-count", "basics-passing"):
        assert rulings.entry(topic).edition is None
    assert rulings.entry("basics-rebel-of-the-ball").edition == "deluxe"
    for topic in ("basics-next-leader", "basics-tie-breaks", "basics-powers-timing"):
        for edition in rulings.EDITIONS:
            assert rulings.entry(topic, edition).edition == edition


# --- every entry ----------------------------------------------------------------------------------

ENTRIES = rulings.entries()


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.slug)
def test_entry_is_complete(e):
    """Both languages, a name and a summary each, a source, a known kind and edition."""
    assert e.kind in rulings.KINDS
    assert e.edition in (None, *rulings.EDITIONS)
    assert set(e.text) == set(rulings.LANGUAGES)
    for lang in rulings.LANGUAGES:
        assert e.name(lang).strip() and e.summary(lang).strip()
    assert e.source.strip()


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.slug)
def test_summaries_fit_on_a_phone(e):
    for lang in rulings.LANGUAGES:
        count = word_count(e.summary(lang))
        assert count <= rulings.SUMMARY_MAX_WORDS, f"{e.slug} {lang}: {count} words"


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.slug)
def test_links_resolve_and_are_not_self_links(e):
    assert e.slug not in e.links
    assert len(set(e.links)) == len(e.links)
    for slug in e.links:
        rulings.entry(slug)


def test_links_of_reads_both_ways():
    assert "classic-K" in {e.slug for e in rulings.links_of("deluxe-z")}
    assert "deluxe-z" in {e.slug for e in rulings.links_of("classic-K")}
    for e in ENTRIES:
        assert e.slug not in {x.slug for x in rulings.links_of(e.slug)}


def test_slugs_are_kebab_case():
    for e in ENTRIES:
        if e.kind == "round-card":
            assert e.slug == rulings.round_card_slug(e.edition, e.letter)
        else:
            assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", e.slug), e.slug


# --- search ---------------------------------------------------------------------------------------


def _found(query, **kw):
    return [e.slug for e in rulings.search(query, **kw)]


@pytest.mark.parametrize("query", ["frog", "grenouille", "Grenouille", "FROG"])
def test_search_finds_the_frog_in_both_languages(query):
    found = _found(query)
    assert {"deluxe-j", "classic-F", "basics-scoring"} <= set(found)


def test_search_by_english_name():
    assert _found("dancing")[0] in ("deluxe-z", "classic-K")
    assert "deluxe-z" in _found("dancing")[:2]


def test_search_by_french_name_ranks_names_first():
    assert set(_found("reines")[:2]) == {"deluxe-z", "classic-K"}


def test_search_tolerates_accents_and_typos():
    assert _found("Cendrilon")[0] in ("deluxe-cinderella", "classic-cinderella")
    assert {"deluxe-cinderella", "classic-cinderella"} <= set(_found("Cendrilon")[:2])
    assert "classic-scheherazade" in _found("sheherazade")[:2]
    assert _found("metamorphose")[0] in ("deluxe-v", "classic-R")


def test_search_by_letter():
    assert _found("z") == ["deluxe-z"]
    assert _found("K")[:2] == ["deluxe-k", "classic-K"]
    assert _found("classic-K")[0] == "classic-K"


def test_search_filters():
    assert all(e.edition in (None, "classic") for e in rulings.search("frog", edition="classic"))
    assert all(e.kind == "princess" for e in rulings.search("trick", kind="princess"))
    assert rulings.search("") == []


# --- own words ------------------------------------------------------------------------------------

SHINGLE = 8


def _tokens(text: str) -> list[str]:
    return re.findall(r"[0-9a-z]+", rulings.fold(text.replace("’", "'")))


def _shingles(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


@pytest.fixture(scope="module")
def rulebook_shingles():
    found: set[tuple[str, ...]] = set()
    for name in RULEBOOKS:
        found |= _shingles(_tokens(rulebook(name)))
    return found


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.slug)
def test_no_eight_words_in_a_row_from_a_rulebook(e, rulebook_shingles):
    """Our texts are our own: no run of 8 consecutive words appears in either rulebook."""
    for lang in rulings.LANGUAGES:
        for part in e.in_language(lang).paragraphs():
            copied = _shingles(_tokens(part)) & rulebook_shingles
            assert not copied, f"{e.slug} {lang}: {' '.join(sorted(copied)[0])!r}"
