"""What every request pays outside its own work, made lean without changing what it gives
(issue 36, session 11): a page read that no limit counts is let through before Flask-Limiter's
own check — while every request a limit counts still reaches it —, and the access line is
written by a shorter way through ``logging`` with the same record and the same text."""

from __future__ import annotations

import logging
import time

import pytest
from flask_limiter import Limiter

from companion.web import logs
from companion.web.logs import SecondFormatter, write_line

from .test_security import NEW_GAME, limited_app


@pytest.fixture
def flask_limiters_check(monkeypatch):
    """The requests that reached Flask-Limiter's own check, by path."""
    reached: list[str] = []
    original = Limiter._check_request_limit

    def check(self, *args, **kwargs):
        from flask import request

        reached.append(request.path)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Limiter, "_check_request_limit", check)
    return reached


def test_a_page_read_is_let_through_before_flask_limiters_check(tmp_path, flask_limiters_check):
    app = limited_app(tmp_path)
    client = app.test_client()
    page = client.post("/rebel-princess/new", data=NEW_GAME).location  # a new game: checked
    assert flask_limiters_check == ["/rebel-princess/new"]
    flask_limiters_check.clear()
    for _ in range(3):
        assert client.get(page).status_code == 200
    assert client.get("/").status_code == 200
    assert flask_limiters_check == []


def test_every_read_a_limit_counts_still_reaches_flask_limiters_check(tmp_path,
                                                                      flask_limiters_check):
    """The JSON API's reads and the exports are counted by Flask-Limiter as before (their
    refusals past the limits: test_security.py, tests/history/test_history_export_stream.py)."""
    app = limited_app(tmp_path)
    client = app.test_client()
    token = client.post("/rebel-princess/new", data=NEW_GAME).location.rsplit("/", 1)[1]
    flask_limiters_check.clear()
    client.get("/api/v1/openapi.json")
    export = f"/record/{token}/export.csv"
    client.get(export)
    assert flask_limiters_check == ["/api/v1/openapi.json", export]


def test_with_a_meta_limit_every_request_goes_to_flask_limiters_check(tmp_path,
                                                                      flask_limiters_check):
    """Flask-Limiter tests a meta limit on every request, even one its filters let through:
    then no page read is let through before its check."""
    app = limited_app(tmp_path, RATELIMIT_META="1000 per hour")
    client = app.test_client()
    page = client.post("/rebel-princess/new", data=NEW_GAME).location
    flask_limiters_check.clear()
    assert client.get(page).status_code == 200
    assert flask_limiters_check == [page]


# --- the access line ------------------------------------------------------------------------

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


@pytest.mark.parametrize("created", [1_764_452_099.0, 1_764_452_099.0004, 1_764_452_099.5,
                                     1_764_452_099.9996, 1_764_452_100.25, 951_782_400.123])
def test_the_time_made_once_a_second_is_loggings_own_text(created):
    plain, kept = logging.Formatter(FORMAT), SecondFormatter(FORMAT)
    for when in (created, created + 0.001, created + 1, created + 3600.5):
        record = logging.makeLogRecord({"name": "companion.access", "levelno": logging.INFO,
                                        "levelname": "INFO", "msg": "a line"})
        record.created, record.msecs = when, int((when - int(when)) * 1000) + 0.0
        assert kept.format(record) == plain.format(record)


def test_a_date_format_of_its_own_is_loggings_own_text():
    record = logging.makeLogRecord({"msg": "a line"})
    assert SecondFormatter("%(asctime)s %(message)s", "%d/%m %H").format(record) == \
        logging.Formatter("%(asctime)s %(message)s", "%d/%m %H").format(record)


def test_the_access_line_is_the_record_access_info_gives(caplog):
    caplog.set_level(logging.INFO, logger="companion.access")
    logs.access.info("line one")
    write_line("line two")  # (the line below: its place in the code)
    here = test_the_access_line_is_the_record_access_info_gives.__code__
    first, second = caplog.records
    assert (second.name, second.levelno, second.getMessage(), second.args) == (
        first.name, first.levelno, "line two", first.args)
    assert (second.pathname, second.funcName) == (first.pathname, first.funcName) == (
        here.co_filename, here.co_name)
    assert second.lineno == first.lineno + 1
    assert second.created >= first.created and second.process == first.process
    assert second.thread == first.thread and second.exc_info is None


def test_no_access_line_below_its_level_or_when_the_logger_is_off(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger="companion.access")
    write_line("not written")
    monkeypatch.setattr(logs.access, "disabled", True)
    caplog.set_level(logging.INFO, logger="companion.access")
    write_line("not written either")
    assert caplog.records == []


def test_a_request_has_its_access_line_through_the_shorter_way(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="companion.access")
    client = limited_app(tmp_path).test_client()
    started = time.time()
    assert client.get("/").status_code == 200
    [line] = [r for r in caplog.records if r.name == "companion.access"]
    assert line.getMessage().startswith('127.0.0.1 "GET /" 200 ')
    assert line.funcName == "_missed" and line.pathname == logs.__file__
    assert line.created >= started


# --- the session cookie ---------------------------------------------------------------------

def test_a_session_kept_as_it_was_still_varies_on_the_cookie_and_sends_none(tmp_path):
    """An answer whose session was read and kept as it was (no cookie to send) says so in its
    Vary, as Flask's own saving says it; one whose session changed sends the cookie."""
    client = limited_app(tmp_path).test_client()
    page = client.post("/rebel-princess/new", data=NEW_GAME).location
    first = client.get(page)  # (the page is this browser's first: it is remembered)
    assert any(v.startswith("session=") for v in first.headers.getlist("Set-Cookie"))
    again = client.get(page)
    assert not any(v.startswith("session=") for v in again.headers.getlist("Set-Cookie"))
    assert "Cookie" in again.vary
    assert again.headers["Vary"] == first.headers["Vary"]


@pytest.mark.parametrize("own", [
    [], [("X-Frame-Options", "SAMEORIGIN")],
    [("Content-Type", "text/plain"), ("Referrer-Policy", "no-referrer"), ("Vary", "Cookie")]])
def test_the_security_headers_are_added_as_werkzeugs_extend_adds_them(own):
    """Byte for byte what ``headers.extend`` gives: the same pairs in the same order, the
    answer's own kept, on the wire too."""
    from werkzeug.datastructures import Headers
    from werkzeug.wrappers import Response

    from companion.web import security

    answer, reference = Response("x", headers=own), Response("x", headers=own)
    security._headers(answer)
    present = {name.lower() for name, _ in reference.headers}
    reference.headers.extend([(n, v) for n, v in security.HEADERS if n.lower() not in present])
    assert list(answer.headers) == list(reference.headers)
    assert type(answer.headers) is Headers  # (the class whose list is written to directly)
    for name, value in security.HEADERS:
        assert answer.headers.getlist(name) == [dict(own).get(name, value)]
    environ = {"REQUEST_METHOD": "GET", "SERVER_NAME": "x", "SERVER_PORT": "80",
               "wsgi.url_scheme": "http"}
    assert answer.get_wsgi_headers(environ).to_wsgi_list() == \
        reference.get_wsgi_headers(environ).to_wsgi_list()


def test_a_security_header_value_is_checked_once_for_a_line_break():
    from companion.web import security

    assert security._checked((("X-A", "b"),)) == (("x-a", "X-A", "b"),)
    for broken in ("a\nb", "a\rb"):
        with pytest.raises(ValueError, match="X-A"):
            security._checked((("X-A", broken),))
