"""Forms: they check the shape of what was typed or tapped; the scoring core judges the rules.

Every write goes through a ``FlaskForm`` so every form carries a CSRF token. The round-entry forms
depend on the game (which cards the Round card scores, how many players), so they are built per
request by :func:`cards_form`, :func:`counts_form` and :func:`numbers_form`; what such a form
holds is read into the round it says (:func:`played_from_cards`, :func:`played_from_counts`,
:func:`played_from_numbers`) and a stored round shown in it (``prefill_…``) here too, so a round
page parses, calls its glue once and renders.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Request, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    FieldList,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
)
from wtforms.fields.choices import SelectChoice  # type: ignore[attr-defined]  # (3.3; stubs: 3.2)
from wtforms.validators import (
    InputRequired,
    Length,
    NumberRange,
    Optional,
    Regexp,
    ValidationError,
)

from ...forms.fields import required
from ...forms.names import storable_name
from ...rulings.rebel_princess import princess_names
from ...scoring.rebel_princess import (
    Edition,
    PlayedRound,
    RebelCard,
    RoundCounts,
    counts_from_taken,
    round_cards,
)
from ...web.i18n import current_lang
from ..page_store import page_form_key

MAX_NAME = 24
MAX_SCORE = 99


class PadUndoForm(FlaskForm):
    """The pad's Undo button: the version the pad showed (``version``, read by the page) and a
    fresh idempotency key per drawn form (see :func:`companion.routes.replays.form_key`)."""

    key = HiddenField()

    def fresh(self) -> PadUndoForm:
        """Give the form about to be drawn its key."""
        self.key.data = page_form_key()
        return self


def _strip(value: str | None) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) else value


#: Bidirectional controls can make a name display as another one (U+202A-202E, U+2066-2069).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds a character nobody types into a name: NUL and the other control
    characters, lone surrogates, or a bidirectional override. (Joiners stay allowed: emoji
    sequences need them.)"""
    return any(unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI for ch in text)


#: A number typed or sent in a form: ASCII digits only. ``str.isdigit`` also accepts "²" (which
#: ``int`` refuses) and ``int`` reads "١" (Arabic-Indic one) as 1: neither is what was tapped.
ASCII_NUMBER = re.compile(r"[0-9]{1,9}")


def ascii_int(value: object) -> int:
    """``int`` for form choices, ASCII digits only (``int("١")`` would be 1)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not ASCII_NUMBER.fullmatch(str(value)):
        raise ValueError(f"not a number: {value!r}")
    return int(str(value))


_SCORE = re.compile(r"[-+]?[0-9]{1,3}")


def typed_score(value: object) -> int | None:
    """A round score as typed: ASCII digits with an optional sign, "-" or the "−" the app prints
    (a phone's sign toggle writes either); None for nothing typed (spaces only); ValueError for
    anything else."""
    text = str(value).strip().replace("\u2212", "-")
    if text == "":
        return None
    if not _SCORE.fullmatch(text):
        raise ValueError(text)
    return int(text)


class ScoreField(IntegerField):
    """A round score as typed (:func:`typed_score`)."""

    def process_formdata(self, valuelist: list[str]) -> None:
        if not valuelist:
            return
        try:
            self.data = typed_score(valuelist[0])  # (None: InputRequired says what to do)
        except ValueError:
            self.data = None
            raise ValueError(_("Type a whole number with the digits 0 to 9, such as 3 or −3.")
                             ) from None


def choices(pairs: Sequence[tuple[object, str]]) -> list[SelectChoice]:
    """WTForms 3.3+ wants ``SelectChoice`` objects rather than tuples."""
    return [SelectChoice(value, label) for value, label in pairs]


def card_choices(edition: Edition, only: Sequence[str] | None = None) -> list[SelectChoice]:
    """Every Round card of the edition (or those lettered in ``only``), named in the page's
    language."""
    lang = current_lang()
    return choices([(c.letter, f"{c.letter} · {c.name(lang)}") for c in round_cards(edition)
                    if only is None or c.letter in only])


if TYPE_CHECKING:  # (the stubs make FieldList generic; WTForms' class is not, at run time)
    _SeatList = FieldList[StringField]
else:
    _SeatList = FieldList


class SeatFields(_SeatList):
    """One field per seat: entry N is always the field posted as ``<name>-N``, and a seat whose
    field was not posted is empty. (A plain ``FieldList`` closes up the numbers it was sent:
    given only ``princesses-2`` it made that seat 0, then read ``princesses-2`` again for seat
    2 — one Princess at two seats.)"""

    def _extract_indices(self, prefix: str, formdata: object) -> range:
        return range(self.max_entries or 0)


class RebelPrincessNewGameForm(FlaskForm):
    """Set up a game: edition, players in clockwise order, first leader, Round cards, Princesses."""

    edition = RadioField(_l("Edition"), choices=choices([("deluxe", "Deluxe"),
                                                     ("classic", "Rebelles Princesses")]),
                         default="deluxe", validators=[InputRequired()])
    length = RadioField(_l("Game length"),
                        choices=choices([("5", _l("5 rounds")), ("3", _l("3 rounds (short)"))]),
                        default="5", validators=[InputRequired()])
    # Lengths and characters are checked in validate_names, which can say whose name it is.
    names = FieldList(StringField(_l("Name"), filters=[_strip], validators=[storable_name]),
                      min_entries=6, max_entries=6)
    first_leader = SelectField(_l("Leads the first trick"), coerce=ascii_int,
                               choices=choices([(i, _l("Player %(n)s", n=i + 1))
                                                for i in range(6)]),
                               default=0)
    cards = FieldList(SelectField(_l("Round"), choices=[], validate_choice=False),
                      min_entries=5, max_entries=5)
    # Checked against the edition's Princesses in validate_princesses.
    princesses = SeatFields(StringField(_l("Princess"), filters=[_strip],
                                        validators=[storable_name]),
                            min_entries=6, max_entries=6)

    def edition_value(self) -> Edition:
        return Edition(self.edition.data if self.edition.data in ("deluxe", "classic")
                       else "deluxe")

    def player_names(self) -> list[str]:
        return [n.data for n in self.names if n.data]

    def rounds(self) -> int:
        return 3 if self.length.data == "3" and self.edition_value() is Edition.DELUXE else 5

    def chosen_cards(self) -> list[str]:
        return [f.data for f in self.cards][: self.rounds()]

    def validate_names(self, field: FieldList[StringField]) -> None:
        extra = [key for key, value in request.form.items()
                 if key.startswith("names-") and key[6:].isdigit() and int(key[6:]) >= 6
                 and value.strip()]
        if extra:
            raise ValidationError(_("Rebel Princess is played by 3 to 6 players: at most 6 "
                                    "names."))
        for seat, entry in enumerate(field):
            if entry.data and has_control_characters(entry.data):
                raise ValidationError(_("Player %(n)s’s name holds a control character (such as "
                                        "NUL): type the name again.", n=seat + 1))
            if entry.data and len(entry.data) > MAX_NAME:
                raise ValidationError(_("Player %(n)s’s name is %(length)s characters long: at "
                                        "most %(max)s fit on the score pad.", n=seat + 1,
                                        length=len(entry.data), max=MAX_NAME))
        filled = [i for i, entry in enumerate(field) if entry.data]
        if len(filled) < 3:
            raise ValidationError(_("Enter at least 3 players: Rebel Princess needs 3 to 6."))
        if filled != list(range(len(filled))):
            raise ValidationError(_("Fill the names from the top, without gaps, in seat order."))
        lowered = [required(field[i].data).casefold() for i in filled]
        if len(set(lowered)) != len(lowered):
            raise ValidationError(_("Two players have the same name: add an initial to tell "
                                    "them apart."))

    def validate_princesses(self, field: FieldList[StringField]) -> None:
        known = {slug for slug, _name in princess_names()[self.edition_value().value]}
        if any(entry.data and entry.data not in known for entry in field):
            raise ValidationError(_("Pick each Princess from the list."))

    def validate_first_leader(self, field: SelectField) -> None:
        if not 0 <= (field.data or 0) < max(len(self.player_names()), 1):
            raise ValidationError(_("The first leader must be one of the players."))

    def validate_cards(self, field: FieldList[SelectField]) -> None:
        letters = {c.letter for c in round_cards(self.edition_value())}
        chosen = self.chosen_cards()
        if any(letter not in letters for letter in chosen):
            raise ValidationError(_("Pick a Round card for every round."))
        if len(set(chosen)) != len(chosen):
            raise ValidationError(_("Each Round card can only be used once in a game."))


_BASE = re.compile(ASCII_NUMBER.pattern + r"\Z")
"""The version a round form edits, as ``re.match`` reads it (the page sends a record number)."""


def _seats(players: int) -> list[str]:
    """The seats a round form offers, as their fields send them."""
    return [str(s) for s in range(players)]


class _RoundForm(FlaskForm):
    """What every round entry asks besides the scores: the version being edited, the form's
    idempotency key and, when a power changed it, who led the first trick."""

    # Labels given (never shown): the text WTForms would make of each name, which it would
    # otherwise look up in its catalogue each time the form is built (~5 µs a field, issue 36).
    base = HiddenField("Base", validators=[Optional(), Regexp(_BASE)])
    key = HiddenField("Key")

    def keyed(self) -> _RoundForm:
        """The form about to be drawn, with its idempotency key: a new one for a new form, the
        one sent for a form drawn again (a refused save: sent again fixed, it is a new save)."""
        if not self.key.data:
            self.key.data = page_form_key()
        return self


def _round_form(name: str, *, players: int, ask_last_trick: bool,
                ask_round_card: list[SelectChoice] | None
                ) -> tuple[type[FlaskForm], list[SelectChoice]]:
    """A form class for one round's entry with the fields both ways of entering share."""
    seats = choices([(s, s) for s in _seats(players)])
    fields: dict[str, Any] = {
        "leader": SelectField(_("Led the first trick"),
                              choices=choices([("", _("as planned"))]) + seats, default=""),
    }
    if ask_last_trick:
        fields["last_trick"] = RadioField(_("Won the last trick"), choices=seats,
                                          validators=[InputRequired(
                                              _("Tap who won the last trick: they lead next."))])
    if ask_round_card is not None:  # a play-off: which card was drawn (nothing preselected)
        fields["round_card"] = SelectField(_("Play-off Round card"), choices=ask_round_card,
                                           validators=[InputRequired(_("Pick the Round card "
                                                                       "that was drawn."))])
    form: type[FlaskForm] = type(name, (_RoundForm,), fields)
    return form, seats


_CLASSES: dict[tuple[object, ...], type[FlaskForm]] = {}
_CLASSES_MAX = 1024
"""Round entry form classes already made, by shape and language (a few dozen in practice)."""


def _made_once(build: Callable[..., type[FlaskForm]]) -> Callable[..., FlaskForm]:
    """A round entry form: its class is made once per shape (the arguments) and language, not on
    every request (making it was the largest part of a save). A play-off's, which lists Round
    cards, is made each time."""

    @functools.wraps(build)
    def form(**shape: object) -> FlaskForm:
        if shape.get("ask_round_card") is not None:
            return build(**shape)()
        key = (build.__name__, current_lang(),
               *((k, tuple(v) if isinstance(v, list | tuple) else v)
                 for k, v in sorted(shape.items())))
        made = _CLASSES.get(key)
        if made is None:
            made = build(**shape)
            if len(_CLASSES) < _CLASSES_MAX:
                _CLASSES[key] = made
        return made()

    return form


@_made_once
def cards_form(*, players: int, cards: Sequence[RebelCard], ask_no_tricks: bool,
               ask_last_trick: bool, ask_round_card: list[SelectChoice] | None
               ) -> type[FlaskForm]:
    """The "by cards" round entry: one choice of seat per card that scores this round."""
    form, seats = _round_form("CardsForm", players=players, ask_last_trick=ask_last_trick,
                              ask_round_card=ask_round_card)
    for card in cards:
        setattr(form, card.code, RadioField(card.code, choices=seats, validators=[Optional()]))
    if ask_no_tricks:
        for seat in range(players):
            setattr(form, f"no_trick_{seat}", BooleanField(_("Won no trick")))
    return form


@_made_once
def numbers_form(*, players: int, ask_last_trick: bool,
                 ask_round_card: list[SelectChoice] | None) -> type[FlaskForm]:
    """The "by numbers" round entry: each player's round score, typed as on paper."""
    form, _seats = _round_form("NumbersForm", players=players, ask_last_trick=ask_last_trick,
                               ask_round_card=ask_round_card)
    form.confirm = BooleanField(_("Save anyway"))
    for seat in range(players):
        setattr(form, f"score_{seat}", ScoreField(
            _("Score"), validators=[
                InputRequired(_("Type a score for every player (0 if none).")),
                NumberRange(-MAX_SCORE, MAX_SCORE,
                            _("A round score is between %(min)s and %(max)s.",
                              min=-MAX_SCORE, max=MAX_SCORE))]))
    return form


@_made_once
def counts_form(*, players: int, most: int, ask_no_tricks: bool, ask_last_trick: bool,
                ask_round_card: list[SelectChoice] | None) -> type[FlaskForm]:
    """The "by counts" round entry: how many Princes each player took (0 to ``most``) and who
    took the Frog. A count left out is not a shape error: the scoring core names what is
    missing, as it does for a card nobody was given."""
    form, seats = _round_form("CountsForm", players=players, ask_last_trick=ask_last_trick,
                              ask_round_card=ask_round_card)
    numbers = choices([(str(n), str(n)) for n in range(most + 1)])
    for seat in range(players):
        setattr(form, f"princes_{seat}", RadioField(_("Princes taken"), choices=numbers,
                                                    validators=[Optional()]))
    form.frog = RadioField(_("Took the Frog"), choices=seats, validators=[Optional()])
    if ask_no_tricks:
        for seat in range(players):
            setattr(form, f"no_trick_{seat}", BooleanField(_("Won no trick")))
    return form


# --- a round form read into a round, and a stored round shown in its form ---------------------
# Every value that is not one of the seats, counts or cards on offer is left out (the form
# reports it), so a tampered or stale form can never crash the live tally or the save.

def seat(value: object, players: int) -> int | None:
    """A seat number from a form value, or None for anything that is not one of the seats
    (ASCII digits only: "²" and "١" are not seats)."""
    text = str(value) if value is not None else ""
    return int(text) if ASCII_NUMBER.fullmatch(text) and int(text) < players else None


def _shared(form: Any, players: int) -> dict[str, Any]:
    """What every round form says besides the scores: who led, who won the last trick, which
    Round card a play-off drew."""
    return {"leader": seat(form.leader.data, players),
            "last_trick_winner": (seat(form.last_trick.data, players) if "last_trick" in form
                                  else None),
            "round_card": form.round_card.data if "round_card" in form else None}


def _no_tricks(form: Any, players: int) -> frozenset[int] | None:
    if "no_trick_0" not in form:
        return None
    return frozenset(s for s in range(players) if form[f"no_trick_{s}"].data)


def played_from_cards(form: Any, players: int, cards: Sequence[RebelCard]) -> PlayedRound:
    """The by-cards entry as tapped so far (:func:`cards_form`, its rows ``cards``)."""
    taken: list[set[RebelCard]] = [set() for _ in range(players)]
    for card in cards:
        at = seat(form[card.code].data, players)
        if at is not None:
            taken[at].add(card)
    return PlayedRound(taken=tuple(frozenset(t) for t in taken),
                       no_tricks=_no_tricks(form, players), **_shared(form, players))


def played_from_counts(form: Any, players: int) -> PlayedRound:
    """The by-counts entry as tapped so far (:func:`counts_form`): Princes per seat, the Frog."""
    def count(at: int) -> int | None:
        value = form[f"princes_{at}"].data
        return int(value) if value is not None and ASCII_NUMBER.fullmatch(str(value)) else None
    counts = RoundCounts(tuple(count(s) for s in range(players)), seat(form.frog.data, players))
    return PlayedRound(counts=counts, no_tricks=_no_tricks(form, players),
                       **_shared(form, players))


def played_from_numbers(form: Any, players: int) -> PlayedRound:
    """The by-numbers entry of a validated :func:`numbers_form`: each seat's score."""
    return PlayedRound(scores=tuple(int(form[f"score_{s}"].data) for s in range(players)),
                       **_shared(form, players))


@dataclass(frozen=True)
class NumbersSent:
    """A by-numbers round as sent: the round, the version it edits (``base``, the text sent:
    :func:`companion.routes.rebel_princess.rounds._save` reads it), the form's key and whether
    the players confirmed scores the Round card cannot give."""

    played: PlayedRound
    base: str | None
    key: str | None
    confirm: bool

    @classmethod
    def of(cls, form: Any, players: int) -> NumbersSent:
        """What a validated :func:`numbers_form` says."""
        return cls(played_from_numbers(form, players), form.base.data, form.key.data,
                   bool(form.confirm.data))


def numbers_sent(request: Request, *, players: int, ask_last_trick: bool,
                 drawable: Sequence[str] | None) -> NumbersSent | None:
    """The round of a POST that :func:`numbers_form` (its shape: ``players``, the last trick
    asked in a classic game, the Round cards a play-off may have drawn, ``drawable``) accepts as
    it is, read in a few lookups with no form bound (binding its eight or so fields was a tenth
    of a save, issue 36); None for anything else — a score missing, blank, not a whole number
    or out of range, a seat or card not offered, a malformed version, a file sent, a JSON body
    — which the view hands to the form for the same refusal as ever. Each field is read as the
    form reads it: its first value, a score by :func:`typed_score` within ±:data:`MAX_SCORE`,
    a version by ``Optional()`` then :data:`_BASE`, "Save anyway" as a ``BooleanField``. CSRF is
    checked before the view (``CSRFProtect``) either way, as the form's own check then finds it
    checked."""
    if request.files:
        return None
    form = request.form
    scores = []
    for at in range(players):
        typed = form.get(f"score_{at}")
        if not typed:  # (InputRequired)
            return None
        try:
            score = typed_score(typed)
        except ValueError:
            return None
        if score is None or not -MAX_SCORE <= score <= MAX_SCORE:
            return None
        scores.append(score)
    seats = _seats(players)
    leader = form.get("leader", "")
    if leader and leader not in seats:
        return None
    last_trick = form.get("last_trick") if ask_last_trick else None
    if ask_last_trick and last_trick not in seats:
        return None
    round_card = form.get("round_card") if drawable is not None else None
    if drawable is not None and (not round_card or round_card not in drawable):
        return None
    base = form.get("base")
    if base is not None and base.strip() and not _BASE.match(base):
        return None
    confirm = form.get("confirm")
    return NumbersSent(
        PlayedRound(scores=tuple(scores), leader=seat(leader, players),
                    last_trick_winner=seat(last_trick, players) if ask_last_trick else None,
                    round_card=round_card),
        base, form.get("key"), confirm is not None and confirm not in BooleanField.false_values)


def _prefill_shared(form: Any, base: int, round_card: str | None, played: PlayedRound) -> None:
    form.base.data = str(base)
    if played.leader is not None:
        form.leader.data = str(played.leader)
    if "last_trick" in form and played.last_trick_winner is not None:
        form.last_trick.data = str(played.last_trick_winner)
    if "round_card" in form and round_card:
        form.round_card.data = round_card


def _prefill_no_tricks(form: Any, players: int, played: PlayedRound) -> None:
    if played.no_tricks is not None and "no_trick_0" in form:
        for at in range(players):
            form[f"no_trick_{at}"].data = at in played.no_tricks


def prefill_cards(form: Any, base: int, round_card: str | None, played: PlayedRound,
                  players: int) -> None:
    """Fill the by-cards form from the stored version ``base`` being edited (its ``played``)."""
    _prefill_shared(form, base, round_card, played)
    for at, taken in enumerate(played.taken or ()):
        for card in taken:
            if card.code in form:
                form[card.code].data = str(at)
    _prefill_no_tricks(form, players, played)


def prefill_counts(form: Any, base: int, round_card: str | None, played: PlayedRound,
                   players: int) -> None:
    """Fill the by-counts form from a stored version (a card entry is counted, too)."""
    _prefill_shared(form, base, round_card, played)
    counts = played.counts
    if counts is None and played.taken is not None:
        counts = counts_from_taken(players, played.taken)
    if counts is not None:
        for at, number in enumerate(counts.princes):
            form[f"princes_{at}"].data = None if number is None else str(number)
        form.frog.data = None if counts.frog is None else str(counts.frog)
    _prefill_no_tricks(form, players, played)


def prefill_numbers(form: Any, base: int, round_card: str | None, played: PlayedRound,
                    scores: Sequence[int]) -> None:
    """Fill the by-numbers form from a stored version and the ``scores`` it came to."""
    _prefill_shared(form, base, round_card, played)
    for at, value in enumerate(scores):
        form[f"score_{at}"].data = value


# --- the trick screen's form: every tap posts it; it checks shapes only (the judge does the rules)

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
    key = StringField(validators=[Optional(), Length(max=80)])  # a breach's (accept)
    save_key = HiddenField()  # Confirm's idempotency key (see companion.routes.replays)
    on = HiddenField()
    cards = StringField(validators=[Optional(), Length(max=80)])  # cards tapped, "Q3.F2"
    pick = StringField(validators=[Optional(), Length(max=20)])  # go on to tap the cards
    part = StringField(validators=[Optional(), Length(max=8)])  # "more": her new cards alone
    zero = HiddenField()  # Snow White plays this card as a zero

    def based_on(self) -> int:
        """The version the page showed (required: read once the form validated)."""
        return required(self.version.data)

    def tapped(self) -> str:
        """The cards tapped for a power or a haggle: those picked before, then the last tap."""
        return " ".join(filter(None, (self.cards.data, self.card.data)))
