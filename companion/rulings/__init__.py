"""Rulings content of every game: loading, and a search that forgives accents and small typos.

Pure Python (no Flask, no database): it imports the rules cores and the helpers only, and the
glue, the web and the routes import it. Each game keeps its rulings as data in
``companion/rulings/<key>/``. Rebel Princess has its own richer format and loader
(:mod:`companion.rulings.rebel_princess`); every other game uses the shared format of
``rulings.toml`` read here::

    [groups]                                  # the groups, in page order
    character = { en = "Characters", fr = "Personnages" }

    [[entry]]
    slug = "garde"                            # unique in the game
    group = "character"
    name = { en = "Guard", fr = "Garde" }
    value = 1                                 # optional: the number printed on the card
    summary = { en = "…", fr = "…" }          # one line
    text = { en = "…", fr = "…" }             # paragraphs, a blank line between
    reading = { en = "…", fr = "…" }          # optional: how this app reads it
    source = "…"
    related = ["slug", …]
    keywords = { en = ["…"], fr = ["…"] }     # optional extra search words

Every sentence is our own wording; the rulebooks only supply the facts.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from importlib import resources

LANGUAGES = ("en", "fr")

_WORD = re.compile(r"[0-9a-z]+")
STOP_WORDS = frozenset(
    "a an and the of to in on is it do does how what with card cards for my i can "
    "le la les l de des du un une et est d en que qui quoi comment avec carte cartes pour ma je"
    .split()
)
_FUZZY = 0.8


def fold(text: str) -> str:
    """Case- and accent-insensitive form of ``text``: casefolded, accents stripped."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The folded words of ``text`` (letters and digits)."""
    return _WORD.findall(fold(text))


def name_match(tokens: Sequence[str], joined: str) -> str | None:
    """How a whole query sits in an entry's names: ``"phrase"`` when its words, spaced, are (part
    of) a name ("roi fantome"); ``"squeezed"`` when typed without their spaces, hyphens or
    apostrophes ("snowwhite", "roifantome", "kingsadvisors"); ``None`` otherwise.

    ``tokens`` are the query's :func:`words`; ``joined`` the entry's names, each as its words
    joined by spaces, names separated by ``" | "`` (so a query never straddles two names).
    """
    spaced = " ".join(tokens)
    if len(spaced) >= 3 and spaced in joined:
        return "phrase"
    together = "".join(tokens)
    if len(together) >= 4 and together in joined.replace(" ", ""):
        return "squeezed"
    return None


def is_exact(query: str, exact: frozenset[str]) -> bool:
    """Whether ``query`` names an entry outright: one of its ``exact`` forms (a slug, a value, a
    letter), typed as is or with its words spaced ("deluxe  Z")."""
    return bool({fold(query).strip(), " ".join(words(query))} & exact)


def swapped(token: str, word: str) -> bool:
    """Whether ``token`` is ``word`` with two neighbouring letters typed the wrong way round
    ("frgo" for "frog", "grenoiulle" for "grenouille")."""
    if len(token) != len(word) or token == word:
        return False
    diff = [i for i, (a, b) in enumerate(zip(token, word, strict=True)) if a != b]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and \
        token[diff[0]] == word[diff[1]] and token[diff[1]] == word[diff[0]]


#: A word typed with two neighbouring letters swapped scores as a close near miss.
_SWAPPED = 0.8


def word_score(token: str, known: AbstractSet[str]) -> float:
    """1 for an exact word, 0.9 for a prefix (3+ letters), 0.8 for two neighbouring letters
    swapped (3+ letters: "frgo"), the difflib ratio for a near miss."""
    if token in known:
        return 1.0
    best = 0.0
    for word in known:
        if len(token) >= 3 and word.startswith(token):
            best = max(best, 0.9)
        elif len(token) >= 3 and swapped(token, word):
            best = max(best, _SWAPPED)
        elif len(token) >= 4 and abs(len(word) - len(token)) <= 2:
            ratio = difflib.SequenceMatcher(None, token, word).ratio()
            if ratio >= _FUZZY:
                best = max(best, ratio * 0.85)
    return best


def _lang(lang: str | None) -> str:
    return "fr" if (lang or "").lower().startswith("fr") else "en"


@dataclass(frozen=True)
class Ruling:
    """One rulings entry of a game in the shared format."""

    slug: str
    group: str
    names: Mapping[str, str]
    summaries: Mapping[str, str]
    texts: Mapping[str, str]
    readings: Mapping[str, str]
    source: str
    related: tuple[str, ...]
    keywords: Mapping[str, tuple[str, ...]]
    value: int | None = None

    def name(self, lang: str = "en") -> str:
        return self.names[_lang(lang)]

    def summary(self, lang: str = "en") -> str:
        return self.summaries[_lang(lang)]

    def paragraphs(self, lang: str = "en") -> list[str]:
        return [p.strip() for p in self.texts[_lang(lang)].split("\n\n") if p.strip()]

    def reading(self, lang: str = "en") -> str:
        return self.readings.get(_lang(lang), "")


@dataclass(frozen=True)
class Rulings:
    """A game's rulings: its groups in page order and its entries in file order."""

    groups: Mapping[str, Mapping[str, str]]
    entries: tuple[Ruling, ...]

    def entry(self, slug: str) -> Ruling:
        """The entry ``slug``; ``KeyError`` if there is none."""
        for found in self.entries:
            if found.slug == slug:
                return found
        raise KeyError(slug)

    def grouped(self, lang: str = "en") -> list[tuple[str, list[Ruling]]]:
        """(group title, entries) in page order; groups without entries left out."""
        result = []
        for key, titles in self.groups.items():
            members = [e for e in self.entries if e.group == key]
            if members:
                result.append((titles[_lang(lang)], members))
        return result

    def related(self, slug: str) -> list[Ruling]:
        """Entries linked to ``slug`` either way, in file order."""
        this = self.entry(slug)
        return [e for e in self.entries
                if e.slug != slug and (e.slug in this.related or slug in e.related)]

    def terms(self, entry: Ruling) -> SearchTerms:
        """What :meth:`search` looks at in ``entry`` (also sent to phones for searching offline)."""
        return _terms(entry)

    def search(self, query: str) -> list[Ruling]:
        """Entries matching ``query`` best first: names above text, both languages, accents
        small typos and missing spaces forgiven (:func:`name_match`)."""
        tokens = [t for t in words(query) if t not in STOP_WORDS] or words(query)
        if not tokens:
            return []
        query_words = words(query)
        scored = []
        for order, e in enumerate(self.entries):
            terms = _terms(e)
            names, joined, text = terms.names, terms.joined, terms.words
            score = 1000.0 if is_exact(query, terms.exact) else 0.0
            whole = name_match(query_words, joined)
            if whole:
                score += 500
            matched = 1 if whole == "squeezed" else 0
            for token in tokens:
                name_hit, text_hit = word_score(token, names), word_score(token, text)
                score += 100 * name_hit + 10 * text_hit
                matched += bool(name_hit or text_hit)
            if matched or score >= 1000:
                scored.append((-(score + 50 * matched), order, e))
        return [e for _, _, e in sorted(scored, key=lambda item: item[:2])]


@dataclass(frozen=True)
class SearchTerms:
    """The folded words a search looks at in one entry: its ``names`` (both languages), the names
    ``joined`` for :func:`name_match`, the ``words`` of its texts, and the ``exact`` forms that
    name it outright (a slug, a value, a Round card's letter)."""

    names: frozenset[str]
    joined: str
    words: frozenset[str]
    exact: frozenset[str]

    def as_row(self) -> tuple[str, str]:
        """What a phone needs to search offline besides the words of the stored page: the names
        joined, and the exact forms separated by ``|`` (the words of its texts, in the page's
        language, the service worker takes from the stored page: ``sw.js``)."""
        return self.joined, "|".join(sorted(self.exact))


def _terms(e: Ruling) -> SearchTerms:
    text: set[str] = set()
    for lang in LANGUAGES:
        for part in (e.summaries[lang], e.texts[lang], e.readings.get(lang, ""),
                     *e.keywords.get(lang, ())):
            text.update(words(part))
    exact = {e.slug} | ({str(e.value)} if e.value is not None else set())
    return SearchTerms(names=frozenset(w for n in e.names.values() for w in words(n)),
                       joined=" | ".join(" ".join(words(n)) for n in e.names.values()),
                       words=frozenset(text), exact=frozenset(exact))


def _pair(data: object, where: str) -> dict[str, str]:
    if not isinstance(data, Mapping) or any(lang not in data for lang in LANGUAGES):
        raise ValueError(f"{where} needs an English and a French text")
    return {lang: " ".join(str(data[lang]).split()) if "\n" not in str(data[lang])
            else str(data[lang]).strip() for lang in LANGUAGES}


@cache
def load(package: str) -> Rulings:
    """The rulings in ``<package>/rulings.toml`` (e.g. ``companion.rulings.kanai_duel``)."""
    text = resources.files(package).joinpath("rulings.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    groups = {key: _pair(titles, f"group {key}") for key, titles in data.get("groups", {}).items()}
    entries = []
    for raw in data.get("entry", []):
        slug = str(raw["slug"])
        readings = _pair(raw["reading"], f"{slug}.reading") if "reading" in raw else {}
        keywords = {lang: tuple(str(w) for w in raw.get("keywords", {}).get(lang, ()))
                    for lang in LANGUAGES}
        entries.append(Ruling(
            slug=slug, group=str(raw.get("group", "")),
            names=_pair(raw["name"], f"{slug}.name"),
            summaries=_pair(raw["summary"], f"{slug}.summary"),
            texts=_pair(raw["text"], f"{slug}.text"), readings=readings,
            source=str(raw.get("source", "")), related=tuple(raw.get("related", ())),
            keywords=keywords, value=raw.get("value")))
    return Rulings(groups=groups, entries=tuple(entries))
