"""What every game's JSON API shares: parsing a body, the error shape, and the OpenAPI document.

Each game registers its own API blueprint under ``/api/v1/<game-slug>/`` (see
:mod:`companion.games`); the shell installs the error handlers below on each of them, answers
404 and 405 under ``/api/`` in the same JSON shape, and builds one OpenAPI document from every
game's operations. Nothing is stored and no session, cookie or CSRF token is used.
"""

from __future__ import annotations

from typing import Any, TypeVar

from flask import Blueprint, Response, jsonify, request, url_for
from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import RequestEntityTooLarge

from ..web.api_schema import (
    Operation,
    api_message,
    openapi_document,
    problems_from_validation,
    refuse,
)

bp = Blueprint("api", __name__, url_prefix="/api/v1")

Model = TypeVar("Model", bound=BaseModel)


class ApiError(Exception):
    """A refused request: the HTTP status and the problems (as dicts) to report."""

    def __init__(self, status: int, problems: list[dict[str, Any]]) -> None:
        super().__init__(status, problems)
        self.status = status
        self.problems = problems


def _api_error(error: ApiError) -> tuple[Response, int]:
    return refuse(error.status, error.problems)


def _rules_error(error: ValueError) -> tuple[Response, int]:
    """A rules core's refusal (anything carrying ``problems``): 422 with every problem."""
    problems = getattr(error, "problems", None)
    if problems is None:
        raise error
    return refuse(422, [problem.as_dict() for problem in problems])


def _too_large(_error: RequestEntityTooLarge) -> tuple[Response, int]:
    return refuse(413, [{"code": "body-too-large", "message": api_message("body-too-large")}])


_INSTALLED: set[int] = set()


def install_error_handlers(blueprint: Blueprint) -> None:
    """Give a game's API blueprint the shared refusals (called by the shell for each app; a
    blueprint is set up once, before its first registration)."""
    if id(blueprint) in _INSTALLED:
        return
    _INSTALLED.add(id(blueprint))
    blueprint.register_error_handler(ApiError, _api_error)
    blueprint.register_error_handler(ValueError, _rules_error)
    blueprint.register_error_handler(RequestEntityTooLarge, _too_large)


NUMBER_LIMIT = 10**9
"""No count, score, seat or round of any game comes near it; a number beyond it (a 4,300-digit
integer, say) is refused before any model or rules core sees it."""


def _huge_number(value: object) -> bool:
    """Whether a number beyond :data:`NUMBER_LIMIT` (or not finite) is anywhere in ``value``
    (the body is at most 64 kB and nested at most as deep as ``json`` parses). The types
    ``json`` gives are checked by ``type`` first (every request body passes here), any other
    by ``isinstance``."""
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)  # (mypy narrows ``type(x) is``, not through ``kind``: the ignores below)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict:
            extend(item.values())  # type: ignore[attr-defined]
        elif kind is list:
            extend(item)  # type: ignore[arg-type]
        elif kind is int or kind is float:
            if not -NUMBER_LIMIT <= item <= NUMBER_LIMIT:  # type: ignore[operator]
                return True  # (NaN compares false: refused too)
        elif isinstance(item, bool) or isinstance(item, str):
            continue
        elif isinstance(item, int | float):
            if not -NUMBER_LIMIT <= item <= NUMBER_LIMIT:
                return True
        elif isinstance(item, dict):
            extend(item.values())
        elif isinstance(item, list):
            extend(item)
    return False


def parse_body(model: type[Model]) -> Model:
    """The JSON body validated by ``model``; raises :class:`ApiError` (400 or 422) otherwise.
    Pydantic's errors become problems (:func:`companion.web.api_schema.problems_from_validation`:
    a game's request model may word some itself)."""
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # JSON nested thousands deep: not a body any endpoint takes
        data = None
    if not isinstance(data, dict):
        raise ApiError(400, [{"code": "malformed-json", "message": api_message("malformed-json")}])
    if _huge_number(data):
        raise ApiError(422, [{"code": "number-too-large",
                              "message": api_message("number-too-large", limit=NUMBER_LIMIT)}])
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ApiError(422, problems_from_validation(error, model)) from None


def ok(body: BaseModel) -> Response:
    """A 200 answer from a response model."""
    return jsonify(body.model_dump(mode="json"))


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of every game's API, generated from the request and response
    models."""
    from ..games import registry

    operations = [Operation(url_for(op.endpoint), op.operation_id, op.summary, op.request,
                            op.response)
                  for game in registry() for op in game.api_operations()]
    return jsonify(openapi_document(operations))
