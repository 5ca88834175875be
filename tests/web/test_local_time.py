"""Times in the phone's own time zone (issue 22): the server writes each stored (UTC) time as a
<time> element with its UTC instant and the UTC text, said to be UTC; app.js rewrites it in the
phone's zone (tests/browser/test_browser_local_time.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from companion.db import get_session
from companion.play import store
from companion.web.local_time import STYLES, time_element, utc_text, zone_named

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


# --- BG Stats: the phone's zone from the "tz" cookie ----------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("Europe/Paris", "Europe/Paris"), ("America/Argentina/Buenos_Aires",
                                       "America/Argentina/Buenos_Aires"),
    ("Etc/GMT+5", "Etc/GMT+5"), ("Nowhere/Land", None), ("../../etc/passwd", None),
    ("/etc/localtime", None), ("Europe", None), ("", None), (None, None), ("A" * 65, None),
    ("Europe/Paris\x00", None)])
def test_a_zone_by_its_name_or_utc(name, expected):
    zone = zone_named(name)
    assert (zone is UTC) if expected is None else (str(zone) == expected)


def test_bg_stats_gets_the_start_as_the_phone_s_clock_shows_it():
    from companion.history import bgstats
    from companion.history.summary import GameSummary
    summary = GameSummary(scores=(3, 5), winners=(0,), lower_wins=True, first=0, finished=True)

    def date(started, zone=UTC):
        return bgstats.play_data(game_name="Rebel Princess", game_id="rebel_princess", code="c",
                                 started=started, ended=started + timedelta(minutes=40),
                                 names=["Ana", "Ben"], player_ids=["ana", "ben"],
                                 summary=summary, zone=zone)["playDate"]

    paris = zone_named("Europe/Paris")
    assert date(NINE_O_THREE) == "2026-11-24 09:03:07"
    assert date(NINE_O_THREE, paris) == "2026-11-24 10:03:07"  # winter: UTC+1
    assert date(datetime(2026, 7, 1, 9, 3, tzinfo=UTC), paris) == "2026-07-01 11:03:00"  # summer
    assert date(datetime(2026, 11, 24, 23, 30, tzinfo=UTC), paris) == "2026-11-25 00:30:00"
