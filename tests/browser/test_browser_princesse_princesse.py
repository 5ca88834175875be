"""Love Letter « Princesse Princesse » on a phone in French: a whole 4-player game to its end, the
first round through the turn log (a refused target included), the others by the fast path.
Every screen fits 390 and 360 px; screenshots go to tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser



def shot(page: Page, artifacts, name: str) -> None:
    """French page, no horizontal scroll at 390 and 360 px, a screenshot."""
    assert page.locator("html").get_attribute("lang") == "fr"
    assert no_horizontal_scroll(page), f"{name}: wider than 390 px"
    page.screenshot(path=str(artifacts / f"princesse_princesse-{name}.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    assert no_horizontal_scroll(page), f"{name}: wider than 360 px"
    page.set_viewport_size({"width": 390, "height": 844})


def tap(page: Page, selector: str) -> None:
    """Tap the big label around a hidden radio or checkbox."""
    page.locator(f"label:has({selector})").click()


def pick_card(page: Page, value: int) -> None:
    page.locator(f'[data-card-choice="{value}"]').click()
    expect(page.locator("#turn")).to_be_visible()


def play_turn(page: Page) -> None:
    page.locator('[data-action="play-turn"]').click()
    expect(page.locator("#log-state")).to_be_visible()


def fast_round(page: Page, still_in: list[int], cards: dict[int, int], spies=(),
               princesses=(), artifacts=None) -> None:
    page.locator('[data-action="round-end"]').click()
    for seat in still_in:
        tap(page, f'[data-in-seat="{seat}"]')
    page.locator('[data-action="next"]').click()
    for seat, value in cards.items():
        tap(page, f'[data-choice="card-{seat}-{value}"]')
    for seat in spies:
        tap(page, f'[data-spy-seat="{seat}"]')
    for seat in princesses:
        tap(page, f'[data-princesses-seat="{seat}"]')
    if artifacts is not None:
        shot(page, artifacts, "round-end")
    page.locator('[data-action="save"]').click()
    expect(page.locator("#board")).to_be_visible()


def tokens(page: Page) -> list[int]:
    return [int(t) for t in page.locator(".pp-tokens li").evaluate_all(
        "els => els.map(e => e.dataset.tokens)")]


def test_a_whole_game_in_french(french: Page, live_server: str, artifacts):
    """Set-up, a round through the turn log, three rounds by the fast path, every winner."""
    page = french
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo", "Dan"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator("#first").select_option("1")
    shot(page, artifacts, "new")
    page.locator('[data-action="create"]').click()
    board = page.locator("#board")
    expect(board).to_have_attribute("data-threshold", "4")
    expect(page.locator(".pp-starter")).to_contain_text("Ben commence")
    shot(page, artifacts, "board-start")

    # Round 1 through the turn log.
    page.locator('[data-action="turn-log"]').click()
    page.locator('[data-action="start-log"]').click()
    expect(page.locator("#log-state")).to_have_attribute("data-current-seat", "1")
    pick_card(page, 1)  # Ben: Garde on Cléo, « Prince Vladric »: right guess
    tap(page, '[data-target="2"]')
    tap(page, '[data-choice="named-5"]')
    tap(page, '[data-choice="hit-yes"]')
    play_turn(page)
    expect(page.locator('#log-state [data-seat="2"]')).to_have_attribute("data-status", "out")
    pick_card(page, 4)  # Dan: Oliver
    play_turn(page)
    pick_card(page, 1)  # Ana: Garde — Dan is protected, the app says why
    expect(page.locator('[data-refused="3"]')).to_contain_text("Oliver le dragon protège Dan")
    expect(page.locator('[data-target="3"]')).to_have_count(0)
    shot(page, artifacts, "log-refused-target")
    tap(page, '[data-target="1"]')
    tap(page, '[data-choice="named-9"]')
    tap(page, '[data-choice="hit-no"]')
    page.screenshot(path=str(artifacts / "princesse_princesse-log-garde.png"))
    play_turn(page)
    pick_card(page, 3)  # Ben: Bibliothécaire against Ana, Ana shows the Conseillers and leaves
    tap(page, '[data-target="0"]')
    tap(page, '[data-choice="loser-target"]')
    tap(page, '[data-choice="revealed-2"]')
    play_turn(page)
    expect(page.locator('[data-unseen-value="2"]')).to_have_attribute("data-count", "1")
    pick_card(page, 9)  # Dan plays the Ogre and lays down a Princesses card: Ben is left
    tap(page, '[data-choice="revealed-6"]')
    play_turn(page)
    expect(page.locator("[data-ending]")).to_have_attribute("data-ending", "last-in")
    shot(page, artifacts, "log-round-over")
    page.locator('[data-action="finish-log"]').click()
    expect(board).to_be_visible()
    assert tokens(page) == [0, 1, 0, 0]
    expect(page.locator('#last-round [data-award="last-in"]')).to_contain_text(
        "Ben : dernière personne en lice")

    # Round 2, fast path: Ben (Céleste 8) beats Ana, and is the only one in with a Spy.
    fast_round(page, [0, 1], {0: 3, 1: 8}, spies=[1], artifacts=artifacts)
    assert tokens(page) == [0, 3, 0, 0]
    expect(page.locator('#last-round [data-award="highest-card"]')).to_contain_text(
        "Céleste la licorne 8")
    shot(page, artifacts, "board-spy-bonus")

    # Round 3: Ana and Dan tie on a Prince Vladric; the app draws who starts next.
    fast_round(page, [0, 3], {0: 5, 3: 5})
    assert tokens(page) == [1, 3, 0, 1]
    expect(page.locator("[data-draw]")).to_be_visible()
    assert page.locator(".pp-starter").get_attribute("data-first-reason") == "drawn"
    shot(page, artifacts, "board-tie-draw")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts / "princesse_princesse-board-phone.png"))

    # Round 4: Ben wins with the Roi fantôme and shares the Princesses bonus with Cléo.
    fast_round(page, [1, 2], {1: 7, 2: 2}, princesses=[1, 2])
    assert tokens(page) == [1, 5, 1, 1]
    expect(page.locator("[data-game-over]")).to_contain_text("Ben")
    expect(page.locator('[data-action="round-end"]')).to_have_count(0)
    shot(page, artifacts, "game-over")

    page.locator('[data-action="history"]').click()
    expect(page.locator(".pp-round")).to_have_count(4)
    shot(page, artifacts, "history")



def test_a_live_check_never_cancels_a_form_on_its_way(french: Page, live_server: str):
    """A form is sent and its answer is slow to come (a poor network): meanwhile the page's live
    check sees the game changed (by that very save) — it must not reload the page, which would
    cancel the answer's way to the next page and leave the phone on the page it left."""
    page = french
    page.goto(f"{live_server}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator('[data-action="create"]').click()
    page.locator('[data-action="turn-log"]').click()
    page.locator('[data-action="start-log"]').click()
    expect(page.locator("#log-state")).to_be_visible()

    def slow_answer(route):
        answer = route.fetch(max_redirects=0)  # stored now: the game's version moves on
        page.wait_for_timeout(2500)  # two and a half periods of the live check
        route.fulfill(response=answer)

    page.route("**/log/discard", slow_answer)
    page.locator('summary[data-action="discard-log"]').click()
    page.locator('[data-action="discard-log-yes"]').click()
    expect(page.locator("#board")).to_be_visible()  # the board the answer leads to
    page.unroute_all(behavior="ignoreErrors")
