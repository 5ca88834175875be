"""The catalogue of this game's problem codes (sentences in ``messages.toml``, EN and FR)."""

from __future__ import annotations

from companion.scoring.problems import Catalogue

CATALOGUE = Catalogue(__package__ or "companion.scoring.reveillez")
"""Every problem this core raises comes from here; tests assert on the codes."""
