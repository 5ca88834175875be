"""The catalogue of the scoring core's problem codes: the sentence a player reads is looked up by
code in this package's ``messages.toml`` (English ``[messages]``, French ``[messages_fr]``), so
text stays out of the logic. (The engine's own, by edition: ``engine/errors.py``.)"""

from __future__ import annotations

from typing import Any

from companion.scoring.problems import Catalogue

#: The scoring core's sentences, by problem code, in English and French.
CATALOGUE = Catalogue(__package__ or "companion.scoring.rebel_princess")


def message_for(code: str, /, lang: str = "en", **params: Any) -> str:
    """The sentence for a problem code, with its parameters filled in: English (the API and
    ``Problem.message``), or French with ``lang="fr"`` (the French web pages)."""
    return CATALOGUE.text(code, lang, **params)
