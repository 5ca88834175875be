"""A save from a phone asks the server as little as it can (drafts.js showSaved, sw.js).

The outbox sends a save with fetch; the page its redirect leads to comes back with that fetch.
With the service worker controlling the page, that page is kept for the one navigation that
follows, which the worker answers: two requests per save (the save, the page its redirect led
to), where the phone made three before (the page was downloaded twice). Where the server has
the page drawn already (a scorer's save of a game whose page its viewers share, with viewers
listening: push), the save is answered with its page: one request. Without a worker, as before.

Each case counts what reached the server (a WSGI meter) and what the page asked
(``page.on("request")``), and checks what the player sees: the flash said once, a reload that
asks the server, Back and Forward, a refused save shown as before, the offline queue sending
each save once."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from companion import create_app
from tests.web.test_push import Publisher
from tests.web.test_push_shared import _Everyone

from .conftest import LANGUAGES, PHONES, SCREENSHOTS, start_server
from .test_browser_drafts import (
    kd_open,
    kd_rest,
    other_phone_saves_round_1,
    pp_open,
    pp_part,
    pp_rest,
    rp_numbers_open,
    rp_numbers_part,
    rp_numbers_rest,
)
from .test_browser_offline import Meter as OfflineMeter
from .test_browser_offline import wait_for_worker

pytestmark = [
    pytest.mark.browser,
    # The test server answers each request on a thread of its own, which ends with its kept
    # connection to the publisher open (a gunicorn worker keeps its thread): not this test's.
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

SAVED = re.compile(r"saved|enregistr", re.I)


class Meter(OfflineMeter):
    """Every request the server answers (test_browser_offline's meter), read as (method, path,
    status, bytes sent)."""

    def of(self, game: str) -> list[tuple[str, str, int, int]]:
        """The requests about the game at ``game`` (its page and its writes, not its polls)."""
        with self.lock:
            return [(seen["method"], seen["path"], seen.get("status", 0), seen["bytes"])
                    for seen in self.answers if seen["path"].startswith(game)]

    def clear(self) -> None:
        with self.lock:
            self.answers.clear()


def _server(tmp_path, push: bool):
    config = {"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "s.sqlite")}
    publisher = None
    if push:  # a proxy's publisher with someone listening on every channel
        publisher = Publisher()
        publisher.listening = _Everyone()
        threading.Thread(target=publisher.serve_forever, daemon=True).start()
        config["LIVE_PUSH_PUBLISH_URL"] = f"http://127.0.0.1:{publisher.server_address[1]}/pub/"
    meter = Meter(create_app(config))
    url, stop = start_server(meter)
    return url, meter, stop, publisher


@pytest.fixture(params=[False, True], ids=["polling", "push"])
def server(request, tmp_path):
    """(base URL, meter, push?) of the real app (CSRF on); with push, a publisher that has a
    listener on every channel, so that a scorer's save draws its page (live._shared_part)."""
    url, meter, stop, publisher = _server(tmp_path, request.param)
    yield url, meter, request.param
    stop()
    if publisher is not None:
        publisher.shutdown()
        publisher.server_close()


@pytest.fixture
def metered(tmp_path):
    url, meter, stop, _ = _server(tmp_path, False)
    yield url, meter
    stop()


def _phone(browser: Browser, browser_context_args, size=PHONES[0], lang="en", worker=True,
           scheme="light"):
    context = browser.new_context(**{**browser_context_args, "viewport": size,
                                     "service_workers": "allow" if worker else "block"},
                                  locale=LANGUAGES[lang], color_scheme=scheme)
    return context, context.new_page()


def _with_worker(page: Page, base: str) -> None:
    """The service worker installed and controlling this phone's pages from now on."""
    page.goto(f"{base}/")
    wait_for_worker(page)


def _game_path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url).split("/round")[0].split("?")[0]


GAMES = {
    "princesse-princesse": (pp_open, lambda page: (pp_part(page), pp_rest(page)), "#board"),
    "rebel-princess": (rp_numbers_open, lambda page: (rp_numbers_part(page),
                                                      rp_numbers_rest(page)), "#pad"),
    "kanai-duel": (kd_open, lambda page: (page.click("[data-hand='0'] [data-card=prince]"),
                                          kd_rest(page)), "#board"),
}


def _kept(page: Page) -> int:
    """How many pages the phone keeps for a navigation to come (sw.js NEXT)."""
    return page.evaluate("caches.open('companion-next').then((c) => c.keys())"
                         ".then((keys) => keys.length)")


SAVE_BUTTON = "form[data-draft] .savebar button.primary"
"""A game page's Save button (its draft form's save bar)."""


def _save(page: Page, board: str) -> list:
    """Tap Save and wait for the game's page; the requests the page made meanwhile (each with
    whether the service worker answered it)."""
    asked: list = []
    page.on("requestfinished", lambda request: asked.append(
        (request.method, request.url, request.resource_type,
         bool(request.response() and request.response().from_service_worker))))
    with page.expect_navigation():
        page.locator(SAVE_BUTTON).click()
    expect(page.locator(board)).to_be_visible()
    page.wait_for_load_state("load")
    return asked


@pytest.mark.parametrize("kind", list(GAMES))
def test_a_save_downloads_its_page_once(browser: Browser, browser_context_args, server, kind):
    base, meter, push = server
    context, page = _phone(browser, browser_context_args)
    try:
        open_, enter, board = GAMES[kind]
        _with_worker(page, base)
        url = open_(page, base)
        game = _game_path(url)
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        enter(page)
        form_page = page.url
        meter.clear()
        asked = _save(page, board)
        seen = [(method, path) for method, path, _, _ in meter.of(game)]
        shared = push  # every game here shares its page with its viewers
        assert seen[0][0] == "POST" and len([s for s in seen if s[0] == "POST"]) == 1, seen
        assert [s for s in seen if s[0] == "GET"] == ([] if shared else [("GET", game)]), seen
        # The navigation to the game's page was answered by the worker, not the server.
        shown = [a for a in asked if a[2] == "document"]
        assert shown and all(from_worker for *_, from_worker in shown), asked
        assert _game_path(page.url) == game and _kept(page) == 0
        # The offline copy is the page shown, as after a page from the network, flash aside.
        copy = page.evaluate("(url) => caches.match(url, {ignoreVary: true})"
                             ".then((r) => r ? r.text() : '')", base + game)
        assert 'class="flash"' not in copy and page.locator(board).get_attribute("id") in copy
        if kind == "princesse-princesse":
            assert 'data-round="2"' in copy
        # The flash is said once (the duel's board says the round itself).
        if kind != "kanai-duel":
            expect(page.locator("main .flash")).to_have_count(1)
            expect(page.locator("main .flash")).to_have_text(SAVED)
        # A reload asks the server and says nothing again.
        meter.clear()
        page.reload()
        expect(page.locator(board)).to_be_visible()
        assert [(m, p) for m, p, _, _ in meter.of(game)] == [("GET", game)]
        expect(page.locator("main .flash")).to_have_count(0)
        # Back: the entry's page (the duel's is the game's own: the page before it, as the
        # save's page replaced it); Forward: the game's page; neither from a kept page.
        page.go_back()
        if form_page != base + game:
            expect(page.locator("html[data-drafts=ready]")).to_be_attached()
            assert page.url == form_page
        else:
            assert _game_path(page.url) != game
        page.go_forward()
        expect(page.locator(board)).to_be_visible()
        assert _game_path(page.url) == game
        expect(page.locator("main .flash")).to_have_count(0)
        assert _kept(page) == 0
    finally:
        context.close()


def other_round(page: Page, base: str, game: str, cards: tuple[str, str]) -> None:
    """Another phone of the same duel (same cookies, its own requests) reveals the next round
    with ``cards`` (the first player's, the second's), as its referee form sends it."""
    shown = page.context.request.get(base + game).text()
    form = shown.split('data-form="round"', 1)[1].split("</form>", 1)[0]
    hidden = dict(re.findall(r'<input[^>]*?name="([^"]+)"[^>]*?type="hidden"[^>]*?value="([^"]*)"',
                             form))
    hidden.update(re.findall(r'<input[^>]*?type="hidden"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"',
                             form))
    answer = page.context.request.post(base + game + "/round", max_redirects=0,
                                       form={**hidden, "first": cards[0], "second": cards[1]})
    assert answer.status in (302, 303), answer.text()[:500]


def _duel_round_ready(page: Page, base: str) -> str:
    """A new referee duel opened on ``page``, its first player's card picked and the second's
    hand at rest: its round ready to send (:data:`SAVE_BUTTON`). Returns the game's path."""
    game = _game_path(kd_open(page, base))
    page.click("[data-hand='0'] [data-card=prince]")
    kd_rest(page)
    return game


def _round_of(base: str, game: str) -> Callable[[str], bool]:
    """Whether a URL is ``game``'s round save (for ``page.route``)."""
    return lambda url: url.startswith(base + game) and url.endswith("/round")


def test_a_duel_whose_card_is_on_its_way_waits_for_its_page(browser: Browser,
                                                           browser_context_args, metered):
    """A duel's round sent, stored, and its answer slow to come back: the board's own check
    sees the new version meanwhile (it asks every 1.5 s) but fetches no board for it, since the
    page the answer leads to brings it; that page is then shown, and the board follows the game
    again (a round saved by another phone is swapped in)."""
    base, meter = metered
    context, page = _phone(browser, browser_context_args, worker=False)
    try:
        game = _duel_round_ready(page, base)
        held: list[str] = []

        def slow(route):  # (stored at once, answered after two of the board's checks)
            response = route.fetch(max_redirects=0)
            held.append(route.request.url)
            page.wait_for_timeout(3500)
            route.fulfill(response=response)

        page.route(_round_of(base, game), slow)
        meter.clear()
        with page.expect_navigation():
            page.locator(SAVE_BUTTON).click()
        expect(page.locator("[data-last-round='1']")).to_be_visible()
        assert held, "the round was not sent through the slow route"
        seen = [(method, path) for method, path, _, _ in meter.of(game)]
        assert [s for s in seen if s[0] == "POST"] == [("POST", game + "/round")], seen
        assert not [s for s in seen if s[1].endswith("/board")], seen
        # The page shown follows the game again: another phone's round is fetched and swapped.
        page.unroute_all()
        meter.clear()
        other_round(page, base, game, ("general", "minister"))
        expect(page.locator("[data-last-round='2']")).to_be_visible(timeout=10_000)
        assert ("GET", game + "/board") in [(m, p) for m, p, _, _ in meter.of(game)]
    finally:
        context.close()


def test_a_duel_whose_card_stays_on_the_phone_follows_the_game_again(
        browser: Browser, browser_context_args, metered):
    """A duel's round sent while the network fails (kept in the phone's outbox: the page stays):
    the board waits only a moment for a page that will not come, then follows the game again —
    another phone's round is swapped in."""
    base, meter = metered
    context, page = _phone(browser, browser_context_args, worker=False)
    try:
        game = _duel_round_ready(page, base)
        page.route(_round_of(base, game), lambda route: route.abort("internetdisconnected"))
        page.locator(SAVE_BUTTON).click()
        expect(page.locator("[data-outbox=waiting]")).to_be_visible()
        other_round(page, base, game, ("minister", "general"))
        expect(page.locator("[data-last-round='1']")).to_be_visible(timeout=20_000)
    finally:
        context.close()


def test_without_a_service_worker_a_save_is_shown_as_before(browser: Browser,
                                                            browser_context_args, metered):
    """No worker (blocked, or not installed yet): the page is asked again, as before."""
    base, meter = metered
    context, page = _phone(browser, browser_context_args, worker=False)
    try:
        game = _game_path(pp_open(page, base))
        pp_part(page)
        pp_rest(page)
        meter.clear()
        _save(page, "#board")
        assert [(m, p) for m, p, _, _ in meter.of(game)] == [
            ("POST", game + "/round"), ("GET", game), ("GET", game)]
        expect(page.locator("main .flash")).to_have_count(1)
    finally:
        context.close()


def test_a_refused_save_is_shown_as_before_and_nothing_is_kept(
        browser: Browser, browser_context_args, server):
    """Another phone stored the round first: this save is refused; the server's page says why
    (the form sent again the ordinary way), and no page is kept for a navigation."""
    base, meter, _ = server
    context, page = _phone(browser, browser_context_args)
    try:
        _with_worker(page, base)
        url = rp_numbers_open(page, base)
        game = _game_path(url)
        rp_numbers_part(page)
        rp_numbers_rest(page)
        other_phone_saves_round_1(page, base, [14, 0, 0])
        meter.clear()
        page.locator(SAVE_BUTTON).click()
        expect(page.locator("main [role=alert], main .problems, main ul.errors").first) \
            .to_be_visible()
        assert [m for m, *_ in meter.of(game)] == ["POST", "POST"]  # fetched, then the form
        assert all(status >= 400 for _, _, status, _ in meter.of(game))
        assert _kept(page) == 0
    finally:
        context.close()


def test_a_save_queued_with_no_network_is_sent_once_and_its_page_shown(
        browser: Browser, browser_context_args, server):
    base, meter, push = server
    context, page = _phone(browser, browser_context_args, size=PHONES[1], lang="fr")
    try:
        _with_worker(page, base)
        game = _game_path(pp_open(page, base))
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        pp_part(page)
        pp_rest(page)
        meter.clear()
        page.context.set_offline(True)
        page.locator(SAVE_BUTTON).click()
        expect(page.locator("[data-outbox=waiting]")).to_be_visible()
        with page.expect_navigation():
            page.context.set_offline(False)
        expect(page.locator("#board")).to_be_visible()
        expect(page.locator("#board")).to_have_attribute("data-round", "2")
        seen = [(m, p) for m, p, _, _ in meter.of(game)]
        assert seen == [("POST", game + "/round")] + ([] if push else [("GET", game)]), seen
        expect(page.locator("main .flash")).to_have_count(1)
        assert _kept(page) == 0
    finally:
        context.close()


def test_the_worker_answers_a_kept_page_once_to_a_navigation_only_and_never_an_old_one(
        browser: Browser, browser_context_args, metered):
    """The rules of sw.js: a page kept is answered to the next navigation to its address, once;
    a page kept more than 30 s ago, or asked for by a fetch, goes and the server is asked."""
    base, meter = metered
    context, page = _phone(browser, browser_context_args)
    try:
        _with_worker(page, base)
        game = _game_path(pp_open(page, base))
        page.wait_for_function("navigator.serviceWorker.controller !== null")

        def keep(age_ms: int, words: str) -> None:
            page.evaluate("""([url, age, words]) => caches.open('companion-next').then((c) =>
                c.put(url, new Response('<!doctype html><title>kept</title><main><p id=kept>'
                                        + words + '</p></main>',
                      {headers: {'Content-Type': 'text/html',
                                 'Companion-Kept-At': String(Date.now() - age)}})))""",
                          [base + game, age_ms, words])

        for age, from_worker in ((31_000, False), (1_000, True)):
            keep(age, "from the phone")
            meter.clear()
            page.goto(base + game)
            assert (page.locator("#kept").count() == 1) == from_worker
            assert [(m, p) for m, p, _, _ in meter.of(game)] == (
                [] if from_worker else [("GET", game)])
            assert _kept(page) == 0
        meter.clear()
        page.reload()
        expect(page.locator("#board")).to_be_visible()
        assert [(m, p) for m, p, _, _ in meter.of(game)] == [("GET", game)]
        # A fetch of the address (htmx's, say) is not a navigation: the server answers it.
        keep(1_000, "from the phone")
        meter.clear()
        page.evaluate("(url) => fetch(url, {headers: {Accept: 'text/html'}}).then((r) => r.text())",
                      base + game)
        assert [(m, p) for m, p, _, _ in meter.of(game)] == [("GET", game)]
        assert _kept(page) == 0
    finally:
        context.close()


def test_two_tabs_each_see_the_game_as_the_server_has_it(browser: Browser,
                                                        browser_context_args, metered):
    """One phone, two tabs on the same game: the save in one shows its page there; the other
    tab, opened on the game afterwards, gets the page from the server."""
    base, meter = metered
    context, page = _phone(browser, browser_context_args)
    try:
        _with_worker(page, base)
        game = _game_path(pp_open(page, base))
        other = context.new_page()
        other.goto(base + game)
        pp_part(page)
        pp_rest(page)
        _save(page, "#board")
        meter.clear()
        other.goto(base + game)
        expect(other.locator("#board")).to_have_attribute("data-round", "2")
        assert [(m, p) for m, p, _, _ in meter.of(game)] == [("GET", game)]
        expect(other.locator("main .flash")).to_have_count(0)
        expect(page.locator("main .flash")).to_have_count(1)
    finally:
        context.close()


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_after_a_save_looks_as_before(browser: Browser, browser_context_args,
                                               tmp_path, artifacts, size, lang, scheme):
    """The page a save leads to, shown from the save's fetch (worker) and as before (no
    worker): the same screen, the flash at the top."""
    base, meter, stop, _ = _server(tmp_path, False)
    shots = []
    try:
        for worker in (True, False):
            context, page = _phone(browser, browser_context_args, size, lang, worker, scheme)
            try:
                if worker:
                    _with_worker(page, base)
                pp_open(page, base)
                pp_part(page)
                pp_rest(page)
                _save(page, "#board")
                expect(page.locator("main .flash")).to_have_count(1)
                assert page.evaluate("document.scrollingElement.scrollWidth") <= size["width"]
                page.evaluate("document.querySelectorAll('input[name=key], input[name=csrf_token]')"
                              ".forEach((e) => e.remove())")
                time.sleep(0.2)
                name = (f"save-page-{'worker' if worker else 'network'}-{size['width']}-"
                        f"{lang}-{scheme}.png")
                shots.append(page.locator("main").inner_text())
                if SCREENSHOTS:
                    page.screenshot(path=str(artifacts / name), full_page=True)
            finally:
                context.close()
        assert shots[0] == shots[1]
    finally:
        stop()
