"""Love Letter « Princesse Princesse »'s blueprints: the phone pages under ``/princesse-princesse/``
(set-up, tokens board, round end, turn log, history) and the stateless JSON API under
``/api/v1/princesse-princesse/`` (``round-end`` and ``turn-log``)."""

from __future__ import annotations

from sqlmodel import Session

from ...history import N_, Fact, GameSummary, ScoreUnit
from ...models import Game
from ...play import princesse_princesse as play
from ...scoring.princesse_princesse import AwardReason, GameProgress
from . import api, pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS


def home_view(game: Game, summary: GameSummary) -> GameSummary:
    """What the home page shows of a game (who won, else the round being played): its stored
    summary, no replay."""
    return summary


TOKEN_FACTS = (
    (AwardReason.LAST_IN, "tokens-last-in", N_("Tokens: last one still in")),
    (AwardReason.HIGHEST, "tokens-highest-card", N_("Tokens: highest card")),
    (AwardReason.TIED, "tokens-tied-highest", N_("Tokens: tied on the highest card")),
    (AwardReason.SPY, "tokens-spy", N_("Tokens: Spy bonus")),
    (AwardReason.PRINCESSES, "tokens-princesses", N_("Tokens: Princesses bonus")),
)
"""How a favour token was won, as statistics count them (one fact per reason)."""


def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: favour tokens round by round, the
    winners, and each player's tokens by how they were won."""
    return summary_from(game, play.view_game(session, game).progress)


def summary_from(game: Game, progress: GameProgress) -> GameSummary:
    """:func:`summary` of the game whose rounds came to ``progress`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    players = progress.players
    awards = [award for line in progress.rounds for award in line.settlement.awards]
    facts = tuple(
        Fact(key, label, tuple(sum(1 for a in awards if a.seat == seat and a.reason is reason)
                               for seat in range(players)))
        for reason, key, label in TOKEN_FACTS)
    return GameSummary(
        finished=progress.game_over, winners=tuple(progress.winners),
        scores=tuple(progress.tokens), unit=ScoreUnit.TOKENS,
        progress=tuple(tuple(line.settlement.tokens_after) for line in progress.rounds),
        facts=facts, first=play.first_of(game))
