"""Forms of Love Letter « Princesse Princesse »: they check shapes (a seat, a card value), never
rules — the rules core judges those. Every write form carries the game version the phone saw and
a fresh idempotency key (a double tap is stored once, a stale write is refused)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Request
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import FieldList, HiddenField, IntegerField, SelectField, StringField
from wtforms.fields.choices import SelectChoice  # type: ignore[attr-defined]  # (3.3; stubs: 3.2)
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from ...forms.fields import required
from ...forms.names import at_most_names, storable_name
from ...scoring.princesse_princesse import MAX_PLAYERS, Turn
from ..page_store import page_form_key

MAX_NAME = 24
MAX_KEY = 64
"""The longest idempotency key a write may carry."""
VALUES = range(10)


def _strip(value: str | None) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) else value


def _optional_int(value: Any) -> int | None:
    """A whole number from a form field, or None for an empty or missing one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class PrincessePrincesseNewGameForm(FlaskForm):
    """Set up a game: 2 to 6 names in seat order (clockwise) and who starts."""

    names = FieldList(StringField(_l("Name"), filters=[_strip],
                                  validators=[Optional(), Length(max=MAX_NAME), storable_name]),
                      min_entries=MAX_PLAYERS, max_entries=MAX_PLAYERS,
                      validators=[at_most_names(MAX_PLAYERS)])
    first = SelectField(_l("Starts the first round"), coerce=int, validate_choice=False,
                        choices=[SelectChoice(i, str(i + 1)) for i in range(MAX_PLAYERS)],
                        default=0)

    def player_names(self) -> list[str]:
        return [entry.data for entry in self.names if entry.data]


class PrincessePrincesseWriteForm(FlaskForm):
    """Any write to a game: the version it is based on and an idempotency key."""

    # Labels given (never shown): the text WTForms would make of each name, which it would
    # otherwise look up in its catalogue each time the form is built (~5 µs a field, issue 36).
    version = IntegerField("Version", validators=[InputRequired(), NumberRange(min=0)])
    key = HiddenField("Key", validators=[Optional(), Length(max=MAX_KEY)])

    def fresh(self, version: int) -> PrincessePrincesseWriteForm:
        """Fill in the version the page shows and a new key (for a form about to be rendered)."""
        self.version.data = version
        self.key.data = page_form_key()
        return self

    def based_on(self) -> int:
        """The version the page showed (required: read once the form validated)."""
        return required(self.version.data)


@dataclass(frozen=True)
class WriteSent:
    """What every write says besides its content: the version it is based on and its key."""

    version: int
    key: str | None

    @classmethod
    def of(cls, form: PrincessePrincesseWriteForm) -> WriteSent:
        """What a validated :class:`PrincessePrincesseWriteForm` says."""
        return cls(form.based_on(), form.key.data)


def write_sent(request: Request) -> WriteSent | None:
    """The version and key of a POST that :class:`PrincessePrincesseWriteForm` accepts as they
    are — a version of a few ASCII digits (which ``int`` reads as the form does), a key of at
    most :data:`MAX_KEY` characters or none — read without binding the form (issue 36); None
    for anything else (a file sent, a JSON body, a version missing or written otherwise, a
    longer key), which the view hands to the form for the same refusal as ever. CSRF is checked
    before the view (``CSRFProtect``) either way, as the form's own check then finds it
    checked."""
    if request.files:
        return None
    form = request.form
    version, key = form.get("version"), form.get("key")
    if not (version and version.isascii() and version.isdigit() and len(version) <= 9
            and (key is None or len(key) <= MAX_KEY)):
        return None
    return WriteSent(int(version), key)


def seats_from(values: list[str], players: int) -> list[int]:
    """The seats among form values (unknown ones are dropped: the form only offers seats)."""
    seats = {_optional_int(v) for v in values}
    return sorted(s for s in seats if s is not None and 0 <= s < players)


def cards_from(form: dict[str, Any], players: int) -> dict[int, int]:
    """``card-<seat>`` fields as ``{seat: value}`` (a value outside 0–9 is kept for the core to
    refuse with its own message)."""
    cards: dict[int, int] = {}
    for seat in range(players):
        value = _optional_int(form.get(f"card-{seat}"))
        if value is not None:
            cards[seat] = value
    return cards


def face_up_from(form: dict[str, Any]) -> list[int]:
    return [v for v in (_optional_int(form.get(f"face-up-{i}")) for i in range(3))
            if v is not None]


def turn_from(form: dict[str, Any], seat: int) -> Turn:
    """The turn a tap-through of the turn form describes (answers not asked are left empty)."""
    answer = form.get("loser")
    if answer == "target":  # the form offers "the player", "the target" or "a tie"
        answer = form.get("target")
    hit = form.get("hit")
    card = _optional_int(form.get("card"))
    return Turn(seat=seat, card=card if card is not None else -1,  # (-1: no card, refused)
                target=_optional_int(form.get("target")), named=_optional_int(form.get("named")),
                hit=None if hit not in ("yes", "no") else hit == "yes",
                loser=None if answer in (None, "", "tie") else _optional_int(answer),
                tie=answer == "tie", revealed=_optional_int(form.get("revealed")))
