"""The toy game's blueprints: a page and one API endpoint. Nothing of the shell is changed."""

from __future__ import annotations

from flask import Blueprint, Response
from pydantic import BaseModel, ConfigDict, Field

from companion.games import ApiOperation, GamePages
from companion.routes.api import ok, parse_body

from .core import winner

bp = Blueprint("toy_game", __name__)
api_bp = Blueprint("toy_game_api", __name__)


@bp.get("/new")
def new_game() -> str:
    return "<p data-toy-setup>Set up the toy game</p>"


@bp.get("/g/<code>")
def show(code: str) -> str:
    return f"<p data-toy-game>{code}</p>"


class CompareRequest(BaseModel):
    """Two cards, one per seat."""

    model_config = ConfigDict(strict=True, extra="forbid")
    cards: list[int] = Field(min_length=2, max_length=2)


class CompareResponse(BaseModel):
    """Who wins: a seat, or null on a tie."""

    winner: int | None


@api_bp.post("/compare")
def compare() -> Response:
    body = parse_body(CompareRequest)
    return ok(CompareResponse(winner=winner(*body.cards)))


OPERATIONS = (ApiOperation("toy_game_api.compare", "toyCompare", "Compare two cards",
                           CompareRequest, CompareResponse),)

PAGES = GamePages(bp=bp, api_bp=api_bp, operations=OPERATIONS)
"""The toy game plugs in here: ``mypy --strict`` checks this line (pyproject.toml, ``files``)."""
