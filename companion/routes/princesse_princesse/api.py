"""The stateless JSON API of Love Letter « Princesse Princesse »: settle a round, judge a turn log.

Each view parses its body with a model of :mod:`.api_models` and calls the rules core once; the
core's :class:`~companion.scoring.problems.EntryError` becomes a 422 in the shared error shape.
"""

from __future__ import annotations

from flask import Response

from ...games import ApiOperation
from ...scoring.princesse_princesse import Turn, judge_turn_log, round_end
from ..api import ok, parse_body
from .api_models import RoundEndRequest, RoundEndResponse, TurnLogRequest, TurnLogResponse
from .blueprints import api_bp as bp


@bp.post("/round-end")
def round_end_view() -> Response:
    """Winners, bonuses, tokens and game end of one round."""
    body = parse_body(RoundEndRequest)
    settled = round_end(body.players, body.held, body.discards, body.tokens_before)
    return ok(RoundEndResponse.model_validate(settled.as_dict()))


@bp.post("/turn-log")
def turn_log_view() -> Response:
    """Judge a round's turn log: the first refused turn and why, the table, proven faults."""
    body = parse_body(TurnLogRequest)
    final = None if body.final is None else {
        seat: card for seat, card in enumerate(body.final) if card is not None}
    verdict = judge_turn_log(body.players, body.first,
                             [Turn(**turn.model_dump()) for turn in body.turns],
                             tuple(body.face_up), final)
    return ok(TurnLogResponse.model_validate(verdict.as_dict()))


OPERATIONS = (
    ApiOperation("princesse_princesse_api.round_end_view", "princessePrincesseRoundEnd",
                 "Love Letter « Princesse Princesse »: settle the end of a round",
                 RoundEndRequest, RoundEndResponse),
    ApiOperation("princesse_princesse_api.turn_log_view", "princessePrincesseTurnLog",
                 "Love Letter « Princesse Princesse »: judge a round's turn log",
                 TurnLogRequest, TurnLogResponse),
)
