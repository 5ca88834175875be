"""The wait page says a wait below an hour in minutes, in both languages: ``Retry-After: 3396``
(56.6 minutes) is « 57 minutes », never a rounded « 1 hour » that reads as a full hour."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import render_template

from companion import create_app


@pytest.mark.parametrize(("lang", "seconds", "said", "not_said"), [
    ("en", 3396, "57 minutes", "hour"),
    ("fr", 3396, "57 minutes", "heure"),
    ("en", 3599, "60 minutes", "hour"),
    ("fr", 600, "10 minutes", "heure"),
    ("en", 45, "45 seconds", "minute"),
    ("fr", 7200, "2 heures", "minute"),
])
def test_a_wait_below_an_hour_is_said_in_minutes(tmp_path, lang, seconds, said, not_said):
    app = create_app({"DATABASE": str(tmp_path / "t.sqlite"), "TESTING": True,
                      "SECRET_KEY": "t"})
    with app.test_request_context("/", headers={"Accept-Language": lang}):
        page = render_template("errors/429.html", wait=timedelta(seconds=seconds))
    words = page.split("data-wait-words>", 1)[1].split("</b>", 1)[0].replace("\xa0", " ")
    assert said in words and not_said not in words
