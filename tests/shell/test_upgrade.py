"""A database written by release c3c3148 (before migrations) upgrades with every game intact.

The fixture ``tests/data/db_c3c3148.sqlite`` and what that release showed of it
(``db_c3c3148.json``) were made by ``tests/data/make_db_c3c3148.py`` running that release's code:
a finished Deluxe game with an edit and an undo, a classic game in progress, and a Deluxe round
being entered trick by trick. After the upgrade that ``make run`` performs on start, every score
pad, history, leader and trick screen must read exactly as it did.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion import create_app
from companion.db import head

DATA = Path(__file__).parent.parent / "data"
BEFORE = json.loads((DATA / "db_c3c3148.json").read_text(encoding="utf-8"))


def main_of(html: str) -> str:
    """The page's <main>, with each form's CSRF token (new with every session) blanked."""
    main = re.search(r"<main>(.*)</main>", html, re.S).group(1)
    return re.sub(r'(name="csrf_token"[^>]*value=")[^"]*', r"\1", main)


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("upgrade")
    shutil.copy(DATA / "db_c3c3148.sqlite", folder / "companion.sqlite")
    config = {"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "fixture",
              "DATABASE": str(folder / "companion.sqlite")}
    result = create_app(config).test_cli_runner().invoke(args=["init-db"])  # `make run`'s first
    assert result.exit_code == 0, result.output
    return create_app(config), folder / "companion.sqlite"  # then the server starts


def test_the_old_database_is_at_the_newest_revision(upgraded):
    _, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        kinds = {row[0] for row in db.execute("SELECT kind FROM game")}
    assert kinds == {"rebel_princess"}


def test_every_record_and_trick_log_survives(upgraded):
    _, path = upgraded
    with sqlite3.connect(DATA / "db_c3c3148.sqlite") as old, sqlite3.connect(path) as new:
        for table in ("game", "player", "roundrecord", "tricklog"):
            columns = [row[1] for row in old.execute(f"PRAGMA table_info({table})")]
            query = f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"
            assert new.execute(query).fetchall() == old.execute(query).fetchall(), table


def _text(cell: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


def _cells(html: str, marker: str) -> dict[str, list[str]]:
    """The seat cells of every table row carrying ``marker`` ("data-round-row"), by its value."""
    rows = re.findall(rf'<tr[^>]*{marker}="(\d+)"[^>]*>(.*?)</tr>', html, re.S)
    return {number: [_text(c) for c in re.findall(r"<td data-seat[^>]*>(.*?)</td>", row, re.S)]
            for number, row in rows}


def pad_facts(html: str) -> dict[str, object]:
    """What a score pad says: every round's scores, the subtotals, the totals, who leads next
    and why, the winner, and the warnings."""
    return {
        "totals": re.findall(r'data-totals="([^"]*)"', html),
        "rounds": _cells(html, "data-round-row"),
        "cards": [_text(c) for c in re.findall(r'data-edit-round="\d+">.*?<small>(.*?)</small>',
                                               html, re.S)],
        "leader": re.findall(r'data-leader="(\d+)"', html),
        "why": [_text(w) for w in re.findall(r'data-leader="\d+">.*?</p>\s*<p class="muted[^"]*">'
                                             r'(.*?)</p>', html, re.S)],
        "next card": re.findall(r'data-round-card="(\w)"', html)[:1],
        "winners": re.findall(r'data-(?:winners|decided-by)="([^"]*)"', html),
        "warnings": re.findall(r'data-warning="([^"]*)"', html),
    }


def history_facts(html: str) -> list[tuple[str, ...]]:
    """Every record of a history: its id, action, time and round."""
    facts = []
    for record, action, body in re.findall(r'<li data-record="(\d+)" data-action="(\w+)"[^>]*>'
                                           r"(.*?)</li>", html, re.S):
        # Since issue 22 the time is said to be UTC (app.js shows it in the phone's zone).
        time, said = re.fullmatch(r"(\S+)(?: UTC)? — (.*)", _text(body)).groups()
        facts.append((record, action, time, re.search(r"\b[Rr]ound (\d+)", said).group(1)))
    return facts


# The pad and the history were redrawn since c3c3148 (issue 9: one Total row, who leads and the
# grid on the first screen, each change said in words): those pages must say the same things
# (every score, subtotal, total, leader and reason, winner, warning; every record with its time,
# action and round), the new Total row must hold the totals, and every other page must read word
# for word as before.
REDRAWN = {"pad": re.compile(r"^/g/\w+$"), "history": re.compile(r"^/g/\w+/history$")}


def creator(app):
    """The browser that made these games before links existed (it remembers their codes)."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["games"] = sorted(BEFORE["games"].values())
    return client


@pytest.mark.parametrize("path", sorted(BEFORE["pages"]))
def test_pages_read_as_before(upgraded, path):
    """Score pads, histories, this-table rulings and the trick screen, for the browser that
    created them (now at the game's scorer link; the rulings links now start
    /rebel-princess/rules, and the old /rules/... links redirect): the same, word for word, or,
    for the redrawn pad and history, the same facts."""
    app, _ = upgraded
    client = creator(app)
    response = client.get(path, follow_redirects=True)
    assert response.status_code == 200
    token = re.search(r"/g/(\w+)", response.request.path)[1]
    code = path.split("/")[2]
    assert token != code and len(token) == 32  # opened through its new scorer link
    before = BEFORE["pages"][path]
    page = response.text.replace(token, code)
    if REDRAWN["pad"].match(path):
        facts = pad_facts(page)
        old = pad_facts(before)
        subtotals = _cells(page, "data-subtotal")
        old_subtotals = _cells(before, "data-subtotal")
        assert facts == old
        assert subtotals == {n: old_subtotals[n] for n in subtotals}
        total = _cells(page.replace("data-total>", 'data-total="0">'), "data-total")
        played = bool(facts["rounds"]) and any(facts["rounds"]["1"])
        assert total["0"] == (facts["totals"][0].replace("-", "−").split(",") if played
                              else [""] * len(total["0"]))
        return
    if REDRAWN["history"].match(path):
        assert history_facts(page) == history_facts(before)
        assert len(history_facts(before)) == before.count("data-record=")
        return
    # The game's pages moved under /rebel-princess/ (the old addresses redirect there).
    now = main_of(page).replace("/rebel-princess/rules", "/rules").replace(
        "/rebel-princess/g/", "/g/")
    # New since c3c3148, and not shown: the Undo button says which version it undoes.
    now = re.sub(r'(/undo">.*?)<input type="hidden" name="version" value="\d+">', r"\1", now,
                 flags=re.S)
    # New since c3c3148 for a scorer: a last line linking the scorer and viewer links.
    # and "Open this game on another phone" now gives the viewer link (see test_share_...).
    now = re.sub(r'\s*<p class="role-note">.*?</p>', "", now, flags=re.S)
    # New since issue 22: the colour scheme switch at the foot of every page.
    now = re.sub(r'\s*<p class="theme-pick"[^>]*>.*?</p>', "", now, flags=re.S)
    # New since issue 22: a link alone on its line is a thumb's size (44 px), its words the same.
    now = now.replace('<a class="tap" href=', '<a href=')
    # New since issue 21: the trick screen's notice of taps kept on the phone (hidden until used).
    now = re.sub(r'\n[ \t]*<div class="draft taps" data-queue="taps".*?</div>\n[ \t]*', "", now,
                 flags=re.S)
    share = re.compile(r'<details class="panel" id="share">.*?</details>', re.S)
    before = main_of(f"<main>{before}</main>")
    # New since issue 28 (a CSP with no inline style): a layout's counts are classes.
    before = re.sub(r'class="([^"]+)" style="--n: (\d+)"', r'class="\1 seats-\2"', before)
    before = re.sub(r'class="([^"]+)" style="--cols: (\d+)"', r'class="\1 cols-\2"', before)
    # (Blank lines before the content aside: the flash area, put in apart from the page's
    # drawing since issue 23, leaves fewer of them.)
    assert share.sub("", now).strip() == share.sub("", before).strip()


def test_share_panel_of_an_old_game_gives_the_viewer_link(upgraded):
    app, _ = upgraded
    client = creator(app)
    html = client.get(f"/g/{BEFORE['games']['finished']}", follow_redirects=True).text
    shown = re.search(r'id="share">.*?<b>(.*?)</b>', html, re.S)[1]
    assert "/rebel-princess/g/" in shown
    viewer = client.get("/rebel-princess/g/" + shown.split("/g/", 1)[1])
    assert viewer.status_code == 200 and 'data-role="viewer"' in viewer.text


def test_the_numbered_records_of_an_old_game_follow_their_order(upgraded):
    """Records stored before numbering get 1, 2, 3 … in the order they were made, and the
    Undo button of the pad is based on the newest."""
    app, path = upgraded
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT game_id, seq FROM roundrecord ORDER BY id").fetchall()
    by_game: dict[int, list[int]] = {}
    for game_id, seq in rows:
        by_game.setdefault(game_id, []).append(seq)
    assert all(seqs == list(range(1, len(seqs) + 1)) for seqs in by_game.values())
    code = BEFORE["games"]["finished"]
    html = creator(app).get(f"/g/{code}", follow_redirects=True).text
    undo_version = re.search(r'/undo">.*?name="version" value="(\d+)"', html, re.S).group(1)
    assert int(undo_version) == 8  # eight records: five rounds, an edit, an undo, a re-entry


@pytest.mark.parametrize("code", sorted(BEFORE["leaders"]))
def test_leaders_as_before(upgraded, code):
    app, _ = upgraded
    html = creator(app).get(f"/g/{code}", follow_redirects=True).text
    assert re.findall(r'data-leader="(\d+)"', html) == BEFORE["leaders"][code]


def test_an_old_game_address_is_a_404_for_any_other_browser(upgraded):
    """A game's code alone opens nothing: only the browser that created the game before links
    existed is sent on to its scorer link. (The old address first redirects to the game's
    address under /rebel-princess/, which refuses it.)"""
    app, _ = upgraded
    for code in BEFORE["games"].values():
        assert app.test_client().get(f"/g/{code}", follow_redirects=True).status_code == 404
        assert app.test_client().get(f"/rebel-princess/g/{code}").status_code == 404


def test_old_rulings_links_still_open(upgraded):
    app, _ = upgraded
    client = app.test_client()
    links = set(re.findall(r'href="(/rules/[^"]+)"', "".join(BEFORE["pages"].values())))
    assert links
    for link in sorted(links)[:20]:
        response = client.get(link, follow_redirects=True)
        assert response.status_code == 200, link


def test_an_upgraded_database_takes_new_games_of_every_kind(upgraded):
    """After the upgrade, a new Rebel Princess game is stored next to the old ones."""
    app, path = upgraded
    client = app.test_client()
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cy",
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    assert client.post("/rebel-princess/new", data=data).status_code == 302
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM game").fetchone() == (4,)


def test_the_players_of_old_games_become_the_groups_players(upgraded):
    """Migration 0005: one person per distinct name (the two Deluxe games share Ana, Ben, Cy and
    Di), every seat pointing at its person, and their history and statistics read at once."""
    app, path = upgraded
    with sqlite3.connect(path) as db:
        first = db.execute("SELECT MIN(id) FROM playgroup").fetchone()[0]  # migration 0007's
        people = dict(db.execute("SELECT key, name FROM person WHERE group_id = ?",
                                 (first,)).fetchall())
        seats = db.execute("SELECT player.game_id, player.name, person.name FROM player "
                           "JOIN person ON person.id = player.person_id "
                           "WHERE player.game_id <= 3").fetchall()  # the games of c3c3148
    assert people == {
        "ana": "Ana", "ben": "Ben", "cy": "Cy", "di": "Di", "zoe": "Zoé", "lea": "Léa",
        "noe": "Noé"}
    assert all(seat_name == person for _, seat_name, person in seats) and len(seats) == 11
    client = app.test_client()
    code = BEFORE["games"]["finished"]
    with sqlite3.connect(path) as db:  # migration 0007: every old game in the first group
        token = db.execute("SELECT token FROM playgroup ORDER BY id").fetchone()[0]
    assert f'data-game="{code}"' in client.get(f"/group/{token}/history/").text
    assert client.get(f"/group/{token}/history/stats").text.count(
        'data-kind="rebel_princess"') == 1
