"""A tap of an action is read by the rules its answers declare (``forms.ANSWERS``), not by a
WTForms field per answer: the same answers and the same refusals as the nineteen-field form it
replaced (kept below as the reference), CSRF kept, a refused tap stores nothing."""

from __future__ import annotations

import io
import json
import random
import re

import pytest
from werkzeug.datastructures import MultiDict
from wtforms import Form, HiddenField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, Optional

from companion.routes.reveillez.forms import ANSWERS, PRINCESS_NAME, read_answers

from .test_reveillez_web import act, entries, start, version


class Reference(Form):
    """The answers' fields as the form declared them before (``ActionForm``, release 1.8.0)."""

    do = HiddenField(validators=[InputRequired()])
    slot = IntegerField(validators=[Optional()])
    value = StringField(validators=[Optional(), Length(max=8)])
    value_typed = IntegerField(validators=[Optional()])
    name = StringField(validators=[Optional(), Length(max=PRINCESS_NAME)])
    name_typed = StringField(validators=[Optional(), Length(max=PRINCESS_NAME)])
    companion_slot = IntegerField(validators=[Optional()])
    companion_value = StringField(validators=[Optional(), Length(max=8)])
    companion_name = StringField(validators=[Optional(), Length(max=PRINCESS_NAME)])
    princess = IntegerField(validators=[Optional()])
    defended = StringField(validators=[Optional()])
    dest = IntegerField(validators=[Optional()])
    revealed = StringField(validators=[Optional(), Length(max=16)])
    cards = StringField(validators=[Optional(), Length(max=60)])
    add = StringField(validators=[Optional(), Length(max=16)])
    drop = StringField(validators=[Optional()])
    go = StringField(validators=[Optional()])


SAMPLES = ["", " ", "  \t", "0", "3", " 3 ", "-1", "+4", "1_0", "abc", "٣", "3.5", "wake",
           "discard", "typed", "other", "yes", "no", "last", "all", "1 3 4", "x" * 8, "x" * 9,
           "x" * 16, "x" * 17, "y" * 30, "y" * 31, "1 " * 30, "1 " * 30 + "1", " " * 70,
           "9" * 5000]


def test_the_rules_name_every_field_the_form_had():
    assert set(ANSWERS) == {name for name, _ in Reference()._fields.items()}


def test_the_answers_and_refusals_are_the_forms():
    """Thousands of taps, the answers' values drawn from blanks, numbers in every spelling,
    words and texts on either side of each length: read by the rules, each gives what the
    fields gave (value by value) and is refused exactly when one of them refused it."""
    rng = random.Random(36)
    names = [*ANSWERS, "version", "key", "unknown"]
    for _ in range(4000):
        pairs = [(rng.choice(names), rng.choice(SAMPLES)) for _ in range(rng.randrange(0, 7))]
        if rng.random() < 0.8:
            pairs.insert(0, ("do", rng.choice(["wake", "discard", "", " ", "nope"])))
        formdata = MultiDict(pairs)
        reference = Reference(formdata)
        valid = reference.validate()
        answers, errors = read_answers(formdata)
        assert set(errors) == set(reference.errors), pairs
        assert (not errors) is valid, pairs
        for name in ANSWERS:
            if name not in errors:
                assert answers[name] == getattr(reference, name).data, (name, pairs)


def test_nothing_posted_lacks_the_action():
    answers, errors = read_answers(None)
    assert set(errors) == {"do"} and set(answers) == set(ANSWERS)
    assert all(value is None for value in answers.values())


REFUSED = [
    ({"do": None}, "the action missing"),
    ({"do": ""}, "the action empty"),
    ({"version": None}, "the version missing"),
    ({"version": "-1"}, "the version out of range"),
    ({"version": "x"}, "the version not a number"),
    ({"key": None}, "the key missing"),
    ({"key": "k" * 7}, "the key too short"),
    ({"key": "k" * 65}, "the key too long"),
    ({"slot": "abc"}, "a place not a number"),
    ({"slot": "3.5"}, "a place not whole"),
    ({"value_typed": "zz"}, "a typed value not a number"),
    ({"princess": "zz"}, "a princess not a number"),
    ({"dest": "q"}, "a destination not a number"),
    ({"companion_slot": "x"}, "a companion's place not a number"),
    ({"value": "1" * 9}, "a value too long"),
    ({"name": "n" * 31}, "a name too long"),
    ({"name_typed": "n" * 31}, "a typed name too long"),
    ({"companion_value": "1" * 9}, "a companion's value too long"),
    ({"companion_name": "n" * 31}, "a companion's name too long"),
    ({"revealed": "r" * 17}, "a revealed card too long"),
    ({"cards": "1" * 61}, "the cards too long"),
    ({"add": "1" * 17}, "a card added too long"),
]


@pytest.mark.parametrize(("change", "why"), REFUSED, ids=[why for _, why in REFUSED])
def test_a_malformed_tap_is_refused_and_stores_nothing(client, app, change, why):
    code = start(client)
    before, seen = entries(app), version(client, code)
    data = {"version": str(seen), "key": "tap-key-0001", "do": "wake", "slot": "3",
            "value": "15"} | change
    answer = client.post(f"/reveillez/g/{code}/act",
                         data={k: v for k, v in data.items() if v is not None})
    assert answer.status_code == 422, why
    assert 'data-problem="notation"' in answer.text, why
    assert entries(app) == before and version(client, code) == seen


@pytest.mark.parametrize("fields", [{"value": "00000015"}, {"value": "15", "name": "n" * 30},
                                    {"value": "15", "name": "other", "name_typed": "n" * 30}],
                         ids=["a value of 8 characters", "a name of 30", "a typed name of 30"])
def test_answers_at_their_longest_are_read(client, app, fields):
    code = start(client)
    answer = act(client, code, do="wake", slot=3, **fields)
    assert 'data-problem="notation"' not in answer.text


def test_the_cards_and_revealed_card_at_their_longest_are_read(client):
    code = start(client)
    answer = act(client, code, do="discard", cards="1 " * 29 + "12", add="1" * 16)
    assert answer.status_code == 200 and 'data-problem="notation"' not in answer.text
    answer = act(client, code, do="jester", revealed="r" * 16)
    assert 'data-problem="notation"' not in answer.text


def test_a_blank_answer_is_not_given(client, app):
    """A blank place asks for the place again; a blank value asks for the value."""
    code = start(client)
    answer = act(client, code, do="wake", slot=" ", value="15")
    assert answer.status_code == 200 and 'data-question="slot"' in answer.text
    answer = act(client, code, do="wake", slot="3", value="  ")
    assert answer.status_code == 200 and 'data-question="value"' in answer.text
    assert entries(app) == 0


def test_a_place_is_read_as_a_whole_number_is_written(client):
    code = start(client)
    assert act(client, code, do="wake", slot=" 3 ", value="15").status_code == 303
    assert 'data-slot="3" data-princess="3" data-holder="0"' in client.get(
        f"/reveillez/g/{code}").text


def test_an_unknown_action_asks_for_one(client, app):
    code = start(client)
    answer = act(client, code, do="nope", slot=3)
    assert answer.status_code == 200 and 'data-do="choose"' in answer.text
    assert entries(app) == 0


def test_answers_that_are_not_text_are_refused_not_an_error(app):
    """A tap sent as JSON with a number where text is asked, or with a file in place of an
    answer, is refused (422) and stores nothing: never a server error."""
    client = app.test_client()
    code = start(client)
    for answer in (
            client.post(f"/reveillez/g/{code}/act", data=json.dumps(
                {"version": str(version(client, code)), "key": "json-key-01", "do": "wake",
                 "slot": "3", "value": 15}), content_type="application/json"),
            client.post(f"/reveillez/g/{code}/act", data={
                "version": str(version(client, code)), "key": "file-key-01", "do": "wake",
                "slot": "3", "value": (io.BytesIO(b"15"), "value.txt")},
                content_type="multipart/form-data")):
        assert answer.status_code == 422 and 'data-problem="notation"' in answer.text
    assert entries(app) == 0


def test_a_tap_as_json_is_read_as_the_form_would_be(app):
    code = start(app.test_client())
    client = app.test_client()
    answer = client.post(f"/reveillez/g/{code}/act", data=json.dumps(
        {"version": str(version(client, code)), "key": "json-key-02", "do": "wake", "slot": 3,
         "value": "15"}), content_type="application/json")
    assert answer.status_code == 303 and entries(app) == 1


def test_a_tap_too_large_is_refused(client, app):
    code = start(client)
    answer = act(client, code, do="wake", slot=3, value="1" * 70_000)
    assert answer.status_code == 413 and entries(app) == 0


@pytest.fixture
def app_csrf(tmp_path):
    from companion import create_app
    return create_app({"TESTING": True, "SECRET_KEY": "t",
                       "DATABASE": str(tmp_path / "csrf.sqlite")})


def test_a_tap_needs_its_csrf_token_and_a_replay_stores_once(app_csrf):
    client = app_csrf.test_client()
    page = client.get("/reveillez/new").text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)[1]
    data = {"names-0": "Ana", "names-1": "Ben", "first": "0", "csrf_token": token}
    code = client.post("/reveillez/new", data=data).headers["Location"].rsplit("/", 1)[-1]
    tap = {"version": str(version(client, code)), "key": "csrf-key-01", "do": "wake",
           "slot": "3", "value": "15"}
    assert client.post(f"/reveillez/g/{code}/act", data=tap).status_code == 400
    assert client.post(f"/reveillez/g/{code}/act", data=tap | {"csrf_token": "nope"}
                       ).status_code == 400
    assert entries(app_csrf) == 0
    first = client.post(f"/reveillez/g/{code}/act", data=tap | {"csrf_token": token})
    again = client.post(f"/reveillez/g/{code}/act", data=tap | {"csrf_token": token})
    assert first.status_code == again.status_code == 303 and entries(app_csrf) == 1
    changed = client.post(f"/reveillez/g/{code}/act",
                          data=tap | {"slot": "4", "csrf_token": token})
    assert changed.status_code == 409 and entries(app_csrf) == 1


def test_a_tap_read_without_a_form_is_what_the_form_reads(app):
    """The fixed shape read in a few lookups (:func:`tap_sent`) accepts only taps the form
    accepts, reading the same version, key and answers; the rest (None) go to the form."""
    from companion.routes.reveillez.forms import ActionForm, tap_sent

    rng = random.Random(35)
    versions = ["0", "7", "007", " 7", "-1", "x", "", "٣", "1" * 9, "1" * 10]
    keys = ["k" * 7, "k" * 8, "k" * 64, "k" * 65, "", " " * 8]
    read = 0
    for _ in range(1500):
        pairs = [("do", rng.choice(["wake", "discard", "", "nope"]))]
        pairs += [(rng.choice([*ANSWERS, "other"]), rng.choice(SAMPLES[:-1]))
                  for _ in range(rng.randrange(0, 5))]
        if rng.random() < 0.9:
            pairs.append(("version", rng.choice(versions)))
        if rng.random() < 0.9:
            pairs.append(("key", rng.choice(keys)))
        rng.shuffle(pairs)
        with app.test_request_context("/reveillez/g/x/act", method="POST",
                                      data=MultiDict(pairs)):
            from flask import request
            form = ActionForm()
            valid = form.validate_on_submit()
            sent = tap_sent(request._get_current_object())
            if sent is not None:
                read += 1
                assert valid and sent == form.tap(), pairs
    assert read > 100  # (the shapes a page sends are read without the form)
