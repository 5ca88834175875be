"""The Kanai duel's stateless JSON API: ``POST /api/v1/kanai-duel/resolve`` replays a game's rounds
and answers each round's result, the score, the holds, what carries over and the end. A refusal
(422) lists every problem the rules core found, in the shared error shape."""

from __future__ import annotations

from flask import Response

from ...games import ApiOperation
from ...scoring.kanai_duel import resolve as resolve_game
from ..api import ok, parse_body
from .api_models import ResolveRequest, ResolveResponse
from .blueprints import api_bp as bp


@bp.post("/resolve")
def resolve() -> Response:
    """Replay the rounds through the rules core (English steps)."""
    body = parse_body(ResolveRequest)
    resolution = resolve_game(body.rounds, wins_needed=body.wins_needed,
                              abilities=body.abilities)
    return ok(ResolveResponse.model_validate(resolution.as_dict("en")))


OPERATIONS = (ApiOperation("kanai_duel_api.resolve", "kanaiDuelResolve",
                           "Decide a duel's rounds: winners, points, holds, what carries over",
                           ResolveRequest, ResolveResponse),)
