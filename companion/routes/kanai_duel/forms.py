"""Forms of the Kanai duel: they check shape (a name, one of the eight cards); the core judges the
rules. Every write form carries the game version it was based on and an idempotency key."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Request
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField, RadioField, SelectField, StringField
from wtforms.fields.choices import SelectChoice  # type: ignore[attr-defined]  # (3.3; stubs: 3.2)
from wtforms.validators import InputRequired, Length, Optional

from ...forms.names import storable_name
from ...play.kanai_duel import PHONES, REFEREE
from ...scoring.kanai_duel import DuelCard
from ..page_store import page_form_key

MAX_NAME = 24
CARD_VALUES = [card.value for card in DuelCard]
CARD_SET = frozenset(CARD_VALUES)


def _strip(value: str | None) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) else value


def _card_choices() -> list[SelectChoice]:
    return [SelectChoice(card.value, card.value) for card in DuelCard]


class KanaiDuelWriteForm(FlaskForm):
    """A write: the version of the game the phone saw and a fresh key per rendered form."""

    # Labels given (never shown): the text WTForms would make of each name, which it would
    # otherwise look up in its catalogue each time the form is built (~5 µs a field, issue 36).
    version = HiddenField("Version", validators=[InputRequired()])
    key = HiddenField("Key")

    def fresh(self, version: int) -> KanaiDuelWriteForm:
        """Fill the hidden fields for a form about to be rendered."""
        self.version.data = str(version)
        self.key.data = page_form_key()
        return self

    def based_on(self) -> int:
        """The version the page showed; -1 for anything but a few ASCII digits (never a
        version: the write is then refused as stale)."""
        return small_int(self.version.data)


def small_int(text: str | None) -> int:
    """A whole number of at most 9 ASCII digits, else -1."""
    return int(text) if isinstance(text, str) and text.isascii() and text.isdigit() and len(
        text) <= 9 else -1


class RoundForm(KanaiDuelWriteForm):
    """Referee mode: the card each player revealed."""

    # (labels given, as above)
    first = RadioField("First", choices=_card_choices(), validators=[InputRequired()])
    second = RadioField("Second", choices=_card_choices(), validators=[InputRequired()])


@dataclass(frozen=True)
class RoundSent:
    """A referee's round as its page sends it, read without binding a form (a save's fixed
    shape: two cards, the version, the key): what :class:`RoundForm` would accept."""

    first: str
    second: str
    version: str
    key: str | None

    def based_on(self) -> int:
        return small_int(self.version)


def round_sent(request: Request) -> RoundSent | None:
    """The round of a POST whose fields :class:`RoundForm` accepts as they are — each card one
    of the eight, a version given — read in a few lookups; None for anything else (a file sent,
    a card missing or unknown, no version), which the view hands to :class:`RoundForm` for the
    same refusal as ever. CSRF is checked before the view (``CSRFProtect``) either way."""
    if request.files:
        return None
    form = request.form
    first, second, version = form.get("first"), form.get("second"), form.get("version")
    if first not in CARD_SET or second not in CARD_SET or not version:
        return None
    return RoundSent(str(first), str(second), version, form.get("key"))


class PickForm(KanaiDuelWriteForm):
    """Two-phone mode: this phone's secret pick, and the round it was made for (0: the card set
    aside under B)."""

    # (labels given, as above)
    card = RadioField("Card", choices=_card_choices(), validators=[InputRequired()])
    round = HiddenField("Round")

    def stage(self) -> int:
        return small_int(self.round.data)


class JoinForm(FlaskForm):
    """Two-phone mode: take the seat this link is for (the button is the whole form)."""


class ReinviteForm(KanaiDuelWriteForm):
    """Two-phone mode, the creator's phone: a new link for the other seat (a lost phone)."""


class UndoForm(KanaiDuelWriteForm):
    """Referee mode: take back the last round."""


class KanaiDuelNewGameForm(FlaskForm):
    """Set up a duel: the two players, one phone or two, and the variants."""

    first = StringField(_l("Player 1"), filters=[_strip],
                        validators=[InputRequired(), Length(max=MAX_NAME), storable_name])
    second = StringField(_l("Player 2"), filters=[_strip],
                         validators=[InputRequired(), Length(max=MAX_NAME), storable_name])
    mode = RadioField(_l("How you play"), default=REFEREE, validators=[InputRequired()],
                      choices=[SelectChoice(REFEREE, _l("One phone, real cards")),
                               SelectChoice(PHONES, _l("Two phones, no cards"))])
    wins = RadioField(_l("Wins to be crowned"), default="4", validators=[InputRequired()],
                      choices=[SelectChoice("4", "4"), SelectChoice("3", _l("3 (G)"))])
    abilities = RadioField(_l("Abilities"), default="all", validators=[InputRequired()],
                           choices=[SelectChoice("all", _l("All")),
                                    SelectChoice("none", _l("None (H)")),
                                    SelectChoice("clown_minister", _l("Clown and Minister (H)"))])
    until_dawn = BooleanField(_l("Play every card, most wins wins (Q)"))
    set_aside = RadioField(_l("A card out of play"), default="none", validators=[InputRequired()],
                           choices=[SelectChoice("none", _l("No")),
                                    SelectChoice("chosen", _l("Chosen (B)")),
                                    SelectChoice("random", _l("Random (C)"))])
    out_first = SelectField(_l("Player 1 sets aside"), validators=[Optional()],
                            choices=[SelectChoice("", "—"), *_card_choices()])
    out_second = SelectField(_l("Player 2 sets aside"), validators=[Optional()],
                             choices=[SelectChoice("", "—"), *_card_choices()])

    def variants(self) -> list[str]:
        """The variant slugs chosen (see ``companion.scoring.kanai_duel.VARIANTS``)."""
        slugs = []
        if self.wins.data == "3":
            slugs.append("impatience")
        slugs += {"none": ["numbers"], "clown_minister": ["numbers-clown-minister"]}.get(
            self.abilities.data or "", [])
        if self.until_dawn.data:
            slugs.append("until-dawn")
        slugs += {"chosen": ["seven"], "random": ["wanderlust"]}.get(self.set_aside.data or "", [])
        return slugs

    def out(self) -> tuple[DuelCard | None, DuelCard | None]:
        """The cards set aside under B (both chosen on the referee phone)."""
        if self.set_aside.data != "chosen":
            return (None, None)
        values = (self.out_first.data, self.out_second.data)
        # Optional() lets blank text through unchecked: anything but a card is no card.
        return (DuelCard(values[0]) if values[0] in CARD_VALUES else None,
                DuelCard(values[1]) if values[1] in CARD_VALUES else None)
