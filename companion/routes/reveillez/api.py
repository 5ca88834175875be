"""The stateless JSON API of « Réveillez »: standings, jester and discard. Each view parses its
body with a model of :mod:`.api_models`, calls one function of the rules core and returns its
``as_dict()``; a refusal of the core (an EntryError) becomes a 422 in the shared error shape."""

from __future__ import annotations

from flask import Response

from ...games import ApiOperation
from ...scoring import reveillez as core
from ..api import ok, parse_body
from .api_models import (
    DiscardRequest,
    DiscardResponse,
    JesterRequest,
    JesterResponse,
    ReveillezStandingsRequest,
    ReveillezStandingsResponse,
)
from .blueprints import api_bp as bp


@bp.post("/standings")
def standings() -> Response:
    """Points, princess counts and the win check of a table."""
    body = parse_body(ReveillezStandingsRequest)
    table = core.standings(body.players, body.awake, body.sleeping)
    return ok(ReveillezStandingsResponse.model_validate(table.as_dict()))


@bp.post("/jester")
def jester() -> Response:
    """The seat a jester's count reaches, or play again."""
    body = parse_body(JesterRequest)
    count = core.jester_count(body.players, body.jester_seat, body.revealed)
    return ok(JesterResponse.model_validate(count.as_dict()))


@bp.post("/discard")
def discard() -> Response:
    """Whether cards make a discard (one card, an identical pair, an addition) and the draw."""
    body = parse_body(DiscardRequest)
    check = core.classify_discard(body.cards)
    return ok(DiscardResponse.model_validate(check.as_dict()))


OPERATIONS = (
    ApiOperation("reveillez_api.standings", "reveillezStandings",
                 "Réveillez: points, princesses and the win check", ReveillezStandingsRequest,
                 ReveillezStandingsResponse),
    ApiOperation("reveillez_api.jester", "reveillezJester",
                 "Réveillez: who wakes a princess after a jester", JesterRequest, JesterResponse),
    ApiOperation("reveillez_api.discard", "reveillezDiscard",
                 "Réveillez: check a discard and the cards to draw", DiscardRequest,
                 DiscardResponse),
)
