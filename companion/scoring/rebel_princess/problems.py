"""The catalogue of the scoring core's problem codes: the sentence a player reads is looked up by
code in this package's ``messages.toml`` (English ``[messages]``, French ``[messages_fr]``), so
text stays out of the logic. (The engine's own, by edition: ``engine/errors.py``.)

A sentence for the players at the table (``Problem.text(lang, names)``: the one problem filter
of the pages) names the players, names every card (« le 3 de Princes », « la Grenouille »,
never P3 or A8) and starts with a capital; the API's ``message`` (no names) keeps the card's
code. In French, the ranges the core describes in English ("-10 or 15", "15 to 25") are said in
French.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from companion.scoring.problems import Catalogue, language

CardNamer = Callable[[str, str], str]
"""``namer(code, lang)``: a card's name for players (its code kept when it is not a card)."""

_RANGE_WORDS = re.compile(r"\b(or|to)\b")
_FRENCH_RANGE_WORDS = {"or": "ou", "to": "à"}


def _codes(code: str, lang: str) -> str:
    return code


#: How cards are named for players: the engine, which knows every card's name, gives its own
#: through :func:`name_cards_with` when it is imported (this core never imports the engine).
_card_namer: CardNamer = _codes


def name_cards_with(namer: CardNamer) -> None:
    """Name the cards in the sentences for players with ``namer(code, lang)``."""
    global _card_namer
    _card_namer = namer


class RebelCatalogue(Catalogue):
    """The scoring core's catalogue: :class:`~companion.scoring.problems.Catalogue`, with cards
    named for the players at the table (see the module)."""

    def text(self, code: str, /, lang: str = "en", names: Sequence[str] | None = None,
             **params: Any) -> str:
        lang = language(lang)
        expected = params.get("expected")
        if lang == "fr" and isinstance(expected, str):
            params["expected"] = _RANGE_WORDS.sub(
                lambda m: _FRENCH_RANGE_WORDS[m[1]], expected)
        if names is None:
            return super().text(code, lang, **params)
        card = params.get("card")
        if isinstance(card, str) and code != "unknown-card":  # (an unknown card: as typed)
            params["card"] = _card_namer(card, lang)
        message = super().text(code, lang, names=names, **params)
        return message[:1].upper() + message[1:]


#: The scoring core's sentences, by problem code, in English and French.
CATALOGUE = RebelCatalogue(__package__ or "companion.scoring.rebel_princess")


def message_for(code: str, /, lang: str = "en", **params: Any) -> str:
    """The sentence for a problem code, with its parameters filled in: English (the API and
    ``Problem.message``), or French with ``lang="fr"``."""
    return CATALOGUE.text(code, lang, **params)
