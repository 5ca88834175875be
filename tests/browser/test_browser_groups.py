"""A table's group on phones at 390×844: the first phone starts a duel (a group is made for it
with no extra step), the second phone joins the group with the QR link on *Other phones*,
starts the next duel in it, and both phones see the same history; a third browser sees nothing
of it. Screenshots land in tests/artifacts/ (``groups-*.png``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def duel_won_by_the_princess(page: Page, first: str, second: str) -> None:
    """A referee duel set up on this phone, won in one round: the Princess beats the Prince."""
    page.locator("[data-action=new-game]").first.click()
    page.locator("[data-kind=kanai_duel] a").click()
    page.fill("#first", first)
    page.fill("#second", second)
    page.click("[data-action=create]")
    expect(page.locator("#board")).to_be_visible()
    page.click("[data-hand='0'] [data-card=princess]")
    page.click("[data-hand='1'] [data-card=prince]")
    page.click("[data-action=reveal]")
    expect(page.locator("[data-result='princess'][data-winner='0']")).to_be_visible()


def test_a_second_phone_joins_the_group_and_both_see_one_history(browser, browser_context_args,
                                                                   live_server, artifacts):
    def new_phone():
        return browser.new_context(**{**browser_context_args, "viewport": PHONE}).new_page()

    first, second, third = new_phone(), new_phone(), new_phone()
    first.goto(live_server)
    duel_won_by_the_princess(first, "Ana", "Ben")

    # Other phones: the group's link, as a QR code with its address under it.
    first.locator("[data-action=share-links]").click()
    group = first.locator("section[data-link-role=group]")
    group.locator("summary").click()
    expect(group.locator(".qr img")).to_be_visible()
    assert no_horizontal_scroll(first)
    first.screenshot(path=str(artifacts / "groups-1-other-phones.png"), full_page=True)
    address = group.locator("[data-address=group]").inner_text()
    path = re.search(r"/group/\w+/$", address).group(0)

    # The second phone scans it: it is in the group, and its next game goes there.
    second.goto(live_server + path)
    expect(second.locator("h1[data-group-name]")).to_have_text("Ana · Ben")
    assert no_horizontal_scroll(second)
    second.screenshot(path=str(artifacts / "groups-2-group.png"), full_page=True)
    second.goto(live_server)
    expect(second.locator("[data-action=group]")).to_have_count(1)
    second.goto(live_server + "/kanai-duel/new")
    expect(second.locator("select[name=group] option:checked")).to_have_text("Ana · Ben")
    second.goto(live_server)
    duel_won_by_the_princess(second, "Cy", "Ana")

    # Both phones: the same history, both games in it.
    for phone in (first, second):
        phone.goto(live_server)
        phone.locator("[data-action=group]").click()
        phone.locator("[data-action=history]").click()
        games = phone.locator("[data-list=history] li[data-game]")
        expect(games).to_have_count(2)
        expect(games.first).to_contain_text("Cy")
        expect(games.nth(1)).to_contain_text("Ben")
    assert no_horizontal_scroll(second)
    second.screenshot(path=str(artifacts / "groups-3-history.png"), full_page=True)
    assert first.locator("[data-list=history]").inner_text() == \
        second.locator("[data-list=history]").inner_text()

    # A third browser, with no link: nothing of the group anywhere it can go.
    third.goto(live_server)
    expect(third.locator("[data-action=group]")).to_have_count(0)
    for name in ("Ana", "Ben", "Cy"):
        assert name not in third.locator("main").inner_text()
    answer = third.goto(live_server + "/group/" + "0" * 32 + "/history/")
    assert answer is not None and answer.status == 404
    third.goto(live_server + "/kanai-duel/new")
    expect(third.locator("select[name=group]")).to_have_count(0)
    expect(third.locator("#known-players option")).to_have_count(0)
    for page in (first, second, third):
        page.context.close()
