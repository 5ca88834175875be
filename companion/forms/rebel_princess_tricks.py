"""The trick screen's form: every tap posts it; it checks shapes only (the judge does the rules)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import HiddenField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from .rebel_princess import ASCII_NUMBER


class TapNumber(IntegerField):
    """A number a tap posts (a version, a position, a seat): ASCII digits only, since ``int``
    reads "١" (Arabic-Indic one) as 1 and a posted "١" is not what any button sends."""

    def process_formdata(self, valuelist: list[str]) -> None:
        if valuelist and valuelist[0] != "" and not ASCII_NUMBER.fullmatch(str(valuelist[0])):
            self.data = None
            raise ValueError("not a number")
        super().process_formdata(valuelist)


class TrickForm(FlaskForm):
    """Any tap on the trick screen: shapes only; the glue and the engine judge the rest."""

    class Meta:
        def get_translations(self, form: object) -> None:
            """No translations: the form's own messages are never shown (a tap it refuses is
            answered as a whole), and looking them up for each field on every tap costs more
            than judging the tap."""
            return None

    version = TapNumber(validators=[InputRequired(), NumberRange(min=0)])
    card = StringField(validators=[Optional(), Length(max=4)])
    pos = TapNumber(validators=[Optional(), NumberRange(min=0, max=200)])
    seat = TapNumber(validators=[Optional(), NumberRange(min=0, max=5)])
    target = TapNumber(validators=[Optional(), NumberRange(min=0, max=5)])
    suit = StringField(validators=[Optional(), Length(max=1)])
    key = StringField(validators=[Optional(), Length(max=80)])
    on = HiddenField()
    cards = StringField(validators=[Optional(), Length(max=80)])  # cards tapped, "Q3.F2"
    pick = StringField(validators=[Optional(), Length(max=20)])  # go on to tap the cards
    zero = HiddenField()  # Snow White plays this card as a zero

    def tapped(self) -> str:
        """The cards tapped for a power or a haggle: those picked before, then the last tap."""
        return " ".join(filter(None, (self.cards.data, self.card.data)))
