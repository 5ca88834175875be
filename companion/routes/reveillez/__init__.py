"""« Réveillez les 12 princesses »: the phone pages (set-up, the table, history) and the stateless
JSON API under ``/api/v1/reveillez/`` (standings, jester, discard)."""

from __future__ import annotations

from sqlmodel import Session

from ...history import N_, Aggregate, Fact, GameSummary, StepUnit
from ...models import Game
from ...play import reveillez as play
from ...scoring.reveillez import PRINCESSES, ReveillezGameState
from . import api, pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS


def home_view(game: Game, summary: GameSummary) -> int:
    """What the home page shows of a game besides its summary: how many princesses are still
    asleep (the twelve less those in front of the players: the summary's
    ``princesses-when-winning`` fact holds each seat's), with no replay."""
    held = next((f.values for f in summary.facts if f.key == "princesses-when-winning"), ())
    return PRINCESSES - sum(held)


def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: the points after every action, the
    winners, and the princesses each winner held (averaged over a player's wins)."""
    return summary_from(game, play.view_game(session, game).state)


def summary_from(game: Game, state: ReveillezGameState) -> GameSummary:
    """:func:`summary` of the game replayed as ``state`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    settings = play.Settings.of(game)
    # replayed once more for the points after each action (no database: the actions are there)
    again = ReveillezGameState(settings.setup)
    progress = []
    for action in state.actions:
        again.push(action)
        progress.append(again.standings().points)
    standings = state.standings()
    return GameSummary(
        finished=state.is_over, winners=tuple(standings.winners),
        scores=tuple(standings.points), progress=tuple(progress), step=StepUnit.TURN,
        facts=(Fact("princesses-when-winning", N_("Princesses when winning (average)"),
                    tuple(standings.princesses), Aggregate.MEAN_WHEN_WON),),
        first=settings.first)
