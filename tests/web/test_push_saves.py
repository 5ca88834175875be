"""Push for the saves written through Core (``store.append``: the Kanai duel, Princesse
Princesse, Réveillez): no ORM row moves, yet each save publishes the game's new version to its
channel, as a Rebel Princess save does (``tests/web/test_push.py``)."""

from __future__ import annotations

import re

from .test_push import VERSION, _push_url, _version, publisher  # noqa: F401  (a fixture)


def test_a_duel_round_publishes_the_new_version(app, client, publisher):  # noqa: F811
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert new.status_code == 303
    path = new.headers["Location"]
    url = _push_url(client, path)
    assert url is not None
    channel = url.rsplit("/", 1)[1]
    version = re.search(r'data-version="(\d+)"', client.get(path).text)[1]
    publisher.seen.clear()
    answer = client.post(f"{path}/round", data={
        "first": "general", "second": "minister", "version": version})
    assert answer.status_code == 303
    assert ("POST", f"/pub/{channel}", _version(client, path)) in publisher.seen
    assert all(VERSION.match(body) for _, _, body in publisher.seen)


def test_a_refused_duel_round_publishes_nothing(app, client, publisher):  # noqa: F811
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    path = new.headers["Location"]
    publisher.seen.clear()
    stale = client.post(f"{path}/round", data={
        "first": "general", "second": "minister", "version": "7"})
    assert stale.status_code == 409
    assert publisher.seen == []
