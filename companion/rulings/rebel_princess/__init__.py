"""Rulings content: Round cards, Princess powers, basic rules and interactions, in English and
French.

Pure Python (no Flask, no database). The texts live as data in the TOML files of this package, one
file per kind of entry; this module loads them once, joins them by slug and searches them.

- ``round_cards.toml``: one entry per Round card, ``deluxe-a`` ... ``deluxe-z`` and
  ``classic-A`` ... ``classic-U``. Names match ``companion/scoring/round_cards.toml``.
- ``princesses.toml``: ``deluxe-<princess>`` (12) and ``classic-<princess>`` (10).
- ``basics.toml``: the basic rules, ``basics-...``; a rule that differs between editions has one
  entry per edition, slugged ``basics-<topic>-deluxe`` / ``basics-<topic>-classic``.
- ``interactions.toml``: rulings on how cards and powers combine, ``interaction-...``.

Every entry has a text per language (``en``, ``fr``), a ``source`` and ``links`` to related slugs.
Links are stored one way and read both ways by :func:`links_of`. Every sentence is our own wording;
the rulebooks and FAQs only supply the facts.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import cast

from .. import STOP_WORDS, SearchTerms, fold, is_exact, name_match, word_score, words

LANGUAGES = ("en", "fr")
KINDS = ("round-card", "princess", "basics", "interaction")
EDITIONS = ("deluxe", "classic")

_FILES = {
    "round-card": "round_cards.toml",
    "princess": "princesses.toml",
    "basics": "basics.toml",
    "interaction": "interactions.toml",
}

SUMMARY_MAX_WORDS = 55
"""A summary is read at arm's length on a phone: one short paragraph."""


@dataclass(frozen=True)
class Text:
    """The player-facing text of one entry in one language.

    ``name`` is the card, power holder or topic title; ``power`` is a Princess's power name;
    ``notes`` are interaction facts printed with a card; ``timing`` and ``limits`` are for Princess
    powers. Fields that do not apply are empty.
    """

    name: str
    summary: str
    details: str = ""
    examples: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    app_reading: str = ""
    power: str = ""
    timing: str = ""
    limits: str = ""

    def paragraphs(self) -> tuple[str, ...]:
        """Every non-empty piece of text, name first (for searching and checks)."""
        parts = (self.name, self.power, self.summary, self.details, *self.examples, *self.notes,
                 self.app_reading, self.timing, self.limits)
        return tuple(p for p in parts if p)


@dataclass(frozen=True)
class RulingEntry:
    """One rulings entry: a Round card, a Princess, a basic rule or an interaction."""

    slug: str
    kind: str
    edition: str | None
    letter: str | None
    text: Mapping[str, Text]
    source: str
    links: tuple[str, ...] = ()
    passing: Mapping[str, int] | None = None
    """Cards passed at the start of the round (``{"left": 1, "right": 1}``), only where the
    rulebook gives it; ``None`` when unknown."""
    _key: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def name(self, lang: str = "en") -> str:
        return self.in_language(lang).name

    def summary(self, lang: str = "en") -> str:
        return self.in_language(lang).summary

    def in_language(self, lang: str = "en") -> Text:
        """The text in ``lang`` (``en``/``fr``, ``fr-FR`` accepted); English if unknown."""
        return self.text[_lang(lang)]


def _lang(lang: str | None) -> str:
    code = (lang or "en").strip().lower()[:2]
    return code if code in LANGUAGES else "en"


def _text(data: Mapping[str, object], where: str) -> Text:
    try:
        return Text(
            name=str(data["name"]),
            summary=" ".join(str(data["summary"]).split()),
            details=str(data.get("details", "")).strip(),
            examples=tuple(str(x) for x in cast(list[object], data.get("examples", ()))),
            notes=tuple(str(x) for x in cast(list[object], data.get("notes", ()))),
            app_reading=str(data.get("app_reading", "")).strip(),
            power=str(data.get("power", "")),
            timing=str(data.get("timing", "")),
            limits=str(data.get("limits", "")),
        )
    except KeyError as exc:
        raise ValueError(f"rulings entry {where} lacks {exc.args[0]!r}") from None


@cache
def _all() -> dict[str, RulingEntry]:
    result: dict[str, RulingEntry] = {}
    package = resources.files(__package__)
    for kind, filename in _FILES.items():
        resource = package.joinpath(filename)
        if not resource.is_file():
            continue
        data = tomllib.loads(resource.read_text(encoding="utf-8"))
        for slug, raw in data.items():
            if slug in result:
                raise ValueError(f"duplicate rulings slug {slug!r} in {filename}")
            texts = {lang: _text(raw[lang], f"{slug}.{lang}") for lang in LANGUAGES if lang in raw}
            passing = raw.get("pass")
            result[slug] = RulingEntry(
                slug=slug,
                kind=kind,
                edition=raw.get("edition"),
                letter=raw.get("letter"),
                text=MappingProxyType(texts),
                source=str(raw.get("source", "")),
                links=tuple(raw.get("links", ())),
                passing=MappingProxyType(dict(passing)) if passing else None,
            )
    return result


def entry(slug: str, edition: str | None = None) -> RulingEntry:
    """The entry with this slug. With ``edition``, a topic slug such as ``basics-next-leader``
    also finds its edition's entry ``basics-next-leader-<edition>``. Raises ``KeyError``."""
    table = _all()
    if slug in table:
        return table[slug]
    if edition and f"{slug}-{edition}" in table:
        return table[f"{slug}-{edition}"]
    raise KeyError(slug)


def entries(kind: str | None = None, edition: str | None = None) -> list[RulingEntry]:
    """All entries, in file order, optionally of one kind and one edition. With ``edition``,
    entries that hold for both editions (edition ``None``) are included."""
    return [
        e for e in _all().values()
        if (kind is None or e.kind == kind) and (edition is None or e.edition in (None, edition))
    ]


def round_card_slug(edition: str, letter: str) -> str:
    """``deluxe-a`` ... ``deluxe-z``, ``classic-A`` ... ``classic-U`` (either case accepted)."""
    ed = str(edition).strip().lower()
    letter = str(letter).strip()
    return f"{ed}-{letter.upper() if ed == 'classic' else letter.lower()}"


def round_card(edition: str, letter: str) -> RulingEntry:
    """The Round card entry of an edition by letter. Raises ``KeyError``."""
    return entry(round_card_slug(edition, letter))


def round_card_summary(edition: str, letter: str, lang: str = "en") -> str:
    """The short reminder shown on the round screen. Raises ``KeyError`` for an unknown card."""
    return round_card(edition, letter).summary(lang)


def princess(edition: str, name: str) -> RulingEntry:
    """A Princess entry by edition and slug name (``snow-white``). Raises ``KeyError``."""
    return entry(f"{str(edition).strip().lower()}-{name}")


@cache
def princess_names(lang: str = "en") -> dict[str, list[tuple[str, str]]]:
    """Each edition's Princesses as (slug, printed name in ``lang``), from
    ``princesses_names.toml``: the set-up list and the only slugs a game may store."""
    text = resources.files(__package__).joinpath("princesses_names.toml").read_text(
        encoding="utf-8")
    data = tomllib.loads(text)
    key = "fr" if _lang(lang) == "fr" else "en"
    return {ed: [(p["slug"], p[key]) for p in data[ed]["princesses"]] for ed in data}


def links_of(slug: str) -> list[RulingEntry]:
    """Entries related to ``slug``: those it links to, then those linking to it; no duplicates."""
    table = _all()
    own = entry(slug)
    found: dict[str, RulingEntry] = {}
    for other in own.links:
        if other in table and other != slug:
            found[other] = table[other]
    for linking in table.values():
        if slug in linking.links and linking.slug != slug:
            found.setdefault(linking.slug, linking)
    return list(found.values())


# --- search -------------------------------------------------------------------------------------

_STOP = STOP_WORDS
_words = words
_word_score = word_score


@cache
def _index() -> dict[str, tuple[set[str], set[str], str]]:
    """slug -> (name words, text words, folded names joined)."""
    index = {}
    for e in _all().values():
        names: set[str] = set()
        joined = []
        words: set[str] = set()
        for t in e.text.values():
            for title in (t.name, t.power):
                if title:
                    names.update(_words(title))
                    joined.append(" ".join(_words(title)))
            for part in t.paragraphs():
                words.update(_words(part))
        index[e.slug] = (names, words, " | ".join(joined))
    return index


@cache
def search_terms(slug: str) -> SearchTerms:
    """What :func:`search` looks at in entry ``slug`` (also sent to phones for searching
    offline): its names in both languages, every word of its texts, and the forms that name it
    outright (its slug, a Round card's letter, or its slug typed with spaces: "deluxe z")."""
    names, text, joined = _index()[slug]
    e = _all()[slug]
    exact = {slug.casefold()}
    if e.letter:
        exact |= {e.letter.casefold(), slug.casefold().replace("-", " ")}
    return SearchTerms(frozenset(names), joined, frozenset(text), frozenset(exact))


@cache
def _summaries() -> dict[str, list[str]]:
    """slug -> the words of its summaries, both languages, with repeats (to weigh text hits)."""
    return {e.slug: [w for t in e.text.values() for w in _words(t.summary)]
            for e in _all().values()}


def search(query: str, lang: str | None = None, kind: str | None = None,
           edition: str | None = None) -> list[RulingEntry]:
    """Entries matching ``query``, best first.

    Finds a Round card by its letter (``z``, ``K``, ``deluxe-z``), any entry by its name or power
    name in either language, or by words of its text. Case, accents and small typos are tolerated
    (``Cendrilon`` finds Cinderella). Name matches rank above text matches. ``lang`` restricts the
    text searched to one language (names are always searched in both); ``kind`` and ``edition``
    filter the results as in :func:`entries`.
    """
    tokens = _words(query)
    if not tokens:
        return []
    meaningful = [t for t in tokens if t not in _STOP] or tokens
    index = _index()
    summaries = _summaries()
    wanted_lang = _lang(lang) if lang else None
    scored: list[tuple[float, int, str]] = []
    for order, e in enumerate(entries(kind, edition)):
        names, words, joined = index[e.slug]
        if wanted_lang:
            words = set()
            for part in e.in_language(wanted_lang).paragraphs():
                words.update(_words(part))
        # A letter, or a slug typed in full: an exact hit.
        score = 1000.0 if is_exact(query, search_terms(e.slug).exact) else 0.0
        whole = name_match(tokens, joined)
        if whole:
            score += 500  # the whole query is (part of) a name, maybe typed as "snowwhite"
        matched = 1 if whole == "squeezed" else 0
        for token in meaningful:
            name_hit = _word_score(token, names)
            text_hit = _word_score(token, words)
            if name_hit:
                score += 100 * name_hit
            if text_hit:
                # An entry that talks about the word in its summary is more about it.
                score += 10 * text_hit + 5 * min(summaries[e.slug].count(token), 4)
            if name_hit or text_hit:
                matched += 1
        if matched == 0 and score < 1000:
            continue
        score += 50 * matched  # entries matching more of the words come first
        scored.append((-score, order, e.slug))
    scored.sort()
    table = _all()
    return [table[slug] for _, _, slug in scored]


__all__ = [
    "EDITIONS", "KINDS", "LANGUAGES", "SUMMARY_MAX_WORDS", "RulingEntry", "Text", "entries",
    "entry",
    "fold", "links_of", "princess", "princess_names", "round_card", "round_card_slug",
    "round_card_summary", "search", "search_terms",
]


# --- the rulings of one table ---------------------------------------------------------------------

@dataclass(frozen=True)
class TableRulings:
    """What matters at one table: its Round cards, its Princesses, and how they combine.

    ``pairs`` holds (card or Princess, card or Princess, ruling): two entries of this table that a
    ruling connects, or that link to each other directly (then the ruling is ``None``).
    """

    round_cards: tuple[RulingEntry, ...]
    princesses: tuple[RulingEntry, ...]
    pairs: tuple[tuple[RulingEntry, RulingEntry, RulingEntry | None], ...]


def for_table(edition: str, letters: str | tuple[str, ...],
              princesses: tuple[str, ...] | list[str]) -> TableRulings:
    """The entries of a game's Round cards and Princesses, and every interaction between two of
    them. Unknown letters or Princesses are left out."""
    table = _all()
    cards = [table[s] for s in dict.fromkeys(round_card_slug(edition, x) for x in letters)
             if s in table]
    powers = [table[s] for s in dict.fromkeys(f"{edition}-{p}" for p in princesses if p)
              if s in table]
    here = {e.slug: e for e in cards + powers}
    pairs: list[tuple[RulingEntry, RulingEntry, RulingEntry | None]] = []
    seen: set[tuple[str, str, str]] = set()
    for ruling in entries(kind="interaction", edition=edition):
        # A ruling about a Round card that is not in this game does not concern this table.
        other_cards = [s for s in ruling.links
                       if s in table and table[s].kind == "round-card"
                       and table[s].edition == edition and s not in here]
        if other_cards:
            continue
        involved = [here[s] for s in dict.fromkeys(ruling.links) if s in here]
        for i, first in enumerate(involved):
            for second in involved[i + 1:]:
                key = (first.slug, second.slug, ruling.slug)
                if key not in seen:
                    seen.add(key)
                    pairs.append((first, second, ruling))
    for first in powers:  # a Princess entry that links straight to a card or Princess here
        for other in first.links:
            if other in here and other != first.slug:
                a, b = sorted((first.slug, other))
                if not any({p[0].slug, p[1].slug} == {a, b} for p in pairs):
                    pairs.append((here[a], here[b], None))
    return TableRulings(tuple(cards), tuple(powers), tuple(pairs))
