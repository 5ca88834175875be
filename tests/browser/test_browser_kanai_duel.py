"""The duel in headless Chromium on a 390×844 phone: a whole referee game on one phone, and a
two-phone game with two browser contexts (the second joins with the first phone's link, the Spy's
order is enforced, both phones update live). Screenshots land in tests/artifacts/."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS, no_horizontal_scroll

pytestmark = pytest.mark.browser

LIVE = 5_000  # the phones poll every 1.5 s; allow for a loaded machine


def tap_targets_are_big(page) -> bool:
    """Every visible button and card is at least 44 px tall."""
    return page.evaluate("""() => [...document.querySelectorAll('button, .kd-card > span, .btn')]
        .filter(e => e.offsetParent !== null)
        .every(e => e.getBoundingClientRect().height >= 40)""")


def set_up(page, url, mode_text=None, set_aside_text=None):
    page.goto(url + "/kanai-duel/new")
    page.fill("#first", "Ana")
    page.fill("#second", "Ben")
    if mode_text:  # the option itself (the variants' hint also speaks of two phones)
        page.locator(".seg label", has_text=mode_text).click()
    if set_aside_text:
        page.locator(".kd-variants summary").click()
        page.locator(".seg label", has_text=set_aside_text).click()
    page.click("[data-action=create]")
    expect(page.locator("#board")).to_be_visible()


def test_a_whole_referee_game_on_one_phone(page, live_server, artifacts):
    """Tap both revealed cards each round; the steps, the holds, the Spy and the +2 show; used
    cards are greyed; undo works; the end says how it was won."""
    set_up(page, live_server)
    assert no_horizontal_scroll(page) and tap_targets_are_big(page)
    page.screenshot(path=str(artifacts / "kanai-referee-start.png"))

    def play(a, b):
        page.click(f"[data-hand='0'] [data-card={a}]")
        page.click(f"[data-hand='1'] [data-card={b}]")
        page.click("[data-action=reveal]")

    play("clown", "general")                                    # on hold
    expect(page.locator("[data-held='1']")).to_be_visible()
    expect(page.locator("[data-bonus-next]")).to_have_count(0)  # the Clown cancelled the +2
    play("prince", "spy")                                       # Ana 1 + the held round
    expect(page.locator("[data-score='2-0']")).to_be_visible()
    expect(page.locator("[data-reveals-first='0']")).to_be_visible()
    expect(page.locator("[data-spy-order='0']")).to_be_visible()
    expect(page.locator("[data-hand='0'] [data-card=prince]")).to_have_attribute("data-used", "1")
    expect(page.locator("[data-hand='0'] [data-card=prince] input")).to_be_disabled()

    play("spy", "wizard")                                       # a mistake: undo it
    expect(page.locator("[data-score='2-1']")).to_be_visible()
    page.click("[data-action=undo]")
    expect(page.locator("[data-score='2-0']")).to_be_visible()

    play("general", "assassin")                                 # the lower wins
    expect(page.locator("[data-score='2-1']")).to_be_visible()
    expect(page.locator("[data-bonus-next='0']")).to_be_visible()
    play("assassin", "wizard")                                  # 3+2 against 5: on hold
    expect(page.locator("[data-last-round] [data-step='bonus-stays']")).to_be_visible()
    expect(page.locator("[data-round-held='1']")).to_be_visible()
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "kanai-referee-steps.png"))

    play("minister", "princess")                                # 2 + the held round: 5 wins
    expect(page.locator("[data-result='win'][data-winner='0']")).to_be_visible()
    expect(page.locator("[data-form='round']")).to_have_count(0)
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "kanai-referee-end.png"), full_page=True)

    page.click("[data-last-round] [data-step='wins'] a")
    expect(page).to_have_url(f"{live_server}/kanai-duel/rules/resolution-order")


def join(ben, ana, live_server, shot=None):
    """Ben opens the join address Ana's phone shows (the public address, opened here on the test
    server), sees the join page and takes his seat with its button."""
    link = ana.locator("[data-join] .kd-url").inner_text().split()[-1]
    ben.goto(live_server + urlsplit(link).path)
    expect(ben.locator("[data-join-seat='1']")).to_be_visible()
    assert no_horizontal_scroll(ben)
    if shot:
        ben.screenshot(path=str(ARTIFACTS / f"kanai-phones-{shot}.png"))
    ben.click("[data-action=join]")


def test_a_two_phone_game_with_the_spys_order(browser, live_server, artifacts):
    """Two phones: the second joins by the first phone's link; each picks secretly; the round is
    revealed on both when both are in; after a Spy the opponent picks first and the Spy's player
    sees that card; both phones update without reload."""
    options = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
               "device_scale_factor": 2, "service_workers": "block"}
    ana = browser.new_context(**options).new_page()
    ben = browser.new_context(**options).new_page()
    set_up(ana, live_server, "Two phones")
    expect(ana.locator("[data-join] img")).to_be_visible()
    assert no_horizontal_scroll(ana)
    ana.screenshot(path=str(artifacts / "kanai-phones-join.png"))
    join(ben, ana, live_server, "join-390x844")
    expect(ben.locator("#board[data-seat='1']")).to_be_visible()
    expect(ana.locator("[data-join]")).to_have_count(0, timeout=LIVE)  # live: Ben joined

    def pick(page, card):
        page.click(f"[data-hand] [data-card={card}]")
        page.click("[data-action=commit]")

    pick(ana, "general")
    expect(ana.locator("[data-my-pick='general']")).to_be_visible()
    expect(ben.locator("[data-other-picked='1']")).to_be_visible(timeout=LIVE)
    pick(ben, "spy")
    expect(ana.locator("[data-last-round='1'][data-round-winner='0']")).to_be_visible(timeout=LIVE)
    expect(ben.locator("[data-last-round='1']")).to_be_visible()

    # Ben's Spy: Ana picks first, Ben waits and then sees Ana's card.
    expect(ben.locator("[data-waiting-first='1']")).to_be_visible()
    expect(ana.locator("[data-goes-first='1']")).to_be_visible()
    pick(ana, "wizard")
    expect(ben.locator("[data-seen='wizard']")).to_be_visible(timeout=LIVE)
    assert no_horizontal_scroll(ben)
    ben.screenshot(path=str(artifacts / "kanai-phones-spy.png"))
    expect(ana.locator("[data-seen]")).to_have_count(0)
    pick(ben, "minister")
    expect(ana.locator("[data-score='2-0']")).to_be_visible(timeout=LIVE)

    pick(ana, "prince")
    pick(ben, "clown")                                          # on hold
    expect(ana.locator("[data-held='1']")).to_be_visible(timeout=LIVE)
    pick(ben, "princess")
    pick(ana, "minister")                                       # 2 + the held round
    for phone in (ana, ben):
        expect(phone.locator("[data-result='win'][data-winner='0']")).to_be_visible(timeout=LIVE)
    ana.screenshot(path=str(artifacts / "kanai-phones-end-ana.png"))
    ben.screenshot(path=str(artifacts / "kanai-phones-end-ben.png"))


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_variant_b_on_two_phones(browser, live_server, artifacts, size):
    """Variant B on two phones: each player sets a card aside on their own phone, the other phone
    only learns that it is done; both cards appear on both phones at once, live; then round 1."""
    options = {"viewport": {"width": size[0], "height": size[1]}, "is_mobile": True,
               "has_touch": True, "device_scale_factor": 2, "service_workers": "block"}
    ana = browser.new_context(**options).new_page()
    ben = browser.new_context(**options).new_page()
    set_up(ana, live_server, "Two phones", "Chosen (B)")
    expect(ana.locator("[data-phase='set-aside']")).to_be_visible()
    tag = f"{size[0]}x{size[1]}"
    join(ben, ana, live_server, f"join-{tag}")
    expect(ben.locator("[data-phase='set-aside']")).to_be_visible()

    ana.click("[data-hand] [data-card=spy]")
    ana.click("[data-action=set-aside]")
    expect(ana.locator("[data-my-aside='spy']")).to_be_visible()
    ana.evaluate("window.samePage = true")  # gone if the page reloads instead of swapping its board
    expect(ben.locator("[data-other-picked='1']")).to_be_visible(timeout=LIVE)  # live
    expect(ben.locator("[data-out]")).to_have_count(0)
    assert no_horizontal_scroll(ben) and tap_targets_are_big(ben)
    ben.screenshot(path=str(artifacts / f"kanai-phones-b-aside-{tag}.png"), full_page=True)
    expect(ben.locator("[data-my-aside], [data-seen]")).to_have_count(0)  # Ana's card: not here

    ben.click("[data-hand] [data-card=prince]")
    ben.click("[data-action=set-aside]")
    for phone in (ana, ben):
        expect(phone.locator("[data-out='spy-prince']")).to_be_visible(timeout=LIVE)
        expect(phone.locator("[data-action=commit]")).to_be_visible()
    expect(ana.locator("[data-hand] [data-card=spy] input")).to_be_disabled()
    expect(ben.locator("[data-hand] [data-card=prince] input")).to_be_disabled()
    ana.wait_for_timeout(2000)  # two periods of the page-wide live check: it leaves the board be
    assert ana.evaluate("window.samePage === true"), "Ana's page reloaded on top of the live board"
    assert no_horizontal_scroll(ana)
    ana.screenshot(path=str(artifacts / f"kanai-phones-b-revealed-{tag}.png"), full_page=True)

    ana.click("[data-hand] [data-card=general]")
    ana.click("[data-action=commit]")
    ben.click("[data-hand] [data-card=wizard]")
    ben.click("[data-action=commit]")
    expect(ana.locator("[data-last-round='1'][data-round-winner='0']")).to_be_visible(timeout=LIVE)
