"""Two phones at the table: the scorer enters a round, the viewer's pad follows by itself."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .conftest import no_horizontal_scroll, tap_in_menu
from .test_browser_game import create_game

pytestmark = pytest.mark.browser


def test_a_viewer_sees_the_new_total_within_two_seconds(browser: Browser, live_server: str,
                                                          browser_context_args, artifacts):
    scorer_context = browser.new_context(**browser_context_args)
    viewer_context = browser.new_context(**browser_context_args)
    scorer, viewer = scorer_context.new_page(), viewer_context.new_page()

    create_game(scorer, live_server, ["Ana", "Ben", "Cy", "Di"], ["a", "b", "c"])
    tap_in_menu(scorer, "[data-action=share-links]")
    address = scorer.locator("[data-address=viewer]").inner_text()
    viewer_path = "/rebel-princess/g/" + address.split("/rebel-princess/g/", 1)[1]
    assert re.fullmatch(r"/rebel-princess/g/[0-9a-f]{32}", viewer_path)
    scorer.screenshot(path=str(artifacts / "links-share.png"), full_page=True)
    scorer.go_back()

    viewer.goto(live_server + viewer_path)
    expect(viewer.locator("body")).to_have_attribute("data-role", "viewer")
    expect(viewer.locator("#pad")).to_have_attribute("data-totals", "0,0,0,0")
    # Nothing that writes is shown to a viewer.
    assert viewer.locator("form[method=post] button:visible").count() == 0
    assert viewer.locator("[data-action^=enter]:visible").count() == 0
    assert no_horizontal_scroll(viewer)

    scorer.locator("[data-action=enter-numbers]").click()
    for seat, value in enumerate([3, 4, 4, 4]):
        scorer.locator(f"#score_{seat}").fill(str(value))
    scorer.locator("[data-action=save]").click()
    expect(scorer.locator(".flash")).to_be_visible()

    # Polled every second; the page reloads itself when the game changed.
    expect(viewer.locator("#pad")).to_have_attribute("data-totals", "3,4,4,4", timeout=2_000)
    viewer.screenshot(path=str(artifacts / "links-viewer.png"), full_page=True)
    scorer_context.close()
    viewer_context.close()
