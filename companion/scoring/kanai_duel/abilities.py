"""The eight abilities, one small class each, and the variant H switch that ignores them.

An :class:`Ability` declares, as class attributes, which of the resolver's hooks it uses; every
hook defaults to "no effect". The resolver (:mod:`.resolve`) consults them in the order of
KANAI_DUEL.md « Deciding a round »:

1. ``cancels_opponent`` (Wizard) and ``cancels_twin`` (the same card on both sides: Prince, Spy);
2. ``holds_round`` (Clown), which then cancels every other ability of the round;
3. ``wins_game_against`` (Princess against the Prince);
4. ``wins_round`` (Prince);
5. ``lower_wins`` (Assassin);
6. otherwise the higher value wins;

then for points ``stake`` (Minister) and for the next round ``next_bonus`` (General) and
``opponent_reveals_first`` (Spy). Abilities are compulsory (rulebook 004, « Comment jouer »): an
ability that stands always applies.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from .cards import DuelCard

__all__ = ["ABILITIES", "Abilities", "Ability", "ability_of"]


class Ability:
    """The neutral ability: every hook says "no effect". Subclasses set ``card`` and their hooks."""

    card: ClassVar[DuelCard]
    cancels_opponent: ClassVar[bool] = False
    """Step 1: the opponent's ability is cancelled this round (and for the next round)."""
    cancels_twin: ClassVar[bool] = False
    """Step 1: against the same card, both abilities cancel."""
    holds_round: ClassVar[bool] = False
    """Step 2: the round goes on hold and every other ability of the round is cancelled."""
    wins_game_against: ClassVar[DuelCard | None] = None
    """Step 3: against this card, the player wins the whole game at once."""
    wins_round: ClassVar[bool] = False
    """Step 4: the card wins the round whatever the values."""
    lower_wins: ClassVar[bool] = False
    """Step 5: the lower effective value wins the round."""
    stake: ClassVar[int] = 1
    """Points: a round won with this card counts ``stake`` wins (a held round: worth ``stake``)."""
    next_bonus: ClassVar[int] = 0
    """Next round: the player's next card gets this much added to its value."""
    opponent_reveals_first: ClassVar[bool] = False
    """Next round: the opponent reveals first, and the player chooses after seeing that card."""


class Prince(Ability):
    """« Vous gagnez la manche »: wins whatever the values; the Assassin does not reverse it; two
    Princes cancel each other and the values decide (rulebook 004, « Prince »)."""

    card = DuelCard.PRINCE
    wins_round = True
    cancels_twin = True


class General(Ability):
    """Your card next round gets +2; a Wizard played against that card does not remove the +2
    (rulebook 004, « General »)."""

    card = DuelCard.GENERAL
    next_bonus = 2


class Wizard(Ability):
    """Cancels the ability of the opponent's card; then only the values count (rulebook 004,
    « Wizard »). Two Wizards cancel each other."""

    card = DuelCard.WIZARD
    cancels_opponent = True


class Minister(Ability):
    """A round won with it counts 2 wins, also when the round was on hold first (rulebook 004,
    « Minister »; KANAI_DUEL.md « Holds and points »)."""

    card = DuelCard.MINISTER
    stake = 2


class Assassin(Ability):
    """The lower value wins (rulebook 004, « Assassin »)."""

    card = DuelCard.ASSASSIN
    lower_wins = True


class Spy(Ability):
    """Next round the opponent reveals first and you choose after seeing it; two Spies in the same
    round cancel each other (rulebook 004, « Spy »)."""

    card = DuelCard.SPY
    opponent_reveals_first = True
    cancels_twin = True


class Princess(Ability):
    """If the opponent played their Prince, you win the game at once (rulebook 004,
    « Princess »)."""

    card = DuelCard.PRINCESS
    wins_game_against = DuelCard.PRINCE


class Clown(Ability):
    """The round is cancelled and put on hold; this beats every ability but the Wizard's (rulebook
    004, « Clown »)."""

    card = DuelCard.CLOWN
    holds_round = True


ABILITIES: dict[DuelCard, type[Ability]] = {
    kind.card: kind for kind in (Prince, General, Wizard, Minister, Assassin, Spy, Princess, Clown)
}
"""Each card's ability, declared once on its class."""


def ability_of(card: DuelCard) -> type[Ability]:
    """The ability class of ``card``."""
    return ABILITIES[card]


class Abilities(StrEnum):
    """Which abilities are in play: all of them (standard rules), or variant H « Nombres » in one
    of its two forms (rulebook 004, variant H)."""

    ALL = "all"
    NONE = "none"
    CLOWN_MINISTER = "clown_minister"

    def __repr__(self) -> str:
        return f"Abilities.{self.name}"

    @property
    def kept(self) -> frozenset[DuelCard]:
        """The cards whose ability counts under this setting."""
        return _KEPT[self]

    def keeps(self, card: DuelCard) -> bool:
        """Whether ``card``'s ability counts under this setting."""
        return card in _KEPT[self]


_KEPT: dict[Abilities, frozenset[DuelCard]] = {
    Abilities.ALL: frozenset(DuelCard),
    Abilities.NONE: frozenset(),
    Abilities.CLOWN_MINISTER: frozenset({DuelCard.CLOWN, DuelCard.MINISTER}),
}
