"""The rules core of the Kanai duel of Princes and Princesses: pure Python, no web, no database.

The rules, from rulebook 004 (French; section names in « ») and the app's readings in
KANAI_DUEL.md where the rulebook lost its value list and result tables:

Two players each hold the same eight characters (« Préparation »): Prince 7, General 6, Wizard 5,
Minister 4, Assassin 3, Spy 2, Princess 1, Clown 0 (KANAI_DUEL.md « Cards »). In each round both
pick a card secretly and reveal them together (« Comment jouer »); a card played is gone. Abilities
are compulsory. A round is decided in this order (KANAI_DUEL.md « Deciding a round », see
:mod:`.resolve`): the Wizard cancels the opponent's ability (two Wizards, two Princes or two Spies
cancel each other); a standing Clown puts the round on hold and cancels every other ability; the
Princess against the Prince wins the game; a single Prince wins whatever the values; a standing
Assassin makes the lower value win; otherwise the higher value wins. Equal values put the round on
hold. A General adds +2 to its player's next card, which a Wizard does not remove (« General »); a
Spy makes the opponent reveal first next round (« Spy »).

A round is worth 1 win, 2 to the player whose standing Minister is in it, also on hold
(« Minister »); the winner of the next decided round takes every round on hold. The first to 4 wins
wins at once; the Princess against the Prince wins at once; 8 rounds without either is a draw
(« Fin du jeu »). Variants (« Variantes »): G 3 wins, H numbers only (or only Clown and Minister), Q
all cards played and the most wins wins, B and C one card per player out of play (:mod:`.rules`).

Public surface: :class:`DuelCard`, :class:`Rules` and :data:`VARIANTS`, :func:`resolve_round` and
:class:`DuelRoundResult` with its :class:`Step` list, the game state :class:`Duel` (queries and
commands), :class:`Picks` for secret picks on two phones, and :func:`resolve` behind
``POST /api/v1/kanai-duel/resolve``. Problems are :class:`~companion.scoring.problems.Problem`
values from :data:`CATALOGUE`; step sentences come from :data:`STEPS`.
"""

from __future__ import annotations

from .abilities import ABILITIES, Abilities, Ability, ability_of
from .cards import CARDS, HAND, CardInfo, DuelCard, card_words, parse_card
from .game import Resolution, parse_abilities, resolve
from .picks import Picks
from .problems import CATALOGUE, STEPS
from .resolve import DuelRoundResult, HeldRound, Outcome, Result, finish, resolve_round
from .rules import MAX_WINS_NEEDED, RULES, VARIANTS, DuelSetAside, Rules, Variant, variant
from .state import Duel, Standing
from .steps import NEXT_ROUND_CODES, Step, StepCode, render_steps

__all__ = [
    "ABILITIES", "CARDS", "CATALOGUE", "HAND", "MAX_WINS_NEEDED", "NEXT_ROUND_CODES", "RULES",
    "STEPS", "VARIANTS", "Abilities", "Ability", "CardInfo", "Duel", "DuelCard", "DuelRoundResult",
    "DuelSetAside", "HeldRound", "Outcome", "Picks", "Resolution", "Result", "Rules", "Standing",
    "Step", "StepCode", "Variant", "ability_of", "card_words", "finish", "parse_abilities",
    "parse_card", "render_steps", "resolve", "resolve_round", "variant",
]
