"""Problems: the one type every game's rules core uses to say what is wrong with an entry.

A problem is data: a stable kebab-case ``code`` (``"target-protected"``), the seat, card and trick
it is about, the request field it was found in (JSON APIs), and parameters. The sentence a player
reads is looked up by code in the game's own message
catalogue (a ``messages.toml`` beside its core, with an English ``[messages]`` table and a French
``[messages_fr]`` table), so no sentence is written inside the rules. Tests assert on codes.

A core that refuses an entry raises :class:`EntryError` carrying *every* problem it found, so a
screen or the JSON API can show them all at once.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from importlib import resources
from typing import Any

LANGUAGES = ("en", "fr")

# French elision, for these catalogues and (through companion.web.french) for the app's own: the
# rule is defined once, here, where the rules cores may reach it.
VOWELS = "aeiouàâäéèêëîïôöùûüœæ"
_BEFORE_BRACE = re.compile(r"\b(de|que|De|Que) \{(\w+)\}")


def starts_with_vowel_sound(word: str) -> bool:
    """A vowel, a mute h (names are taken as mute: « d'Hélène », « d'Hugo »), or a y followed by a
    consonant (« Yves »); a y before a vowel sounds as a consonant (« Yann »)."""
    w = word.strip().lower()
    if not w:
        return False
    if w[0] == "y":
        return len(w) > 1 and w[1] not in VOWELS
    return w[0] in VOWELS or w[0] == "h"


def format_braces(template: str, values: Mapping[str, Any]) -> str:
    """``template.format(**values)`` for the rules cores' catalogues (``{player}`` fields), with
    the same elision as ``companion.web.french.format_sentence``: « le pouvoir d'Alice », « c'est au
    tour d'Ana »."""
    def fix(match: re.Match[str]) -> str:
        word, key = match.group(1), match.group(2)
        value = values.get(key)
        if isinstance(value, str) and starts_with_vowel_sound(value):
            return f"{word[:-1]}'{{{key}}}"
        return match.group(0)
    return _BEFORE_BRACE.sub(fix, template).format(**values)


def language(lang: str | None) -> str:
    """``"fr"`` for any French locale (``fr``, ``fr_FR``), else ``"en"``."""
    return "fr" if (lang or "").lower().startswith("fr") else "en"


_FALLBACK = {
    "en": ("Something in this entry is not right ({code}).", "player {n}", "a player"),
    "fr": ("Quelque chose ne va pas dans cette saisie ({code}).", "joueur {n}", "un joueur"),
}


#: Parameters that hold a seat: a sentence names that player.
SEAT_PARAMS = ("on", "leader")


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat_name(seat: int, names: Sequence[str] | None, numbered: str) -> str:
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return numbered.format(n=seat + 1)


@dataclass(frozen=True, eq=False)
class Catalogue:
    """The sentences of one game's problem codes, in English and French.

    ``Catalogue("companion.scoring.kanai_duel")`` reads ``messages.toml`` from that package.
    Templates use ``str.format`` fields: ``{player}`` is filled in from ``seat`` ("player 2").
    """

    package: str
    filename: str = "messages.toml"

    @cached_property
    def _tables(self) -> dict[str, dict[str, str]]:
        text = resources.files(self.package).joinpath(self.filename).read_text(encoding="utf-8")
        data = tomllib.loads(text)
        return {"en": dict(data.get("messages", {})), "fr": dict(data.get("messages_fr", {}))}

    def codes(self, lang: str = "en") -> frozenset[str]:
        return frozenset(self._tables[language(lang)])

    def text(self, code: str, /, lang: str = "en", names: Sequence[str] | None = None,
             **params: Any) -> str:
        """The sentence for ``code`` with ``params`` filled in; a generic sentence if unknown.
        ``names`` (the players' names by seat) names the player of ``seat`` and of every seat
        parameter (:data:`SEAT_PARAMS`) instead of "player 2"."""
        lang = language(lang)
        unknown, numbered, anyone = _FALLBACK[lang]
        template = self._tables[lang].get(code) or self._tables["en"].get(code, unknown)
        shown = {key: ("?" if value is None else value) for key, value in params.items()}
        if _is_seat(shown.get("seat")):
            shown.setdefault("player", _seat_name(int(shown["seat"]), names, numbered))
        for key in SEAT_PARAMS:
            if _is_seat(shown.get(key)):
                shown[key] = _seat_name(int(shown[key]), names, numbered)
        shown.setdefault("player", anyone)
        try:
            if lang == "fr":  # « le tour d'Ana », « le pouvoir d'Alice »
                return format_braces(template, {"code": code, **shown})
            return template.format(code=code, **shown)
        except (KeyError, IndexError, ValueError):
            return template

    def problem(self, code: str, /, **params: Any) -> Problem:
        """A :class:`Problem` whose sentences come from this catalogue: ``seat`` (an int),
        ``card`` (a str), ``trick`` (an int) and ``field`` (a str) are its place, the other
        ``params`` fill its sentence."""
        located = {key: params.pop(key, None) for key in ("seat", "card", "trick", "field")}
        return Problem(code, seat=located["seat"], card=located["card"],
                       trick=located["trick"], field=located["field"], params=params,
                       catalogue=self)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an entry: a stable code, the seat, card and trick (0-based)
    concerned, the request field it was found in, parameters."""

    code: str
    seat: int | None = None
    card: str | None = None
    trick: int | None = None
    field: str | None = None
    params: Mapping[str, Any] = dataclass_field(default_factory=dict, compare=False,
                                                hash=False)
    catalogue: Catalogue | None = dataclass_field(default=None, compare=False, hash=False,
                                                 repr=False)

    def text(self, lang: str = "en", names: Sequence[str] | None = None) -> str:
        """The sentence a player reads, in ``lang``; ``names`` (by seat) names the players."""
        if self.catalogue is None:
            return _FALLBACK[language(lang)][0].format(code=self.code)
        located = {name: value for name, value in (("trick", self.trick), ("field", self.field))
                   if value is not None}
        params = {"seat": self.seat, "card": self.card, **located,
                  **self.params}  # a parameter of the same name wins
        return self.catalogue.text(self.code, lang, names=names, **params)

    @property
    def message(self) -> str:
        """The English sentence (the JSON API's ``message``)."""
        return self.text("en")

    def as_dict(self) -> dict[str, Any]:
        """The JSON API's shape: ``code``, ``message`` and, when known, ``seat``, ``card``,
        ``trick`` and ``field``."""
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        for name in ("seat", "card", "trick", "field"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


class EntryError(ValueError):
    """An entry a rules core refuses: malformed, or against the rules. ``problems`` lists every
    reason found, not only the first."""

    def __init__(self, problems: Problem | Iterable[Problem]) -> None:
        self.problems: list[Problem] = (
            [problems] if isinstance(problems, Problem) else list(problems))
        super().__init__("; ".join(f"{p.code}: {p.message}" for p in self.problems))

    @property
    def codes(self) -> list[str]:
        return [problem.code for problem in self.problems]
