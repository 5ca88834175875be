"""A tap at the table is counted against the write limits before Flask-Limiter's own check
(companion.web.security.WriteCount, issue 36): the same counts as Flask-Limiter's — shared with
the writes it counts itself (a new game), kept in each process while the shared store is down —
and the same refusal."""

from __future__ import annotations

import socket

from companion.web.security import WRITE_LIMITS, limit_figures

from .test_security import NEW_GAME, limited_app

PER_MINUTE = next(count for count, seconds in limit_figures(WRITE_LIMITS) if seconds == 60)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _undos_then_refused(app) -> None:
    client = app.test_client()
    new = client.post("/rebel-princess/new", data=NEW_GAME)  # counted by Flask-Limiter
    assert new.status_code == 302
    token = new.location.rsplit("/", 1)[1]
    undos = {client.post(f"/rebel-princess/g/{token}/undo").status_code
             for _ in range(PER_MINUTE - 1)}  # counted before it
    assert 429 not in undos
    refused = client.post(f"/rebel-princess/g/{token}/undo")
    assert refused.status_code == 429 and 'data-error="429"' in refused.text
    assert int(refused.headers["Retry-After"]) in range(1, 61)
    # The count Flask-Limiter checks for a new game is the same one.
    assert client.post("/rebel-princess/new", data=NEW_GAME).status_code == 429


def test_taps_and_new_games_share_one_write_count(tmp_path):
    _undos_then_refused(limited_app(tmp_path))


def test_while_the_shared_store_is_down_taps_are_still_counted_in_the_process(tmp_path):
    app = limited_app(tmp_path, RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{_closed_port()}")
    _undos_then_refused(app)


def test_a_tap_from_another_address_has_its_own_count(tmp_path):
    app = limited_app(tmp_path)
    client = app.test_client()
    new = client.post("/rebel-princess/new", data=NEW_GAME)
    token = new.location.rsplit("/", 1)[1]
    for _ in range(PER_MINUTE):
        client.post(f"/rebel-princess/g/{token}/undo")
    assert client.post(f"/rebel-princess/g/{token}/undo").status_code == 429
    other = client.post(f"/rebel-princess/g/{token}/undo",
                        environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 302


def test_a_tap_is_counted_by_the_write_count_not_by_flask_limiters_check(tmp_path, monkeypatch):
    """The write count hooks into a method of Flask-Limiter's own (its check of a request): a
    Flask-Limiter that renamed it would still count every tap, through its slower path; this
    says so instead of letting the saving go unnoticed."""
    from flask_limiter import Limiter

    from companion.web import security

    seen: list[bool] = []
    counted = security.WriteCount.__call__

    def spy(self):
        seen.append(counted(self))
        return seen[-1]

    monkeypatch.setattr(security.WriteCount, "__call__", spy)
    flask_limiters_check: list[str] = []
    original = Limiter._check_request_limit

    def check(self, *args, **kwargs):
        flask_limiters_check.append("checked")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Limiter, "_check_request_limit", check)
    app = limited_app(tmp_path)
    client = app.test_client()
    token = client.post("/rebel-princess/new", data=NEW_GAME).location.rsplit("/", 1)[1]
    seen.clear()
    flask_limiters_check.clear()
    assert client.post(f"/rebel-princess/g/{token}/undo").status_code == 302
    assert seen == [True] and flask_limiters_check == []


def test_no_limit_of_flask_limiters_own_applies_to_a_tap(tmp_path):
    """The write count stands in for Flask-Limiter's check of a tap only while no route or
    blueprint has a limit of its own, and every blueprint exempted is known to it: a
    ``limiter.limit`` or ``limiter.exempt`` added later fails here until WriteCount is kept in
    step (companion.web.security)."""
    app = limited_app(tmp_path)
    manager = app.extensions["companion.limiter"].limit_manager
    assert manager._decorated_limits == {} and manager._blueprint_limits == {}
    assert manager._route_exemptions == {}
    assert set(manager._blueprint_exemptions) <= app.extensions.get("companion.unlimited", set())
