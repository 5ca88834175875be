"""Forms of « Réveillez »: they check the shape of what was typed or tapped; the rules core judges
the rules (player count, values, legality of every action)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Request
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


@dataclass(frozen=True)
class AnswerRule:
    """How one answer of a tap is read and checked: the rules its WTForms field declared
    (``Optional()`` first, then the field's own reading and ``Length``), kept as rules so that a
    tap reads the few answers it carries instead of binding a field for each of the nineteen
    (~100–200 µs a tap, issue 36)."""

    whole: bool = False
    """Read as ``int()`` reads it (an ``IntegerField``); else text."""
    longest: int | None = None
    """``Length(max=…)``: the most characters a text answer may have."""
    required: bool = False
    """``InputRequired()``: given and not empty (else it may be left out, or left blank)."""


ANSWERS: dict[str, AnswerRule] = {
    "do": AnswerRule(required=True),
    "slot": AnswerRule(whole=True),
    "value": AnswerRule(longest=8),
    "value_typed": AnswerRule(whole=True),
    "name": AnswerRule(longest=PRINCESS_NAME),
    "name_typed": AnswerRule(longest=PRINCESS_NAME),
    "companion_slot": AnswerRule(whole=True),
    "companion_value": AnswerRule(longest=8),
    "companion_name": AnswerRule(longest=PRINCESS_NAME),
    "princess": AnswerRule(whole=True),
    "defended": AnswerRule(),
    "dest": AnswerRule(whole=True),
    "revealed": AnswerRule(longest=16),
    "cards": AnswerRule(longest=60),
    "add": AnswerRule(longest=16),
    "drop": AnswerRule(),
    "go": AnswerRule(),
}
"""The answers a tap of an action may carry (see :class:`~companion.play.reveillez.Draft`):
every answer so far travels in the form; ``go`` marks the final tap of a discard."""

REQUIRED = tuple(name for name, rule in ANSWERS.items() if rule.required)


def read_answers(formdata: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The answers in ``formdata`` (None for one not given) and what is wrong with them, by
    name: what the form's fields made of them, with the same refusals — except that a value
    that is not text where text is asked (a JSON number, an uploaded file) is refused rather
    than failing further on."""
    answers: dict[str, Any] = dict.fromkeys(ANSWERS)
    errors: dict[str, list[str]] = {name: ["This field is required."] for name in REQUIRED
                                    if formdata is None or not formdata.get(name)}
    if formdata is None:
        return answers, errors
    for name in formdata:  # (the few answers a tap carries: unknown names are ignored)
        rule = ANSWERS.get(name)
        if rule is None or name in errors:
            continue
        given = formdata.getlist(name)
        if not given:
            continue
        first = given[0]
        if rule.required:
            if not isinstance(first, str):
                errors[name] = ["Not text."]
            else:
                answers[name] = first
            continue
        if isinstance(first, str) and not first.strip():  # Optional(): left blank is not given
            answers[name] = None if rule.whole else first
            continue
        if rule.whole:
            try:
                answers[name] = int(first)
            except (ValueError, TypeError):
                errors[name] = ["Not a valid integer value."]
        elif not isinstance(first, str):
            errors[name] = ["Not text."]
        elif rule.longest is not None and len(first) > rule.longest:
            errors[name] = [f"Field cannot be longer than {rule.longest} characters."]
        else:
            answers[name] = first
    return answers, errors


@dataclass(frozen=True)
class Tap:
    """One tap of an action being built, as read: the version the phone saw, its idempotency
    key and the answers so far (:data:`ANSWERS`)."""

    version: int
    key: str | None
    answers: dict[str, Any]

    @property
    def final(self) -> bool:
        """The tap stores the action (a discard is stored by its last tap, ``go``)."""
        return self.answers["do"] != "discard" or bool(self.answers["go"])

    def draft(self) -> Draft:
        """The answers so far as a :class:`Draft` (values the core will judge)."""
        a = self.answers
        do = a["do"] if a["do"] in ACTIONS else "choose"
        cards = tuple((a["cards"] or "").split())
        if a["add"]:
            cards = (*cards, a["add"].strip().lower())
        if a["drop"] == "last":
            cards = cards[:-1]
        elif a["drop"] == "all":
            cards = ()
        defended = {"yes": True, "no": False}.get(a["defended"] or "")
        companion = a["companion_slot"]
        return Draft(
            do=do, slot=a["slot"], value=_value(a["value"], a["value_typed"]),
            name=_name(a["name"], a["name_typed"]),
            companion_slot=companion,
            # A companion's value means nothing without her place (the step asks the place first).
            companion_value=_value(a["companion_value"], a["value_typed"])
            if companion is not None else None,
            companion_name=_name(a["companion_name"], a["name_typed"]
                                 if companion is not None else None),
            princess=a["princess"], defended=defended, dest=a["dest"],
            revealed=(a["revealed"] or None), cards=cards)


def _value(tapped: str | None, typed: int | None) -> int | None:
    if tapped == "typed":
        return typed
    return whole_or_none(tapped, -VALUE_BOUND, VALUE_BOUND) if tapped else None


def _name(chosen: str | None, typed: str | None) -> str | None:
    if chosen == "other":
        return (typed or "").strip() or None
    return chosen or None


class ActionForm(ReveillezWriteForm):
    """One tap of an action being built: the write's version and key (and CSRF token) as
    fields, the action's answers read by :data:`ANSWERS`."""

    answers: dict[str, Any]
    answer_errors: dict[str, list[str]]

    def process(self, formdata: Any = None, obj: Any = None, data: Any = None,
                extra_filters: Any = None, **kwargs: Any) -> None:
        formdata = self.meta.wrap_formdata(self, formdata)  # (wrapping twice changes nothing)
        super().process(formdata, obj, data=data, extra_filters=extra_filters, **kwargs)
        self.answers, self.answer_errors = read_answers(formdata)

    def validate(self, extra_validators: Any = None) -> bool:
        fields_valid = super().validate(extra_validators)
        return fields_valid and not self.answer_errors

    @property
    def errors(self) -> dict[str | None, Any]:
        return {**super().errors, **self.answer_errors}

    def tap(self) -> Tap:
        return Tap(self.version.data or 0, self.key.data, self.answers)


def tap_sent(request: Request) -> Tap | None:
    """The tap of a POST whose fields :class:`ActionForm` accepts as they are — a version of a
    few ASCII digits, a key of 8 to 64 characters, answers :func:`read_answers` finds nothing
    wrong with — read without binding a form; None for anything else (a file sent, a JSON
    body, a field missing or malformed), which the view hands to :class:`ActionForm` for the
    same refusal as ever. CSRF is checked before the view (``CSRFProtect``) either way, as the
    form's own check then finds it checked."""
    if request.files:
        return None
    form = request.form
    version, key = form.get("version"), form.get("key")
    if not (isinstance(version, str) and version.isascii() and version.isdigit()
            and len(version) <= 9 and isinstance(key, str) and 8 <= len(key) <= 64):
        return None
    answers, errors = read_answers(form)
    return None if errors else Tap(int(version), key, answers)
