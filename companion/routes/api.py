"""The stateless JSON API: score a round, check its tricks, find the next leader, rank the seats.

Nothing is stored and no session, cookie or CSRF token is used. Every view parses its body with a
pydantic model from :mod:`companion.api_models`, calls the scoring core once and returns JSON.
Refusals share one shape, ``{"error": sentence, "problems": [{code, message, seat?, card?,
field?}]}``: 400 for a body that is not a JSON object, 422 for anything the models or the scoring
core reject.
"""

from __future__ import annotations

from typing import Any, TypeVar

from flask import Blueprint, Response, jsonify, request, url_for
from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from .. import scoring, tricks
from ..api_models import (
    CheckRoundRequest,
    CheckRoundResponse,
    ErrorResponse,
    NextLeaderDeluxe,
    NextLeaderRequest,
    NextLeaderResponse,
    Operation,
    ScoreRoundRequest,
    ScoreRoundResponse,
    StandingsRequest,
    StandingsResponse,
    api_message,
    openapi_document,
    problems_from_validation,
    summary_for,
)
from ..scoring import IncompleteEntryError, Problem, ScoringError

bp = Blueprint("api", __name__, url_prefix="/api/v1")

Model = TypeVar("Model", bound=BaseModel)


class ApiError(Exception):
    """A refused request: the HTTP status and the problems (as dicts) to report."""

    def __init__(self, status: int, problems: list[dict[str, Any]]) -> None:
        super().__init__(status, problems)
        self.status = status
        self.problems = problems


def _refuse(status: int, problems: list[dict[str, Any]]) -> tuple[Response, int]:
    endpoint = (request.endpoint or "").rpartition(".")[2]
    body = ErrorResponse.model_validate(
        {"error": summary_for(endpoint, problems), "problems": problems})
    return jsonify(body.model_dump(mode="json", exclude_none=True)), status


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> tuple[Response, int]:
    return _refuse(error.status, error.problems)


@bp.errorhandler(ScoringError)
def _scoring_error(error: ScoringError) -> tuple[Response, int]:
    problems: list[Problem] = getattr(error, "problems", [])
    return _refuse(422, [problem.as_dict() for problem in problems])


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge) -> tuple[Response, int]:
    return _refuse(413, [{"code": "body-too-large", "message": api_message("body-too-large")}])


def parse_body(model: type[Model]) -> Model:
    """The JSON body validated by ``model``; raises :class:`ApiError` (400 or 422) otherwise."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, [{"code": "malformed-json", "message": api_message("malformed-json")}])
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ApiError(422, problems_from_validation(error)) from None


def _ok(body: BaseModel) -> Response:
    return jsonify(body.model_dump(mode="json"))


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
            missing.append(Problem("missing-tricks-won"))
        if entry.totals_before is None and scoring.needs_totals_before(edition, entry.round_card):
            missing.append(Problem("missing-totals-before"))
        problems = error.problems + [p for p in missing if p not in error.problems]
        raise IncompleteEntryError(problems) from None


def _leader(entry: NextLeaderRequest) -> scoring.Leader:
    body = entry.root
    if isinstance(body, NextLeaderDeluxe):
        return scoring.next_leader_deluxe(body.totals, body.last_leader)
    return scoring.next_leader_classic(body.players, body.last_trick_winner)


def _standings(entry: StandingsRequest) -> scoring.Standings:
    return scoring.standings(scoring.parse_edition(entry.edition), entry.rounds, entry.playoffs)


def _seat_key(key: str) -> int | str:
    return int(key) if key.strip().isdigit() else key


def _check(entry: CheckRoundRequest) -> tricks.RoundCheck:
    """Judge the tricks through :func:`companion.tricks.check_round`; a malformed entry is 422."""
    try:
        return tricks.check_round(
            edition=entry.edition, round_card=entry.round_card, players=entry.players,
            leader=entry.leader, totals_before=entry.totals_before, kept=entry.kept,
            princesses={_seat_key(seat): name  # type: ignore[misc]
                        for seat, name in (entry.princesses or {}).items()},
            tricks=[tricks.TrickInput(
                plays=tuple(tricks.Play(play.seat, play.card) for play in trick.plays),
                powers=tuple(tricks.PowerInput(p.power, p.seat, p.target, p.suit, tuple(p.cards),
                                               tuple(p.more)) for p in trick.powers),
                steps=tuple(tricks.StepInput(s.step, s.seat, s.give, s.take, tuple(s.cards))
                            for s in trick.steps))
                for trick in entry.tricks])
    except tricks.TrickEntryError as error:
        raise ApiError(422, [problem.as_dict() for problem in error.problems]) from None


# --- views ----------------------------------------------------------------------------------------

@bp.post("/rebel-princess/score-round")
def score_round() -> Response:
    """Score one round from the cards each seat took."""
    return _ok(ScoreRoundResponse.from_score(_score(parse_body(ScoreRoundRequest))))


@bp.post("/rebel-princess/next-leader")
def next_leader() -> Response:
    """Say who leads the next round."""
    return _ok(NextLeaderResponse.from_leader(_leader(parse_body(NextLeaderRequest))))


@bp.post("/rebel-princess/standings")
def standings() -> Response:
    """Rank the seats and apply the end-of-game tie-breaks."""
    return _ok(StandingsResponse.from_standings(_standings(parse_body(StandingsRequest))))


@bp.post("/rebel-princess/check-round")
def check_round() -> Response:
    """Judge the tricks of a round entered at the table (legality, winners, scores)."""
    return _ok(CheckRoundResponse.from_check(_check(parse_body(CheckRoundRequest))))


_OPERATIONS = (
    ("api.score_round", "scoreRound", "Score one round", ScoreRoundRequest, ScoreRoundResponse),
    ("api.next_leader", "nextLeader", "Who leads the next round", NextLeaderRequest,
     NextLeaderResponse),
    ("api.standings", "standings", "Standings and tie-breaks", StandingsRequest,
     StandingsResponse),
    ("api.check_round", "checkRound", "Check the tricks of a round", CheckRoundRequest,
     CheckRoundResponse),
)


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of this API, generated from the request and response models."""
    operations = [Operation(url_for(endpoint), op_id, summary, req, resp)
                  for endpoint, op_id, summary, req, resp in _OPERATIONS]
    return jsonify(openapi_document(operations))
