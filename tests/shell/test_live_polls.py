"""The live polls' fast path (issue 31, item 2): ``/live/<token>`` is answered before Flask's
request cycle, with one query, and the same answer the Flask view gives — body, ETag, 304 while
nothing changed, cache and security headers — while anything else goes on to Flask."""

from __future__ import annotations

import pytest
from limits import parse
from werkzeug.test import Client
from werkzeug.wrappers import Response

from companion.web.polls import on_poll

from ..conftest import reveillez_link
from .test_lean_saves import statements


@pytest.fixture
def answered(app):
    """The statuses of the polls the fast path answered."""
    seen: list[int] = []
    on_poll(app, seen.append)
    return seen


def flask_alone(app) -> Client:
    """A client of the Flask app behind the fast path (the view, as before)."""
    return Client(app.extensions["companion.polls"].app, Response)


def same_answer(one, other) -> None:
    assert one.status_code == other.status_code
    assert one.data == other.data
    drop = {"Date", "X-Request-ID"}  # (a new id for each request)
    assert sorted((k, v) for k, v in one.headers.items() if k not in drop) == \
        sorted((k, v) for k, v in other.headers.items() if k not in drop)


def test_a_poll_is_answered_before_flask_as_the_view_answers_it(app, client, answered):
    token = reveillez_link(app, "viewer")
    fast, view = client.get(f"/live/{token}"), flask_alone(app).get(f"/live/{token}")
    same_answer(fast, view)
    assert fast.status_code == 200 and fast.headers["ETag"] == f'"{fast.text}"'
    assert "Set-Cookie" not in fast.headers and "Date" in fast.headers
    etag = {"If-None-Match": fast.headers["ETag"]}
    fast, view = client.get(f"/live/{token}", headers=etag), \
        flask_alone(app).get(f"/live/{token}", headers=etag)
    same_answer(fast, view)
    assert fast.status_code == 304 and fast.data == b""
    head = client.head(f"/live/{token}")
    assert head.status_code == 200 and head.data == b""
    assert answered == [200, 304, 200]


def test_a_save_changes_the_answer(app, client, answered):
    token = reveillez_link(app, "scorer")
    first = client.get(f"/live/{token}")
    page = client.get(f"/reveillez/g/{token}").text
    version = page.split('data-version="', 1)[1].split('"', 1)[0]
    assert client.post(f"/reveillez/g/{token}/act", data={
        "version": version, "key": "key-00000001", "do": "wake", "slot": "3",
        "value": "15"}).status_code == 303
    again = client.get(f"/live/{token}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.text != first.text


def test_a_poll_is_one_query(app, client, answered):
    token = reveillez_link(app, "viewer")
    client.get(f"/live/{token}")
    with statements(app) as seen:
        assert client.get(f"/live/{token}").status_code == 200
    assert len(seen) == 1 and "gamelink" in seen[0]


@pytest.mark.parametrize("path", ["/live/" + "0" * 32, "/live/", "/live/" + "x" * 300])
def test_a_token_that_opens_nothing_gets_flasks_404_page(client, answered, path):
    response = client.get(path)
    assert response.status_code == 404 and "text/html" in response.headers["Content-Type"]
    assert answered == []


def test_other_methods_go_on_to_flask(app, client, answered):
    token = reveillez_link(app, "viewer")
    assert client.post(f"/live/{token}").status_code == 405
    assert answered == []


def test_polls_past_the_limit_wait(app, client, answered):
    token = reveillez_link(app, "viewer")
    polls = app.extensions["companion.polls"]
    polls.enabled, polls.limit = True, parse("3 per minute")
    codes = [client.get(f"/live/{token}").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    late = client.get(f"/live/{token}")
    assert late.status_code == 429 and int(late.headers["Retry-After"]) > 0
    assert "X-Frame-Options" in late.headers
    other = client.get(f"/live/{token}", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200  # each address counts on its own
