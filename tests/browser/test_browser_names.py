"""Players' names at 360×740 and 390×844, in French and English (issue 29): a name, or the label
that stands for it (companion.common.short_names), is never cut by the screen: six columns hold
« Ana… » and « Élo… » whole at 360 px, on one line (issue 39: a name never breaks inside a word;
see test_browser_fit_360.py); on the duel's board a long name wraps, whole, with « (you) » under
it."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from .test_browser_last_mile import IDS, LIVE, SIZES_AND_LANGUAGES, phone_options

pytestmark = pytest.mark.browser

SIX_LONG = ["Anaïs", "Bénédicte", "Cléo", "Dan", "Éloïse", "Francis"]
CUT = "e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight"


def cut(page: Page, selector: str) -> list[str]:
    """The texts of the elements matching ``selector`` whose content overflows their box."""
    return page.locator(selector).evaluate_all(
        f"els => els.filter({CUT}).map(e => e.textContent.trim())")


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_six_names_are_never_cut_on_the_pad_nor_on_the_card_buttons(
        browser: Browser, browser_context_args, live_server, artifacts, size, lang):
    """A six-player Rebel Princess table: the pad's column heads, the by-cards buttons and the
    running score by the Save bar show every player's label whole (« Élo… » was « Él… » on the
    pad at 360 px, « Ana… » « A… »)."""
    page = browser.new_context(**phone_options(browser_context_args, size, lang)).new_page()
    page.goto(f"{live_server}/rebel-princess/new")
    for seat, name in enumerate(SIX_LONG):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    heads = page.locator("#pad thead th[data-seat]")
    expect(heads).to_have_count(6)
    assert heads.nth(4).get_attribute("title") == "Éloïse"
    assert "Élo" in heads.nth(4).inner_text()
    assert not cut(page, "#pad thead th[data-seat], #pad thead .nm")
    page.screenshot(path=str(artifacts / f"names-pad-{size['width']}-{lang}.png"))
    page.locator("[data-action=enter-cards]").click()
    buttons = page.locator(".cardrow .seg span")
    expect(buttons.first).to_be_visible()
    assert buttons.count() >= 6 * 13
    assert not cut(page, ".cardrow .seg span, .cardrow .seg .nm")
    assert all(box["height"] >= 44 for box in (
        buttons.nth(i).bounding_box() for i in range(6)))  # still a thumb's size
    # The running score by the Save bar: each label and « to give » whole, by cards and by counts
    # (« à donner » was « à don… » by counts at 360 px).
    assert not cut(page, "#live-mini small")
    page.goto(page.url.rsplit("/", 1)[0] + "/counts")
    expect(page.locator("#counts-entry #live-mini")).to_be_visible()
    assert not cut(page, "#live-mini small")
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_a_long_name_on_the_duel_board_wraps_whole_with_you_under_it(
        browser: Browser, browser_context_args, live_server, artifacts, size, lang):
    """Two phones, two long names: on Ben's phone both names show whole on the board (wrapping
    where a half of the screen cannot hold them) and « (you) » is whole under his."""
    first, second = "Anne-Sophie Delacroix", "Bénédicte-Éloïse"
    ana = browser.new_context(**phone_options(browser_context_args, size, lang)).new_page()
    ben = browser.new_context(**phone_options(browser_context_args, size, lang)).new_page()
    ana.goto(live_server + "/kanai-duel/new")
    ana.fill("#first", first)
    ana.fill("#second", second)
    ana.locator(".seg input[value=phones]").check(force=True)
    ana.click("[data-action=create]")
    link = ana.locator("[data-join] .kd-url").inner_text().split()[-1]
    ben.goto(live_server + urlsplit(link).path)
    ben.click("[data-action=join]")
    expect(ben.locator("#board[data-seat='1']")).to_be_visible(timeout=LIVE)
    names = ben.locator(".kd-player .kd-name")
    assert [" ".join(n.split()) for n in names.all_inner_texts()] == [first, second]
    assert not cut(ben, ".kd-player .kd-name, .kd-player [data-you]")
    # Both boxes read at one moment, once the fonts are in (four reads one after another could
    # straddle a reflow: a board swapped in, a font loaded).
    ben.evaluate("document.fonts.ready.then(() => true)")
    you, who = ben.evaluate("""() => ["[data-player='1'] [data-you]", "[data-player='1'] .kd-who"]
        .map((s) => document.querySelector(s).getBoundingClientRect())
        .map((r) => ({x: r.x, width: r.width}))""")
    assert you["x"] + you["width"] <= who["x"] + who["width"] + 0.5
    ben.screenshot(path=str(artifacts / f"names-duel-{size['width']}-{lang}.png"))
    ana.context.close()
    ben.context.close()
