"""The game's catalogues: problem sentences (``messages.toml``) and reasoning steps
(``steps.toml``), both in English and French."""

from __future__ import annotations

from companion.scoring.problems import Catalogue

__all__ = ["CATALOGUE", "STEPS"]

CATALOGUE = Catalogue(__package__ or "companion.scoring.kanai_duel")
"""Sentences of the problem codes (``messages.toml``)."""

STEPS = Catalogue(__package__ or "companion.scoring.kanai_duel", "steps.toml")
"""Sentences of the reasoning step codes (``steps.toml``)."""
