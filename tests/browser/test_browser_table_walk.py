"""What a real table trips on in the three newer games, found by playing them on phones: a
viewer offered buttons that lead to writes, the main button pushed below the first screen, Back
after an action landing on a "resubmit the form?" error, clipped French labels."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import tap_in_menu

pytestmark = pytest.mark.browser


def viewer_page(browser: Browser, browser_context_args, scorer: Page, live_server: str) -> Page:
    """A second phone opening the game's viewer link (from the scorer's share page)."""
    tap_in_menu(scorer, "[data-action=share-links]")
    address = scorer.locator("[data-address=viewer]").inner_text()
    context = browser.new_context(**browser_context_args)
    viewer = context.new_page()
    viewer.goto(live_server + "/" + address.split("/", 3)[3])
    expect(viewer.locator("body")).to_have_attribute("data-role", "viewer")
    return viewer


def test_a_viewer_is_offered_no_button_that_leads_to_a_write(browser: Browser,
                                                             browser_context_args,
                                                             page: Page, live_server: str):
    """Princesse Princesse's round end, turn log and edit, and Réveillez's five actions, only
    lead to forms a viewer cannot send: a viewer does not see them."""
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    page.locator("[data-action=round-end]").click()
    page.locator("label:has([data-in-seat='0'])").click()
    page.locator("[data-action=next]").click()
    page.locator("[data-action=save]").click()
    expect(page.locator("[data-tokens='1']")).to_have_count(1)
    viewer = viewer_page(browser, browser_context_args, page, live_server)
    expect(viewer.locator("[data-tokens='1']")).to_have_count(1)
    for action in ("round-end", "turn-log"):
        expect(viewer.locator(f"[data-action={action}]")).to_be_hidden()
    viewer.locator("[data-action=history]").click()
    expect(viewer.locator("[data-round='1']")).to_be_visible()
    expect(viewer.locator("[data-action=edit]")).to_be_hidden()
    viewer.context.close()

    page.goto(f"{live_server}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("[data-action=wake]")).to_be_visible()
    viewer = viewer_page(browser, browser_context_args, page, live_server)
    expect(viewer.locator(".rv-grid")).to_be_visible()
    for action in ("wake", "steal", "sleep", "jester", "discard"):
        expect(viewer.locator(f"[data-action={action}]")).to_be_hidden()
    viewer.context.close()


def test_six_players_and_the_round_end_button_fit_the_first_screen(browser: Browser,
                                                                    browser_context_args,
                                                                    live_server: str):
    """Princesse Princesse at six on a 360×740 phone, just after a round was saved: who starts,
    every player's tokens and « Fin de la manche » are on the first screen, without scrolling."""
    context = browser.new_context(**{**browser_context_args,
                                     "viewport": {"width": 360, "height": 740}},
                                  locale="fr-FR")
    page = context.new_page()
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Anaïs", "Bénédicte", "Cléo", "Dan", "Éloïse", "Francis"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    page.locator("[data-action=round-end]").click()
    page.locator("label:has([data-in-seat='4'])").click()
    page.locator("[data-action=next]").click()
    page.locator("[data-action=save]").click()
    expect(page.locator(".flash")).to_be_visible()
    expect(page.locator("[data-tokens='1']")).to_have_count(1)
    for element in (".pp-starter", ".pp-tokens li:last-child", "[data-action=round-end]"):
        box = page.locator(element).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 740, f"{element} below the fold"
    context.close()


def test_back_and_reload_after_a_reveillez_action_show_the_table(page: Page, live_server: str):
    """Each tap of an action is a POST; Back after the action (or a reload in its middle) must
    show the table, not a "resubmit the form?" error page, and never record anything twice."""
    page.goto(f"{live_server}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    table = page.url
    page.locator("[data-action=wake]").click()
    page.locator(".rv-grid [data-slot='0'] button").click()
    expect(page.locator("[data-question=value]")).to_be_visible()
    page.reload()  # the action half built is kept: the same question, nothing recorded
    expect(page.locator("[data-question=value]")).to_be_visible()
    expect(page.locator("#rv-table")).to_have_attribute("data-version", "0")
    page.locator("[data-value='5']").click()
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "1")
    page.go_back()
    expect(page.locator("#rv-table")).to_be_visible()
    assert page.url.split("?")[0] == table
    expect(page.locator(".rv-player[data-points='5']")).to_have_count(1)


def test_the_duel_variants_read_whole_in_french_on_a_small_phone(french: Page,
                                                                 live_server: str):
    """Every choice of the duel's set-up, variants open, shows its whole label at 360 px."""
    french.set_viewport_size({"width": 360, "height": 740})
    french.goto(f"{live_server}/kanai-duel/new")
    french.locator(".kd-variants summary").click()
    expect(french.locator(".seg label", has_text="Clown et Ministre (H)")).to_be_visible()
    cut = french.evaluate("""() => [...document.querySelectorAll('.seg span')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.trim())""")
    assert cut == []
    assert french.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_the_why_links_are_big_enough_to_tap(browser: Browser, browser_context_args,
                                             live_server: str, size: tuple[int, int]):
    """« Pourquoi ? » beside a rule of the turn log is a 44-px target (it was 18 px high),
    without making its paragraph any taller."""
    width, height = size
    context = browser.new_context(**{**browser_context_args,
                                     "viewport": {"width": width, "height": height}},
                                  locale="fr-FR")
    page = context.new_page()
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Anaïs", "Ben", "Cléo"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    page.locator("[data-action=turn-log]").click()
    links = page.locator("a.pp-why")
    expect(links.first).to_be_visible()
    assert links.count() >= 1
    for index in range(links.count()):
        box = links.nth(index).bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
    paragraph = page.locator("p:has(> a.pp-why)").first
    tall = paragraph.bounding_box()
    paragraph.evaluate("p => p.querySelector('a.pp-why').style.cssText ="
                       " 'display:inline;padding:0;margin:0'")
    plain = paragraph.bounding_box()
    assert tall is not None and plain is not None
    assert abs(tall["height"] - plain["height"]) <= 1, (tall, plain)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    context.close()
