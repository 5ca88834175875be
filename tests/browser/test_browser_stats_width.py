"""The statistics at 360 px (issue 22): the players' table fits the phone in both languages, a
wider table scrolls inside its own box, never the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from companion import create_app
from companion.db import get_session
from companion.models import Group
from companion.play import store

from ..history.conftest import store_known_games
from .conftest import LANGUAGES, PHONES, no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser


@pytest.fixture
def stats_url(tmp_path):
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "s.sqlite")})
    with app.app_context():
        session = get_session()
        codes = store_known_games(session)
        token = session.get(Group, store.get_game(session, codes["rp1"]).group_id).token
    url, stop = start_server(app)
    yield f"{url}/group/{token}/history/stats"
    stop()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_statistics_tables_fit_at_360(browser: Browser, browser_context_args, stats_url, lang):
    context = browser.new_context(**{**browser_context_args, "viewport": PHONES[1]},
                                  locale=LANGUAGES[lang])
    page = context.new_page()
    page.goto(stats_url)
    assert no_horizontal_scroll(page)
    widths = page.evaluate("""[...document.querySelectorAll('table.hx-table')].map(t => [
        t.dataset.table, t.closest('.hx-scroll') !== null, t.parentElement.scrollWidth,
        t.parentElement.clientWidth])""")
    assert len(widths) >= 8
    for table, boxed, wide, room in widths:
        assert boxed, table  # every table scrolls in its own box
        if table == "players":
            assert wide <= room, (lang, wide, room)  # the main figures fit: no scroll at all
    context.close()
