"""History pages: every finished game newest first, filtered by game and player, each opening its
score pad; a game's page with its BG Stats link; English and French; the home page's link."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

from companion.history import bgstats

from .conftest import link


def listed(html):
    return re.findall(r'<li data-game="(\w+)" data-kind="(\w+)">', html)


def test_every_finished_game_newest_first(client, known):
    games = listed(client.get(f"{known.base}/").text)
    assert [code for code, _ in games] == [known.codes[n] for n in (
        "kd2", "kd1", "rv", "pp", "rp2", "rp1")]
    assert known.codes["open"] not in [code for code, _ in games]


def test_each_game_opens_its_score_pad_through_its_viewer_link(app, client, known):
    html = client.get(f"{known.base}/").text
    rp1, kd1 = link(app, known.codes["rp1"]), link(app, known.codes["kd1"])
    assert f'href="/rebel-princess/g/{rp1}" data-action="open-pad"' in html
    assert f'href="/kanai-duel/g/{kd1}" data-action="open-pad"' in html
    assert f'href="{known.record("rv")}" data-action="chart"' in html
    assert link(app, known.codes["rp1"], "scorer") not in html
    pad = client.get(f"/rebel-princess/g/{rp1}")
    assert pad.status_code == 200 and 'data-action="enter-numbers"' not in pad.text


def test_filter_by_game_and_by_player(client, known):
    assert [k for _, k in listed(client.get(f"{known.base}/?game=kanai-duel").text)] == [
        "kanai_duel", "kanai_duel"]
    cy = known.person["Cy"]
    assert [c for c, _ in listed(client.get(f"{known.base}/?player={cy}").text)] == [
        known.codes[n] for n in ("kd2", "pp", "rp2", "rp1")]
    both = client.get(f"{known.base}/?game=rebel-princess&player={cy}").text
    assert len(listed(both)) == 2
    assert len(listed(client.get(f"{known.base}/?game=chess&player=x").text)) == 6  # ignored


def test_pages_of_thirty(client, known, monkeypatch):
    monkeypatch.setattr("companion.routes.history.PAGE", 4)
    first = client.get(f"{known.base}/").text
    assert len(listed(first)) == 4 and 'data-action="older"' in first
    assert len(listed(client.get(f"{known.base}/?page=2").text)) == 2


def test_a_game_page_and_its_bg_stats_link(client, known):
    html = client.get(f"{known.record('rp2')}").text
    link = re.search(r'href="([^"]+)" rel="noopener" data-action="bg-stats"', html).group(1)
    link = link.replace("&amp;", "&")
    assert link.startswith(bgstats.URL + "?data=")
    data = json.loads(parse_qs(urlsplit(link).query)["data"][0])
    assert data["game"] == {"name": "Rebel Princess Deluxe", "sourceGameId": "rebel_princess",
                            "highestWins": False, "noPoints": False}
    assert data["sourceName"] == "Princess Table" and data["sourcePlayId"] == known.codes["rp2"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", data["playDate"])
    assert [(p["name"], p["score"], p["winner"], p["rank"], p["startPlayer"])
            for p in data["players"]] == [("Ben", -5, True, 1, True), ("Ana", 4, False, 2, False),
                                          ("Di", 5, False, 3, False), ("Cy", 16, False, 4, False)]
    assert data["board"] == "deluxe"


def test_a_draw_and_a_game_without_a_start_player_for_bg_stats(client, known):
    html = client.get(f"{known.record('kd2')}").text
    link = re.search(r'href="([^"]+)" rel="noopener" data-action="bg-stats"', html).group(1)
    data = json.loads(parse_qs(urlsplit(link.replace("&amp;", "&")).query)["data"][0])
    assert [(p["winner"], p["rank"], p["startPlayer"]) for p in data["players"]] == [
        (False, 1, False), (False, 1, False)]
    assert data["game"]["highestWins"] is True


def test_a_game_in_progress_is_not_in_history(app, client, known):
    """It opens only through its links: no history page, chart or export by its code."""
    code = known.codes["open"]
    for page in ("", "/export.json", "/export.csv"):
        for address in (f"/record/{code}{page}", f"/record/{link(app, code)}{page}",
                        f"/record/{link(app, code, 'scorer')}{page}"):
            assert client.get(address).status_code == 404, address


def test_a_finished_game_opens_by_its_links_never_by_its_code(app, client, known):
    """A finished game's record opens through either of its own links; its code opens
    nothing, here as anywhere."""
    code = known.codes["rp2"]
    for token in (link(app, code), link(app, code, "scorer")):
        assert client.get(f"/record/{token}").status_code == 200
    assert client.get(f"/record/{code}").status_code == 404
    assert client.get(f"/history/g/{code}").status_code == 404


def test_unknown_game_or_player(client, known):
    assert client.get("/record/nothere").status_code == 404
    assert client.get(f"{known.base}/players/999").status_code == 404
    assert client.get(f"{known.base}/versus?a=1&b=999").status_code == 404


def test_the_home_page_links_the_groups_of_this_phone_only(client, known):
    """Home shows a group to the phone that opened its link, and to no other browser."""
    assert "/group/" not in client.get("/").text
    client.get(f"/group/{known.token}/")
    assert f'href="/group/{known.token}/" data-action="group"' in client.get("/").text


def test_empty_history(app, client):
    with app.app_context():
        from companion.db import get_session
        from companion.play import groups

        token = groups.new_group(get_session(), name="Nobody yet").token
        get_session().commit()
    assert "No finished game yet" in client.get(f"/group/{token}/history/").text
    assert "No finished game yet" in client.get(f"/group/{token}/history/stats").text


def test_history_in_french(client, known):
    headers = {"Accept-Language": "fr"}
    html = client.get(f"{known.base}/", headers=headers).text
    assert "Parties terminées" in html and "Gagnant" in html
    page = client.get(f"{known.record('pp')}", headers=headers).text
    assert "Jetons\u00a0: bonus de l'Espionne" in page and "Total après chaque manche" in page
    assert "Envoyer à BG Stats" in page


def test_bg_stats_gets_the_phone_s_local_time(app, client, known):
    """The "tz" cookie app.js keeps names the phone's zone: the play's date is its clock's;
    an unknown or hostile zone leaves it in UTC."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    def play_date(zone=None):
        if zone is not None:
            client.set_cookie("tz", zone)
        else:
            client.delete_cookie("tz")
        response = client.get(f"{known.record('rp2')}")
        assert response.status_code == 200
        link = re.search(r'href="([^"]+)" rel="noopener" data-action="bg-stats"', response.text)
        data = json.loads(parse_qs(urlsplit(link.group(1).replace("&amp;", "&")).query)["data"][0])
        return datetime.strptime(data["playDate"], "%Y-%m-%d %H:%M:%S")

    utc = play_date()
    offset = ZoneInfo("Europe/Paris").utcoffset(utc)
    assert offset in (timedelta(hours=1), timedelta(hours=2))
    assert play_date("Europe/Paris") - utc == offset
    assert play_date("Asia/Kolkata") - utc == timedelta(hours=5, minutes=30)
    for hostile in ("Nowhere/Land", "../../etc/passwd", "<script>", "x" * 200):
        assert play_date(hostile) == utc
