"""A game's set-up: how many play, who starts, whether the variant is played (:class:`Setup`)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.scoring.problems import EntryError

from .cards import TARGETS, Target, check_players
from .problems import CATALOGUE


@dataclass(frozen=True, slots=True)
class Setup:
    """A game's set-up: number of players, the seat that starts (left of the dealer) and whether
    the variant « caprices de princesses » is played. ``str()`` gives its notation
    (``"3 first=1 variant"``)."""

    players: int
    first: int = 0
    variant: bool = False

    @classmethod
    def make(cls, players: object, first: object = 0, variant: bool = False) -> Setup:
        """A checked set-up; raises EntryError (``players-range``, ``seat-range``)."""
        problems = check_players(players)
        if not problems:
            assert isinstance(players, int)
            if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
                problems.append(CATALOGUE.problem("seat-range", given=first, players=players,
                                                  high=players - 1))
        if problems:
            raise EntryError(problems)
        assert isinstance(players, int) and isinstance(first, int)
        return cls(players, first, bool(variant))

    @classmethod
    def parse(cls, text: str) -> Setup:
        """Read ``"<players> [first=<seat>] [variant]"``; raises EntryError."""
        words = text.split()
        try:
            players = int(words[0])
            options = dict(word.partition("=")[::2] for word in words[1:])
            first = int(options.pop("first", "0") or "0")
            variant = "variant" in options
            options.pop("variant", None)
        except (IndexError, ValueError):
            raise EntryError(CATALOGUE.problem("notation", given=text)) from None
        if options:
            raise EntryError(CATALOGUE.problem("notation", given=text))
        return cls.make(players, first, variant)

    @property
    def target(self) -> Target:
        return TARGETS[self.players]

    def __str__(self) -> str:
        return f"{self.players} first={self.first}" + (" variant" if self.variant else "")
