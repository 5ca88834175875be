"""Two screens changed last for issue 29, looked at on phones (390×844 light, 360×740 dark, in
English and French): the page of a game whose group was deleted names that game in its title
(it said « Rebel Princess » for every game), and the group history's duel won at once by the
Princess says so on the line right under its 0–0 scores, as a sentence (no blank line between)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from companion.games import by_key

from .conftest import delete_the_group
from .test_browser_groups import duel_won_by_the_princess
from .test_browser_last_mile import IDS, SIZES_AND_LANGUAGES, phone_options

pytestmark = pytest.mark.browser


def phone(browser: Browser, browser_context_args, size, lang):
    scheme = "dark" if size["width"] == 360 else "light"
    return browser.new_context(**phone_options(browser_context_args, size, lang,
                                               color_scheme=scheme)).new_page()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_the_page_of_a_deleted_game_names_its_game(browser: Browser, browser_context_args,
                                                   live_server, artifacts, size, lang):
    """A duel and a Princesse Princesse game, their group deleted: each link's page says the
    game is gone, and its title names the game (« Closed · P&P duel »-like), not Rebel
    Princess; the way home is a thumb's size."""
    page = phone(browser, browser_context_args, size, lang)
    page.goto(live_server)
    duel_won_by_the_princess(page, "Ana", "Ben")
    duel = page.url
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.locator(f"[data-name-seat='{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#board")).to_be_visible()
    princesse = page.url
    delete_the_group(page, live_server)
    for key, url in (("kanai_duel", duel), ("princesse_princesse", princesse)):
        page.goto(url)
        expect(page.locator("[data-closed='game'][data-why='deleted']")).to_be_visible()
        title = page.title()
        assert by_key(key).name(lang) in title, title
        assert by_key("rebel_princess").name(lang) not in title, title
        home = page.locator("[data-closed] a.btn").bounding_box()
        assert home["height"] >= 44 and home["width"] >= 44
    page.screenshot(path=str(artifacts / f"gone-title-{size['width']}-{lang}.png"))
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_a_princess_win_is_said_right_under_the_scores_as_a_sentence(
        browser: Browser, browser_context_args, live_server, artifacts, size, lang):
    """The group history: « won at once by Ana … » sits on the line right after « Ana 0 · Ben 0 »
    (there was a blank line between), starting with a capital letter on its own line."""
    page = phone(browser, browser_context_args, size, lang)
    page.goto(live_server)
    duel_won_by_the_princess(page, "Ana", "Ben")
    page.goto(live_server)
    page.locator("[data-action=group]").click()
    page.goto(page.url.rstrip("/") + "/history")
    item = page.locator("li[data-kind=kanai_duel]").first
    why, scores = item.locator("[data-by-princess]"), item.locator(".hx-scores")
    expect(why).to_contain_text(
        {"en": "the Princess met the Prince", "fr": "la Princesse a rencontré le Prince"}[lang])
    gap = why.bounding_box()["y"] - (scores.bounding_box()["y"] + scores.bounding_box()["height"])
    assert 0 <= gap < 4, gap
    assert why.evaluate("e => getComputedStyle(e, '::first-letter').textTransform") == "uppercase"
    assert why.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.screenshot(path=str(artifacts / f"history-princess-{size['width']}-{lang}.png"))
    page.context.close()
