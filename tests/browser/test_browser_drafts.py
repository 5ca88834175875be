"""Never lose an entry (issue 21), in every game on a phone: a half-entered round comes back after
a reload, Back, the language switch and a save with no network; a round saved with the network
cut is kept on the phone and stored exactly once when the network is back; a queued save the
server refuses on arrival says why and gives the entry back to fix.

Each game runs on one phone size and language (together they cover 390x844 and 360x740, English
and French): what is checked does not depend on them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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

    open: Callable[[Page, str], str]          # create a game, open the entry form: game's URL
    part: Callable[[Page], None]              # tap part of the entry
    has_part: Callable[[Page], None]          # expect the part on screen
    rest: Callable[[Page], None]              # tap the rest of the entry
    stored: Callable[[Page], int]             # rounds stored, read on the game's page
    board: str                                # the game's state on its page
    size: dict
    lang: str


# --- Rebel Princess -----------------------------------------------------------------------------

def rp_new(page: Page, base: str) -> str:
    page.goto(f"{base}/rebel-princess/new")
    if not page.locator("input[name=edition][value=deluxe]").is_checked():  # French: classic
        page.locator("label:has(input[name=edition][value=deluxe])").click()
        expect(page.locator("select[name='cards-0']")).to_have_value("a")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    return page.url


def rp_counts_open(page: Page, base: str) -> str:
    game = rp_new(page, base)
    page.goto(f"{game}/round/1/counts")
    expect(page.locator("#counts-entry")).to_be_visible()
    return game


def rp_counts_part(page: Page) -> None:
    tap(page, "input[name=princes_0][value='3']")
    tap(page, "input[name=frog][value='1']")


def rp_counts_has_part(page: Page) -> None:
    expect(page.locator("input[name=princes_0][value='3']")).to_be_checked()
    expect(page.locator("input[name=frog][value='1']")).to_be_checked()


def rp_counts_rest(page: Page) -> None:
    tap(page, "input[name=princes_1][value='4']")  # Cy's count is filled in: the rest


def rp_numbers_open(page: Page, base: str) -> str:
    game = rp_new(page, base)
    page.locator("[data-action=enter-numbers]").click()
    expect(page.locator("#numbers-entry")).to_be_visible()
    return game


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

def pp_open(page: Page, base: str) -> str:
    page.goto(f"{base}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator('[data-action="create"]').click()
    expect(page.locator("#board")).to_be_visible()
    game = page.url
    page.locator('[data-action="round-end"]').click()
    tap(page, '[data-in-seat="0"]')
    tap(page, '[data-in-seat="2"]')
    page.locator('[data-action="next"]').click()
    expect(page.locator("#round-step-2")).to_be_visible()
    return game


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

def kd_open(page: Page, base: str) -> str:
    page.goto(f"{base}/kanai-duel/new")
    page.fill("#first", "Ana")
    page.fill("#second", "Ben")
    page.click("[data-action=create]")
    expect(page.locator("[data-form=round]")).to_be_visible()
    return page.url


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
                      rp_stored, "#pad", BIG, "en"),
    "rp-numbers": Game(rp_numbers_open, rp_numbers_part, rp_numbers_has_part, rp_numbers_rest,
                       rp_stored, "#pad", SMALL, "fr"),
    "pp-round-end": Game(pp_open, pp_part, pp_has_part, pp_rest, pp_stored, "#board", SMALL, "en"),
    "kd-referee": Game(kd_open, kd_part, kd_has_part, kd_rest, kd_stored, "#board", BIG, "fr"),
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


def other_phone_saves_round_1(page: Page, base: str, scores: list[int]) -> None:
    """Another phone of the same table stores round 1 meanwhile (same cookies, its own
    network: the request API is not cut by the browser's offline mode)."""
    code = page.url.split("/g/", 1)[1].split("/", 1)[0]
    form_page = page.context.request.get(f"{base}/g/{code}/round/1/numbers").text()
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"|'
                      r'name="csrf_token" value="([^"]+)"', form_page)
    csrf = next(group for group in token.groups() if group)
    answer = page.context.request.post(
        f"{base}/g/{code}/round/1/numbers", max_redirects=0,
        form={"csrf_token": csrf, **{f"score_{s}": str(v) for s, v in enumerate(scores)}})
    assert answer.status in (302, 303), answer.text()[:500]


def test_a_queued_save_refused_on_arrival_says_why_and_gives_the_entry_back(
        phone_in: Page, live_server: str):
    """Saved with no network; meanwhile another phone stores the same round: when the network
    is back the server refuses the queued one, and this phone says why, with the entry."""
    page = phone_in
    rp_numbers_open(page, live_server)
    rp_numbers_part(page)
    rp_numbers_rest(page)
    page.context.set_offline(True)
    page.locator("[data-action=save]").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    other_phone_saves_round_1(page, live_server, [14, 0, 0])

    page.context.set_offline(False)
    refused = page.locator("[data-draft-notice=refused]")
    expect(refused).to_be_visible()
    expect(page.locator("[data-outbox=refused]")).to_be_visible()
    expect(refused).not_to_have_text(re.compile(r"^\s*$"))
    rp_numbers_has_part(page)
    expect(page.locator("#score_2")).to_have_value("3")
    # Nothing was stored twice: the pad holds the other phone's round only.
    page.locator("header a.code").first.click()
    assert rp_stored(page) == 1
    expect(page.locator("#pad")).to_have_attribute("data-totals", "14,0,0")
    # The refusal is said on every page until the entry is opened and fixed or discarded.
    expect(page.locator("[data-outbox=refused] a")).to_be_visible()
    page.go_back()
    page.locator("[data-draft-discard]").click()
    expect(page.locator("[data-outbox]")).to_be_hidden()


def test_a_save_whose_answer_was_lost_is_stored_once(phone: Page, live_server: str):
    """The save reached the server but its answer never came back (the network dropped on the
    way): the phone keeps it, sends it again, and the round is stored once."""
    page = phone
    pp_open(page, live_server)
    pp_part(page)
    pp_rest(page)
    lost = []

    def drop_the_answer(route):
        if route.request.method == "POST" and not lost:
            route.fetch()  # the server stores it...
            lost.append(route.request.url)
            route.abort("internetdisconnected")  # ...and the phone never hears back
        else:
            route.continue_()

    page.route(lambda url: url.split("?")[0].endswith("/round"), drop_the_answer)
    page.locator("[data-action=save]").click()
    expect(page.locator("#board")).to_be_visible()  # sent again a few seconds later: stored
    assert lost and pp_stored(page) == 1


def test_undo_right_after_a_save_restores_the_game_exactly(game, live_server):
    """Save a round: an Undo shows by the thumb for a few seconds; one tap and the game is as it
    was before the save."""
    spec, page = game
    url = spec.open(page, live_server)
    if page.url == url:  # the entry is on the game's page (the duel)
        before = page.locator(spec.board).inner_text()
    else:
        page.goto(url)
        before = page.locator(spec.board).inner_text()
        page.go_back()
    spec.part(page)
    spec.rest(page)
    page.locator("form[data-draft] .savebar button.primary").click()
    toast = page.locator("[data-undo-toast]")
    expect(toast).to_be_visible()
    assert spec.stored(page) == 1
    box, height = toast.bounding_box(), page.viewport_size["height"]
    assert box["y"] + box["height"] <= height and box["y"] > height / 2  # by the thumb
    toast.locator("[data-action=undo-now]").click()
    expect(page.locator("[data-undo-toast]")).to_have_count(0)
    assert spec.stored(page) == 0
    assert page.locator(spec.board).inner_text() == before


def test_reveillez_keeps_an_action_half_built_and_offers_undo(phone_in: Page, live_server: str):
    """A wake half built (the place tapped, a name typed) survives a reload, Back and the
    language switch; once stored, Undo by the thumb takes it back."""
    page = phone_in
    page.goto(f"{live_server}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.fill(f"#names-{seat}", name)
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "0")
    page.click("[data-action=wake]")
    page.locator(".rv-grid [data-slot='4'] button").click()
    expect(page.locator("[data-question=value]")).to_be_visible()
    page.fill("input[name=value_typed]", "17")

    page.reload()
    expect(page.locator("[data-question=value]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")
    expect(page.locator("[data-draft-notice]")).to_be_visible()
    switch_language(page)
    expect(page.locator("[data-question=value]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")
    page.locator("[data-nav=rules]").click()
    page.go_back()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")

    page.click("[data-value=typed]")
    expect(page.locator("[data-seat='0'][data-points='17']")).to_be_visible()
    toast = page.locator("[data-undo-toast]")
    expect(toast).to_be_visible()
    toast.locator("[data-action=undo-now]").click()
    expect(page.locator("[data-seat='0'][data-points='0']")).to_be_visible()
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:'))") == []


def test_undoing_a_past_round_asks_first(phone: Page, live_server: str):
    """Princesse Princesse's history: « Undo this round » asks; nothing changes until Yes."""
    page = phone
    url = pp_open(page, live_server)
    pp_part(page)
    pp_rest(page)
    page.locator("[data-action=save]").click()
    expect(page.locator("#board")).to_have_attribute("data-round", "2")
    page.goto(f"{url}/history")
    page.locator("summary[data-action=undo]").click()
    question = page.locator("[data-confirm=undo][open] .confirm-box")
    expect(question).to_be_visible()
    page.goto(url)
    expect(page.locator("#board")).to_have_attribute("data-round", "2")  # only asked
    page.goto(f"{url}/history")
    page.locator("summary[data-action=undo]").click()
    page.locator("[data-action=undo-yes]").click()
    expect(page.locator("#board")).to_have_attribute("data-round", "1")


def test_a_refused_save_shows_its_first_problem_and_says_so_by_the_save_button(
        phone_in: Page, live_server: str):
    """Save a round with a count missing: the page scrolls to the first problem and focuses it,
    and the Save bar says the save was refused; building the entry showed nothing red."""
    page = phone_in
    rp_counts_open(page, live_server)
    tap(page, "input[name=princes_0][value='1']")
    expect(page.locator(".problems, ul.errors")).to_have_count(0)  # nothing refused yet
    page.locator("[data-action=save]").click()
    summary = page.locator("[data-problems-summary]")
    expect(summary).to_be_visible()
    focused = page.evaluate("""() => {
        const e = document.activeElement, r = e.getBoundingClientRect();
        return {alert: e.matches('[role=alert], .problems, ul.errors'),
                seen: r.top >= 0 && r.bottom <= innerHeight}; }""")
    assert focused == {"alert": True, "seen": True}
    page.mouse.wheel(0, 2000)
    summary.click()
    assert page.evaluate("document.activeElement.matches('[role=alert], .problems, ul.errors')")
