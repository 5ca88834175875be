"""The log (companion.web.logs): one access line per request with every link token masked, each
error once with the request id its page shows, a Redis outage once a minute."""

from __future__ import annotations

import json
import logging
import re
import socket

import pytest

from companion import create_app
from companion.web import logs
from companion.web.logs import mask

from ..conftest import database_config, reveillez_link


def _access_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "companion.access"]


def test_mask_keeps_the_last_four_characters_of_a_token_only():
    token = "0123456789abcdef0123456789ab3f2a"
    assert mask(f"/rebel-princess/g/{token}/round/1") == "/rebel-princess/g/…3f2a/round/1"
    assert mask("/rules?lang=fr") == "/rules?lang=fr"


def test_one_access_line_per_request_with_the_token_masked(app, client, caplog):
    token = reveillez_link(app, "viewer")
    caplog.set_level(logging.INFO, logger="companion.access")
    answer = client.get(f"/reveillez/g/{token}?x=1",
                        headers={"Referer": f"https://games.example.org/share/{token}"},
                        environ_base={"REMOTE_ADDR": "198.51.100.7"})
    lines = _access_lines(caplog)
    assert len(lines) == 1
    rid = answer.headers["X-Request-ID"]
    assert lines[0] == (f'198.51.100.7 "GET /reveillez/g/…{token[-4:]}?x=1" 200 '
                        f'{len(answer.data)} {lines[0].split()[5]} rid={rid} '
                        f'ref="https://games.example.org/share/…{token[-4:]}"')
    assert re.fullmatch(r"\d+(\.\d)?ms", lines[0].split()[5])
    assert token not in caplog.text


def test_the_access_line_as_json(make_app, caplog):
    app = make_app(**{"ACCESS_LOG_JSON": True})
    token = reveillez_link(app, "scorer")
    caplog.set_level(logging.INFO, logger="companion.access")
    app.test_client().get(f"/live/{token}", headers={"X-Request-ID": "lb-42"})
    [line] = _access_lines(caplog)
    fields = json.loads(line)
    assert fields["path"] == f"/live/…{token[-4:]}" and fields["status"] == 200
    assert fields["rid"] == "lb-42" and set(fields) == {
        "time", "client", "method", "path", "status", "bytes", "ms", "rid", "referer"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", fields["time"])


def test_json_access_lines_are_json_alone_on_a_server(tmp_path):
    """A server (not a test app) with ACCESS_LOG_JSON writes each access line as one JSON
    object, with no text before it."""
    import subprocess
    import sys

    script = ("import logging\nfrom companion import create_app\n"
              f"app = create_app({{'TESTING': False, 'SECRET_KEY': 't', 'ACCESS_LOG_JSON': True, "
              f"'DATABASE': {str(tmp_path / 'x.db')!r}}})\n"
              "app.test_client().get('/healthz')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "LOG_LEVEL": "INFO"})
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stderr.splitlines() if '"/healthz"' in line]
    fields = json.loads(line)  # the whole line: nothing before the object
    assert fields["path"] == "/healthz" and fields["status"] == 200 and "time" in fields


@pytest.fixture
def failing(tmp_path):
    """An app with one page that fails (as a bug would)."""
    app = create_app({"TESTING": False, "SECRET_KEY": "t", **database_config(tmp_path),
                      "PROPAGATE_EXCEPTIONS": False})

    def broken(token: str) -> str:
        raise RuntimeError("a bug")

    app.add_url_rule("/broken/<token>", "broken", broken)
    yield app
    app.extensions["companion.engine"].dispose()


@pytest.mark.parametrize(("lang", "words"), [("en", "Something went wrong"),
                                              ("fr", "Quelque chose s'est mal passé")])
def test_an_error_is_logged_once_with_the_id_its_page_shows(failing, caplog, lang, words):
    token = "0123456789abcdef0123456789abcdef"
    client = failing.test_client()
    client.set_cookie("lang", lang)
    answer = client.get(f"/broken/{token}")
    page = answer.data.decode()
    rid = answer.headers["X-Request-ID"]
    assert answer.status_code == 500 and words in page
    assert f'data-request-id="{rid}"' in page and 'data-error="500"' in page
    assert 'class="panel"' in page  # the app's own look (its base template)
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(logged) == 1 and f"rid={rid}" in logged[0].getMessage()
    assert logged[0].exc_info is not None  # the traceback, once
    assert token not in caplog.text and "…cdef" in logged[0].getMessage()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_redis_outage_is_logged_once_a_minute_without_tracebacks(make_app, caplog,
                                                                   monkeypatch):
    monkeypatch.setattr(logs.OUTAGE_FILTER, "last", {})  # no earlier test's minute
    app = make_app(**{"WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True,
                      "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{_closed_port()}",
                      "CACHE_TYPE": "RedisCache"})
    token = reveillez_link(app, "viewer")
    client = app.test_client()
    caplog.set_level(logging.INFO)
    for _ in range(5):  # pages (the page store) and writes (the rate limits' counts)
        assert client.get(f"/reveillez/g/{token}").status_code == 200
        assert client.post("/rules").status_code == 405
    outage = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert outage, "the outage is logged"
    assert all(r.exc_info is None for r in outage)
    assert len(outage) <= len({r.name for r in outage})  # once per logger, not per request
    assert any("redis" in r.getMessage().lower() or "unreachable" in r.getMessage()
               for r in outage)


def test_a_server_started_with_redis_down_says_so_for_each_part(make_app, caplog, monkeypatch):
    monkeypatch.setattr(logs.OUTAGE_FILTER, "last", {})  # no earlier test's minute
    caplog.set_level(logging.INFO)
    make_app(**{"RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{_closed_port()}"})
    said = {r.name for r in caplog.records if r.levelno == logging.WARNING
            and "redis unreachable at start" in r.getMessage()}
    assert said == set(logs.REDIS_PARTS)  # the rate limits, the page store, the imports


def test_the_rate_limits_say_a_redis_outage_once_a_minute_and_what_they_do(make_app, caplog,
                                                                           monkeypatch):
    """Flask-Limiter says its store is gone once, to a logger nobody reads: the limits say it
    themselves, once a minute while it lasts, with what they do meanwhile — and they still count
    (in this process), never refusing a request for the outage."""
    app = make_app(**{"WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True,
                      "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{_closed_port()}"})
    monkeypatch.setattr(logs.OUTAGE_FILTER, "last", {})  # (the start's line said already)
    client = app.test_client()
    caplog.set_level(logging.INFO)
    caplog.clear()

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records
                if r.name == "companion.limits" and r.levelno == logging.WARNING]

    assert [client.post("/rules").status_code for _ in range(5)] == [405] * 5
    assert len(said()) == 1
    assert "redis unreachable" in said()[0] and "each server process" in said()[0]
    monkeypatch.setitem(logs.OUTAGE_FILTER.last, "companion.limits",
                        logs.OUTAGE_FILTER.last["companion.limits"] - 61)  # a minute later
    assert [client.post("/rules").status_code for _ in range(3)] == [405] * 3
    assert len(said()) == 2
    # Counted meanwhile, in this process: the write limit still refuses the 121st write.
    statuses = [client.post("/rules").status_code for _ in range(120)]
    assert statuses[-1] == 429 and 405 in statuses


def test_an_import_queue_outage_is_said_once_a_minute(make_app, caplog, monkeypatch):
    from companion.ops import jobs

    app = make_app(**{"CACHE_REDIS_URL": f"redis://127.0.0.1:{_closed_port()}"})
    monkeypatch.setattr(logs.OUTAGE_FILTER, "last", {})
    caplog.set_level(logging.INFO)
    caplog.clear()
    for _ in range(3):
        assert jobs._queue(app) is None  # runs here meanwhile
    lines = [r.getMessage() for r in caplog.records if r.name == "companion.ops.jobs"]
    assert len(lines) == 1 and "imports run in the server" in lines[0]
