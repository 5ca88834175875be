"""Forms of « Réveillez »: they check the shape of what was typed or tapped; the rules core judges
the rules (player count, values, legality of every action)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, FieldList, HiddenField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from ...common.bounds import whole_or_none
from ...forms.names import at_most_names, storable_name
from ...play.reveillez import ACTIONS, MAX_NAME, Draft
from ...scoring.reveillez import MAX_PLAYERS
from ..page_store import page_form_key

PRINCESS_NAME = 30


def fresh_key() -> str:
    """A new idempotency key for a rendered form (a double tap sends the same one twice)."""
    return page_form_key()


class ReveillezNewGameForm(FlaskForm):
    """Set up a game: 2–5 names clockwise, who starts (left of the dealer), the variant, and
    whether put-back princesses show their value."""

    names = FieldList(StringField(validators=[Optional(), Length(max=MAX_NAME), storable_name]),
                      min_entries=MAX_PLAYERS, max_entries=MAX_PLAYERS,
                      validators=[at_most_names(MAX_PLAYERS)])
    first = IntegerField(_l("Starts (left of the dealer)"), default=0,
                         validators=[InputRequired(), NumberRange(0, MAX_PLAYERS - 1)])
    variant = BooleanField(_l("Variant « caprices de princesses »"))
    show_values = BooleanField(_l("Show the value of princesses put back to sleep"))

    def player_names(self) -> list[str]:
        return [" ".join(entry.data.split()) for entry in self.names
                if entry.data and entry.data.strip()]


VALUE_BOUND = 10_000
"""No princess or card value is near it; the core names anything outside its own range."""


class ReveillezWriteForm(FlaskForm):
    """What every write carries: the game version the phone saw and an idempotency key."""

    # Labels given (never shown): the text WTForms would make of each name, which it would
    # otherwise look up in its catalogue each time the form is built (~5 µs a field, issue 36).
    version = IntegerField("Version", validators=[InputRequired(), NumberRange(min=0)])
    key = HiddenField("Key", validators=[InputRequired(), Length(min=8, max=64)])


class ActionForm(ReveillezWriteForm):
    """One tap of an action being built (see :class:`~companion.play.reveillez.Draft`): every
    answer so far travels in the form. ``go`` marks the final tap of a discard."""

    # (labels given, as above)
    do = HiddenField("Do", validators=[InputRequired()])
    slot = IntegerField("Slot", validators=[Optional()])
    value = StringField("Value", validators=[Optional(), Length(max=8)])
    value_typed = IntegerField("Value Typed", validators=[Optional()])
    name = StringField("Name", validators=[Optional(), Length(max=PRINCESS_NAME)])
    name_typed = StringField("Name Typed", validators=[Optional(), Length(max=PRINCESS_NAME)])
    companion_slot = IntegerField("Companion Slot", validators=[Optional()])
    companion_value = StringField("Companion Value", validators=[Optional(), Length(max=8)])
    companion_name = StringField("Companion Name",
                                 validators=[Optional(), Length(max=PRINCESS_NAME)])
    princess = IntegerField("Princess", validators=[Optional()])
    defended = StringField("Defended", validators=[Optional()])
    dest = IntegerField("Dest", validators=[Optional()])
    revealed = StringField("Revealed", validators=[Optional(), Length(max=16)])
    cards = StringField("Cards", validators=[Optional(), Length(max=60)])
    add = StringField("Add", validators=[Optional(), Length(max=16)])
    drop = StringField("Drop", validators=[Optional()])
    go = StringField("Go", validators=[Optional()])

    def draft(self) -> Draft:
        """The answers so far as a :class:`Draft` (values the core will judge)."""
        do = self.do.data if self.do.data in ACTIONS else "choose"
        cards = tuple((self.cards.data or "").split())
        if self.add.data:
            cards = (*cards, self.add.data.strip().lower())
        if self.drop.data == "last":
            cards = cards[:-1]
        elif self.drop.data == "all":
            cards = ()
        defended = {"yes": True, "no": False}.get(self.defended.data or "")
        return Draft(
            do=do, slot=self.slot.data, value=self._value(self.value.data, self.value_typed.data),
            name=self._name(self.name.data, self.name_typed.data),
            companion_slot=self.companion_slot.data,
            # A companion's value means nothing without her place (the step asks the place first).
            companion_value=self._value(self.companion_value.data, self.value_typed.data)
            if self.companion_slot.data is not None else None,
            companion_name=self._name(self.companion_name.data, self.name_typed.data
                                      if self.companion_slot.data is not None else None),
            princess=self.princess.data, defended=defended, dest=self.dest.data,
            revealed=(self.revealed.data or None), cards=cards)

    @staticmethod
    def _value(tapped: str | None, typed: int | None) -> int | None:
        if tapped == "typed":
            return typed
        return whole_or_none(tapped, -VALUE_BOUND, VALUE_BOUND) if tapped else None

    @staticmethod
    def _name(chosen: str | None, typed: str | None) -> str | None:
        if chosen == "other":
            return (typed or "").strip() or None
        return chosen or None
