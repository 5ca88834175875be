"""companion.play.push: what the app publishes to the proxy after each commit that changes a
game, to which channel, and that a publish never fails a save (a fake publisher here records the
POSTs and DELETEs; tests/ops/test_push.py runs the real nginx with Nchan)."""

from __future__ import annotations

import dataclasses
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from companion.db import get_session
from companion.play import groups, push, store
from companion.routes import live
from companion.web import metrics

NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
SCORES = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])}, "confirm": "y"}
VERSION = re.compile(r"^\d+-\d+\.\d{6}$")


class Publisher(ThreadingHTTPServer):
    """Records what the app sends the publisher location, and answers a channel's ``GET`` as
    Nchan does, with its streams: one on each channel of ``listening``, none elsewhere."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []
        self.listening: set[str] = set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # kept alive, as nginx does

            def _record(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                outer.seen.append((self.command, self.path, self.rfile.read(size).decode()))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                name = self.path.rsplit("/", 1)[1]
                body = b'{"messages": 1, "requested": 0, "subscribers": %d}' % (
                    name in outer.listening)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

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


def test_on_postgresql_a_connection_the_database_dropped_fails_no_save_nor_publish(
        app, client, publisher):
    """The game's new version is read after the commit on the polls' reader, which does not
    ping its connections: one the database dropped (a restart, an idle timeout) is tried once
    more on a new one, so the save is answered and its version published."""
    from sqlalchemy import text

    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")
    path, token = _new_game(client)
    url = _push_url(client, path)  # (the reader's pool now holds a connection)
    assert url is not None
    with engine.connect() as connection:  # every other connection to this database dropped
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    assert dropped and dropped >= 1
    publisher.seen.clear()
    answer = client.post(f"{path}/round/1/numbers", data=SCORES)
    assert answer.status_code == 302, answer.text[-300:]
    posts = [(name, body) for method, name, body in publisher.seen if method == "POST"]
    assert (url.replace("/live-push/", "/pub/"), _version(client, path)) in posts


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


# --- a viewer's page: its live part pushed, drawn once per change and language ------------------

KEYS = re.compile(r'(name="(?:key|csrf_token)"[^>]*value=")[^"]*"'
                  r'|(value=")[^"]*("[^>]*name="(?:key|csrf_token)")')


def _part(page: str) -> str:
    """The live part of a viewer's page, each browser's own values (form keys, CSRF) blanked."""
    start = page.index(live.LIVE_PART) + len(live.LIVE_PART)
    part = page[start:page.index(live.LIVE_PART_END, start)]
    return KEYS.sub(lambda m: (m[1] or m[2]) + '"' + (m[3] or ""), part)


def _viewer(client, path: str) -> str:
    """The game's page through its viewer link (the game at ``path``, opened by its scorer)."""
    token = path.rsplit("/", 1)[1]
    with client.application.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None
        viewer = store.links_of(session, game)["viewer"].token
    return path.replace(token, viewer)


def test_a_viewers_page_listens_on_its_languages_channel_and_marks_its_live_part(
        app, client, publisher):
    path, token = _new_game(client)
    viewer = _viewer(client, path)
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None and game.id is not None
        ids = [link.id for link in store.live_links(session, game)]
    for lang in ("en", "fr"):
        page = client.get(viewer, headers={"Accept-Language": lang}).text
        url = re.search(r'data-push-url="([^"]+)"', page)
        assert url is not None
        assert url[1] == "/live-push/" + push.channel("test", game.id, ids, f"viewer-{lang}")
        assert live.LIVE_PART in page and live.LIVE_PART_END in page
    # The scorer's page listens on the game's own channel and has no part swapped in.
    scorer = client.get(path).text
    assert f'data-push-url="/live-push/{push.channel("test", game.id, ids)}"' in scorer
    assert live.LIVE_PART not in scorer


def test_a_save_pushes_the_viewers_part_drawn_in_their_language(app, client, publisher):
    path, token = _new_game(client)
    viewer = _viewer(client, path)
    fr = re.search(r'data-push-url="/live-push/([0-9a-f]+)"',
                   client.get(viewer, headers={"Accept-Language": "fr"}).text)
    en = re.search(r'data-push-url="/live-push/([0-9a-f]+)"', client.get(viewer).text)
    own = re.search(r'data-push-url="/live-push/([0-9a-f]+)"', client.get(path).text)
    assert fr is not None and en is not None and own is not None
    publisher.listening = {fr[1]}  # French phones watch; nobody in English
    publisher.seen.clear()
    assert client.post(f"{path}/round/1/numbers", data=SCORES).status_code == 302
    version = _version(client, path)
    posts = {name: body for method, name, body in publisher.seen if method == "POST"}
    assert posts[f"/pub/{own[1]}"] == version
    assert posts[f"/pub/{en[1]}"] == version  # nobody listens: the version alone
    told, _, part = posts[f"/pub/{fr[1]}"].partition("\n")
    assert told == version
    # The part is the one a French viewer loads now: the new scores, in French, nothing more.
    page = client.get(viewer, headers={"Accept-Language": "fr"}).text
    assert _part(f"{live.LIVE_PART}{part}{live.LIVE_PART_END}") == _part(page)
    assert "Manche" in part and token not in part
    assert 'data-push-url' not in part and "data-theme-pick" not in part


def test_a_viewers_part_of_a_duel_holds_no_pick_before_both_are_in(app, publisher):
    from tests.kanai_duel.test_kanai_duel_web import (
        join,
        join_path,
        new_game,
        version_of,
        viewer_url,
    )
    first, second = app.test_client(), app.test_client()
    url = new_game(first, mode="phones")
    url2 = join(second, join_path(first, url))
    watch = viewer_url(first, url)
    channel = re.search(r'data-push-url="/live-push/([0-9a-f]+)"', first.get(watch).text)
    assert channel is not None
    publisher.listening = {channel[1]}
    publisher.seen.clear()
    answer = second.post(url2 + "/pick", data={"card": "assassin", "round": 1,
                                                "version": version_of(second, url2)})
    assert answer.status_code == 303
    pushed = [body for method, name, body in publisher.seen
              if method == "POST" and name == f"/pub/{channel[1]}"]
    assert pushed and "\n" in pushed[-1]
    part = pushed[-1].partition("\n")[2]
    assert _part(f"{live.LIVE_PART}{part}{live.LIVE_PART_END}") == _part(
        app.test_client().get(watch).text)
    assert "assassin" not in part.lower() and "Assassin" not in part


@pytest.mark.parametrize("way", ["raises", "no answer", "too large"])
def test_a_drawing_or_a_proxy_that_fails_sends_the_version_alone(app, client, publisher,
                                                                  monkeypatch, way):
    path, token = _new_game(client)
    viewer = _viewer(client, path)
    en = re.search(r'data-push-url="/live-push/([0-9a-f]+)"', client.get(viewer).text)
    assert en is not None
    publisher.listening = {en[1]}
    if way == "raises":
        engine = app.extensions["companion.engine"]

        def broken(game_id: int, lang: str) -> str:
            raise RuntimeError("a template that fails")
        monkeypatch.setitem(push._PUBLISHERS, engine,
                            dataclasses.replace(push._PUBLISHERS[engine], draw=broken))
    elif way == "too large":  # a part the proxy would not take whole (deploy/nginx)
        monkeypatch.setattr(push, "PART_MAX_BYTES", 1000)
    else:
        monkeypatch.setattr(push, "listeners", lambda publisher, name: 0)
    publisher.seen.clear()
    assert client.post(f"{path}/round/1/numbers", data=SCORES).status_code == 302
    posts = {name: body for method, name, body in publisher.seen if method == "POST"}
    assert posts[f"/pub/{en[1]}"] == _version(client, path)


def _every_channel(client, path: str) -> set[str]:
    """The channels the game's pages listen on: the scorer's, and its viewers' in English and in
    French (three, all different)."""
    viewer = _viewer(client, path)
    names = {re.search(r'data-push-url="/live-push/([0-9a-f]+)"',
                       client.get(p, headers={"Accept-Language": lang}).text)[1]
             for p, lang in ((path, "en"), (viewer, "en"), (viewer, "fr"))}
    assert len(names) == 3
    return names


def test_a_replaced_link_closes_every_channel_of_the_game(app, client, publisher):
    path, token = _new_game(client)
    old = _every_channel(client, path)
    publisher.seen.clear()
    assert client.post(f"/share/{token}/replace/viewer").status_code == 303
    for name in old:
        assert ("POST", f"/pub/{name}", "closed") in publisher.seen
        assert ("DELETE", f"/pub/{name}", "") in publisher.seen


def test_a_deleted_group_tells_every_channel_of_its_games_gone(app, client, publisher):
    path, token = _new_game(client)
    names = _every_channel(client, path)
    publisher.seen.clear()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None
        assert groups.delete_group(session=session, group_id=game.group_id)
    for name in names:
        assert ("POST", f"/pub/{name}", "gone") in publisher.seen
        assert ("DELETE", f"/pub/{name}", "") in publisher.seen


def test_a_viewers_other_pages_listen_on_the_games_own_channel(app, client, publisher):
    """Only the game's own page gets the viewers' part: a viewer's history page (another page,
    drawn alike for every viewer but not the part pushed) listens on the game's own channel and
    reloads on a change."""
    path, token = _new_game(client)
    viewer = _viewer(client, path)
    own = re.search(r'data-push-url="([^"]+)"', client.get(path).text)
    history = client.get(f"{viewer}/history", headers={"Accept-Language": "fr"})
    assert history.status_code == 200 and own is not None
    assert f'data-push-url="{own[1]}"' in history.text
    assert live.LIVE_PART not in history.text
