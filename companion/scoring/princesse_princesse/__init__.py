"""The rules core of Love Letter « Princesse Princesse »: pure Python, no Flask, no database.

The game (rulebook ``shared/seeds/002_ffde5cf4fb9261c3.txt``, in French; decisions where it is
silent in ``shared/rules/PRINCESSE_PRINCESSE.md``):

- **Cards** (:mod:`.cards`, « Matériel », « Effets des cartes »): 21 characters valued 0 to 9 —
  Claire l'espionne 0 (×2), Garde 1 (×6), Conseillers du roi 2 (×2), Bibliothécaire du palais 3
  (×2), Oliver le dragon 4 (×2), Prince Vladric 5 (×2), Princesses Amira & Sadie 6 (×2), Roi
  fantôme 7, Céleste la licorne 8, Ogre 9. The copies are printed as dots on the cards; the
  rulings file gives them.
- **Set-up** (« Mise en place »): 2 to 6 players; one card set aside face down; at two players
  three more set aside face up; one card each. Tokens needed to win (« Remporter la partie »):
  2 players 6, 3 players 5, 4 players 4, 5 or 6 players 3 (:data:`PLAYER_COUNTS`).
- **A turn** (« Tour des joueurs-euses »): draw one card, play one of your two; played and
  discarded cards stay face up in front of you. Effects and targeting: :mod:`.turns`
  (what a turn does to the public table: :mod:`.table`).
- **End of a round** (« Fin de la manche », :mod:`.round_end`): when one player is left, they
  win; when the deck is empty after a turn, the highest card still in wins and every tied player
  wins too. Each winner gains a favour token. Spy bonus: one token to the only player still in
  with a Spy played or discarded in front of them. Princesses bonus: one token each to two
  different players still in with a Princesses card in front of them.
- **Next round** (« Commencer la manche suivante »): the winner starts; among tied winners one is
  drawn at random (:func:`draw_first_player` takes the caller's :class:`random.Random`).
- **End of the game**: after a round's tokens are given, every player at or above the threshold
  wins.

Public surface: the deck (:data:`CHARACTERS`, :func:`character`, :func:`deck`), the player-count
table (:func:`player_count`, :func:`tokens_needed`), the round end (:class:`RoundReveal`,
:func:`settle_round`, :func:`round_end` for the JSON API), the game (:func:`new_game`,
:func:`add_round`, :func:`replay_game`), the table engine (:class:`Turn`, :class:`PublicRound`,
:func:`judge_turn_log` for the JSON API, in :mod:`.verdict`) and :data:`CATALOGUE` of problem
sentences.
"""

from __future__ import annotations

from .cards import (
    BIBLIOTHECAIRE,
    CELESTE,
    CELESTE_FORCED_BY,
    CHARACTERS,
    CONSEILLERS,
    COPIES,
    DECK_SIZE,
    GARDE,
    GARDE_NAMEABLE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OGRE,
    OLIVER,
    PLAYER_COUNTS,
    PRINCESSES,
    ROI,
    SPY,
    VLADRIC,
    Character,
    PlayerCount,
    Targeting,
    card_params,
    character,
    copy_problems,
    deck,
    is_value,
    player_count,
    player_count_problem,
    tokens_needed,
)
from .game import (
    GameProgress,
    RoundLine,
    StartReason,
    StoredRound,
    add_round,
    new_game,
    replay_game,
)
from .problems import CATALOGUE
from .round_end import (
    Award,
    AwardReason,
    Bonus,
    BonusKind,
    RoundReveal,
    RoundSettlement,
    awards_by_seat,
    bonus_questions,
    check_reveal,
    check_round_end,
    check_tokens,
    draw_first_player,
    round_end,
    round_winners,
    settle_round,
)
from .simulate import SimulatedRound, simulate_round
from .table import FAULT_CODES, EndReason, RoundEnding, Suspicion, Turn
from .turns import PublicRound, TurnQuestions, check_setup
from .verdict import TurnLogVerdict, judge_turn_log

__all__ = [
    "BIBLIOTHECAIRE", "CATALOGUE", "CELESTE", "CELESTE_FORCED_BY", "CHARACTERS", "CONSEILLERS",
    "COPIES", "DECK_SIZE", "FAULT_CODES", "GARDE", "GARDE_NAMEABLE", "MAX_PLAYERS",
    "MIN_PLAYERS", "OGRE",
    "OLIVER", "PLAYER_COUNTS", "PRINCESSES", "ROI", "SPY", "VLADRIC", "Award", "AwardReason",
    "Bonus", "BonusKind", "Character", "EndReason", "GameProgress", "PlayerCount", "PublicRound",
    "RoundEnding", "RoundLine", "RoundReveal", "RoundSettlement", "SimulatedRound", "StartReason",
    "StoredRound", "Suspicion", "Targeting", "Turn", "TurnLogVerdict", "TurnQuestions",
    "add_round",
    "awards_by_seat", "bonus_questions", "card_params", "character", "check_reveal",
    "check_round_end", "check_setup", "check_tokens", "copy_problems", "deck",
    "draw_first_player", "is_value", "judge_turn_log", "new_game", "player_count",
    "player_count_problem", "replay_game", "round_end", "round_winners", "settle_round",
    "simulate_round", "tokens_needed",
]
