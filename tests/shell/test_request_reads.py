"""What every request reads, read more cheaply with the same result (issue 36, session 12): a
URL-encoded form and the cookies (:class:`companion.web.requests.AppRequest`), Flask's proxies
read once (:func:`companion.web.requests.itself`), a known session's data copied
(``session_cookie.copied``), Flask-WTF's check (``extensions._protect``) and Flask-Limiter's hooks
where its check made no state."""

from __future__ import annotations

import copy
import logging
import uuid
from datetime import UTC, datetime

import pytest
from flask import Request, current_app, g, request, session
from markupsafe import Markup
from werkzeug.test import EnvironBuilder

from companion import create_app
from companion.web import session_cookie
from companion.web.requests import AppRequest, itself

from .test_security import NEW_GAME, limited_app


@pytest.fixture
def app(tmp_path):
    return create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "r.sqlite"),
                       "MAX_CONTENT_LENGTH": 4096})


BODIES = [
    b"",
    b"csrf_token=abc.def&version=3&key=k-1&first=general&second=minister",
    b"a=1&a=2&b=&c",  # a field twice, a blank one, one without "="
    b"name=Ana+B%C3%A9atrice&note=%2B%26%3D&x=%zz",  # "+", escapes, a broken escape
    b"name=%E9t%E9",  # Latin-1 escapes: werkzeug's own error handler keeps them as escapes
    "name=Hélène".encode(),  # raw UTF-8 in the body
    b"name=\xff\xfe",  # not UTF-8 at all: the form is empty, as werkzeug's parser leaves it
    b"&&=&x=1;y=2",
]


def _both(app, body: bytes, content_type: str = "application/x-www-form-urlencoded"):
    """The form (and files) as werkzeug's parser reads ``body``, then as the app's request."""
    found = []
    for cls in (Request, AppRequest):
        environ = EnvironBuilder(method="POST", data=body, content_type=content_type).get_environ()
        with app.test_request_context(environ_base=environ):
            asked = cls(environ)
            found.append((list(asked.form.items(multi=True)), list(asked.files.items())))
    return found


@pytest.mark.parametrize("body", BODIES)
def test_a_url_encoded_form_reads_as_werkzeugs_parser_reads_it(app, body):
    werkzeugs, ours = _both(app, body)
    assert ours == werkzeugs


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded; charset=UTF-8",
                                          "multipart/form-data; boundary=x", "text/plain"])
def test_any_other_body_goes_to_werkzeugs_parser(app, content_type):
    werkzeugs, ours = _both(app, b"a=1&b=2", content_type)
    assert ours == werkzeugs


def test_a_form_is_read_outside_any_app_too():
    environ = EnvironBuilder(method="POST", data=b"a=1&b=2",
                             content_type="application/x-www-form-urlencoded").get_environ()
    assert list(AppRequest(environ).form.items(multi=True)) == [("a", "1"), ("b", "2")]


def test_a_form_too_long_is_refused_as_before(app):
    client = app.test_client()
    answer = client.post("/rebel-princess/new", data="a=" + "x" * 5000,
                         content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 413


def test_the_apps_request_is_the_one_every_view_reads(app):
    with app.test_request_context("/", method="POST", data={"a": "1"}):
        assert isinstance(itself(request), AppRequest)
        assert request.form["a"] == "1"


@pytest.mark.parametrize("cookie", [None, "", "session=abc", "a=1; a=2; session=x.y.z",
                                    'theme="dark"; lang=fr', "bad cookie; =; ok=1"])
def test_the_cookies_read_as_werkzeug_reads_them(app, cookie):
    headers = {"Cookie": cookie} if cookie is not None else {}
    environ = EnvironBuilder(headers=headers).get_environ()
    assert list(AppRequest(environ).cookies.items(multi=True)) == list(
        Request(environ).cookies.items(multi=True))


def test_itself_is_what_each_proxy_stands_for(app):
    with app.test_request_context("/"):
        assert itself(request) is request._get_current_object()
        assert itself(current_app) is app
        assert itself(g) is g._get_current_object()
        assert itself(session) is session._get_current_object()


@pytest.mark.parametrize("data", [
    {},
    {"csrf_token": "abc", "games": ["t1", "t2"], "kanai_duel_links": {"t1": "s"}},
    {"nested": [{"a": [1, 2]}, ("x", ["y"])], "when": datetime(2026, 11, 30, tzinfo=UTC),
     "id": uuid.UUID(int=7), "raw": b"\x00", "markup": Markup("<b>x</b>"), "n": None,
     "f": 1.5, "yes": True},
])
def test_a_known_sessions_data_is_copied_as_deepcopy_copies_it(data):
    copied = session_cookie.copied(data)
    assert copied == copy.deepcopy(data)

    def containers(value, found):
        if isinstance(value, dict | list):
            found.append(value)
        for item in (value.values() if isinstance(value, dict) else value
                     if isinstance(value, list | tuple) else ()):
            containers(item, found)
        return found

    theirs = {id(c) for c in containers(data, [])}
    assert not any(id(c) in theirs for c in containers(copied, []))  # nothing shared to change


# --- Flask-WTF's check -------------------------------------------------------------------

@pytest.fixture
def csrf_app(tmp_path):
    return create_app({"TESTING": True, "SECRET_KEY": "csrf-reads",
                       "DATABASE": str(tmp_path / "c.sqlite"), "WTF_CSRF_ENABLED": True})


def _token(client) -> str:
    import re

    page = client.get("/rebel-princess/new").text
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert found is not None
    return found[1]


@pytest.mark.parametrize(("token", "message"), [
    (None, "The CSRF token is missing."),
    ("not-a-token", "The CSRF token is invalid."),
    ("other", "The CSRF tokens do not match."),
])
def test_each_refusal_is_logged_as_flask_wtf_words_it(csrf_app, caplog, token, message):
    client = csrf_app.test_client()
    good = _token(client)
    if token == "other":  # a token signed by this app for another browser's session
        token = _token(csrf_app.test_client())
    data = {**NEW_GAME, **({"csrf_token": token} if token else {})}
    with caplog.at_level(logging.INFO, logger="flask_wtf.csrf"):
        assert client.post("/rebel-princess/new", data=data).status_code == 400
    assert message in [r.getMessage() for r in caplog.records if r.name == "flask_wtf.csrf"]
    assert client.post("/rebel-princess/new", data={**NEW_GAME, "csrf_token": good}
                       ).status_code == 302


HEX = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
"""A token's value as Flask-WTF makes it (40 hex digits, from a SHA-1)."""


def _tokens_cases(monkeypatch) -> list[tuple[object, str, int | None]]:
    """(secret key, token, max age): what itsdangerous's ``loads`` accepts and refuses."""
    import time

    from itsdangerous import URLSafeTimedSerializer, base64_decode, base64_encode

    def signed(value, key="k", *, ago=0, salt="wtf-csrf-token"):
        now = time.time()
        monkeypatch.setattr(time, "time", lambda: now - ago)
        try:
            return URLSafeTimedSerializer(key, salt=salt).dumps(value)
        finally:
            monkeypatch.undo()

    good = signed(HEX)
    payload, stamp, signature = good.split(".")
    signer = URLSafeTimedSerializer("k", salt="wtf-csrf-token").make_signer()
    padded = f"{payload}.{base64_encode(bytes(6) + base64_decode(stamp)).decode()}"
    padded = f"{padded}.{signer.get_signature(padded).decode()}"  # (a 10-byte stamp, signed)
    other = "b" if signature[0] != "b" else "c"
    cases = [
        good, signed("é" * 40), signed("x" * 400),  # (a long value: its payload compressed)
        signed(HEX, ago=3599), signed(HEX, ago=3601),  # just fresh, just expired
        signed(HEX, ago=-60),  # signed in the future
        signed(HEX, "old"),  # an older key of a rotation (below), or another app's
        signed(HEX, salt="other"),
        f"{payload}.{stamp}.{other}{signature[1:]}", f"{payload}x.{stamp}.{signature}",
        f"{payload}.{stamp}x.{signature}", f"{payload}.{signature}", f"{payload}.{stamp}.",
        f"{payload}.{stamp}.{signature}é", f"{payload}.{stamp}.{signature}=", ".", "", "abc",
        "a.b.c", "..", f".{stamp}.{signature}", "not-a-token", good.replace(".", "", 1), padded,
    ]
    return [(key, token, age) for key in ("k", ["old", "k"]) for token in cases
            for age in (3600, None)]


def test_the_csrf_tokens_accepted_and_refused_are_itsdangerous_own(monkeypatch):
    """extensions.CsrfTokens.loads (a token of the newest key checked with itsdangerous's own
    pieces, made once) accepts what URLSafeTimedSerializer.loads accepts, with the same value,
    and refuses what it refuses, with the same error and message."""
    from itsdangerous import URLSafeTimedSerializer

    from companion.extensions import CsrfTokens

    def outcome(load, *args, **options):
        try:
            return "accepted", load(*args, **options)
        except Exception as error:  # (the very error: type and words)
            return type(error), str(error)

    cases = _tokens_cases(monkeypatch)
    accepted = 0
    for key, token, age in cases:
        theirs = URLSafeTimedSerializer(key, salt="wtf-csrf-token")
        mine = outcome(CsrfTokens(key).loads, token, age)
        assert mine == outcome(theirs.loads, token, max_age=age), (key, token, age)
        accepted += mine[0] == "accepted"
    assert 0 < accepted < len(cases)


def test_a_fresh_csrf_token_is_checked_without_the_serializers_loads(monkeypatch):
    """The token every form sends back (the newest key's, fresh) is accepted without
    itsdangerous's ``loads``; a refused one goes to it (its refusal, as it words it)."""
    from itsdangerous import BadSignature, URLSafeTimedSerializer

    from companion.extensions import CsrfTokens

    tokens = CsrfTokens("k")
    token = URLSafeTimedSerializer("k", salt="wtf-csrf-token").dumps(HEX)
    asked: list[str] = []
    loads = tokens.serializer.loads
    monkeypatch.setattr(tokens.serializer, "loads", lambda data, **kw: (
        asked.append(data), loads(data, **kw))[1])
    assert tokens.loads(token, 3600) == HEX and asked == []
    with pytest.raises(BadSignature):
        tokens.loads(token[:-2], 3600)
    assert asked == [token[:-2]]


def test_a_browser_without_a_session_is_refused_as_before(csrf_app, caplog):
    token = _token(csrf_app.test_client())
    with caplog.at_level(logging.INFO, logger="flask_wtf.csrf"):
        answer = csrf_app.test_client().post("/rebel-princess/new",
                                             data={**NEW_GAME, "csrf_token": token})
    assert answer.status_code == 400
    assert "The CSRF session token is missing." in caplog.messages


def test_over_https_the_referrer_is_checked_as_before(csrf_app):
    client = csrf_app.test_client()
    data = {**NEW_GAME, "csrf_token": _token(client)}
    https = "https://localhost"
    assert client.post("/rebel-princess/new", data=data, base_url=https).status_code == 400
    assert client.post("/rebel-princess/new", data=data, base_url=https,
                       headers={"Referer": "https://elsewhere.example/"}).status_code == 400
    assert client.post("/rebel-princess/new", data=data, base_url=https,
                       headers={"Referer": "https://localhost/x"}).status_code == 302


# --- Flask-Limiter's hooks ------------------------------------------------------------------

def test_a_tap_at_the_table_leaves_flask_limiter_no_state(tmp_path):
    app = limited_app(tmp_path)
    limiter = app.extensions["companion.limiter"]
    seen = []

    @app.after_request
    def look(response):
        from flask.globals import request_ctx

        seen.append(limiter in vars(itself(request_ctx)).get("_limiter_request_context", ()))
        return response

    client = app.test_client()
    game = client.post("/rebel-princess/new", data=NEW_GAME).location
    assert seen == [True]  # Flask-Limiter's own check (a game started): its state
    seen.clear()
    client.get(game)
    client.post(f"{game}/undo", data={})  # a write WriteCount counts (refused or not)
    assert seen == [False, False]


@pytest.mark.parametrize("key", ["k", b"k", ["old", "k"]])
def test_a_csrf_token_is_made_as_itsdangerous_makes_it(monkeypatch, key):
    """extensions.CsrfTokens.dumps (the signer and its key made once) gives the very text of
    URLSafeTimedSerializer.dumps for the same token at the same second, whatever the stamp."""
    import time as clock

    from itsdangerous import URLSafeTimedSerializer

    from companion.extensions import CsrfTokens

    tokens = CsrfTokens(key)
    for now in (0, 1, 255, 256, 1_700_000_000, 2**40 + 3):
        monkeypatch.setattr(clock, "time", lambda now=now: now + 0.5)
        for raw in (HEX, "", "é" * 3, "a" * 200):
            theirs = URLSafeTimedSerializer(key, salt="wtf-csrf-token").dumps(raw)
            assert tokens.dumps(raw) == theirs, (now, raw)


@pytest.mark.parametrize("settings", [{}, {"WTF_CSRF_SECRET_KEY": "other"},
                                      {"WTF_CSRF_FIELD_NAME": "token"}])
def test_a_pages_csrf_token_is_flask_wtfs_own(monkeypatch, settings):
    """extensions.generate_csrf gives what flask_wtf.csrf.generate_csrf gives, in the same
    session and at the same second: the same session token (made when there is none, kept
    when there is one, made anew when it cannot be signed), the same signed text, kept on
    ``g`` for the request (where Flask-WTF's forms read it), and accepted by its check."""
    import time as clock

    from flask_wtf.csrf import generate_csrf as theirs
    from flask_wtf.csrf import validate_csrf

    from companion.extensions import generate_csrf

    monkeypatch.setattr(clock, "time", lambda: 1_700_000_000.25)
    monkeypatch.setattr("os.urandom", lambda n: b"\x07" * n)
    app = create_app({"TESTING": True, "SECRET_KEY": "pages", "DATABASE": ":memory:",
                      **settings})
    field = settings.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    for kept in (None, HEX, 12, ["x"]):
        made = []
        for generate in (generate_csrf, theirs):
            with app.test_request_context("/"):
                if kept is not None:
                    session[field] = kept
                token = generate()
                assert generate() == token == g.get(field)  # (once per request)
                if isinstance(session[field], str):  # (else Flask-WTF's own check fails too)
                    validate_csrf(token, token_key=field)
                made.append((token, dict(session)))
        assert made[0] == made[1], kept
