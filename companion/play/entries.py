"""What a stored entry of each game may hold: one shape per kind of entry, declared by each
game's glue module (``ENTRY_SHAPES``, handed to its :class:`companion.games.GameGlue` as
``entry_shapes``) and read by every way an entry comes in — a save
(:func:`companion.play.store.append`) and an import (:mod:`companion.play.imports`). An entry
that no form or API call could have made (an unknown kind, a field too many, a value of the
wrong type or too long) is refused with its problem, so nothing is stored that no table could
have made.

The shapes are strict: no field beyond those listed, numbers as numbers, texts bounded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..games import by_key

Seat = Annotated[int, Field(ge=0, le=15)]
"""A seat at the table (at most 16 seats in any game)."""
Short = Annotated[str, Field(max_length=64)]
"""A word of an entry: a card's code, a notation, a digest."""


class EntryShape(BaseModel):
    """The data of one kind of entry: exactly these fields, nothing more."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Empty(EntryShape):
    """An entry that holds nothing but its kind (an undo, a log discarded)."""


def shapes_of(kind: str) -> Mapping[str, type[BaseModel]] | None:
    """The entry shapes of the game ``kind`` (its key), or None for a game with no entries
    of its own declared (a toy game, plugged in with no glue): its entries are not checked."""
    game = by_key(kind)
    glue = game.glue() if game is not None else None
    return glue.entry_shapes if glue is not None else None


def entry_problem(kind: str, entry: str, data: Any, *, as_json: str | None = None
                  ) -> str | None:
    """Why the entry ``entry`` with ``data`` is not one a game of ``kind`` can store (a short
    hint, no player's text in it), or None if it is. ``as_json``: ``data`` as the JSON text it
    is stored as, when the caller has made it (a save: not made twice)."""
    shapes = shapes_of(kind)
    if shapes is None:
        return None
    shape = shapes.get(entry)
    if shape is None:
        return f"an entry of kind {entry[:24]!r}"
    try:  # (as the JSON it is stored as: strict, an enum's value and a list for a pair)
        shape.model_validate_json(json.dumps(data) if as_json is None else as_json)
    except ValidationError as error:
        first = error.errors()[0]
        return f"{entry}: " + ".".join(str(p) for p in first["loc"])[:60] + ": " + first["msg"]
    return None
