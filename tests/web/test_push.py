"""companion.play.push: what the app publishes to the proxy after each commit that changes a
game, to which channel, and that a publish never fails a save (a fake publisher here records the
POSTs and DELETEs; tests/ops/test_push.py runs the real nginx with Nchan)."""

from __future__ import annotations

import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from companion.db import get_session
from companion.play import groups, push, store
from companion.web import metrics

NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
SCORES = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])}, "confirm": "y"}
VERSION = re.compile(r"^\d+-\d+\.\d{6}$")


class Publisher(ThreadingHTTPServer):
    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                outer.seen.append((self.command, self.path, self.rfile.read(size).decode()))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_DELETE = _record

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def publisher(app):
    server = Publisher()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app.config["LIVE_PUSH_PUBLISH_URL"] = f"http://127.0.0.1:{server.server_address[1]}/pub/"
    yield server
    server.shutdown()
    server.server_close()


def _new_game(client) -> tuple[str, str]:
    answer = client.post("/rebel-princess/new", data=NEW_GAME)
    assert answer.status_code == 302
    path = answer.headers["Location"]
    return path, path.rsplit("/", 1)[1]


def _push_url(client, path: str) -> str | None:
    found = re.search(r'data-push-url="([^"]+)"', client.get(path).text)
    return found[1] if found else None


def _version(client, path: str) -> str:
    found = re.search(r'data-live-version="([^"]+)"', client.get(path).text)
    assert found is not None
    return found[1]


def test_without_a_publisher_pages_poll_and_nothing_is_pushed(app, client):
    path, _ = _new_game(client)
    page = client.get(path).text
    assert "data-live-url=" in page and "data-push-url" not in page


def test_a_save_publishes_the_new_version_to_the_games_unguessable_channel(
        app, client, publisher):
    path, token = _new_game(client)
    url = _push_url(client, path)
    assert url is not None and url.startswith("/live-push/") and token not in url
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None and game.id is not None
        ids = [link.id for link in store.live_links(session, game)]
        assert url == "/live-push/" + push.channel("test", game.id, ids)
        assert push.channel("other secret", game.id, ids) not in url
    channel = url.rsplit("/", 1)[1]
    publisher.seen.clear()
    entry = path.replace(f"/g/{token}", f"/g/{token}") + "/round/1/numbers"
    answer = client.post(entry, data=SCORES)
    assert answer.status_code == 302, answer.text[-300:]
    assert ("POST", f"/pub/{channel}", _version(client, path)) in publisher.seen
    # Only versions are ever published: never a score, a pick or a token.
    assert all(VERSION.match(body) for _, _, body in publisher.seen)


def test_a_replaced_link_closes_the_old_channel_and_moves_to_a_new_one(app, client, publisher):
    path, token = _new_game(client)
    old = _push_url(client, path)
    assert old is not None
    publisher.seen.clear()
    answer = client.post(f"/share/{token}/replace/viewer")
    assert answer.status_code == 303
    new = _push_url(client, path)
    assert new is not None and new != old
    old_channel, new_channel = old.rsplit("/", 1)[1], new.rsplit("/", 1)[1]
    assert ("POST", f"/pub/{old_channel}", "closed") in publisher.seen
    assert ("DELETE", f"/pub/{old_channel}", "") in publisher.seen
    assert ("POST", f"/pub/{new_channel}", _version(client, path)) in publisher.seen


def test_a_deleted_group_tells_its_games_channels_gone(app, client, publisher):
    path, token = _new_game(client)
    url = _push_url(client, path)
    assert url is not None
    publisher.seen.clear()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None
        assert groups.delete_group(session=session, group_id=game.group_id)
    old = url.replace("/live-push/", "/pub/")
    assert ("POST", old, "gone") in publisher.seen
    assert ("DELETE", old, "") in publisher.seen


def test_a_publisher_down_never_fails_a_save_and_is_counted(app, client):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app.config["LIVE_PUSH_PUBLISH_URL"] = f"http://127.0.0.1:{port}/pub/"
    path, token = _new_game(client)
    before = metrics.PUBLISHES.labels(result="failed")._value.get()
    answer = client.post(f"{path}/round/1/numbers", data=SCORES)
    assert answer.status_code == 302
    assert metrics.PUBLISHES.labels(result="failed")._value.get() > before
    assert 'data-winners' in client.get(path).text or client.get(path).status_code == 200
