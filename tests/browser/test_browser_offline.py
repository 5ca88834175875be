"""Offline: from the second page on, the rulings of every game and an opened game still work with
the server gone; the first visit itself stays light (the offline copy comes with the next page)."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Browser, Page, expect

from companion import create_app

from .conftest import start_server

pytestmark = pytest.mark.browser

FIRST_VISIT_LIMIT = 100_000  # bytes, service worker included


def wait_for_worker(page: Page) -> str:
    """Wait until the service worker, registered once the page was idle, has stored the page's
    files and controls the page; "first-page" when this was the phone's first page here."""
    expect(page.locator("html[data-offline-assets]")).to_be_attached(timeout=60_000)
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    return page.get_attribute("html", "data-offline-assets") or ""


def wait_for_offline_copy(page: Page, lang: str = "en") -> None:
    """Wait until the service worker has stored the offline copy (app.js marks the page) and
    controls the page. The phone's first page here stores its own files only: the copy comes
    with the next page, so that page is opened again first."""
    if wait_for_worker(page) == "first-page":
        page.reload()
    expect(page.locator(f"html[data-offline-rulings='{lang}']")).to_be_attached(timeout=60_000)
    page.wait_for_function("navigator.serviceWorker.controller !== null")


@pytest.fixture
def page(browser: Browser, browser_context_args):
    """A phone page with service workers allowed (the other browser tests block them)."""
    context = browser.new_context(**{**browser_context_args, "service_workers": "allow"})
    yield context.new_page()
    context.close()


class Meter:
    """Counts what the server sends for every request (the page's and the service worker's):
    status line, header fields and body as sent."""

    def __init__(self, app) -> None:
        self.app, self.answers, self.lock = app, [], threading.Lock()

    def __call__(self, environ, start_response):
        sizes = {"path": environ["PATH_INFO"], "bytes": 0, "method": environ["REQUEST_METHOD"]}
        # Counted on arrival, each byte before it is sent: the client can have the whole answer
        # before the server's thread comes back to finish the body, so an answer appended at the
        # end could land after a test's clear() (two CI runs counted the previous request).
        with self.lock:
            self.answers.append(sizes)

        def start(status, headers, exc_info=None):
            sizes["status"] = int(status.split()[0])
            sizes["bytes"] += len(f"HTTP/1.1 {status}\r\n\r\n") + sum(
                len(f"{name}: {value}\r\n") for name, value in headers)
            return start_response(status, headers, exc_info)

        body = self.app(environ, start)
        try:
            for chunk in body:
                sizes["bytes"] += len(chunk)
                yield chunk
        finally:
            if hasattr(body, "close"):
                body.close()


@pytest.fixture
def metered_server(tmp_path):
    """The real app (CSRF on), every answer counted; (base URL, meter, stop)."""
    meter = Meter(create_app({"SECRET_KEY": "browser-tests",
                              "DATABASE": str(tmp_path / "m.sqlite")}))
    url, stop = start_server(meter)
    yield url, meter, stop
    stop()


@pytest.mark.parametrize("first_page", ["/", "/rebel-princess/new"])
def test_a_first_visit_stays_under_100_kb_and_the_next_page_stores_every_games_rulings(
        page: Page, metered_server, first_page):
    """Cold cache, service worker included: the page, then (once idle) the worker storing the
    page's files — no offline copy yet, under 100 kB in all. The next page brings the offline
    copy in one answer. With the server gone, the rulings of every game open."""
    base, meter, stop = metered_server
    page.goto(base + first_page)
    assert wait_for_worker(page) == "first-page"
    sent = sum(answer["bytes"] for answer in meter.answers)
    paths = [answer["path"] for answer in meter.answers]
    assert sent <= FIRST_VISIT_LIMIT, (sent, paths)
    assert "/offline/pages-en.json" not in paths and len(paths) <= 8, paths

    page.goto(base + "/rules")  # the second page, under the worker: the copy comes with it
    wait_for_offline_copy(page)
    paths = [answer["path"] for answer in meter.answers]
    assert paths.count("/offline/pages-en.json") == 1, paths

    stop()
    for path, entry in [("/rebel-princess/rules/deluxe-j", "deluxe-j"),
                        ("/princesse-princesse/rules/ogre", "ogre"),
                        ("/reveillez/rules", None), ("/kanai-duel/rules/seven", "seven")]:
        answer = page.goto(base + path)
        assert answer is not None and answer.from_service_worker
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        if entry:
            expect(page.locator(f"[data-entry='{entry}']")).to_be_visible()
        else:
            expect(page.locator("main h1")).to_be_visible()
    page.goto(f"{base}/rules")
    expect(page.locator("[data-nav=rules]")).to_be_visible()


def test_a_stored_rulings_page_looks_like_the_served_one(page: Page, browser: Browser,
                                                        browser_context_args, stoppable_server):
    """A rulings page never opened on this phone, shown from the offline copy, is the document
    the server renders (but for the session's CSRF token), with its stylesheet."""
    base, stop = stoppable_server
    other_phone = browser.new_context(**browser_context_args)
    served = other_phone.new_page()
    served.goto(f"{base}/kanai-duel/rules/seven")
    online = served.locator("header.top").inner_html(), served.locator("main").inner_html()
    other_phone.close()
    page.goto(f"{base}/rebel-princess/rules/deluxe-j")
    wait_for_offline_copy(page)

    stop()
    page.goto(f"{base}/kanai-duel/rules/seven")
    assert (page.locator("header.top").inner_html(), page.locator("main").inner_html()) == online
    assert page.evaluate("getComputedStyle(document.querySelector('header.top')).display") \
        == "flex"  # app.css was stored with the copy


def test_rulings_and_opened_game_work_offline(page: Page, stoppable_server, artifacts):
    """With the server stopped after a first visit, the rulings, the pad and its Round card's
    help still open; a save tried with no network says nothing was stored."""
    base, stop = stoppable_server
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    game_url = page.url
    wait_for_offline_copy(page)
    page.goto(game_url)  # opened once more under the service worker: now stored
    page.goto(f"{base}/rebel-princess/new")  # stored too: a form to try offline

    stop()
    page.goto(f"{base}/rebel-princess/rules/deluxe-j")
    expect(page.locator("[data-entry='deluxe-j'] h1")).to_have_text("Pet's Revenge")
    page.goto(f"{base}/rebel-princess/rules")
    expect(page.locator("h1")).to_be_visible()
    page.goto(game_url)
    expect(page.locator("#pad")).to_be_visible()
    page.screenshot(path=str(artifacts / "offline-pad.png"), full_page=True)
    page.locator("[data-action=card-rules]").first.click()  # "How this card works": a redirect
    expect(page.locator("[data-entry^='deluxe-']")).to_be_visible()
    # Never opened here: the offline page says so.
    page.goto(f"{base}/rebel-princess/g/unknown/history")
    expect(page.locator("[data-offline=page]")).to_be_visible()

    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("[data-offline=save]")).to_be_visible()


def test_switching_the_language_stores_the_copy_in_the_other_one(page: Page, stoppable_server):
    base, stop = stoppable_server
    page.goto(f"{base}/rules")
    wait_for_offline_copy(page, "en")
    page.locator("[data-lang=fr]").click()
    wait_for_offline_copy(page, "fr")

    stop()
    page.goto(f"{base}/reveillez/rules/setup")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("[data-entry=setup]")).to_be_visible()


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_searching_the_rulings_offline(browser: Browser, browser_context_args, live_server,
                                       artifacts, size):
    """Offline (``set_offline``), a search in any game's rulings answers from the copy stored
    on this phone, under a note that says so; a page that is not stored says it is not."""
    context = browser.new_context(**{**browser_context_args, "service_workers": "allow",
                                     "viewport": {"width": size[0], "height": size[1]}})
    page = context.new_page()
    page.goto(f"{live_server}/kanai-duel/rules")
    wait_for_offline_copy(page)

    context.set_offline(True)
    page.fill("#q", "jusqualaube")
    page.click("form[role=search] button")
    expect(page.locator("[data-offline-results='1']")).to_be_visible()
    expect(page.locator("[data-result]").first).to_have_attribute("data-result", "until-dawn")
    expect(page.locator("#q")).to_have_value("jusqualaube")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(artifacts / f"offline-search-{size[0]}x{size[1]}.png"),
                    full_page=True)
    page.locator("[data-result='until-dawn']").click()  # the result opens from the copy
    expect(page.locator("[data-entry='until-dawn']")).to_be_visible()

    page.goto(f"{live_server}/princesse-princesse/rules?q=roifantome")
    expect(page.locator("[data-result]").first).to_have_attribute("data-result", "roi-fantome")
    page.goto(f"{live_server}/rebel-princess/rules?q=snowwhite&edition=classic")
    expect(page.locator("[data-result]").first).to_have_attribute("data-result",
                                                                  "classic-snow-white")
    expect(page.locator("input[name=edition][value=classic]")).to_be_checked()
    page.goto(f"{live_server}/reveillez/rules?q=zzzzqqq")
    expect(page.locator("[data-offline-results='0']")).to_be_visible()
    page.goto(f"{live_server}/kanai-duel/new")  # never opened here: the offline page says so
    expect(page.locator("[data-offline=page]")).to_be_visible()
    context.close()
