"""The audit of the README's safety promises (``python -m companion.ops.audit``) runs against a
real server here: every promise kept, over plain HTTP and behind an HTTPS proxy; it notices a
server that breaks them; and the README states the figures the code uses."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from companion import create_app
from companion.ops import audit
from companion.web.security import (
    API_LIMIT,
    CREATE_LIMIT,
    RESTORE_LIMIT,
    WRITE_LIMITS,
    limit_figures,
)

README = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"  # (its promises)


def served(wsgi_app):
    server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture
def serve(tmp_path):
    running = []

    def start(wsgi_app) -> str:
        server, thread = served(wsgi_app)
        running.append((server, thread))
        return f"http://127.0.0.1:{server.server_port}/"

    yield start
    for server, thread in running:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def real_app(tmp_path, **config):
    """The app as `make run` configures it (CSRF and limits on), on a fresh database."""
    return create_app({"DATABASE": str(tmp_path / "audit.sqlite"), "SECRET_KEY": "audit",
                       "RATELIMIT_ENABLED": True, **config})


def _failed(findings):
    return [finding.line() for finding in findings if not finding.kept]


def test_every_promise_is_kept_over_plain_http(tmp_path, serve):
    findings = audit.audit(serve(real_app(tmp_path)), create_games=True)
    assert _failed(findings) == []
    promises = " ".join(finding.promise for finding in findings)
    for promise in ("120 writes a minute", "30 new games an hour", "600 JSON API requests",
                    "Secure only over HTTPS", "413", "nosniff", "frame", "styles from this site"):
        assert promise in promises


def test_every_promise_is_kept_behind_an_https_proxy(tmp_path, serve):
    """Behind one trusted proxy that speaks HTTPS to the phones: cookies Secure, and the limits
    counted for the phone's address, not the proxy's."""
    app = real_app(tmp_path, TRUSTED_PROXIES=1)

    def proxy(environ, start_response):  # what nginx adds (see the README)
        environ["HTTP_X_FORWARDED_PROTO"] = "https"
        environ["HTTP_X_FORWARDED_FOR"] = "203.0.113.9"
        return app(environ, start_response)

    findings = audit.audit(serve(proxy), https=True)
    assert _failed(findings) == []
    assert any("cookie is Secure (HTTPS)" in finding.promise for finding in findings)


def test_the_audit_notices_a_server_that_breaks_its_promises(tmp_path, serve):
    app = real_app(tmp_path, RATELIMIT_ENABLED=False, MAX_CONTENT_LENGTH=None)

    def frameable(environ, start_response):  # a proxy that drops a header on the way
        def start(status, headers, *args):  # (and lets inline styles in)
            kept = [(name, value.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"))
                    for name, value in headers if name != "X-Frame-Options"]
            return start_response(status, kept, *args)
        return app(environ, start)

    failed = "\n".join(_failed(audit.audit(serve(frameable), create_games=True)))
    assert "never inside another site's frame" in failed
    assert "styles from this site only" in failed
    assert "refused with 413" in failed
    assert "120 writes a minute" in failed and "30 new games" in failed
    assert "600 JSON API requests" in failed


def test_the_command_prints_each_promise_and_fails_when_one_is_broken(tmp_path, serve, capsys):
    address = serve(real_app(tmp_path))
    assert audit.main([address, "--no-limits"]) == 0
    out = capsys.readouterr().out
    assert "ok    /: nosniff" in out and "FAIL" not in out and "promises kept" in out
    # Told the server is behind HTTPS when it is not: its cookies are not Secure, and it says so.
    assert audit.main([address, "--no-limits", "--https"]) == 1
    assert "FAIL  the session cookie is Secure (HTTPS)" in capsys.readouterr().out


def _readme_limits() -> str:
    text = README.read_text(encoding="utf-8")
    return re.search(r"rate-limited.*?\.\s", text, re.S)[0]


def test_the_readme_states_the_limits_the_code_applies():
    sentence = " ".join(_readme_limits().split())
    (writes, minute), (daily, day) = limit_figures(WRITE_LIMITS)
    ((created, hour),) = limit_figures(CREATE_LIMIT)
    ((api, api_minute),) = limit_figures(API_LIMIT)
    assert (minute, day, hour, api_minute) == (60, 86400, 3600, 60)
    assert f"{writes} a minute" in sentence and f"{daily:,} a day" in sentence
    assert f"{created} games started an hour" in sentence
    assert f"{api} requests a minute" in sentence
    (restores, _), (restores_daily, _) = limit_figures(RESTORE_LIMIT)
    assert f"{restores} restores without a link an hour and {restores_daily} a day" in sentence
    assert "every route together" in sentence and "RATELIMIT_STORAGE_URI" in sentence
