"""Local time (issue 22): a game stored at 09:03 UTC shows 10:03 on a phone in Paris (winter,
UTC+1) — on the home page, in its group's history and on the game's page there, in either
language — and BG Stats is sent 10:03."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, expect
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.models import Game

from .conftest import start_server
from .test_browser_history import play_by_numbers

pytestmark = pytest.mark.browser

STORED = datetime(2026, 11, 24, 9, 3, tzinfo=UTC)


@pytest.mark.parametrize("lang, day", [("en", "24 Nov"), ("fr", "24 nov.")])
def test_a_game_stored_at_9_03_utc_shows_10_03_in_paris(browser: Browser, browser_context_args,
                                                        tmp_path, lang, day):
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "t.sqlite")})
    base, stop = start_server(app)
    context = browser.new_context(**browser_context_args, timezone_id="Europe/Paris",
                                  locale="en-GB")
    page = context.new_page()
    try:
        play_by_numbers(page, base, "abc", [[5, 2, 8], [4, 1, 6], [3, 4, 7]])
        with app.app_context():
            session = get_session()
            for game in session.exec(select(Game)).all():
                game.created_at = game.updated_at = STORED
                session.add(game)
            session.commit()
        page.goto(f"{base}/lang/{lang}?next=/")
        when = page.locator("time[data-local]").first
        expect(when).to_have_text(f"{day}, 10:03")
        assert when.get_attribute("datetime") == "2026-11-24T09:03Z"
        page.locator("[data-action=group]").click()
        page.locator("[data-action=history]").click()
        listed = page.locator("[data-list=history] time[data-local=date]")
        expect(listed).to_have_text(f"{day} 2026")
        page.locator("[data-list=history] [data-action=chart]").first.click()
        expect(page.locator("time[data-local=date-time]")).to_have_text(f"{day} 2026, 10:03")
        # BG Stats gets the phone's clock too (the "tz" cookie app.js keeps).
        link = page.locator("[data-action=bg-stats]").get_attribute("href")
        data = json.loads(parse_qs(urlsplit(link).query)["data"][0])
        assert data["playDate"] == "2026-11-24 10:03:00"
    finally:
        context.close()
        stop()

