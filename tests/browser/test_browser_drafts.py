"""Never lose an entry (issue 21), in every game on a phone: a half-entered round comes back after
a reload, Back, the language switch and a save with no network; a round saved with the network
cut is kept on the phone and stored exactly once when the network is back; a queued save the
server refuses on arrival says why and gives the entry back to fix.

Each game runs on one phone size and language (together they cover 390x844 and 360x740, English
and French): what is checked does not depend on them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import LANGUAGES

pytestmark = pytest.mark.browser

BIG = {"width": 390, "height": 844}
SMALL = {"width": 360, "height": 740}


def tap(page: Page, selector: str) -> None:
    """Tap the label around a (visually hidden) radio or box."""
    page.locator(f"label:has({selector})").first.click()


@dataclass
class Game:
    """One entry form of one game: how to open it, tap part of it, finish it, and read back what
    the game stored."""

    open: Callable[[Page, str], None]         # create a game and open the entry form
    part: Callable[[Page], None]              # tap part of the entry
    has_part: Callable[[Page], None]          # expect the part on screen
    rest: Callable[[Page], None]              # tap the rest of the entry
    stored: Callable[[Page], int]             # rounds stored, read on the game's page
    size: dict
    lang: str


# --- Rebel Princess -----------------------------------------------------------------------------

def rp_new(page: Page, base: str) -> None:
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()


def rp_counts_open(page: Page, base: str) -> None:
    rp_new(page, base)
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    page.goto(f"{base}/g/{code}/round/1/counts")
    expect(page.locator("#counts-entry")).to_be_visible()


def rp_counts_part(page: Page) -> None:
    tap(page, "input[name=princes_0][value='3']")
    tap(page, "input[name=frog][value='1']")


def rp_counts_has_part(page: Page) -> None:
    expect(page.locator("input[name=princes_0][value='3']")).to_be_checked()
    expect(page.locator("input[name=frog][value='1']")).to_be_checked()


def rp_counts_rest(page: Page) -> None:
    tap(page, "input[name=princes_1][value='4']")  # Cy's count is filled in: the rest


def rp_numbers_open(page: Page, base: str) -> None:
    rp_new(page, base)
    page.locator("[data-action=enter-numbers]").click()
    expect(page.locator("#numbers-entry")).to_be_visible()


def rp_numbers_part(page: Page) -> None:
    page.locator("#score_0").fill("4")
    page.locator("#score_1").fill("7")


def rp_numbers_has_part(page: Page) -> None:
    expect(page.locator("#score_0")).to_have_value("4")
    expect(page.locator("#score_1")).to_have_value("7")


def rp_numbers_rest(page: Page) -> None:
    page.locator("#score_2").fill("3")  # 14 in all: Once Upon a Time's Princes


def rp_stored(page: Page) -> int:
    expect(page.locator("#pad")).to_be_visible()
    return page.locator("#pad tr[data-round-row]:not(.future)").count()


# --- Princesse Princesse ------------------------------------------------------------------------

def pp_open(page: Page, base: str) -> None:
    page.goto(f"{base}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator('[data-action="create"]').click()
    expect(page.locator("#board")).to_be_visible()
    page.locator('[data-action="round-end"]').click()
    tap(page, '[data-in-seat="0"]')
    tap(page, '[data-in-seat="2"]')
    page.locator('[data-action="next"]').click()
    expect(page.locator("#round-step-2")).to_be_visible()


def pp_part(page: Page) -> None:
    tap(page, '[data-choice="card-0-7"]')


def pp_has_part(page: Page) -> None:
    expect(page.locator('[data-choice="card-0-7"]')).to_be_checked()


def pp_rest(page: Page) -> None:
    tap(page, '[data-choice="card-2-3"]')


def pp_stored(page: Page) -> int:
    expect(page.locator("#board")).to_be_visible()
    return int(page.locator("#board").get_attribute("data-round")) - 1


# --- The Kanai duel (referee) -------------------------------------------------------------------

def kd_open(page: Page, base: str) -> None:
    page.goto(f"{base}/kanai-duel/new")
    page.fill("#first", "Ana")
    page.fill("#second", "Ben")
    page.click("[data-action=create]")
    expect(page.locator("[data-form=round]")).to_be_visible()


def kd_part(page: Page) -> None:
    page.click("[data-hand='0'] [data-card=prince]")


def kd_has_part(page: Page) -> None:
    expect(page.locator("[data-hand='0'] [data-card=prince] input")).to_be_checked()


def kd_rest(page: Page) -> None:
    page.click("[data-hand='1'] [data-card=general]")


def kd_stored(page: Page) -> int:
    expect(page.locator("#board")).to_be_visible()
    last = page.locator("[data-last-round]")
    return int(last.get_attribute("data-last-round")) if last.count() else 0


GAMES = {
    "rp-counts": Game(rp_counts_open, rp_counts_part, rp_counts_has_part, rp_counts_rest,
                      rp_stored, BIG, "en"),
    "rp-numbers": Game(rp_numbers_open, rp_numbers_part, rp_numbers_has_part, rp_numbers_rest,
                       rp_stored, SMALL, "fr"),
    "pp-round-end": Game(pp_open, pp_part, pp_has_part, pp_rest, pp_stored, SMALL, "en"),
    "kd-referee": Game(kd_open, kd_part, kd_has_part, kd_rest, kd_stored, BIG, "fr"),
}


@pytest.fixture(params=list(GAMES))
def game(request, browser: Browser, browser_context_args):
    """(the game's entry form, a phone of its size and language)."""
    spec = GAMES[request.param]
    context = browser.new_context(**{**browser_context_args, "viewport": spec.size},
                                  locale=LANGUAGES[spec.lang])
    page = context.new_page()
    yield spec, page
    context.close()


def switch_language(page: Page) -> None:
    other = page.locator("[data-nav=lang] a[data-lang]").first
    lang = other.get_attribute("data-lang")
    other.click()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def test_a_half_entry_comes_back_after_reload_back_language_and_no_network(game, live_server):
    spec, page = game
    spec.open(page, live_server)
    entry = page.url
    spec.part(page)

    page.reload()
    spec.has_part(page)
    expect(page.locator("[data-draft-notice]")).to_be_visible()

    page.locator("[data-nav=rules]").click()  # another page, then Back
    expect(page.locator("[data-nav=rules]")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(entry)
    spec.has_part(page)

    switch_language(page)
    spec.has_part(page)
    expect(page.locator("[data-draft-notice]")).to_be_visible()

    # The whole round, saved with the network cut: kept on this phone, the entry still there.
    spec.rest(page)
    page.context.set_offline(True)
    page.locator("form[data-draft] .savebar button.primary").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    spec.has_part(page)

    # The network is back: sent once, the game shows it stored, the draft is gone.
    page.context.set_offline(False)
    expect(page.locator("[data-outbox=sent]")).to_be_visible()
    assert spec.stored(page) == 1
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:')"
                         " || k === 'companion-outbox')") == []
    page.reload()
    assert spec.stored(page) == 1
