"""A page behind a proxy that pushes (companion.play.push, app.js): it listens on the stream the
page names, polls /live every second while the stream cannot open, stops polling once it is open,
reloads on a pushed version without a poll, and falls back to polling when the stream is killed,
then goes back to the stream. The proxy's subscriber location is played here by a small WSGI
stand-in in front of the real app (tests/ops/test_push.py runs the real nginx with Nchan)."""

from __future__ import annotations

import queue
import socket
import time

import pytest
from playwright.sync_api import Browser, expect

from companion import create_app

from .conftest import start_server
from .test_browser_kanai_duel import set_up
from .test_browser_table import new_game

pytestmark = pytest.mark.browser


class FakeSubscriber:
    """``/live-push/…`` answered here (503 while ``up`` is False, else an event stream fed by
    :meth:`send`); every other request goes to the app, ``/live/…`` polls counted."""

    def __init__(self, app) -> None:
        self.app, self.up, self.polls, self.opened = app, False, 0, 0
        self.streams: list[queue.Queue[str | None]] = []

    def send(self, data: str | None) -> None:
        for stream in self.streams:
            stream.put(data)

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith("/live/"):
            self.polls += 1
        if not path.startswith("/live-push/"):
            return self.app(environ, start_response)
        if not self.up:
            start_response("503 Service Unavailable", [("Content-Length", "0")])
            return [b""]
        mine: queue.Queue[str | None] = queue.Queue()
        self.streams.append(mine)
        self.opened += 1
        start_response("200 OK", [("Content-Type", "text/event-stream"),
                                  ("Cache-Control", "no-cache")])

        def stream():
            yield b": open\n\n"
            while True:
                try:
                    data = mine.get(timeout=0.5)
                except queue.Empty:
                    yield b": beat\n\n"
                    continue
                if data is None:  # the stream is killed
                    self.streams.remove(mine)
                    return
                yield f"data: {data}\n\n".encode()

        return stream()


def _until(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("not in time")
        time.sleep(0.1)


def _serve(tmp_path):
    """The app (publishing nowhere: no proxy here) behind the stand-in subscriber."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nowhere = s.getsockname()[1]
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "b.sqlite"),
                      "LIVE_PUSH_PUBLISH_URL": f"http://127.0.0.1:{nowhere}/pub/"})
    proxy = FakeSubscriber(app.wsgi_app)
    app.wsgi_app = proxy  # type: ignore[method-assign]
    base, stop = start_server(app)
    return proxy, base, stop


def test_stream_then_polling_when_it_drops_then_stream_again(
        browser: Browser, browser_context_args, tmp_path):
    proxy, base, stop = _serve(tmp_path)
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    try:
        new_game(page, base, ["Ana", "Ben", "Cy", "Di"])
        assert page.locator("body[data-push-url^='/live-push/']").count() == 1
        # The stream cannot open: the page polls every second.
        start = proxy.polls
        time.sleep(3)
        assert proxy.polls - start >= 2
        # The stream opens (the page tries again after 2, 4 … s): the polling stops.
        proxy.up = True
        _until(lambda: proxy.opened >= 1)
        time.sleep(1)
        start = proxy.polls
        time.sleep(3)
        assert proxy.polls - start == 0
        # A pushed version reloads the page, with no poll before it.
        page.evaluate("window.beforePush = 1")
        proxy.send("1-2.000000")
        page.wait_for_function("() => window.beforePush === undefined", timeout=20000)
        expect(page.locator("#this-round")).to_be_visible()
        # The stream is killed: polling every second at once, then the stream again.
        _until(lambda: len(proxy.streams) >= 1)
        opened = proxy.opened
        proxy.up = False
        proxy.send(None)
        start = proxy.polls
        time.sleep(2.5)
        assert proxy.polls - start >= 2
        proxy.up = True
        _until(lambda: proxy.opened > opened)
        time.sleep(1)
        start = proxy.polls
        time.sleep(3)
        assert proxy.polls - start == 0
    finally:
        proxy.send(None)
        context.close()
        stop()


def test_a_duel_swaps_its_board_on_a_pushed_version_without_a_poll(
        browser: Browser, browser_context_args, tmp_path):
    """The duel's board listens to the same stream: a pushed version it has not seen fetches the
    board and swaps it in (the page not reloaded, no poll: a poll would have found nothing new,
    the game being unchanged); the stream killed, the board polls every 1.5 s again."""
    proxy, base, stop = _serve(tmp_path)
    proxy.up = True
    context = browser.new_context(**browser_context_args)
    one = context.new_page()
    try:
        set_up(one, base)
        one.wait_for_selector("body[data-stream=open]")  # this phone listens (no more polling)
        time.sleep(1)
        one.evaluate("window.notReloaded = 1; document.getElementById('board').old = 1")
        start = proxy.polls
        proxy.send("1-2.000000")  # a version this page has not seen
        one.wait_for_function("() => document.getElementById('board').old === undefined",
                              timeout=10000)  # a fresh board, swapped in
        one.wait_for_function("() => window.notReloaded === 1", timeout=5000)  # not reloaded
        assert proxy.polls == start
        # The stream is killed: the board asks every 1.5 s again.
        proxy.up = False
        proxy.send(None)
        one.wait_for_selector("body[data-stream=down]")
        start = proxy.polls
        time.sleep(4)
        assert proxy.polls - start >= 2
    finally:
        proxy.send(None)
        context.close()
        stop()
