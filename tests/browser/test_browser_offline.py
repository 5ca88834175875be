"""Offline: after a first visit, the rulings and an opened game still work with the server gone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

pytestmark = pytest.mark.browser


def wait_for_service_worker(page: Page) -> None:
    """Wait until the service worker has installed (precached) and controls the page."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")


@pytest.fixture
def page(browser: Browser, browser_context_args):
    """A phone page with service workers allowed (the other browser tests block them)."""
    context = browser.new_context(**{**browser_context_args, "service_workers": "allow"})
    yield context.new_page()
    context.close()


def test_rulings_and_opened_game_work_offline(page: Page, stoppable_server, artifacts):
    """With the server stopped after a first visit, the rulings page and the pad still open."""
    base, stop = stoppable_server
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    game_url = page.url
    wait_for_service_worker(page)
    page.goto(game_url)  # opened once more under the service worker: now stored

    stop()
    page.goto(f"{base}/rebel-princess/rules/deluxe-j")
    expect(page.locator("[data-entry='deluxe-j'] h1")).to_have_text("Pet's Revenge")
    page.goto(f"{base}/rebel-princess/rules")
    expect(page.locator("h1")).to_be_visible()
    page.goto(game_url)
    expect(page.locator("#pad")).to_be_visible()
    page.screenshot(path=str(artifacts / "offline-pad.png"), full_page=True)
    page.goto(f"{base}/g/unknown/history")  # never opened here: the offline page says so
    expect(page.locator("[data-offline=page]")).to_be_visible()
