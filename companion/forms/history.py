"""Forms of history and statistics: renaming and merging players, importing a file.

They check shape only (a name of the right length, two people picked, a file sent); the glue
(:mod:`companion.play.people`, :mod:`companion.play.export`) judges the rest.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import SelectField, StringField
from wtforms.validators import InputRequired, Length

from ..common.bounds import db_id
from ..play.people import NAME_MAX
from .names import storable_name


def strip_spaces(value: str | None) -> str | None:
    """A typed name as stored: single spaces, none around it."""
    return " ".join(value.split()) if isinstance(value, str) else value


class RenameForm(FlaskForm):
    """A person's new name."""

    name = StringField(_l("New name"), filters=[strip_spaces],
                       validators=[InputRequired(), Length(max=NAME_MAX), storable_name])


class MergeForm(FlaskForm):
    """Two people who are one (a typo): ``source``'s games become ``target``'s."""

    source = SelectField(_l("Merge"), coerce=db_id, validators=[InputRequired()],
                         validate_choice=False)
    target = SelectField(_l("into"), coerce=db_id, validators=[InputRequired()],
                         validate_choice=False)


class ImportForm(FlaskForm):
    """A JSON export file."""

    file = FileField(_l("Export file (.json or .json.gz)"), validators=[FileRequired()])
