"""The phone web app (placeholder, being written)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("games", __name__)


@bp.get("/")
def index() -> str:
    """Games list."""
    return "companion"
