"""The "Send to BG Stats" link of a finished game.

BG Stats (the Board Game Stats app) documents a push-play link for other apps and websites
(https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/)::

    https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>

Opening it on a phone with BG Stats 3.3.2 or later opens the app's import dialog, where the game
and the players are matched to the user's own (matches are remembered); without the app it is
just a web page, nothing is sent anywhere. The JSON holds the game (``name``, ``sourceGameId``,
``highestWins``, ``noPoints``; ``bggId`` is optional and left out: the app matches by name), the
``playDate`` (``"YYYY-MM-DD HH:MM:SS"``), ``durationMin``, ``location`` and ``board``, and per
player ``name``, ``sourcePlayerId``, ``score``, ``winner``, ``rank``, ``startPlayer`` and ``role``.
``sourceName`` and ``sourcePlayId`` name this app and the game (codes are unique), as apps that
push plays do. ``winner`` is always given, true or false: BG Stats' Android app is reported to
refuse a player without it.

``playDate`` is the local time of the phone that sends the play (its zone from the "tz" cookie
app.js keeps, see companion.web.local_time); UTC when that zone is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from urllib.parse import quote

from .summary import GameSummary

URL = "https://app.bgstatsapp.com/createPlay.html"
SOURCE_NAME = "Princess Table"


def play_data(*, game_name: str, game_id: str, code: str, started: datetime, ended: datetime,
              names: Sequence[str], player_ids: Sequence[str], summary: GameSummary,
              board: str = "", zone: tzinfo = UTC) -> dict[str, object]:
    """The play as BG Stats' JSON: names and ids by seat, the summary's scores and winners; the
    date is ``started`` (aware) as a clock in ``zone`` shows it."""
    ranks = summary.ranks()
    minutes = int((ended - started).total_seconds() // 60)
    data: dict[str, object] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": code,
        "playDate": started.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S"),
        "game": {"name": game_name, "sourceGameId": game_id,
                 "highestWins": not summary.lower_wins, "noPoints": False},
        "board": board,
        "location": "",
        "players": [
            {"name": name, "sourcePlayerId": player_ids[seat], "score": summary.scores[seat],
             "winner": seat in summary.winners, "rank": ranks[seat],
             "startPlayer": seat == summary.first, "role": ""}
            for seat, name in enumerate(names)],
    }
    if 0 < minutes < 24 * 60:
        data["durationMin"] = minutes
    return data


def play_url(data: dict[str, object]) -> str:
    """The push-play link for ``data`` (compact JSON, every reserved character encoded)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"{URL}?data={quote(text, safe='')}"
