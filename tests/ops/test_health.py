"""``/healthz``, ``/readyz`` and ``/metrics`` (companion.routes.health, companion.web.metrics)."""

from __future__ import annotations

import re
import socket

import pytest
from sqlalchemy import create_engine

from ..conftest import reveillez_link


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_healthz_answers_without_the_database(app, client, monkeypatch):
    monkeypatch.setitem(app.extensions, "companion.engine", None)  # any use would fail
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.data == b"ok\n"


def test_readyz_is_ready_with_the_database_up(client):
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.data == b"ready\n"


def test_readyz_answers_503_naming_the_database_when_it_is_stopped(app, client, monkeypatch):
    """The database stopped (nothing listens where it was): 503, naming the database."""
    stopped = create_engine(f"postgresql+psycopg://companion:x@127.0.0.1:{_closed_port()}/none",
                            connect_args={"connect_timeout": 2})
    monkeypatch.setitem(app.extensions, "companion.engine", stopped)
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.data.decode().startswith("database: unreachable")
    assert client.get("/healthz").status_code == 200  # alive all the same


def test_readyz_answers_503_naming_redis_when_it_is_down(make_app):
    app = make_app(**{"RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{_closed_port()}"})
    answer = app.test_client().get("/readyz")
    assert answer.status_code == 503
    assert answer.data.decode().splitlines() == ["redis: unreachable (ConnectionError)"]


def _metrics(client, **environ) -> str:
    answer = client.get("/metrics", environ_base=environ)
    assert answer.status_code == 200, answer.status_code
    return answer.data.decode()


def _value(text: str, name: str, **labels: str) -> float:
    """A sample's value in the exposition (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            found = dict(re.findall(r'(\w+)="([^"]*)"', line.partition("}")[0]))
            if found == labels:
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_answer_loopback_only_by_default(client):
    assert client.get("/metrics").status_code == 200  # the test client is 127.0.0.1
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.9"}).status_code == 404


def test_metrics_allow_names_who_may_read_them(make_app):
    app = make_app(**{"METRICS_ALLOW": "10.0.0.0/24"})
    client = app.test_client()
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.0.0.7"}).status_code == 200
    assert client.get("/metrics").status_code == 404  # loopback is not in the list now
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.0.1.7"}).status_code == 404


def test_requests_are_counted_by_route_template_never_by_token(app, client):
    token = reveillez_link(app, "scorer")
    before = _metrics(client)
    route = "/reveillez/g/<code>"
    assert client.get(f"/reveillez/g/{token}").status_code == 200
    assert client.get(f"/live/{token}").status_code == 200
    after = _metrics(client)
    assert _value(after, "companion_requests_total", route=route, method="GET",
                  status="200") == _value(before, "companion_requests_total", route=route,
                                          method="GET", status="200") + 1
    assert _value(after, "companion_request_seconds_count", route=route, method="GET") >= 1
    assert _value(after, "companion_live_polls_total", result="changed") == _value(
        before, "companion_live_polls_total", result="changed") + 1
    assert token not in after and token[-8:] not in after


NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def test_saves_are_counted_by_game(client):
    before = _value(_metrics(client), "companion_saves_total", game="rebel_princess")
    started = client.post("/rebel-princess/new", data=NEW_GAME)
    assert started.status_code == 302
    token = started.headers["Location"].rsplit("/", 1)[1]
    scores = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])}, "confirm": "y"}
    assert client.post(f"/rebel-princess/g/{token}/round/1/numbers",
                       data=scores).status_code == 302
    refused = client.post(f"/rebel-princess/g/{token}/round/2/numbers", data={"confirm": "y"})
    assert refused.status_code >= 400  # a refused entry is no save
    text = _metrics(client)
    assert _value(text, "companion_saves_total", game="rebel_princess") == before + 2
    assert token not in text


def test_page_store_hits_and_misses_are_counted(app, client):
    token = reveillez_link(app, "viewer")
    text = _metrics(client)
    hits, misses = (_value(text, "companion_page_store_total", result=r)
                    for r in ("hit", "miss"))
    client.get(f"/reveillez/g/{token}")
    client.get(f"/reveillez/g/{token}")
    text = _metrics(client)
    assert _value(text, "companion_page_store_total", result="miss") == misses + 1
    assert _value(text, "companion_page_store_total", result="hit") == hits + 1


def test_rate_limit_refusals_are_counted(make_app):
    app = make_app(**{"WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True})
    client = app.test_client()
    before = _value(_metrics(client), "companion_rate_limited_total")
    statuses = [client.post("/rules").status_code for _ in range(125)]
    assert statuses.count(429) == 5
    assert _value(_metrics(client), "companion_rate_limited_total") == before + 5


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_health_answers_set_no_cookie(client, path):
    assert "Set-Cookie" not in client.get(path).headers
