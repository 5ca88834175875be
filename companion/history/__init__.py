"""History and statistics across games: what the shell knows of a finished game, and what it
makes of many.

Pure code (no Flask, no database): :mod:`.summary` is the type every game fills to say what one of
its games came to (``summary(session, game)`` in its glue module), :mod:`.stats` turns many
summaries into per-player and per-game figures, :mod:`.charts` lays out the SVG charts,
:mod:`.bgstats` writes BG Stats' push-play link and :mod:`.export_format` is the export format.
None of them names a game: whatever a game wants counted travels as :class:`~.summary.Fact`.
History imports only the rules cores' problem type and ``companion.common``; the glue, the web,
the routes and the migrations import it.
"""

from __future__ import annotations

from .summary import N_, Aggregate, Fact, GameSummary, ScoreUnit, StepUnit

__all__ = ["Aggregate", "Fact", "GameSummary", "N_", "ScoreUnit", "StepUnit"]
