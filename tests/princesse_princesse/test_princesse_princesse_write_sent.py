"""A write's version and key read without binding the form (:func:`write_sent`): taken exactly
when :class:`PrincessePrincesseWriteForm` takes them as they are, as the form reads them; every
other post goes to the form, whose refusal (422 "stale-form", nothing stored) is unchanged."""

from __future__ import annotations

import io
import random

import pytest
from flask import request

from companion.db import get_session
from companion.play import store
from companion.routes.princesse_princesse.forms import (
    MAX_KEY,
    PrincessePrincesseWriteForm,
    WriteSent,
    write_sent,
)

from .test_princesse_princesse_web import BASE, make_game, save_round, version_of

VERSIONS = ["0", "1", "7", "42", "123456789", "1234567890", "", " ", " 0", "0 ", "+0", "-1",
            "-0", "1_0", "0x1", "1.0", "1e3", "\u0661", "\u0663\u0663", "\uff11", "\u00b2", "x",
            "00", "007", "\n1", "99999999999999999999"]
KEYS = [None, "", " ", "k", "k" * MAX_KEY, "k" * (MAX_KEY + 1), " " * 80, "key-1"]


def judged(app, data, reader=write_sent):
    with app.test_request_context("/", method="POST", data=data):
        form = PrincessePrincesseWriteForm()
        valid = bool(form.validate())
        read = WriteSent.of(form) if valid else None
        return valid, read, reader(request)


def random_posts(count: int):
    rng = random.Random(16)
    for _ in range(count):
        data: dict[str, object] = {"step": "2", "in": ["0"]}
        pick = rng.random()
        if pick < 0.85:
            data["version"] = (rng.choice(VERSIONS) if rng.random() < 0.6
                               else str(rng.randint(0, 10 ** rng.randint(1, 12))))
        elif pick < 0.95:
            data["version"] = [rng.choice(VERSIONS), rng.choice(VERSIONS)]
        key = rng.choice(KEYS)
        if key is not None:
            data["key"] = key
        yield data


def differences(app, reader=write_sent, count=4000):
    found, taken = [], 0
    for data in random_posts(count):
        valid, read, sent = judged(app, data, reader)
        taken += valid
        if (sent is not None and (not valid or sent != read)) or (
                valid and sent is None and _plain(data)):
            found.append((data, valid, read, sent))
    return found, taken


def _plain(data) -> bool:
    """A version of ASCII digits (at most 9) and a key of at most MAX_KEY: what the reader must
    take itself when the form takes it (anything else it may leave to the form)."""
    version = data.get("version")
    version = version[0] if isinstance(version, list) else version
    key = data.get("key")
    return (isinstance(version, str) and version.isascii() and version.isdigit()
            and len(version) <= 9 and (key is None or len(key) <= MAX_KEY))


def test_the_reader_takes_only_what_the_form_takes_as_the_form_reads_it(app):
    """4,000 random posts: what the reader takes the form takes, with the same version and key;
    every plain post the form takes the reader takes itself."""
    found, taken = differences(app)
    assert found == []
    assert 1000 < taken < 4000


def test_the_comparison_catches_a_reader_that_differs(app):
    def lenient(asked):
        version = asked.form.get("version")
        if version and version.isascii() and version.isdigit():  # read one too many
            return WriteSent(int(version) + 1, asked.form.get("key"))
        return write_sent(asked)

    found, _ = differences(app, reader=lenient, count=500)
    assert found


def test_files_and_json_go_to_the_form(app):
    with app.test_request_context("/", method="POST", content_type="multipart/form-data",
                                  data={"version": "0", "f": (io.BytesIO(b"x"), "f.txt")}):
        assert write_sent(request) is None
    with app.test_request_context("/", method="POST", json={"version": "0"}):
        assert write_sent(request) is None


@pytest.mark.parametrize("version", [None, "", "x", "-1", "1.0"])
def test_a_malformed_version_is_refused_as_a_stale_form(app, client, version):
    url = make_game(client)
    data = {"step": "2", "in": ["0"], "key": "k1"}
    if version is not None:
        data["version"] = version
    response = client.post(f"{url}/round", data=data)
    assert response.status_code == 422
    assert 'data-problem="stale-form"' in response.text
    with app.app_context():
        game = store.game_by_token(get_session(), url.rstrip("/").split("/")[-1])
        assert store.version(get_session(), game) == 0


def test_a_key_too_long_is_refused_and_one_at_the_limit_saved(client):
    url = make_game(client)
    assert save_round(client, url, [0], key="k" * (MAX_KEY + 1)).status_code == 422
    assert version_of(client, url) == 0
    assert save_round(client, url, [0], key="k" * MAX_KEY).status_code == 303
    assert version_of(client, url) == 1


def test_versions_the_form_reads_are_read_alike(client):
    """" 1" and "+1" are not what the page sends, but the form reads them as 1: still so."""
    url = make_game(client)
    assert save_round(client, url, [0], version=" 0 ").status_code == 303
    assert save_round(client, url, [1], version="+1").status_code == 303
    assert save_round(client, url, [2], version="1").status_code == 409  # stale
    assert version_of(client, url) == 2
    assert BASE in url
