"""``bench.save_ab --swap TARGET=SOURCE``: side A's value is SOURCE as the older commit's files
have it, loaded beside this checkout's module; side B's is what TARGET holds now."""

from __future__ import annotations

import shutil
from pathlib import Path

import companion.scoring.rebel_princess.game as game
import companion.scoring.rebel_princess.totals as totals
from bench.save_ab import swaps


def test_a_swap_takes_the_older_files_and_keeps_the_current_value(tmp_path: Path) -> None:
    older = tmp_path / "companion" / "scoring" / "rebel_princess"
    older.mkdir(parents=True)
    shutil.copy(totals.__file__, older / "totals.py")
    spec = ("companion.scoring.rebel_princess.game.possible_round_totals="
            "companion.scoring.rebel_princess.totals.possible_round_totals")
    [(holder, attribute, a, b)] = swaps([spec], "REV", tmp_path)
    assert (holder, attribute, b) == (game, "possible_round_totals", game.possible_round_totals)
    assert a is not b and a.__module__ == "companion.scoring.rebel_princess.totals_ab"
    assert a(totals.Edition.DELUXE, "a", 4) == b(totals.Edition.DELUXE, "a", 4)
