"""The README's promises on limits and cookies, in one process: writes are counted per client
address across every route together (120 a minute, 30 new games an hour), the JSON API has a
limit of its own answered in its error shape, the real address and scheme are taken from a
trusted proxy's headers and from nowhere else, and cookies are Secure over HTTPS only.

(Across processes and servers, on a shared Redis: tests/web/test_two_servers.py.)
"""

from __future__ import annotations

import socket

import pytest
from sqlalchemy import text

from companion import create_app
from companion.web.security import API_LIMIT, CREATE_LIMIT, WRITE_LIMITS, limit_figures

PER_MINUTE = next(count for count, seconds in limit_figures(WRITE_LIMITS) if seconds == 60)
NEW_GAMES = limit_figures(CREATE_LIMIT)[0][0]
API_PER_MINUTE = limit_figures(API_LIMIT)[0][0]

NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def test_the_figures_are_the_readmes():
    assert (PER_MINUTE, NEW_GAMES, API_PER_MINUTE) == (120, 30, 600)
    assert limit_figures(WRITE_LIMITS) == [(120, 60), (3000, 86400)]


def limited_app(tmp_path, **config):
    return create_app({"DATABASE": str(tmp_path / "t.sqlite"), "TESTING": True,
                       "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": True,
                       **config})


def _new_game(client, **kwargs) -> str:
    response = client.post("/rebel-princess/new", data=NEW_GAME, **kwargs)
    assert response.status_code == 302
    return response.location.rsplit("/", 1)[1]


def _links(app) -> list[tuple]:
    with app.extensions["companion.engine"].connect() as db:
        return list(db.execute(text("SELECT role, token, revoked_at FROM gamelink ORDER BY id")))


def test_writes_are_counted_across_every_route_together(tmp_path):
    """The 120 writes a minute are one count per address, whatever routes they go to: 119
    undos after the game's creation use it up, and the next write, on another route, is
    refused and changes nothing."""
    app = limited_app(tmp_path)
    client = app.test_client()
    token = _new_game(client)  # write 1
    statuses = [client.post("/rebel-princess"
                            f"/g/{token}/undo").status_code for _ in range(PER_MINUTE - 1)]
    assert 429 not in statuses
    links = _links(app)
    refused = client.post(f"/share/{token}/replace/viewer")
    assert refused.status_code == 429 and 'data-error="429"' in refused.text
    assert int(refused.headers["Retry-After"]) in range(1, 61)
    assert _links(app) == links  # the viewer link was not replaced
    assert client.post("/reveillez/new", data={}).status_code == 429  # any other write too
    assert client.get(f"/rebel-princess/g/{token}").status_code == 200  # reading is never limited


def test_refused_writes_count_too(tmp_path):
    """A write refused by the CSRF check still counts: a loop of forged posts is stopped."""
    app = limited_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    statuses = {client.post("/rebel-princess/new", data=NEW_GAME).status_code
                for _ in range(PER_MINUTE)}
    assert statuses == {400}  # no CSRF token: refused
    assert client.post("/reveillez/new", data={}).status_code == 429
    assert _links(app) == []  # no game was made


REVEILLEZ = {"names-0": "Ana", "names-1": "Ben", "names-2": "Cy", "first": "0"}


def test_new_games_of_every_kind_share_one_count(tmp_path):
    """30 new games an hour from one address, whichever games they are; the set-up page's own
    refreshes (the edition switch) and refused forms are not games started."""
    client = limited_app(tmp_path).test_client()
    token = _new_game(client)
    for _ in range(NEW_GAMES // 2 - 1):
        _new_game(client)
    for _ in range(NEW_GAMES - NEW_GAMES // 2):
        refreshed = client.post("/rebel-princess/new", data={"preset": "edition",
                                                             "edition": "classic"})
        assert refreshed.status_code == 200
        assert client.post("/reveillez/new", data={}).status_code != 429  # refused form
        assert client.post("/reveillez/new", data=REVEILLEZ).status_code == 303
    assert client.post("/reveillez/new", data=REVEILLEZ).status_code == 429
    assert client.post("/rebel-princess/new", data=NEW_GAME).status_code == 429
    # Still a place to read, and other writes are not refused.
    assert client.get("/rebel-princess/new").status_code == 200
    assert client.post(f"/rebel-princess/g/{token}/undo").status_code == 302


def test_the_json_api_has_a_generous_limit_answered_in_its_error_shape(tmp_path):
    client = limited_app(tmp_path).test_client()
    token = _new_game(client)
    statuses = [client.post("/api/v1/rebel-princess/standings", json={}).status_code
                for _ in range(API_PER_MINUTE)]
    assert statuses == [422] * API_PER_MINUTE
    refused = client.post("/api/v1/rebel-princess/score-round", json={})
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["problems"][0]["code"] == "too-many-requests" and body["error"]
    assert int(refused.headers["Retry-After"]) in range(1, 61)
    assert client.get("/api/v1/openapi.json").status_code == 429  # every API request counts
    # The pages' writes have their own count, untouched by the API's.
    assert client.post(f"/rebel-princess/g/{token}/undo").status_code == 302


def test_behind_one_trusted_proxy_each_phone_has_its_own_count(tmp_path):
    """With TRUSTED_PROXIES=1 the address the proxy adds to X-Forwarded-For is the client's:
    one phone using up its new games leaves the other phone's count whole."""
    client = limited_app(tmp_path, TRUSTED_PROXIES=1).test_client()
    phone_a = {"X-Forwarded-For": "192.0.2.10"}
    phone_b = {"X-Forwarded-For": "192.0.2.11"}
    for _ in range(NEW_GAMES):
        _new_game(client, headers=phone_a)
    assert client.post("/rebel-princess/new", data=NEW_GAME, headers=phone_a).status_code == 429
    _new_game(client, headers=phone_b)
    # A phone cannot pose as another by adding its own X-Forwarded-For: the proxy appends the
    # real address last, and only that one is believed.
    spoofed = {"X-Forwarded-For": "192.0.2.99, 192.0.2.10"}
    assert client.post("/rebel-princess/new", data=NEW_GAME, headers=spoofed).status_code == 429


def test_without_a_trusted_proxy_forwarded_headers_are_ignored(tmp_path):
    """TRUSTED_PROXIES=0 (the default): anyone could send X-Forwarded-For, so it is ignored and
    the socket's address counts."""
    client = limited_app(tmp_path).test_client()
    for number in range(NEW_GAMES):
        _new_game(client, headers={"X-Forwarded-For": f"192.0.2.{number}"})
    assert client.post("/rebel-princess/new", data=NEW_GAME,
                       headers={"X-Forwarded-For": "192.0.2.200"}).status_code == 429
    other = {"REMOTE_ADDR": "198.51.100.7"}  # another address on the socket itself
    assert client.post("/rebel-princess/new", data=NEW_GAME,
                       environ_base=other).status_code == 302


def test_forwarded_headers_are_believed_only_from_the_proxys_address(tmp_path):
    """A server bound to a public address by mistake, with TRUSTED_PROXIES=1: a request that
    does not come from the proxy (loopback here) keeps its own address, whatever it says it
    was forwarded for — its limit is its own, and ``/metrics`` stays closed to it."""
    client = limited_app(tmp_path, TRUSTED_PROXIES=1).test_client()
    outside = {"REMOTE_ADDR": "203.0.113.5"}
    for number in range(NEW_GAMES):
        _new_game(client, headers={"X-Forwarded-For": f"192.0.2.{number}"},
                  environ_base=outside)
    assert client.post("/rebel-princess/new", data=NEW_GAME, environ_base=outside,
                       headers={"X-Forwarded-For": "192.0.2.200"}).status_code == 429
    forged = client.get("/metrics", environ_base=outside,
                        headers={"X-Forwarded-For": "127.0.0.1"})
    assert forged.status_code == 404
    # Through the proxy (loopback), the address it forwards is the client's.
    assert client.post("/rebel-princess/new", data=NEW_GAME,
                       headers={"X-Forwarded-For": "192.0.2.201"}).status_code == 302
    assert client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200


def _cookies(response) -> dict[str, str]:
    return {value.split("=", 1)[0]: value for value in response.headers.getlist("Set-Cookie")}


def test_cookies_are_secure_behind_an_https_proxy_and_not_over_plain_http(tmp_path):
    client = limited_app(tmp_path, TRUSTED_PROXIES=1).test_client()
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.1"}
    for path in ("/", "/lang/fr?next=/"):
        cookies = _cookies(client.get(path, headers=https))
        assert cookies, path
        for name, cookie in cookies.items():
            flags = [flag.strip() for flag in cookie.split(";")]
            assert {"Secure", "HttpOnly", "SameSite=Lax"} <= set(flags), (path, name)
    # The session cookie in particular (Flask writes it after every after_request hook; it is
    # sent when made or changed, so a new browser's first page).
    fresh = client.application.test_client()
    assert "Secure" in _cookies(fresh.get("/", headers=https))["session"]
    # Over plain HTTP (a home network, `make run`), no Secure: the phone would drop it.
    plain = client.application.test_client()
    for path in ("/", "/lang/fr?next=/"):
        cookies = _cookies(plain.get(path))
        assert path != "/" or "session" in cookies
        for cookie in cookies.values():
            assert "Secure" not in cookie and "HttpOnly" in cookie


def test_a_forwarded_https_is_not_believed_without_a_trusted_proxy(tmp_path):
    client = limited_app(tmp_path).test_client()
    response = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in _cookies(response)["session"]
    # Served over HTTPS directly, it is.
    assert "Secure" in _cookies(client.get("/", base_url="https://table.example"))["session"]


def test_a_bad_trusted_proxies_setting_stops_the_start(tmp_path):
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        limited_app(tmp_path, TRUSTED_PROXIES="two")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_shared_store_that_stops_answering_never_stops_the_table(tmp_path):
    """If Redis goes away, each process counts on its own meanwhile: writes still work, and a
    loop is still stopped."""
    app = limited_app(tmp_path, RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{_closed_port()}")
    client = app.test_client()
    for _ in range(NEW_GAMES):
        _new_game(client)
    assert client.post("/rebel-princess/new", data=NEW_GAME).status_code == 429


def test_a_405_says_which_methods_are_allowed(client):
    page = client.post("/rules")
    assert page.status_code == 405 and "GET" in page.headers["Allow"]
    api = client.get("/api/v1/rebel-princess/score-round")
    assert api.status_code == 405 and api.get_json()["problems"][0]["code"] == \
        "method-not-allowed"
    assert "POST" in api.headers["Allow"]


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/", "/rebel-princess/new", "/rebel-princess/g/" + "a" * 32,
                                  "/live/" + "a" * 32, "/api/v1/rebel-princess/score-round",
                                  "/group/" + "a" * 32 + "/history/export.json",
                                  "/record/" + "a" * 32 + "/export.csv", "/no/such/page"])
def test_a_request_let_through_before_the_limits_is_one_no_limit_counts(tmp_path, method, path):
    """Reads outside the JSON API skip Flask-Limiter at once (its request filter: issue 36,
    a third of a page's cycle otherwise); every limit must agree that such a request is not
    its own — a limit added for some reads (say, exports) must narrow the filter too."""
    from companion.web import security

    app = limited_app(tmp_path)
    limiter = app.extensions["companion.limiter"]
    with app.test_request_context(path, method=method):
        adapter = app.url_map.bind("localhost")
        try:
            endpoint, args = adapter.match(path, method=method)
        except Exception:  # no such page, or not that method: the request has no endpoint
            endpoint, args = None, {}
        from flask import request
        request.url_rule = None
        request.view_args = args
        if endpoint is not None:
            request.environ["companion.endpoint"] = endpoint
            request.url_rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
        if not security._counted_by_none():
            return
        for limit in limiter.limit_manager.application_limits:
            assert limit.exempt_when is not None and limit.exempt_when(), (limit.scope, endpoint)
