"""Forms of a group's own page: renaming it, replacing its link, deleting it.

They check shape only; :mod:`companion.play.groups` judges the rest.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import InputRequired, Length

from ..play.groups import NAME_MAX
from .history import strip_spaces


class GroupNameForm(FlaskForm):
    """The group's new name."""

    name = StringField(_l("Group name"), filters=[strip_spaces],
                       validators=[InputRequired(), Length(max=NAME_MAX)])


class ReplaceGroupLinkForm(FlaskForm):
    """Replace the group's link (the button is the whole form; CSRF protected)."""


class DeleteGroupForm(FlaskForm):
    """Delete the group: its name typed again, so that no tap deletes it by accident."""

    confirm = StringField(_l("Type the group's name to delete it"), filters=[strip_spaces],
                          validators=[InputRequired(), Length(max=NAME_MAX + 20)])
