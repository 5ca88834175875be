"""The scoring core of Rebel Princess: pure Python, no Flask and no database.

Cards and decks (:mod:`.cards`), the Round card catalogue (:mod:`.round_cards`), round scoring with
the lines that explain it (:mod:`.rounds`), possible round totals (:mod:`.totals`), leaders
(:mod:`.leaders`), standings and tie-breaks (:mod:`.standings`) and a whole game replayed from its
entries, or played on from a game by one round (:mod:`.game`).
"""

from __future__ import annotations

from .cards import FROG, Edition, RebelCard, Suit, deck, hand_size, princes, ranks_for, suit_cards
from .errors import IncompleteEntryError, InvalidValueError, Problem, ScoringError
from .game import (
    GameSetup,
    PlayedRound,
    RebelGameState,
    RebelRoundResult,
    check_new_table,
    play_on,
    play_through,
)
from .leaders import Leader, next_leader_classic, next_leader_deluxe
from .problems import message_for
from .round_cards import (
    BATHROOM_BREAK,
    RoundCard,
    Scoring,
    parse_edition,
    recommended_first_game,
    round_card,
    round_cards,
)
from .round_score import (
    RoundCounts,
    RoundEntry,
    RoundScore,
    ScoreLine,
    SeatScore,
    Tally,
    can_have_rebel,
    check_counts,
    check_entry,
    counts_from_taken,
    entry_from_counts,
    is_counted_by_princes,
    needs_no_tricks,
    needs_totals_before,
    parse_taken,
    required_cards,
    score_entry,
    score_round,
    score_so_far,
    taken_from_counts,
    tally,
    tally_counts,
)
from .standings import TIEBREAKS, RebelStandings, standings, tiebreak_rounds
from .totals import describe_totals, possible_round_totals

__all__ = [
    "check_new_table",
    "BATHROOM_BREAK", "FROG", "TIEBREAKS", "Edition", "GameSetup", "IncompleteEntryError",
    "InvalidValueError",
    "Leader", "PlayedRound", "Problem", "RebelCard", "RebelGameState", "RebelRoundResult",
    "RebelStandings", "RoundCard", "RoundCounts", "RoundEntry", "RoundScore", "ScoreLine",
    "Scoring", "ScoringError", "SeatScore", "Suit", "Tally", "can_have_rebel", "check_counts",
    "check_entry", "counts_from_taken", "deck", "describe_totals", "entry_from_counts", "hand_size",
    "is_counted_by_princes", "message_for", "needs_no_tricks", "needs_totals_before",
    "next_leader_classic", "next_leader_deluxe", "parse_edition", "parse_taken", "play_on",
    "play_through",
    "possible_round_totals", "princes", "ranks_for", "recommended_first_game", "required_cards",
    "round_card", "round_cards", "score_entry", "score_round", "score_so_far", "standings",
    "suit_cards", "taken_from_counts", "tally", "tally_counts", "tiebreak_rounds",
]
