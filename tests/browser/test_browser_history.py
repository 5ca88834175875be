"""History and statistics on a 390×844 phone: two games finished by the same three players, the
history, a player's statistics and head to head, a game's chart, then everything exported and
imported into a fresh install, which shows the same. Every screen also fits 360 px; screenshots
land in tests/artifacts/ (``history-*.png``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion import create_app

from .conftest import no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser

PLAYERS = ["Ana", "Ben", "Cy"]


def screen(page: Page, artifacts, name: str, full: bool = True) -> None:
    """No sideways scroll at 390 px nor at 360 px, and a screenshot."""
    assert no_horizontal_scroll(page), f"{name}: wider than 390 px"
    page.screenshot(path=str(artifacts / f"history-{name}.png"), full_page=full)
    page.set_viewport_size({"width": 360, "height": 740})
    assert no_horizontal_scroll(page), f"{name}: wider than 360 px"
    page.set_viewport_size({"width": 390, "height": 844})


def play_by_numbers(page: Page, base: str, cards: str, rounds: list[list[int]]) -> None:
    """A Deluxe game of Ana, Ben and Cy with its rounds typed by numbers, to the end."""
    page.goto(f"{base}/rebel-princess/new")
    if len(cards) == 3:
        page.get_by_text("3 rounds (short)").click()
        expect(page.locator("select[name='cards-3']")).to_have_count(0)
    for seat, name in enumerate(PLAYERS):
        page.locator(f"input[name='names-{seat}']").fill(name)
    for i, letter in enumerate(cards):
        page.locator(f"select[name='cards-{i}']").select_option(letter)
    page.locator("[data-action=create]").click()
    for scores in rounds:
        page.locator("[data-action=enter-numbers]").click()
        for seat, value in enumerate(scores):
            page.locator(f"#score_{seat}").fill(str(value))
        page.locator("[data-action=save]").click()
        # The pad, or a total this card cannot make: save anyway.
        expect(page.locator("#pad, form [data-warning]").first).to_be_visible()
        if page.locator("form [data-warning]").count():
            page.locator("[data-action=save]").click()
        expect(page.locator("#pad")).to_be_visible()
    expect(page.locator("#result")).to_be_visible()


def test_history_statistics_chart_export_and_import(page: Page, live_server: str, artifacts,
                                                    tmp_path):
    # Two games, the same players: Ana wins the first (16 against 28 and 28), Ben the second.
    play_by_numbers(page, live_server, "abcde",
                    [[3, 8, 4], [6, 2, 7], [1, 5, 9], [4, 6, 5], [2, 7, 3]])
    page.goto(f"{live_server}/rebel-princess/new")
    expect(page.locator("#known-players option[value='Ana']")).to_have_count(1)
    assert page.locator("input[name='names-0']").get_attribute("list") == "known-players"
    play_by_numbers(page, live_server, "abc", [[5, 2, 8], [4, 1, 6], [3, 4, 7]])

    # Home → history: both games, newest first, each opening its score pad.
    page.goto(live_server)
    page.locator("[data-action=group]").click()  # the group made for the first game
    page.locator("[data-action=history]").click()
    games = page.locator("[data-list=history] li[data-game]")
    expect(games).to_have_count(2)
    expect(games.first).to_contain_text("Winner: Ben")
    expect(games.nth(1)).to_contain_text("Winner: Ana")
    screen(page, artifacts, "1-games")
    games.first.locator("[data-action=open-pad]").click()  # its final pad, read-only
    expect(page.locator("#result [data-winners]")).to_have_attribute("data-winners", "1")
    expect(page.locator("[data-action=enter-numbers]")).to_have_count(0)
    page.go_back()

    # Statistics: per game, per player, with the win-rate chart.
    page.locator("[data-tab=statistics]").click()
    section = page.locator("section[data-kind=rebel_princess]")
    expect(section).to_have_attribute("data-games", "2")
    expect(section.locator("[data-chart=win-rate]")).to_be_visible()
    ana = section.locator("[data-table=players] tr[data-person]").filter(has_text="Ana")
    expect(ana).to_have_attribute("data-wins", "1")
    expect(ana).to_have_attribute("data-average", "14.00")  # (16 + 12) / 2
    expect(ana).to_have_attribute("data-best", "12")
    screen(page, artifacts, "2-statistics")

    # Ana's own page, then head to head with Ben.
    ana.locator("a").click()
    expect(page.locator("h1[data-person]")).to_have_text("Ana")
    mine = page.locator("section[data-kind=rebel_princess]")
    expect(mine).to_have_attribute("data-rate", "0.500")
    expect(mine.locator("[data-fact=rounds-at-or-below-zero]")).to_have_attribute(
        "data-value", "0")  # Deluxe games: the count of rounds at zero or below
    screen(page, artifacts, "3-player")
    page.locator("#versus-b").select_option(label="Ben")
    page.locator("[data-action=versus]").click()
    expect(page.locator("section[data-kind=all]")).to_have_attribute("data-wins", "1,1")
    screen(page, artifacts, "4-head-to-head")

    # A game's chart: the running totals, round by round, in the players' colours.
    page.locator("[data-tab=index]").click()
    page.locator("[data-list=history] li[data-game]").nth(1).locator("[data-action=chart]").click()
    chart = page.locator("#running-chart")
    expect(chart).to_have_attribute("data-steps", "5")
    expect(chart.locator("polyline")).to_have_count(3)
    expect(page.locator("[data-action=bg-stats]")).to_have_attribute(
        "href", re.compile(r"^https://app\.bgstatsapp\.com/createPlay\.html\?data="))
    screen(page, artifacts, "5-chart")
    page.locator("#standings").scroll_into_view_if_needed()
    box_top = page.locator("#standings").bounding_box()
    box_bottom = chart.bounding_box()
    page.screenshot(path=str(artifacts / "history-chart.png"), clip={
        "x": 0, "y": box_top["y"] - 8, "width": 390,
        "height": box_bottom["y"] + box_bottom["height"] - box_top["y"] + 16})
    chart.locator("summary").click()
    expect(chart.locator("table tbody tr")).to_have_count(5)

    # Export everything, import it into a fresh install: the same history and figures.
    page.go_back()  # a game's record shows that game only: back to the group's history
    with page.expect_download() as download:
        page.locator("[data-action=export-json]").click()
    backup = tmp_path / "backup.json"
    download.value.save_as(backup)
    fresh, stop = start_server(create_app({"SECRET_KEY": "fresh",
                                           "DATABASE": str(tmp_path / "fresh.sqlite")}))
    try:
        page.goto(fresh)  # a fresh install: this phone knows no group there
        page.locator("[data-action=restore]").click()
        page.locator("input[type=file]").set_input_files(str(backup))
        screen(page, artifacts, "6-import")
        page.locator("[data-form=import] [data-action=import]").click()
        expect(page.locator(".flash")).to_contain_text("Imported 2 games (0 already here).")
        expect(page.locator("[data-list=history] li[data-game]")).to_have_count(2)
        page.locator("[data-tab=statistics]").click()
        again = page.locator("section[data-kind=rebel_princess] [data-table=players] tr").filter(
            has_text="Ana")
        expect(again).to_have_attribute("data-average", "14.00")

        # The same statistics in French, still on a 360-px phone.
        page.locator("[data-lang=fr]").click()
        expect(page.locator("h1")).to_have_text("Statistiques")
        screen(page, artifacts, "7-statistics-fr")
    finally:
        stop()
