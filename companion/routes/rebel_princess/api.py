"""Rebel Princess's stateless JSON API: score a round, check its tricks, find the next leader,
rank the seats.

Nothing is stored and no session, cookie or CSRF token is used. Every view parses its body with a
pydantic model from :mod:`companion.routes.rebel_princess.api_models`, calls the scoring core
once and returns JSON.
Refusals share one shape, ``{"error": sentence, "problems": [{code, message, seat?, card?,
field?}]}``: 400 for a body that is not a JSON object, 422 for anything the models or the scoring
core reject.
"""

from __future__ import annotations

from typing import TypeVar

from flask import Response
from pydantic import BaseModel

from ...games import ApiOperation
from ...scoring import rebel_princess as scoring
from ...scoring.problems import EntryError
from ...scoring.rebel_princess import IncompleteEntryError
from ...scoring.rebel_princess import table_check as tricks
from ...scoring.rebel_princess.errors import CATALOGUE
from ..api import ApiError, ok
from ..api import parse_body as parse_any
from .api_models import (
    CheckRoundRequest,
    CheckRoundResponse,
    NextLeaderDeluxe,
    NextLeaderRequest,
    NextLeaderResponse,
    RebelPrincessStandingsRequest,
    RebelPrincessStandingsResponse,
    ScoreRoundRequest,
    ScoreRoundResponse,
    problems_from_validation,
)
from .blueprints import api_bp as bp
from .forms import ASCII_NUMBER

Model = TypeVar("Model", bound=BaseModel)


def parse_body(model: type[Model]) -> Model:
    """The JSON body validated by ``model``, with Rebel Princess's reading of edition errors."""
    return parse_any(model, to_problems=problems_from_validation)


_ok = ok

# --- calls into the scoring core ------------------------------------------------------------------

def _score(entry: ScoreRoundRequest) -> scoring.RoundScore:
    """Score the round; when it cannot be, also name a missing ``tricks_won`` / ``totals_before``,
    which the core leaves out while the cards themselves have problems."""
    try:
        return scoring.score_round(
            edition=entry.edition, round_card=entry.round_card, players=entry.players,
            taken=entry.taken, tricks_won=entry.tricks_won, totals_before=entry.totals_before)
    except IncompleteEntryError as error:
        edition = scoring.parse_edition(entry.edition)
        missing = []
        if entry.tricks_won is None and scoring.needs_no_tricks(edition, entry.round_card):
            missing.append(CATALOGUE.problem("missing-tricks-won"))
        if entry.totals_before is None and scoring.needs_totals_before(edition, entry.round_card):
            missing.append(CATALOGUE.problem("missing-totals-before"))
        problems = error.problems + [p for p in missing if p not in error.problems]
        raise IncompleteEntryError(problems) from None


def _leader(entry: NextLeaderRequest) -> scoring.Leader:
    body = entry.root
    if isinstance(body, NextLeaderDeluxe):
        return scoring.next_leader_deluxe(body.totals, body.last_leader)
    return scoring.next_leader_classic(body.players, body.last_trick_winner)


def _standings(entry: RebelPrincessStandingsRequest) -> scoring.RebelStandings:
    return scoring.standings(scoring.parse_edition(entry.edition), entry.rounds, entry.playoffs)


def _seat_key(key: str) -> int | str:
    """A ``princesses`` key as a seat number when it is a short ASCII number; anything else goes
    to the core as it is, which names it as an unknown seat ("١" or 4,400 digits included)."""
    text = key.strip()
    return int(text) if ASCII_NUMBER.fullmatch(text) else key


def _check(entry: CheckRoundRequest) -> tricks.RoundCheck:
    """Judge the tricks through :func:`~companion.scoring.rebel_princess.table_check.check_round`
    (the same judge as the trick screen); a malformed entry is 422."""
    try:
        return tricks.check_round(
            edition=entry.edition, round_card=entry.round_card, players=entry.players,
            leader=entry.leader, totals_before=entry.totals_before, kept=entry.kept,
            princesses={_seat_key(seat): name  # type: ignore[misc]
                        for seat, name in (entry.princesses or {}).items()},
            tricks=[tricks.TrickInput(
                plays=tuple(tricks.PlayInput(play.seat, play.card) for play in trick.plays),
                powers=tuple(tricks.PowerInput(p.power, p.seat, p.target, p.suit, tuple(p.cards),
                                               tuple(p.more)) for p in trick.powers),
                steps=tuple(tricks.StepInput(s.step, s.seat, s.give, s.take, tuple(s.cards))
                            for s in trick.steps))
                for trick in entry.tricks])
    except EntryError as error:
        raise ApiError(422, [problem.as_dict() for problem in error.problems]) from None


# --- views ----------------------------------------------------------------------------------------

@bp.post("/score-round")
def score_round() -> Response:
    """Score one round from the cards each seat took."""
    return _ok(ScoreRoundResponse.from_score(_score(parse_body(ScoreRoundRequest))))


@bp.post("/next-leader")
def next_leader() -> Response:
    """Say who leads the next round."""
    return _ok(NextLeaderResponse.from_leader(_leader(parse_body(NextLeaderRequest))))


@bp.post("/standings")
def standings() -> Response:
    """Rank the seats and apply the end-of-game tie-breaks."""
    standings = _standings(parse_body(RebelPrincessStandingsRequest))
    return _ok(RebelPrincessStandingsResponse.from_standings(standings))


@bp.post("/check-round")
def check_round() -> Response:
    """Judge the tricks of a round entered at the table (legality, winners, scores)."""
    return _ok(CheckRoundResponse.from_check(_check(parse_body(CheckRoundRequest))))


OPERATIONS = (
    ApiOperation("rebel_princess_api.score_round", "scoreRound", "Score one round",
                 ScoreRoundRequest, ScoreRoundResponse),
    ApiOperation("rebel_princess_api.next_leader", "nextLeader", "Who leads the next round",
                 NextLeaderRequest, NextLeaderResponse),
    ApiOperation("rebel_princess_api.standings", "standings", "Standings and tie-breaks",
                 RebelPrincessStandingsRequest, RebelPrincessStandingsResponse),
    ApiOperation("rebel_princess_api.check_round", "checkRound", "Check the tricks of a round",
                 CheckRoundRequest, CheckRoundResponse),
)
