"""The check every field that names a player (or a princess) shares: no control characters, and
a folded key both databases store (see :func:`companion.play.players.name_problem`)."""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from wtforms.validators import ValidationError

from ..play.players import name_problem

MESSAGES = {
    "name-control": _l("A name cannot hold control characters."),
    "name-too-long": _l("This name is too long."),
}


def storable_name(_form: Any, field: Any) -> None:
    """A WTForms validator: refuses a name the databases would not store alike."""
    problem = name_problem(field.data if isinstance(field.data, str) else None)
    if problem is not None:
        raise ValidationError(str(MESSAGES[problem]))
