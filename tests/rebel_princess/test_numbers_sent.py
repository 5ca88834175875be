"""A by-numbers save read without binding the form (:func:`numbers_sent`): it takes exactly the
posts the form takes, as the form reads them, and hands every other post to the form, whose
refusals (422 with the same messages, the player's values shown again; 400 for a malformed
version) are unchanged."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest
from flask import request

from companion.models import RoundRecord
from companion.routes.rebel_princess.forms import (
    MAX_SCORE,
    NumbersSent,
    card_choices,
    numbers_form,
    numbers_sent,
)
from companion.scoring.rebel_princess import Edition, PlayedRound

from .conftest import count, numbers_data

DRAWABLE = ["f", "g", "r"]
"""A play-off's Round cards still on offer (Deluxe letters)."""


def _score(rng: random.Random) -> str | list[str]:
    pick = rng.random()
    if pick < 0.55:
        return str(rng.randint(-MAX_SCORE - 2, MAX_SCORE + 2))
    if pick < 0.6:
        return [str(rng.randint(-9, 9)), rng.choice(["x", "", "5"])]  # the first value counts
    return rng.choice([
        "", " ", "  7 ", "\u22123", "\u2212", "-", "+", "+5", "-0", "007", "0007", "1.5", "1e2",
        "0x1", "\u0663", "\u00b2", "\u00a03", "3\n", "\t-4", "--3", "+-3", "abc", "99", "-99",
        "100", "-100", "1000", "\u00a0", "\u2212\u2212", "5 5", "\uff15", "\x00", "3\x00"])


def _choice(rng: random.Random, offered: list[str]) -> str | list[str] | None:
    pick = rng.random()
    if pick < 0.3:
        return None  # not sent
    if pick < 0.7:
        return rng.choice(offered)
    if pick < 0.75:
        return [rng.choice(["", "x", *offered]), rng.choice(offered)]
    return rng.choice(["", " ", "x", "-1", "9", "6", "\u0661", "0 ", " 1", "A", "a", "Z",
                       "rr", "R", "00", "01", "1.0"])


def random_post(rng: random.Random, players: int, classic: bool,
                playoff: bool) -> dict[str, object]:
    """A POST a page could send, or a tampered or broken one."""
    data: dict[str, object] = {}
    for seat in range(players + rng.choice([0, 0, 0, 1])):  # now and then one seat too many
        if rng.random() < 0.97:
            data[f"score_{seat}"] = _score(rng)
    seats = [str(s) for s in range(players)]
    for name, offered in (("leader", ["", *seats]), ("last_trick", seats),
                          ("round_card", DRAWABLE)):
        if name == "last_trick" and not classic and rng.random() < 0.8:
            continue
        if name == "round_card" and not playoff and rng.random() < 0.8:
            continue
        value = _choice(rng, offered)
        if value is not None:
            data[name] = value
    if rng.random() < 0.4:
        data["base"] = rng.choice(["", " ", "1", "12", "123456789", "1234567890", "0", "x",
                                   "1\n", "12abc", " 5", "5 ", "\u0661", "-1", "+1", ["x", "3"],
                                   ["3", "x"]])
    if rng.random() < 0.5:
        data["key"] = rng.choice(["", "k", "k" * 200, "key-1", " "])
    if rng.random() < 0.5:
        data["confirm"] = rng.choice(["y", "", "false", "False", "no", "0", "n", ["", "y"]])
    if rng.random() < 0.1:
        data["unknown"] = "x"
    return data


def judged(app, data: dict[str, object], players: int, classic: bool, playoff: bool,
           reader=numbers_sent, content_type: str | None = None):
    """What the form and the reader make of one POST: (the form's verdict, its errors, what it
    read; what the reader read)."""
    kwargs = {"content_type": content_type} if content_type else {}
    with app.test_request_context("/", method="POST", data=data, **kwargs):
        drawable = DRAWABLE if playoff else None
        form = numbers_form(players=players, ask_last_trick=classic,
                            ask_round_card=card_choices(Edition.DELUXE, only=drawable)
                            if playoff else None)
        valid = bool(form.validate()) and not form.base.errors
        read = NumbersSent.of(form, players) if valid else None
        sent = reader(request, players=players, ask_last_trick=classic, drawable=drawable)
    return valid, form.errors, read, sent


def differences(app, reader=numbers_sent, posts: int = 4000) -> tuple[list, Counter]:
    rng = random.Random(36)
    found, refused = [], Counter()
    for _ in range(posts):
        players, classic, playoff = rng.randint(3, 6), rng.random() < 0.4, rng.random() < 0.3
        data = random_post(rng, players, classic, playoff)
        valid, errors, read, sent = judged(app, data, players, classic, playoff, reader)
        if (sent is not None) != valid or (valid and sent != read):
            found.append((data, players, classic, playoff, errors, read, sent))
        for name in errors:
            refused[name if not str(name).startswith("score_") else "score"] += 1
        refused["taken" if valid else "refused"] += 1
    return found, refused


def test_the_reader_takes_what_the_form_takes_as_the_form_reads_it(app):
    """4,000 random posts, from well-formed to hostile: the reader takes a post exactly when the
    form validates it (and its version is no broken request), with the same round, version, key
    and "Save anyway"; each of the form's refusals is reached."""
    found, refused = differences(app)
    assert found == []
    assert {"score", "leader", "last_trick", "round_card", "base", "taken", "refused"} <= set(
        refused), refused
    assert refused["taken"] > 250


def test_the_comparison_catches_a_reader_that_differs(app):
    """The check above fails for a reader that takes one score too many (101)."""

    def lenient(asked, **shape):
        if any(value.strip() == "100" for name, value in asked.form.items()
               if name.startswith("score_")):
            return NumbersSent(PlayedRound(scores=(100,)), None, None, False)
        return numbers_sent(asked, **shape)

    found, _ = differences(app, reader=lenient, posts=600)
    assert found


@pytest.mark.parametrize("data", [{"score_0": (io.BytesIO(b"3"), "score.txt")},
                                  {"score_0": "3", "photo": (io.BytesIO(b"x"), "p.jpg")}])
def test_a_post_with_a_file_goes_to_the_form(app, data):
    body = {"score_1": "4", "score_2": "4", "score_3": "4", **data}
    valid, _, _, sent = judged(app, body, 4, False, False, content_type="multipart/form-data")
    assert sent is None
    assert valid == ("photo" in data)  # a score sent as a file is refused by the form


def test_a_json_body_goes_to_the_form(app):
    with app.test_request_context("/", method="POST",
                                  json={f"score_{s}": "4" for s in range(4)}):
        assert numbers_sent(request, players=4, ask_last_trick=False, drawable=None) is None


# --- each refusal through the page: 422 (400 for a version), its message, the values again ----

REFUSALS = [
    ({"score_3": None}, "Type a score for every player (0 if none)."),
    ({"score_1": ""}, "Type a score for every player (0 if none)."),
    ({"score_1": "abc"}, "Type a whole number with the digits 0 to 9, such as 3 or −3."),
    ({"score_1": "\u0663"}, "Type a whole number with the digits 0 to 9, such as 3 or −3."),
    ({"score_1": "1.5"}, "Type a whole number with the digits 0 to 9, such as 3 or −3."),
    ({"score_1": "100"}, "A round score is between -99 and 99."),
    ({"score_1": "-100"}, "A round score is between -99 and 99."),
    ({"score_1": "   "}, "A round score is between -99 and 99."),
    ({"leader": "9"}, "Pick who led the first trick from the list."),
    ({"leader": "x"}, "Pick who led the first trick from the list."),
]


@pytest.mark.parametrize(("changes", "message"), REFUSALS)
def test_each_refusal_is_the_forms(app, client, make_game, changes, message):
    code = make_game()
    data = numbers_data([3, 4, 4, 4], key="k1")
    for name, value in changes.items():
        if value is None:
            data.pop(name)
        else:
            data[name] = value
    response = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data)
    assert response.status_code == 422
    assert message in response.text
    assert 'name="key" type="hidden" value="k1"' in response.text  # the same form again
    for name, value in changes.items():
        if name.startswith("score_") and value and value.strip():
            assert f'value="{value}"' in response.text  # as the player typed it
    assert count(app, RoundRecord) == 0


@pytest.mark.parametrize("base", ["x", "0", "12abc", "1\n", "1234567890"])
def test_a_malformed_version_is_a_broken_request(app, client, make_game, base):
    code = make_game()
    response = client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                           data=numbers_data([3, 4, 4, 4], base=base))
    assert response.status_code == 400
    assert count(app, RoundRecord) == 0


def test_classic_refusals_are_the_forms(client, make_game, by_numbers, app):
    code = make_game(edition="classic")
    response = by_numbers(code, 1, [0, 3, 8, 4], last_trick=7)
    assert response.status_code == 422
    assert '<ul class="errors" data-errors="last_trick"><li>Not a valid choice.' in response.text
    response = by_numbers(code, 1, [0, 3, 8, 4])
    assert response.status_code == 422
    assert "Tap who won the last trick: they lead next." in response.text
    assert count(app, RoundRecord) == 0
    assert by_numbers(code, 1, [0, 3, 8, 4], last_trick=1).status_code == 302


def test_scores_as_typed_are_saved_as_the_form_read_them(client, make_game, by_numbers):
    code = make_game()
    response = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={
        "score_0": " \u22123 ", "score_1": "+6", "score_2": "007", "score_3": ["5", "x"],
        "leader": "", "confirm": "y"})
    assert response.status_code == 302
    assert 'data-totals="-3,6,7,5"' in client.get(f"/rebel-princess/g/{code}").text


def test_playoff_refusals_are_the_forms(client, make_game, by_numbers, app):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        assert by_numbers(code, number, scores).status_code == 302
    for card in (None, "", "a", "Z"):  # not said, blank, played already, no such card
        extra = {} if card is None else {"round_card": card}
        response = by_numbers(code, 4, [4, 3, 4, 4], confirm="y", **extra)
        assert response.status_code == 422
        assert count(app, RoundRecord) == 3
    assert by_numbers(code, 4, [4, 3, 4, 4], round_card="r", confirm="y").status_code == 302
