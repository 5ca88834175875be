"""What every game's JSON API shares: the error shape, pydantic errors as problems, OpenAPI.

Every refusal has one shape, ``{"error": sentence, "problems": [{code, message, seat?, card?,
field?}]}``. Each game's API models validate shape only; the game's rules core reports the rules
as problems. The OpenAPI 3.1 document is generated from the models of every registered game.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal, cast

from flask import Response, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.json_schema import models_json_schema
from pydantic_core import ErrorDetails
from werkzeug.exceptions import HTTPException


@cache
def _api_messages() -> dict[str, Any]:
    text = resources.files("companion").joinpath("api_messages.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def api_message(code: str, **params: Any) -> str:
    """The sentence for an API problem code found before any rule is checked (shape errors)."""
    template = _api_messages()["messages"].get(code, _api_messages()["messages"]["invalid-value"])
    return str(template.format(**params))


def summary_for(endpoint: str, problems: Sequence[dict[str, Any]]) -> str:
    """The one-sentence ``error`` of a 4xx answer: the problem itself, or a count of them."""
    if len(problems) == 1:
        return str(problems[0]["message"])
    template = _api_messages()["summaries"].get(endpoint, _api_messages()["summaries"]["default"])
    return str(template.format(count=len(problems)))


class ApiRequest(BaseModel):
    """The base of a game's request models: strict (a boolean is not a number and "3" is not 3);
    unknown fields are typos, not extensions."""

    model_config = ConfigDict(strict=True, extra="forbid")


class ApiResponse(BaseModel):
    """The base of every answer model: it holds exactly the fields it declares."""

    model_config = ConfigDict(extra="forbid")


# --- errors ---------------------------------------------------------------------------------------

class ProblemOut(ApiResponse):
    """One thing wrong with the request."""

    code: str = Field(description="A stable kebab-case code, e.g. `missing-card`, `wrong-type`.",
                      examples=["missing-card"])
    message: str = Field(description="The problem in a sentence a player understands.")
    seat: int | None = Field(default=None, description="The seat concerned, if any.")
    card: str | None = Field(default=None, description="The card concerned, if any.")
    trick: int | None = Field(default=None,
                              description="The trick concerned (0-based), for check-round.")
    field: str | None = Field(default=None,
                              description="The request field concerned, for shape errors.",
                              examples=["taken[2][0]"])


class ErrorResponse(ApiResponse):
    """Why the request was refused: a summary sentence and every problem found."""

    error: str = Field(description="One sentence summing the problems up.")
    problems: list[ProblemOut] = Field(description="Every problem found.")


# --- pydantic errors as problems ------------------------------------------------------------------

_EXPECTED = {
    "int_type": "a whole number", "int_parsing": "a whole number",
    "int_from_float": "a whole number", "string_type": "text", "list_type": "a list",
    "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
    "literal_error": "one of the listed values",
}


def _field_path(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path or "body"


_CODES = {"missing": "missing-field", "extra_forbidden": "unknown-field",
          "too_long": "too-many-items", **{kind: "wrong-type" for kind in _EXPECTED}}


def problem_from_error(error: ErrorDetails, *, seat_positions: Mapping[str, int] | None = None,
                       expected: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One pydantic error as a problem with a stable code and our own wording.

    ``seat_positions`` says where the seat index sits in a per-seat field's location
    (``{"taken": 1}`` for ``taken[seat][card]``), so the problem names the player;
    ``expected`` overrides what a field should hold ("“deluxe” or “classic”").
    """
    loc = list(error["loc"])
    kind = error["type"]
    field = _field_path(loc)
    position = (seat_positions or {}).get(str(loc[0])) if loc else None
    seat = loc[position] if position is not None and len(loc) > position else None
    seat = seat if isinstance(seat, int) else None
    where = f"“{field}”" + (f" (player {seat + 1})" if seat is not None else "")
    wanted = (expected or {}).get(field) or _EXPECTED.get(kind, "")
    code = _CODES.get(kind, "invalid-value")
    limit = (error.get("ctx") or {}).get("max_length", "?")
    problem: dict[str, Any] = {"code": code, "field": field,
                               "message": api_message(code, where=where, expected=wanted,
                                                      limit=limit)}
    if seat is not None:
        problem["seat"] = seat
    return problem


def problems_from_validation(error: ValidationError, model: type[Any] | None = None
                             ) -> list[dict[str, Any]]:
    """Turn pydantic's errors into problems with stable codes and our own wording: the shared
    reading (:func:`problem_from_error`), or the request model's own when it words some of its
    fields itself (a ``problem_of(details)`` class method, see :class:`WordsItsProblems`)."""
    own = model.problem_of if isinstance(model, type) and issubclass(model, WordsItsProblems) \
        else problem_from_error
    return [own(details) for details in error.errors()]


class WordsItsProblems:
    """A request model (a mixin beside pydantic's ``BaseModel``) that turns some of pydantic's
    errors into its game's own problems: :func:`problems_from_validation` asks it for each."""

    @classmethod
    def problem_of(cls, details: ErrorDetails) -> dict[str, Any]:
        return problem_from_error(details)


# --- OpenAPI --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Operation:
    """One POST endpoint as the OpenAPI document describes it."""

    path: str
    operation_id: str
    summary: str
    request: type[BaseModel]
    response: type[BaseModel]


def _examples(model: type[BaseModel]) -> dict[str, Any]:
    extra = model.model_config.get("json_schema_extra")
    examples = cast(list[Any], extra.get("examples", [])) if isinstance(extra, dict) else []
    return {f"example{number}": {"value": value}
            for number, value in enumerate(examples, start=1)}


def openapi_document(operations: Sequence[Operation]) -> dict[str, Any]:
    """An OpenAPI 3.1 document for the given endpoints, generated from their pydantic models."""
    # All the models at once: pydantic names each schema after its model and, where two games
    # had a model of the same name, would qualify both so neither hides the other.
    pairs: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = [
        (ErrorResponse, "serialization")]
    for op in operations:
        pairs += [(op.request, "validation"), (op.response, "serialization")]
    refs, top = models_json_schema(pairs, ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = dict(top.get("$defs", {}))

    def _component(model: type[BaseModel], mode: Literal["validation", "serialization"],
                   _schemas: dict[str, Any]) -> dict[str, str]:
        return {"$ref": str(refs[(model, mode)]["$ref"])}

    error_ref = _component(ErrorResponse, "serialization", schemas)
    paths: dict[str, Any] = {}
    for op in operations:
        json_error = {"application/json": {"schema": error_ref}}
        paths[op.path] = {"post": {
            "operationId": op.operation_id,
            "summary": op.summary,
            "description": (op.request.__doc__ or "").strip(),
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": _component(op.request, "validation", schemas),
                "examples": _examples(op.request)}}},
            "responses": {
                "200": {"description": (op.response.__doc__ or "").strip(), "content": {
                    "application/json": {"schema": _component(op.response, "serialization",
                                                               schemas)}}},
                "400": {"description": "The body is not a JSON object (code `malformed-json`).",
                        "content": json_error},
                "422": {"description": "The entry cannot be used; `problems` lists every reason.",
                        "content": json_error},
            },
        }}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Princess table companion API", "version": "1",
                 "description": "Stateless rules helpers for the princess card games of the "
                                "companion, one path prefix per game (`/api/v1/<game>/...`): "
                                "nothing is stored, and no session, cookie or CSRF token is "
                                "needed. Seats are numbered from 0, clockwise in play order."},
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def refuse(status: int, problems: list[dict[str, Any]]) -> tuple[Response, int]:
    """The JSON error shape: a summary sentence and every problem."""
    endpoint = (request.endpoint or "").rpartition(".")[2]
    body = ErrorResponse.model_validate(
        {"error": summary_for(endpoint, problems), "problems": problems})
    return jsonify(body.model_dump(mode="json", exclude_none=True)), status


def http_error(error: HTTPException) -> tuple[Response, int] | None:
    """404, 405 … under ``/api/`` in the JSON error shape (None elsewhere: the HTML pages)."""
    if not request.path.startswith("/api/"):
        return None
    code = {404: "not-found", 405: "method-not-allowed", 429: "too-many-requests"}.get(
        error.code or 0, "bad-request")
    response, status = refuse(error.code or 400, [{"code": code, "message": api_message(code)}])
    allowed = getattr(error, "valid_methods", None)
    if status == 405 and allowed:
        response.headers["Allow"] = ", ".join(allowed)  # as HTTP asks of every 405
    return response, status
