"""The rules core of « Réveillez les 12 princesses » (seed 003, French rulebook): pure Python.

The game in brief, with the rulebook's sections (REVEILLEZ.md settles what the book leaves open):

- *Material* (« Matériel », « Mise en place »): 12 princesses sleep face down in the centre in 4
  columns of 3; 67 other cards (8 princes, 5 jesters, 4 knights, 4 potions, 3 wands, 3 dragons,
  numbers 1–10 four times). Everyone holds 5 cards. The app does not invent princess values: the
  players tap the value printed on each princess when she is woken (:mod:`.cards`).
- *Turns* (« Le jeu »): from the left of the dealer, clockwise, each player does one action and
  refills to 5 cards. A prince wakes a sleeping princess; a knight takes an opponent's princess
  unless a dragon answers at once; a potion puts one back to sleep unless a wand answers at once; a
  jester turns over the top card — a power card means play again, a number n means counting n
  seats from the jester's player (who is 1), and the seat reached wakes a princess (:mod:`.jester`);
  or a discard: one card (draw 1), an identical pair (draw 2) or an addition of three or more
  numbers (draw as many) (:mod:`.discard`).
- *End* (« But du jeu », « Fin du jeu »): 5 princesses or 50 points with 2–3 players, 4 or 40 with
  4–5, wins at once; when nobody is left asleep the most points win, equal points share the win;
  thresholds are checked first (:mod:`.standings`).
- *Variant « caprices de princesses »*: the Rose (5 points) brings another sleeping princess along
  each time she is woken from the centre; nobody may hold the Dog and the Cat together (the second
  one goes back to sleep and the turn ends; a knight cannot make the pair) (:mod:`.state`).

The table screen is a view of one :class:`ReveillezGameState` (commands
:meth:`~ReveillezGameState.play`, :meth:`~ReveillezGameState.push`,
:meth:`~ReveillezGameState.pop`; actions :class:`Wake`, :class:`Steal`, :class:`Sleep`,
:class:`Jester`, :class:`Discard` with a one-line notation). The three JSON
endpoints are :func:`standings`, :func:`jester_count` and :func:`classify_discard`, whose results'
``as_dict()`` is the API's answer. Every refusal is an
:class:`~companion.scoring.problems.EntryError` whose problems come from :data:`CATALOGUE`.
"""

from __future__ import annotations

from .actions import Action, CentrePick, Discard, Jester, Sleep, Steal, Wake, parse_action
from .cards import (
    COLUMNS,
    GRID,
    HAND_SIZE,
    MAX_PLAYERS,
    MAX_VALUE,
    MIN_PLAYERS,
    MIN_VALUE,
    NUMBERS,
    POWER_COPIES,
    PRINCESSES,
    ROSE_VALUE,
    ROWS,
    SLOTS,
    TARGETS,
    USUAL_VALUES,
    PowerCard,
    PrincessCard,
    ReveillezCard,
    Special,
    Target,
    deck,
    normalise_name,
    read_princess,
    target,
)
from .discard import DiscardCheck, DiscardKind, check_discard_entry, classify_discard, read_discard
from .events import Event, Move, MoveKind, Place
from .jester import JesterCount, check_jester_entry, count_from, jester_count
from .problems import CATALOGUE
from .setup import Setup
from .standings import (
    Reason,
    Remaining,
    ReveillezStandings,
    check_standings_entry,
    evaluate,
    standings,
)
from .state import ReveillezGameState

__all__ = [
    "CATALOGUE", "COLUMNS", "GRID", "HAND_SIZE", "MAX_PLAYERS", "MAX_VALUE", "MIN_PLAYERS",
    "MIN_VALUE", "NUMBERS", "POWER_COPIES", "PRINCESSES", "ROSE_VALUE", "ROWS", "SLOTS", "TARGETS",
    "USUAL_VALUES", "Action", "CentrePick", "Discard", "DiscardCheck", "DiscardKind", "Event",
    "Jester", "JesterCount", "Move", "MoveKind", "Place", "PowerCard", "PrincessCard", "Reason",
    "Remaining", "ReveillezCard", "ReveillezGameState", "ReveillezStandings", "Setup", "Sleep",
    "Special", "Steal", "Target", "Wake", "check_discard_entry", "check_jester_entry",
    "check_standings_entry", "classify_discard", "count_from", "deck", "evaluate", "jester_count",
    "normalise_name", "parse_action", "read_discard", "read_princess", "standings", "target",
]
