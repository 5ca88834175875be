"""Enter tricks on a phone: a whole 4-player round tapped in card by card, in headless Chromium."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from companion.scoring.rebel_princess import score_entry
from companion.scoring.rebel_princess.engine import RoundState, Suit

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Cy", "Di"]


def round_with_a_revoke(seed=11):
    """A seeded Once Upon a Time round, legal except that Ben does not follow suit in the first
    trick while holding the suit led (he plays it later, which proves the revoke). Returns the
    cards in play order and the round's scores."""
    state = RoundState.deal(4, edition="deluxe", round_card="a", seed=seed, leader=0)
    rng = random.Random(seed)
    order = []
    lead = min(c for c in state.hand(0) if c.suit is not Suit.PRINCE)
    state.play(lead)
    order.append(lead)
    others = sorted(c for c in state.hand(1) if c.suit not in (lead.suit, Suit.PRINCE))
    held = [c for c in state.hand(1) if c.suit is lead.suit]
    assert others and held, "choose another seed"
    state.push_card(others[0])  # the revoke
    order.append(others[0])
    while not state.is_over():
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        order.append(card)
    return [str(c) for c in order], score_entry(state.outcome().to_entry()).scores


def create_game(page: Page, base: str) -> None:
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(NAMES):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("#first_leader").select_option("0")
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()


def tap(page: Page, card: str) -> None:
    entry = page.locator("#trick-entry")
    version = int(entry.get_attribute("data-version"))
    page.locator(f"[data-play='{card}']").click()
    expect(entry).to_have_attribute("data-version", str(version + 1))


def test_enter_a_round_trick_by_trick(page: Page, live_server: str, artifacts):
    """Every card tapped, a revoke flagged and accepted, a mistap undone, the scores saved."""
    order, scores = round_with_a_revoke()
    create_game(page, live_server)
    page.locator("[data-action=enter-tricks]").click()
    expect(page.locator("#trick-entry")).to_have_attribute("data-turn", "0")
    assert no_horizontal_scroll(page)

    flagged = False
    for index, card in enumerate(order):
        if index == 6:  # a mistap: the wrong card, taken back with Undo
            wrong = next(c for c in reversed(order) if c not in order[:index + 1])
            tap(page, wrong)
            expect(page.locator(f".slot [data-card='{wrong}']")).to_be_visible()
            page.locator("[data-action=undo]").click()
            expect(page.locator(f"[data-play='{wrong}']")).to_be_enabled()
        tap(page, card)
        if not flagged and page.locator("[data-violation]").count():
            flagged = True
            issue = page.locator("[data-violation=must-follow-suit]")
            expect(issue).to_have_attribute("data-issue-trick", "1")
            expect(issue).to_have_attribute("data-seat", "1")
            issue.scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "trick-entry-revoke.png"), full_page=False)
            issue.locator("[data-action=accept]").click()
            expect(page.locator("[data-violation]")).to_have_count(0)
        if index == 17:
            assert no_horizontal_scroll(page)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(artifacts / "trick-entry.png"), full_page=False)
    assert flagged, "the revoke was never flagged"

    expect(page.locator("#trick-entry")).to_have_attribute("data-over", "1")
    expect(page.locator("#trick-score")).to_have_attribute(
        "data-round-scores", ",".join(map(str, scores)))
    page.screenshot(path=str(artifacts / "trick-entry-scores.png"), full_page=True)
    page.locator("[data-action=confirm-scores]").click()
    expect(page.locator("#pad")).to_have_attribute("data-totals", ",".join(map(str, scores)))
