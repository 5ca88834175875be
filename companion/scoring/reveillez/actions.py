"""The turn actions the app records, as small frozen values with a one-line notation.

Each action is what one player does on their turn (rulebook « Le jeu »): wake a princess with a
prince (:class:`Wake`), take one with a knight (:class:`Steal`, perhaps answered by a dragon), put
one back to sleep with a potion (:class:`Sleep`, perhaps answered by a wand), play a jester
(:class:`Jester`, whose number may make another player wake a princess), or discard
(:class:`Discard`). The seat is never written: it is always the player whose turn it is (for a
jester's count, the seat the count reaches; for a defence, the princess's holder).

Slots (0–11, row by row) are places of the centre grid; a princess is known by the slot she slept
in at the start of the game (0–11), which stays her number wherever she goes.

Notation (``str(action)`` gives it, :func:`parse_action` reads it; tokens are shell-quoted so a
princess name may hold spaces)::

    wake 3 10                  wake the princess of slot 3, her printed value is 10
    wake 3 5:rose + 7 20       … the Rose, and with her (variant) the princess of slot 7
    wake 3                     a princess whose value the app already knows
    steal 4                    a knight takes princess 4 from her holder
    steal 4 dragon             … and the holder answers with a dragon
    sleep 4 9                  a potion puts princess 4 to sleep in free slot 9
    sleep 4 wand               … and the holder answers with a wand
    jester chevalier           the jester reveals a power card: play again
    jester 6 wake 3 10         the jester reveals a 6; the seat reached wakes slot 3
    discard 1 3 4 8            discard (here an addition)
"""

from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass, replace

from companion.scoring.problems import EntryError

from .cards import PrincessCard, ReveillezCard
from .problems import CATALOGUE


@dataclass(frozen=True, slots=True)
class CentrePick:
    """A sleeping princess taken from the centre: her slot, and what is printed on her when the
    app does not know it yet."""

    slot: int
    card: PrincessCard | None = None

    def tokens(self) -> list[str]:
        return [str(self.slot)] + ([] if self.card is None else [str(self.card)])


@dataclass(frozen=True, slots=True)
class Wake:
    """Wake one sleeping princess (a prince, or the seat a jester's count reaches). Under the
    variant the Rose brings a ``companion`` from the centre with her."""

    slot: int
    card: PrincessCard | None = None
    companion: CentrePick | None = None

    @property
    def pick(self) -> CentrePick:
        return CentrePick(self.slot, self.card)

    def tokens(self) -> list[str]:
        words = self.pick.tokens()
        return words if self.companion is None else [*words, "+", *self.companion.tokens()]

    def __str__(self) -> str:
        return shlex.join(["wake", *self.tokens()])


@dataclass(frozen=True, slots=True)
class Steal:
    """A knight takes an opponent's awake ``princess``, unless her holder answers with a dragon."""

    princess: int
    dragon: bool = False

    def __str__(self) -> str:
        return f"steal {self.princess}" + (" dragon" if self.dragon else "")


@dataclass(frozen=True, slots=True)
class Sleep:
    """A potion puts an opponent's awake ``princess`` back to sleep in a free ``slot`` (the first
    free one when not given), unless her holder answers with a wand."""

    princess: int
    slot: int | None = None
    wand: bool = False

    def __str__(self) -> str:
        if self.wand:
            return f"sleep {self.princess} wand"
        return f"sleep {self.princess}" + ("" if self.slot is None else f" {self.slot}")


@dataclass(frozen=True, slots=True)
class Jester:
    """A jester: the ``revealed`` top card of the deck, and for a number the princess the seat
    reached wakes (``wake``)."""

    revealed: ReveillezCard
    wake: Wake | None = None

    def __str__(self) -> str:
        words = ["jester", str(self.revealed)]
        if self.wake is not None:
            words += ["wake", *self.wake.tokens()]
        return shlex.join(words)


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``cards`` (one card, an identical pair, or an addition) and draw as many back."""

    cards: tuple[ReveillezCard, ...]

    def __str__(self) -> str:
        return " ".join(["discard", *(str(card) for card in self.cards)])


Action = Wake | Steal | Sleep | Jester | Discard
"""One turn action."""


def _bad(text: str) -> EntryError:
    return EntryError(CATALOGUE.problem("notation", given=text))


def _slot(word: str, text: str) -> int:
    if not word.isdigit():
        raise _bad(text)
    return int(word)


def _wake(words: list[str], text: str) -> Wake:
    """``slot [card] [+ slot [card]]``"""
    groups: list[list[str]] = [[]]
    for word in words:
        if word == "+":
            groups.append([])
        else:
            groups[-1].append(word)
    parts: list[CentrePick] = []
    for group in groups:
        if not 1 <= len(group) <= 2:
            raise _bad(text)
        card = PrincessCard.parse(group[1]) if len(group) == 2 else None
        parts.append(CentrePick(_slot(group[0], text), card))
    if not 1 <= len(parts) <= 2:
        raise _bad(text)
    return Wake(parts[0].slot, parts[0].card, parts[1] if len(parts) == 2 else None)


@functools.lru_cache(maxsize=4096)
def parse_action(text: str) -> Action:
    """Read an action's notation (see the module docstring); raises EntryError ``notation`` (or
    a card's own problem for a bad card).

    Each notation is read once per process (a refused one every time): a game's page and each
    of its saves replay every stored action, and reading one (``shlex``) cost as much as playing
    it. The actions are frozen values, shared safely; a few thousand notations are kept."""
    try:
        words = shlex.split(text)
    except ValueError:
        raise _bad(text) from None
    if not words:
        raise _bad(text)
    verb, rest = words[0].lower(), words[1:]
    if verb == "wake" and rest:
        return _wake(rest, text)
    if verb == "steal" and rest and len(rest) <= 2:
        if len(rest) == 2 and rest[1] != "dragon":
            raise _bad(text)
        return Steal(_slot(rest[0], text), dragon=len(rest) == 2)
    if verb == "sleep" and rest and len(rest) <= 2:
        if len(rest) == 2 and rest[1] == "wand":
            return Sleep(_slot(rest[0], text), wand=True)
        slot = _slot(rest[1], text) if len(rest) == 2 else None
        return Sleep(_slot(rest[0], text), slot)
    if verb == "jester" and rest:
        revealed = ReveillezCard.parse(rest[0])
        if len(rest) == 1:
            return Jester(revealed)
        if rest[1] != "wake" or len(rest) < 3:
            raise _bad(text)
        return Jester(revealed, _wake(rest[2:], text))
    if verb == "discard" and rest:
        return Discard(tuple(ReveillezCard.parse(word) for word in rest))
    raise _bad(text)


def resolved(action: Action, slot: int) -> Action:
    """``action`` with a potion's free slot filled in (other actions are returned unchanged)."""
    if isinstance(action, Sleep) and not action.wand and action.slot is None:
        return replace(action, slot=slot)
    return action
