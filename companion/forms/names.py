"""The check every field that names a player (or a princess) shares: no control characters, and
a folded key both databases store (see :func:`companion.common.person_names.name_problem`)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask_babel import lazy_gettext as _l
from wtforms.validators import ValidationError

from ..common.person_names import name_problem

MESSAGES = {
    "name-control": _l("A name cannot hold control characters."),
    "name-too-long": _l("This name is too long."),
}


def storable_name(_form: Any, field: Any) -> None:
    """A WTForms validator: refuses a name the databases would not store alike."""
    problem = name_problem(field.data if isinstance(field.data, str) else None)
    if problem is not None:
        raise ValidationError(str(MESSAGES[problem]))


def at_most_names(count: int) -> Any:
    """A WTForms validator for a list of seat names ``names-0``, ``names-1`` …: refuses a name
    sent for a seat past the ``count``-th (a form the page never draws; without it the list
    would drop that name silently and start a table of another size than asked)."""

    def check(form: Any, field: Any) -> None:
        prefix = f"{field.name}-"
        extra = [key for key, value in request.form.items()
                 if key.startswith(prefix) and key[len(prefix):].isdigit()
                 and int(key[len(prefix):]) >= count and value.strip()]
        if extra:
            raise ValidationError(str(_l("At most %(n)s players play this game.", n=count)))
    return check
