"""``/healthz``, ``/readyz`` and ``/metrics`` (companion.routes.health, companion.web.metrics)."""

from __future__ import annotations

import re
import socket

import pytest
from sqlalchemy import create_engine

from companion.common.release import version

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
    assert answer.status_code == 200 and answer.data == f"ready\nversion: {version()}\n".encode()


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
    assert answer.data.decode().splitlines() == ["redis: unreachable (ConnectionError)",
                                                 f"version: {version()}"]


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


def test_the_version_is_the_one_pyproject_names_everywhere(client, app):
    """``flask --app companion version``, /readyz, /metrics and the page footer: one release."""
    import tomllib
    from pathlib import Path

    from companion.ops.cli import version_command

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    released = pyproject["project"]["version"]
    printed = app.test_cli_runner().invoke(version_command).output.strip()
    assert printed == released == version()
    assert f"version: {released}" in client.get("/readyz").data.decode()
    assert _value(_metrics(client), "companion_build_info", version=released) == 1.0
    assert f'data-release="{released}"' in client.get("/").data.decode()


def test_metrics_show_the_process_memory_and_cpu(client):
    text = _metrics(client)
    assert _value(text, "process_resident_memory_bytes") > 0
    assert "process_cpu_seconds_total" in text


def test_metrics_show_each_workers_process_figures_under_gunicorn(client, tmp_path, monkeypatch):
    """With PROMETHEUS_MULTIPROC_DIR (gunicorn), each live process with counts there has its
    memory under its pid; a dead one's files add no figures."""
    import os

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    (tmp_path / "counter_999999999.db").write_bytes(b"\0" * 8)  # no such process (empty counts)
    text = _metrics(client)
    assert _value(text, "process_resident_memory_bytes", pid=str(os.getpid())) > 0
    assert 'pid="999999999"' not in text
    assert _value(text, "companion_build_info", version=version()) == 1.0


def _to_caplog(caplog, monkeypatch) -> None:
    """The app's lines reach caplog once: a server's app makes the "companion" logger keep its
    lines (no propagation), and pytest hands its capture to such loggers only when a test starts
    — so it is added here when missing, never twice (a second path doubled every line)."""
    import logging

    companion = logging.getLogger("companion")
    if not companion.propagate and caplog.handler not in companion.handlers:
        monkeypatch.setattr(companion, "handlers", [*companion.handlers, caplog.handler])


def test_a_404_on_an_unknown_link_is_logged_and_counted(client, caplog):
    """An unknown game link is refused by its lookup, before the view's hooks: still one access
    line and one count (a link-guessing scan leaves a trace)."""
    import logging

    def counted(text):  # (under either label: a worker that ran other tests has counts under both)
        return sum(_value(text, "companion_requests_total", route=route, method="GET",
                          status="404") for route in ("(none)", "/reveillez/g/<code>"))

    before = counted(_metrics(client))
    caplog.set_level(logging.INFO, logger="companion.access")
    caplog.clear()  # (the lines of the request below only: not the /metrics read before it)
    token = "0123456789abcdef0123456789abcdef"
    answer = client.get(f"/reveillez/g/{token}")
    assert answer.status_code == 404
    rid = answer.headers["X-Request-ID"]  # (this request's lines only, as below)
    lines = [r.getMessage() for r in caplog.records
             if r.name == "companion.access" and f"rid={rid}" in r.getMessage()]
    assert len(lines) == 1 and '" 404 ' in lines[0] and token not in lines[0]
    assert counted(_metrics(client)) == before + 1


def test_a_500_with_the_database_gone_is_logged_and_counted(make_app, caplog, monkeypatch):
    """The database taken away from a running server: a game's page fails with the app's 500
    page — and has its access line and its count."""
    import logging

    app = make_app(**{"TESTING": False, "PROPAGATE_EXCEPTIONS": False})
    token = reveillez_link(app, "viewer")
    client = app.test_client()
    stopped = create_engine(f"postgresql+psycopg://companion:x@127.0.0.1:{_closed_port()}/none",
                            connect_args={"connect_timeout": 2})
    before = _metrics(client)
    monkeypatch.setitem(app.extensions, "companion.engine", stopped)
    _to_caplog(caplog, monkeypatch)
    caplog.set_level(logging.INFO, logger="companion.access")
    caplog.clear()  # (the lines of the request below only: not the /metrics read before it)
    answer = client.get(f"/reveillez/g/{token}")
    assert answer.status_code in (500, 503)
    status, rid = str(answer.status_code), answer.headers["X-Request-ID"]
    # (this request's lines: a server thread another test left may write lines meanwhile)
    lines = [r.getMessage() for r in caplog.records
             if r.name == "companion.access" and f"rid={rid}" in r.getMessage()]
    assert len(lines) == 1 and f'" {status} ' in lines[0] and token not in lines[0]
    after = _metrics(client)

    def total(text: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("companion_requests_total{") and f'status="{status}"' in line)

    assert total(after) == total(before) + 1


def test_readyz_says_how_many_import_workers_beat_recently(make_app):
    from ..conftest import REDIS_URL

    if not REDIS_URL:
        pytest.skip("needs a Redis (TEST_REDIS_URL)")
    from redis import Redis
    from rq import Queue, SimpleWorker

    from companion.ops import jobs

    app = make_app(**{"CACHE_REDIS_URL": REDIS_URL})
    connection = Redis.from_url(REDIS_URL)
    worker = SimpleWorker([Queue(jobs.QUEUE, connection=connection)], connection=connection)
    before = app.test_client().get("/readyz").data.decode().splitlines()[-1]
    worker.register_birth()
    try:
        after = app.test_client().get("/readyz").data.decode().splitlines()[-1]
    finally:
        worker.register_death()
    assert before.startswith("import workers: ") and after.startswith("import workers: ")
    assert int(after.split()[2]) == int(before.split()[2]) + 1


def test_a_server_started_with_its_database_down_starts_and_says_so(tmp_path, monkeypatch):
    """No boot loop: the server starts with nothing listening where its database is, answers
    /healthz 200 and /readyz 503 (naming the database), then 200 once the database answers —
    the schema of an empty database created then, as at a start."""
    from companion import create_app
    from companion.db import make_engine

    url = f"postgresql://companion:x@127.0.0.1:{_closed_port()}/none"
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "x.db"),
                      "DATABASE_URL": url})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.data.decode().startswith("database: unreachable")
    assert client.get("/rules").status_code == 503  # pages wait for it, no 500
    # The database comes up (here: an empty one, as on a first install).
    up = make_engine(str(tmp_path / "up.db"))
    monkeypatch.setitem(app.extensions, "companion.engine", up)
    app.extensions["companion.schema"].engine = up
    assert client.get("/rules").status_code == 200  # looked at again: schema created
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.data.decode().startswith("ready")
    up.dispose()


def test_the_starts_work_is_done_when_the_database_comes_up(tmp_path, monkeypatch):
    """What a start does on a ready database — the jobs of dead processes cleaned up — is done
    when a database that was down at start comes up; and, as at any start, no summary is
    written by the server (`flask db upgrade` stores them: issue 38)."""
    from datetime import UTC, datetime, timedelta

    from sqlmodel import Session

    from companion import create_app
    from companion.db import make_engine
    from companion.models import ImportJob
    from companion.play import summaries

    path = tmp_path / "up.db"
    create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(path)}
               ).extensions["companion.engine"].dispose()  # a database with its schema
    up = make_engine(str(path))
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    with Session(up) as session:  # a job whose server died while it waited
        session.add(ImportJob(token="ab" * 16, state="waiting", created_at=long_ago,
                              heartbeat_at=long_ago))
        session.commit()
    refreshed: list[object] = []
    monkeypatch.setattr(summaries, "refresh", lambda engine: refreshed.append(engine) or 0)
    url = f"postgresql://companion:x@127.0.0.1:{_closed_port()}/none"
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "x.db"),
                      "DATABASE_URL": url})
    client = app.test_client()
    assert client.get("/rules").status_code == 503 and refreshed == []
    monkeypatch.setitem(app.extensions, "companion.engine", up)
    app.extensions["companion.schema"].engine = up
    assert client.get("/rules").status_code == 200
    with Session(up) as session:
        assert session.get(ImportJob, 1).state == "abandoned"  # the sweep a start does
    assert client.get("/rules").status_code == 200 and refreshed == []  # no start-up write
    up.dispose()


def test_a_hook_failing_after_the_access_line_leaves_one_line_and_one_count(make_app, caplog,
                                                                            monkeypatch):
    """A hook that fails after the access line's own (the database gone under an answer already
    drawn): Flask runs the hooks again on its error page — still one line and one count for the
    request, those of its final answer (a CI run on PostgreSQL saw the 500 line twice)."""
    import logging

    app = make_app(**{"TESTING": False, "PROPAGATE_EXCEPTIONS": False})
    failed: list[int] = []

    def fail_once(response):
        from flask import request

        if request.path == "/rules" and not failed:
            failed.append(response.status_code)
            raise RuntimeError("a hook meets a database gone")
        return response

    app.after_request_funcs.setdefault(None, []).insert(0, fail_once)  # runs after the others
    client = app.test_client()
    before = _metrics(client)
    _to_caplog(caplog, monkeypatch)
    caplog.set_level(logging.INFO, logger="companion.access")
    caplog.clear()
    answer = client.get("/rules")
    assert answer.status_code == 500 and failed == [200]
    rid = answer.headers["X-Request-ID"]
    lines = [r.getMessage() for r in caplog.records
             if r.name == "companion.access" and f"rid={rid}" in r.getMessage()]
    assert len(lines) == 1 and '" 500 ' in lines[0]
    after = _metrics(client)
    assert (_value(after, "companion_requests_total", route="/rules", method="GET", status="500")
            == _value(before, "companion_requests_total", route="/rules", method="GET",
                      status="500") + 1)
    assert (_value(after, "companion_requests_total", route="/rules", method="GET", status="200")
            == _value(before, "companion_requests_total", route="/rules", method="GET",
                      status="200"))
