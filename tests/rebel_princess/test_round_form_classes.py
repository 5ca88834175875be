"""Round entry forms: their classes are made once per shape and language, and a form made in one
language never shows its labels or messages in the other."""

from __future__ import annotations

from companion.routes.rebel_princess.forms import counts_form, numbers_form


def make(app, lang: str, build, **shape):
    with app.test_request_context("/", headers={"Accept-Language": lang}):
        return build(**shape)


def test_a_shape_is_made_once_per_language(app):
    shape = {"players": 6, "ask_last_trick": True, "ask_round_card": None}
    first, again = make(app, "en", numbers_form, **shape), make(app, "en", numbers_form, **shape)
    french = make(app, "fr", numbers_form, **shape)
    assert type(first) is type(again)
    assert type(french) is not type(first)
    assert first.last_trick.label.text == "Won the last trick"
    assert french.last_trick.label.text != first.last_trick.label.text
    assert make(app, "en", numbers_form, **shape).last_trick.label.text == "Won the last trick"


def test_another_shape_gets_its_own_class(app):
    four = make(app, "en", counts_form, players=4, most=12, ask_no_tricks=False,
                ask_last_trick=False, ask_round_card=None)
    six = make(app, "en", counts_form, players=6, most=12, ask_no_tricks=True,
               ask_last_trick=False, ask_round_card=None)
    assert type(four) is not type(six)
    assert "princes_5" in six and "princes_5" not in four
    assert "no_trick_0" in six and "no_trick_0" not in four


def test_each_form_has_its_own_data(app):
    shape = {"players": 3, "ask_last_trick": False, "ask_round_card": None}
    with app.test_request_context("/", method="POST", data={"score_0": "5"}):
        posted = numbers_form(**shape)
    with app.test_request_context("/"):
        empty = numbers_form(**shape)
    assert posted.score_0.data == 5 and empty.score_0.data is None
