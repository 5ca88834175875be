"""Dark mode (issue 22): every page follows the phone's colour scheme (prefers-color-scheme), a
switch at the foot of the page (the phone's setting / light / dark) overrides it and is
remembered through a reload, and QR codes stay dark on light. Screenshots of a score pad in both
schemes land in tests/artifacts/ (``dark-pad-*.png``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .test_browser_history import play_by_numbers

pytestmark = pytest.mark.browser

LUMINANCE = """() => {
  const parse = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b]
    .map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const body = getComputedStyle(document.body), h1 = document.querySelector("h1, h2, p");
  return {background: lum(parse(body.backgroundColor)), text: lum(parse(body.color)),
          heading: lum(parse(getComputedStyle(h1).color))};
}"""


def scheme(page: Page) -> str:
    """'dark' when the page's background is dark and its text light, 'light' for the reverse."""
    lum = page.evaluate(LUMINANCE)
    if lum["background"] < 0.05 and lum["text"] > 0.6 and lum["heading"] > 0.4:
        return "dark"
    if lum["background"] > 0.8 and lum["text"] < 0.05 and lum["heading"] < 0.2:
        return "light"
    return f"mixed {lum}"


@pytest.fixture
def dark_phone(browser: Browser, browser_context_args):
    """A phone set to the dark colour scheme."""
    context = browser.new_context(**browser_context_args, color_scheme="dark")
    page = context.new_page()
    yield page
    context.close()


def test_every_kind_of_page_follows_a_dark_phone(dark_phone: Page, live_server: str, artifacts):
    page = dark_phone
    for path in ["/", "/rebel-princess/new", "/princesse-princesse/new", "/reveillez/new",
                 "/kanai-duel/new", "/rules"]:
        page.goto(live_server + path)
        assert scheme(page) == "dark", path
    # A game of Rebel Princess, its pad, its QR code, and its group's history.
    play_by_numbers(page, live_server, "abc", [[5, 2, 8], [4, 1, 6], [3, 4, 7]])
    assert scheme(page) == "dark"
    qr = page.locator(".qr img").first
    if qr.count():
        assert qr.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    page.goto(live_server)
    page.locator("[data-action=group]").click()
    page.locator("[data-action=history]").click()
    expect(page.locator("[data-list=history] li[data-game]")).to_have_count(1)
    assert scheme(page) == "dark"


def test_the_switch_overrides_the_phone_and_survives_a_reload(dark_phone: Page, live_server: str):
    page = dark_phone
    page.goto(live_server)
    pick = page.locator("[data-theme-pick]")
    expect(pick).to_be_visible()
    expect(pick.locator("[data-theme-set=auto]")).to_have_attribute("aria-pressed", "true")
    pick.locator("[data-theme-set=light]").click()
    assert scheme(page) == "light"
    page.reload()
    assert scheme(page) == "light"  # written by the server from the cookie: no dark flash
    assert page.locator("html").get_attribute("data-theme") == "light"
    expect(pick.locator("[data-theme-set=light]")).to_have_attribute("aria-pressed", "true")
    page.goto(live_server + "/reveillez/new")
    assert scheme(page) == "light"
    page.locator("[data-theme-pick] [data-theme-set=auto]").click()
    assert scheme(page) == "dark"
    page.reload()
    assert scheme(page) == "dark"
    assert page.locator("html").get_attribute("data-theme") is None


def test_a_light_phone_may_choose_dark(page: Page, live_server: str):
    page.goto(live_server + "/princesse-princesse/new")
    assert scheme(page) == "light"
    page.locator("[data-theme-pick] [data-theme-set=dark]").click()
    assert scheme(page) == "dark"
    page.reload()
    assert scheme(page) == "dark"


@pytest.mark.parametrize("colour_scheme", ["light", "dark"])
def test_a_score_pad_in_each_scheme(browser: Browser, browser_context_args, live_server: str,
                                    artifacts, colour_scheme: str):
    context = browser.new_context(**browser_context_args, color_scheme=colour_scheme)
    page = context.new_page()
    page.goto(f"{live_server}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    for i, letter in enumerate("abcde"):
        page.locator(f"select[name='cards-{i}']").select_option(letter)
    page.locator("[data-action=create]").click()
    for scores in ([3, 8, 4], [6, 2, 7]):
        page.locator("[data-action=enter-numbers]").click()
        for seat, value in enumerate(scores):
            page.locator(f"#score_{seat}").fill(str(value))
        page.locator("[data-action=save]").click()
        page.wait_for_load_state()
        if page.url.endswith("/numbers"):
            page.locator("[data-action=save]").click()
        expect(page.locator("#pad")).to_be_visible()
    assert scheme(page) == colour_scheme
    page.screenshot(path=str(artifacts / f"dark-pad-{colour_scheme}.png"))
    context.close()
