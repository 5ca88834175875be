"""A page behind a proxy that pushes (companion.play.push, app.js): it listens on the stream the
page names, polls /live every second while the stream cannot open, stops polling once it is open,
reloads on a pushed version without a poll, and falls back to polling when the stream is killed,
then goes back to the stream. The proxy's subscriber location is played here by a small WSGI
stand-in in front of the real app (tests/ops/test_push.py runs the real nginx with Nchan)."""

from __future__ import annotations

import queue
import re
import socket
import time

import pytest
from playwright.sync_api import Browser, expect

from companion import create_app

from .conftest import start_server
from .test_browser_kanai_duel import set_up
from .test_browser_table import by_numbers, new_game

pytestmark = pytest.mark.browser


class FakeSubscriber:
    """``/live-push/<channel>`` answered here (503 while ``up`` is False, else an event stream fed
    by :meth:`send`, or by the app's publishes to ``/pub/<channel>``, answered here too, as
    Nchan's publisher location does); every other request goes to the app, ``/live/…`` polls
    counted."""

    def __init__(self, app) -> None:
        self.app, self.up, self.polls, self.opened = app, False, 0, 0
        self.streams: list[tuple[str, queue.Queue[str | None]]] = []

    def send(self, data: str | None, channel: str | None = None) -> None:
        for name, stream in list(self.streams):
            if channel is None or name == channel:
                stream.put(data)

    def _publisher(self, environ, start_response):
        channel = environ["PATH_INFO"].rsplit("/", 1)[1]
        body = b""
        if environ["REQUEST_METHOD"] == "GET":
            count = sum(1 for name, _ in self.streams if name == channel)
            body = b'{"messages": 1, "requested": 0, "subscribers": %d}' % count
        elif environ["REQUEST_METHOD"] == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            self.send(environ["wsgi.input"].read(size).decode(), channel)
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.startswith("/live/"):
            self.polls += 1
        if path.startswith("/pub/"):
            return self._publisher(environ, start_response)
        if not path.startswith("/live-push/"):
            return self.app(environ, start_response)
        if not self.up:
            start_response("503 Service Unavailable", [("Content-Length", "0")])
            return [b""]
        mine: queue.Queue[str | None] = queue.Queue()
        entry = (path.rsplit("/", 1)[1], mine)
        self.streams.append(entry)
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
                    self.streams.remove(entry)
                    return
                lines = "".join(f"data: {line}\n" for line in data.split("\n"))
                yield f"{lines}\n".encode()

        return stream()


def _until(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("not in time")
        time.sleep(0.1)


def _serve(tmp_path, publish: bool = False):
    """The app behind the stand-in subscriber, publishing to the stand-in's publisher location
    when ``publish`` (else nowhere: a port nothing listens on)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nowhere = s.getsockname()[1]
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "b.sqlite"),
                      "LIVE_PUSH_PUBLISH_URL": f"http://127.0.0.1:{nowhere}/pub/"})
    proxy = FakeSubscriber(app.wsgi_app)
    app.wsgi_app = proxy  # type: ignore[method-assign]
    base, stop = start_server(app)
    if publish:
        app.config["LIVE_PUSH_PUBLISH_URL"] = f"{base}/pub/"
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


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_viewers_page_swaps_in_its_pushed_part_with_no_request(
        browser: Browser, browser_context_args, tmp_path, artifacts, lang):
    """A viewer's page (another phone, in its own language) gets the scorer's save as its live
    part drawn in that language, on its stream: swapped in, with no reload, no poll and no
    request of its own; what it shows is the new round and the scores just saved."""
    proxy, base, stop = _serve(tmp_path, publish=True)
    proxy.up = True
    scorer_context = browser.new_context(**browser_context_args)
    viewer_context = browser.new_context(**{**browser_context_args,
                                            "locale": "fr-FR" if lang == "fr" else "en-GB"})
    try:
        scorer = scorer_context.new_page()
        token = new_game(scorer, base, ["Ana", "Ben", "Cy", "Di"])
        scorer.goto(f"{base}/share/{token}")
        viewers = set(re.findall(r"/rebel-princess/g/([0-9a-f]{32})", scorer.content()))
        viewers -= {token}
        assert len(viewers) == 1
        scorer.goto(f"{base}/rebel-princess/g/{token}")
        viewer = viewer_context.new_page()
        viewer.goto(f"{base}/rebel-princess/g/{viewers.pop()}")
        viewer.wait_for_selector("body[data-stream=open]")
        expect(viewer.locator("#this-round")).to_have_attribute("data-round", "1")
        viewer.evaluate("window.notReloaded = 1")
        asked: list[str] = []
        viewer.on("request", lambda request: asked.append(request.url))
        by_numbers(scorer, [3, 4, 4, 4])
        expect(viewer.locator("#this-round")).to_have_attribute("data-round", "2",
                                                                 timeout=10000)
        assert viewer.evaluate("window.notReloaded") == 1
        assert asked == []  # not the page, not a poll: the stream brought it all
        expect(viewer.locator("[data-role-note=viewer]")).to_be_visible()
        # What it shows is what the page shows when loaded now, word for word, in its language.
        fresh = viewer_context.new_page()
        fresh.goto(viewer.url)
        expect(fresh.locator("html")).to_have_attribute("lang", lang)
        assert viewer.inner_text("main") == fresh.inner_text("main")
        assert "3" in viewer.inner_text("[data-totals]")
        viewer.screenshot(path=str(artifacts / f"push-viewer-swapped-{lang}-390.png"),
                          full_page=True)
        viewer.set_viewport_size({"width": 360, "height": 740})
        viewer.emulate_media(color_scheme="dark")
        viewer.screenshot(path=str(artifacts / f"push-viewer-swapped-{lang}-360-dark.png"),
                          full_page=True)
    finally:
        proxy.send(None)
        scorer_context.close()
        viewer_context.close()
        stop()


def test_a_duels_viewer_swaps_in_the_pushed_board_with_no_request(
        browser: Browser, browser_context_args, tmp_path):
    """The duel's viewer (another phone) gets the referee's round as the board drawn for every
    viewer, on its stream: the board swapped in, not reloaded, nothing asked of the app."""
    proxy, base, stop = _serve(tmp_path, publish=True)
    proxy.up = True
    referee_context = browser.new_context(**browser_context_args)
    viewer_context = browser.new_context(**browser_context_args)
    try:
        referee = referee_context.new_page()
        set_up(referee, base)
        token = referee.url.rstrip("/").rsplit("/", 1)[1]
        referee.goto(f"{base}/share/{token}")
        viewers = set(re.findall(r"/kanai-duel/g/([0-9a-f]{32})", referee.content())) - {token}
        assert len(viewers) == 1
        referee.goto(f"{base}/kanai-duel/g/{token}")
        viewer = viewer_context.new_page()
        viewer.goto(f"{base}/kanai-duel/g/{viewers.pop()}")
        viewer.wait_for_selector("body[data-stream=open]")
        viewer.evaluate("window.notReloaded = 1; document.getElementById('board').old = 1")
        asked: list[str] = []
        viewer.on("request", lambda request: asked.append(request.url))
        referee.click("[data-hand='0'] [data-card=prince]")
        referee.click("[data-hand='1'] [data-card=spy]")
        referee.click("[data-action=reveal]")
        viewer.wait_for_function("() => document.getElementById('board').old === undefined",
                                 timeout=10000)
        assert viewer.evaluate("window.notReloaded") == 1
        assert asked == []
        fresh = viewer_context.new_page()
        fresh.goto(viewer.url)
        assert viewer.inner_text("#board") == fresh.inner_text("#board")
    finally:
        proxy.send(None)
        referee_context.close()
        viewer_context.close()
        stop()
