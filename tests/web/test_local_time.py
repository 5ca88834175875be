"""Times in the phone's own time zone (issue 22): the server writes each stored (UTC) time as a
<time> element with its UTC instant and the UTC text, said to be UTC; app.js rewrites it in the
phone's zone (tests/browser/test_browser_local_time.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from companion.db import get_session
from companion.local_time import STYLES, time_element, utc_text
from companion.play import store

NINE_O_THREE = datetime(2026, 11, 24, 9, 3, 7, tzinfo=UTC)


@pytest.mark.parametrize("style, locale, text", [
    ("day-time", "en", "24 Nov, 09:03 UTC"), ("day-time", "fr", "24 nov., 09:03 UTC"),
    ("date", "en", "24 Nov 2026"), ("date-time", "en", "24 Nov 2026, 09:03 UTC"),
    ("time", "fr", "09:03:07 UTC")])
def test_the_utc_text_says_it_is_utc(style, locale, text):
    assert utc_text(NINE_O_THREE, style, locale) == text


def test_the_element_carries_the_instant_in_utc_whatever_the_stored_form():
    paris = NINE_O_THREE.astimezone(timezone(timedelta(hours=1)))  # 10:03+01:00, the same instant
    naive = NINE_O_THREE.replace(tzinfo=None)  # SQLite hands back naive UTC
    expected = ('<time datetime="2026-11-24T09:03Z" data-local="day-time">'
                "24 Nov, 09:03 UTC</time>")
    for value in (NINE_O_THREE, paris, naive):
        assert str(time_element(value, "day-time", "en")) == expected
    assert str(time_element(None, "date", "en")) == ""
    assert 'datetime="2026-11-24T09:03:07Z"' in time_element(NINE_O_THREE, "time", "en")
    with pytest.raises(ValueError):
        time_element(NINE_O_THREE, "<b>", "en")


def test_every_style_is_known_to_app_js():
    from pathlib import Path
    script = (Path(__file__).resolve().parents[2] / "companion" / "static" / "app.js").read_text()
    for style in STYLES:
        assert re.search(rf'"{style}": \{{', script), style


def test_pages_show_stored_times_as_time_elements(app, client, make_game):
    code = make_game()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        game.created_at = game.updated_at = NINE_O_THREE
        session.add(game)
        session.commit()
    home = client.get("/").text
    assert ('<time datetime="2026-11-24T09:03Z" data-local="day-time">24 Nov, 09:03 UTC</time>'
            in home)
