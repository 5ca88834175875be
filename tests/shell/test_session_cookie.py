"""The session cookie signed and read in fewer steps (issue 36, session 14:
:mod:`companion.web.session_cookie`): Flask's cookie still — each side reads the other's, the
same tagged JSON, the same signature, flags and lifetime — refused when it was before (another
key, changed, too old, not a cookie), and not sent again by a request that leaves the session
as it read it."""

from __future__ import annotations

import hashlib
import time
import uuid
from datetime import UTC, datetime

import pytest
from flask import flash, get_flashed_messages, session
from flask.json.tag import TaggedJSONSerializer
from flask.sessions import SecureCookieSessionInterface
from markupsafe import Markup

from companion import create_app
from companion.web import session_cookie

from .test_security import NEW_GAME

DATA = [
    {},
    {"_permanent": True, "csrf_token": "0f" * 20, "games": ["a1" * 16, "b2" * 16]},
    {"_flashes": [("message", "Round 3 saved.")], "_permanent": True},
    {"_flashes": [("message", "Manche 3 enregistrée : « bravo » ✓")], "games": ["é" * 40]},
    {"nested": [{"a": [1, 2]}, ("x", ["y"])], "when": datetime(2026, 11, 30, tzinfo=UTC),
     "id": uuid.UUID(int=7), "raw": b"\x00", "markup": Markup("<b>x</b>"), "n": None,
     "f": 1.5, "yes": True, "looks tagged": {" t": [1]}, "deep": {"k": {" di": {" t": 2}}}},
    {"kanai_duel_links": {"t" * 32: "s" * 32}, "games": ["c3" * 16] * 30},
]


@pytest.fixture
def app(tmp_path):
    return create_app({"TESTING": True, "SECRET_KEY": "cookie-key",
                       "DATABASE": str(tmp_path / "c.sqlite")})


def _signers(app):
    """The app's signer and Flask's own serializer for the same keys (main 207cb1c's)."""
    ours = app.session_interface.get_signing_serializer(app)
    return ours, SecureCookieSessionInterface().get_signing_serializer(app)


def _max_age(app) -> int:
    return int(app.permanent_session_lifetime.total_seconds())


@pytest.mark.parametrize("data", DATA)
def test_the_cookie_is_flasks_each_reads_the_others(app, data, monkeypatch):
    monkeypatch.setattr(session_cookie.time, "time", lambda: 1_796_000_000.5)
    with app.test_request_context("/"):
        ours, flasks = _signers(app)
        assert ours.payload(data) == TaggedJSONSerializer().dumps(data).encode()
        made = ours.dumps(data)
        assert flasks.loads(made, max_age=_max_age(app)) == data
        theirs = flasks.dumps(data)
        opened = ours.open(theirs, _max_age(app))
        assert opened is not None and opened[0] == data
        assert opened[1] == 1_796_000_000 and opened[2] == ours.payload(data)
        if not theirs.startswith("."):  # (not packed: the same text to the byte)
            assert made == theirs
        else:  # (packed: zlib's stream is its own, the time the same)
            assert made.startswith(".") and made.split(".")[2] == theirs.split(".")[2]


def test_an_unpacked_cookie_is_itsdangerous_text_to_the_byte(app, monkeypatch):
    monkeypatch.setattr(session_cookie.time, "time", lambda: 1_796_000_000.5)
    with app.test_request_context("/"):
        ours, flasks = _signers(app)
        data = {"k": "v"}  # (too short to pack)
        assert not flasks.dumps(data).startswith(".")
        assert ours.dumps(data) == flasks.dumps(data)


def test_a_cookie_signed_with_a_fallback_key_is_read_and_the_new_key_signs(app):
    with app.test_request_context("/"):
        old = SecureCookieSessionInterface().get_signing_serializer(app).dumps({"a": 1})
    app.config["SECRET_KEY_FALLBACKS"] = ["cookie-key"]
    app.secret_key = "new-key"
    with app.test_request_context("/"):
        ours, flasks = _signers(app)
        assert ours.open(old, _max_age(app))[0] == {"a": 1}  # type: ignore[index]
        app.config["SECRET_KEY_FALLBACKS"] = []
        assert SecureCookieSessionInterface().get_signing_serializer(app).loads(
            ours.dumps({"b": 2})) == {"b": 2}


def test_what_was_refused_is_refused(app, monkeypatch):
    """Another key, a changed signature, payload or time, too old, signed in the future, not
    a cookie, and a payload signed with the key that is not one: an empty session."""
    with app.test_request_context("/"):
        ours, flasks = _signers(app)
        good = ours.dumps({"a": 1})
        head, _, signature = good.rpartition(".")
        value, _, stamp = head.rpartition(".")
        flip = {"A": "B"}.get(signature[0], "A")
        other = create_app({"TESTING": True, "SECRET_KEY": "another",
                            "DATABASE": app.config["DATABASE"]})
        with other.test_request_context("/"):
            foreign = other.session_interface.get_signing_serializer(other).dumps({"a": 1})
        now = time.time()
        refused = [f"{head}.{flip}{signature[1:]}", f"x{good}", f"{value}.AAAA.{signature}",
                   foreign, "", "abc", "a.b", "..", "...", f"{good}é", good.replace(".", "")]
        for text in refused:
            assert ours.open(text, _max_age(app)) is None, text
        # A payload that is not one, signed with the app's key: reset, not an error.
        mac = ours._mac(0, b"bm90IGpzb24.AAAA")
        forged = f"bm90IGpzb24.AAAA.{session_cookie._b64(mac).decode()}"
        monkeypatch.setattr(session_cookie.time, "time", lambda: 10)
        assert ours.open(forged, _max_age(app)) is None
        monkeypatch.setattr(session_cookie.time, "time", lambda: now + _max_age(app) + 5)
        assert ours.open(good, _max_age(app)) is None  # too old
        monkeypatch.setattr(session_cookie.time, "time", lambda: now - 60)
        assert ours.open(good, _max_age(app)) is None  # signed in the future
        monkeypatch.undo()
        assert ours.open(good, _max_age(app))[0] == {"a": 1}  # type: ignore[index]


def test_it_signs_as_flasks_session_does_or_not_at_all(app):
    class Sha256(session_cookie.SessionInterface):
        digest_method = staticmethod(hashlib.sha256)

    with pytest.raises(ValueError, match="HMAC-SHA1"):
        Sha256().get_signing_serializer(app)


def _cookie(answer) -> list[str]:
    return [v for v in answer.headers.getlist("Set-Cookie") if v.startswith("session=")]


def test_the_cookie_sent_is_the_one_flask_sends_but_for_its_signature(app, monkeypatch):
    monkeypatch.setattr(session_cookie.time, "time", lambda: 1_796_000_000.0)
    app.config["SESSION_COOKIE_SECURE"] = True
    with app.test_request_context("/"):
        session["games"] = ["a1" * 16]
        session.permanent = True
        ours, theirs = app.response_class(), app.response_class()
        app.session_interface.save_session(app, session, ours)
        SecureCookieSessionInterface().save_session(app, session, theirs)
    [mine], [flasks] = _cookie(ours), _cookie(theirs)
    assert mine.split(";", 1)[1] == flasks.split(";", 1)[1]  # expiry, flags, path
    assert "HttpOnly" in mine and "Secure" in mine and "SameSite=Lax" in mine
    assert ours.headers["Vary"] == theirs.headers["Vary"] == "Cookie"


def test_an_old_cookie_still_opens_its_session_and_its_csrf_token_still_passes(tmp_path):
    """A phone holding a cookie signed before this change (itsdangerous, zlib's defaults)
    keeps its session: its games, and its CSRF token passes on its next save."""
    app = create_app({"TESTING": True, "SECRET_KEY": "old", "RATELIMIT_ENABLED": False,
                      "DATABASE": str(tmp_path / "o.sqlite")})
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False
    page = client.post("/rebel-princess/new", data=NEW_GAME).location
    app.config["WTF_CSRF_ENABLED"] = True
    shown = client.get(page).text
    token = shown.split('"X-CSRFToken": "', 1)[1].split('"', 1)[0]
    with app.test_request_context("/"):
        ours, flasks = _signers(app)
        data = ours.open(client.get_cookie("session").value, _max_age(app))[0]  # type: ignore[index,union-attr]
        old = flasks.dumps(data)
    assert data.get("games") and data.get("csrf_token")
    client.set_cookie("session", old)
    saved = client.post(f"{page}/round/1/numbers",
                        data={"score_0": "3", "score_1": "4", "score_2": "4", "score_3": "4",
                              "confirm": "y", "csrf_token": token})
    assert saved.status_code == 302 and saved.location == page  # stored (a refusal: 400)
    assert "Round 1 saved" in client.get(page).text  # said once, on the page after
    assert "Round 1 saved" not in client.get(page).text  # and not again on a reload


def _routes(app):
    @app.get("/flash-shown")
    def flash_shown() -> str:
        flash("said")
        return ", ".join(get_flashed_messages())

    @app.get("/set/<value>")
    def set_value(value: str) -> str:
        session["x"] = value
        return "set"

    @app.get("/emptied")
    def emptied() -> str:
        session.clear()
        return "emptied"


def test_a_session_changed_and_changed_back_sends_no_cookie(app):
    """A message flashed and shown by the same answer (a save answered with its page) leaves
    the session as it came: nothing sent, the answer still varies on the cookie."""
    _routes(app)
    client = app.test_client()
    assert _cookie(client.get("/set/1"))
    shown = client.get("/flash-shown")
    assert shown.text == "said" and _cookie(shown) == [] and "Cookie" in shown.vary
    assert _cookie(client.get("/set/1")) == []  # the same value: the same session
    assert _cookie(client.get("/set/2"))
    assert client.get("/flash-shown").text == "said"


def test_a_session_emptied_deletes_the_cookie_and_none_is_sent_to_a_browser_without_one(app):
    _routes(app)
    client = app.test_client()
    assert _cookie(client.get("/flash-shown")) == []  # nothing to keep, nothing to delete
    client.get("/set/1")
    [deleted] = _cookie(client.get("/emptied"))
    assert deleted.startswith("session=;") and "Expires=Thu, 01 Jan 1970" in deleted
    assert client.get_cookie("session") is None
