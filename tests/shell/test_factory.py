"""The app's files: the instance folder, the database and the secret key are private."""

from __future__ import annotations

import stat

from companion import create_app
from companion.factory import _secret_key


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_is_readable_by_its_owner_only(tmp_path):
    create_app({"DATABASE": str(tmp_path / "games.sqlite"), "TESTING": True,
                "SECRET_KEY": "t"})
    assert _mode(tmp_path / "games.sqlite") == 0o600


def test_the_secret_key_is_private_from_its_first_byte(tmp_path):
    key = _secret_key(tmp_path)
    assert _mode(tmp_path / "secret_key") == 0o600
    assert len(key) == 64 and _secret_key(tmp_path) == key  # made once, then read


def test_nested_json_is_refused_in_the_json_shape(client):
    """A body nested 20,000 deep (40 kB) is a 400 with the error shape, never a 500."""
    for path in ("/api/v1/rebel-princess/score-round", "/api/v1/rebel-princess/next-leader",
                 "/api/v1/rebel-princess/standings", "/api/v1/rebel-princess/check-round"):
        response = client.post(path, data="[" * 20_000, content_type="application/json")
        assert response.status_code == 400, path
        assert response.get_json()["problems"][0]["code"] == "malformed-json"


def test_a_get_on_an_api_endpoint_is_a_json_405(client):
    response = client.get("/api/v1/rebel-princess/score-round")
    assert response.status_code == 405
    assert response.get_json()["problems"][0]["code"] == "method-not-allowed"
    missing = client.post("/api/v1/rebel-princess/nope", json={})
    assert missing.status_code == 404 and missing.get_json()["problems"][0]["code"] == "not-found"


def test_every_page_carries_the_security_headers(client):
    for path in ("/", "/new", "/rebel-princess/new", "/rules", "/api/v1/openapi.json"):
        headers = client.get(path).headers
        directives = dict(d.strip().split(" ", 1) for d in
                          headers["Content-Security-Policy"].split(";"))
        assert directives["script-src"] == "'self'"
        csp = headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"


def test_cookies_are_secure_over_https_and_http_only(client):
    response = client.get("/lang/fr?next=/", base_url="https://table.example")
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    plain = client.get("/lang/fr?next=/").headers["Set-Cookie"]
    assert "Secure" not in plain


def test_creating_games_in_a_loop_is_stopped_with_a_clear_page(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "t.sqlite"), "TESTING": True,
                      "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True})
    client = app.test_client()
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    statuses = [client.post("/rebel-princess/new", data=data).status_code for _ in range(32)]
    assert statuses[:30] == [302] * 30 and statuses[30:] == [429, 429]
    page = client.post("/rebel-princess/new", data=data)
    assert 'data-error="429"' in page.text
    assert client.get("/").status_code == 200  # reading is never limited


def test_counting_writes_starts_no_thread(tmp_path, monkeypatch):
    """The write limits count in this process without a thread per write (limits' own in-memory
    store starts a timer thread on a write that comes over 10 ms after its last sweep), and still
    stop a loop."""
    import threading
    import time

    from companion.web.security import QuietMemoryStorage

    app = create_app({"DATABASE": str(tmp_path / "t.sqlite"), "TESTING": True,
                      "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True})
    client = app.test_client()
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    client.post("/rebel-princess/new", data=data)
    started = []
    monkeypatch.setattr(threading.Thread, "start", lambda thread: started.append(thread))
    statuses = []
    for _ in range(4):
        time.sleep(0.02)  # (past the 10 ms after which limits' store would start a new timer)
        statuses.append(client.post("/rebel-princess/new", data=data).status_code)
    assert statuses == [302] * 4 and started == []
    storage = QuietMemoryStorage()
    storage.incr("k", 1)
    assert storage.get("k") == 1
    storage.expirations["k"] = time.time() - 1  # expired: read as nothing, swept when due
    assert storage.get("k") == 0
    storage.incr("old", 1)
    storage.expirations["old"] = time.time() - 1
    storage._swept -= QuietMemoryStorage.SWEEP_EVERY
    storage.incr("k", 1)
    assert "old" not in storage.storage and storage.get("k") == 1
