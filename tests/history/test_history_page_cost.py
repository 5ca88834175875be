"""History, statistics, players and home cost what the page shows (issue 23, item 4): the
number of queries a page runs does not grow with the games stored, the history list is paged by
the database (newest first, ties in a fixed order, no game lost or shown twice), and the home
page draws a phone's remembered games from their stored summaries, replaying none.

More games are made by copying the known games' rows in SQL (same ``updated_at``: ties), which
takes milliseconds where storing them through the glue would take seconds.
"""

from __future__ import annotations

import re
import secrets
from contextlib import contextmanager

import pytest
import sqlmodel
from sqlalchemy import event, insert, select
from sqlmodel import SQLModel

from companion.db import get_session
from companion.models import Group
from companion.play import group_totals
from companion.play import summaries as play_history

from .conftest import store_known_games

GAME_TABLES = ("player", "entry", "roundrecord", "tricklog", "gamelink", "gameresult")


def known_group(app, copies: int) -> tuple[int, str]:
    """A new app's one group holding the known games and ``copies`` more copies of each: its id
    and its link's token."""
    with app.app_context():
        session = get_session()
        store_known_games(session)
        group = session.exec(sqlmodel.select(Group)).one()
        group_id, token = int(group.id), str(group.token)
    copy_games(app, group_id, copies)
    return group_id, token


def copy_games(app, group_id: int, times: int) -> None:
    """Store ``times`` more copies of every game of the group (new ids, codes and link
    tokens; the same players, entries and summaries), and make the group's totals again."""
    tables = SQLModel.metadata.tables
    game_table = tables["game"]
    with app.extensions["companion.engine"].begin() as connection:
        games = connection.execute(
            select(game_table).where(game_table.c.group_id == group_id)).mappings().all()
        for copy in range(times):
            for row in games:
                new = {k: v for k, v in row.items() if k != "id"}
                new["code"] = f"{row['code'][:10]}c{copy}"
                stored = connection.execute(insert(game_table).values(**new))
                new_id = stored.inserted_primary_key[0]
                for name in GAME_TABLES:
                    table = tables[name]
                    for child in connection.execute(
                            select(table).where(table.c.game_id == row["id"])).mappings().all():
                        values = {k: v for k, v in child.items() if k != "id"}
                        values["game_id"] = new_id
                        if name == "gamelink":
                            values["token"] = secrets.token_hex(16)
                        connection.execute(insert(table).values(**values))
        group_totals.rebuild(connection, [group_id])  # (the copies bypass the saves that keep them)


@contextmanager
def counted(app):
    """Count the SQL statements run inside the block: ``with counted(app) as n: …; n[0]``."""
    engine = app.extensions["companion.engine"]
    found = [0]

    def one(*_args):
        found[0] += 1

    event.listen(engine, "before_cursor_execute", one)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", one)


def queries(app, client, path: str) -> int:
    client.get(path)  # warm: what a first request reads once per process is not the point
    with counted(app) as found:
        assert client.get(path).status_code == 200, path
    return found[0]


def group_pages(known) -> list[str]:
    ana = known.person["Ana"]
    return [f"{known.base}/", f"{known.base}/stats", f"{known.base}/players/",
            f"{known.base}/players/{ana}", f"{known.base}/versus?a={ana}&b={known.person['Ben']}",
            f"{known.base}/?player={ana}", f"/group/{known.token}/"]


def test_group_pages_run_as_many_queries_for_50_games_as_for_7(app, client, known):
    """The group's history, statistics, players, a player's page, head to head and the
    group's page run the same number of queries with 7 games and with 56."""
    few = {path: queries(app, client, path) for path in group_pages(known)}
    copy_games(app, known.group_id, 7)
    many = {path: queries(app, client, path) for path in group_pages(known)}
    assert many == few


def _scorer_tokens(app, count: int) -> list[str]:
    tables = SQLModel.metadata.tables
    links = tables["gamelink"]
    with app.extensions["companion.engine"].connect() as connection:
        return list(connection.execute(
            select(links.c.token).where(links.c.role == "scorer").order_by(links.c.id.desc())
            .limit(count)).scalars())


def _remember(client, tokens: list[str]) -> None:
    with client.session_transaction() as cookie:
        cookie["games"] = tokens


def test_home_with_30_remembered_games_is_a_few_queries_and_no_replay(app, client, known,
                                                                      monkeypatch):
    """A phone remembering 30 games draws its home page with as many queries as one
    remembering 3, and replays none of them (each line comes from the stored summary)."""
    copy_games(app, known.group_id, 4)
    _remember(client, _scorer_tokens(app, 3))
    few = queries(app, client, "/")

    def no_replay(*_args, **_kwargs):
        raise AssertionError("a game was replayed to draw the home page")

    monkeypatch.setattr(play_history, "_summarize", no_replay)
    for game in ("rebel_princess", "princesse_princesse", "kanai_duel", "reveillez"):
        monkeypatch.setattr(f"companion.play.{game}.view_game", no_replay)
    _remember(client, _scorer_tokens(app, 30))
    many = queries(app, client, "/")
    assert many == few <= 8
    page = client.get("/").text
    assert page.count('data-list="my-games"') == 1 and page.count("<li data-game=") == 30


def test_home_lines_from_summaries_match_the_replayed_games(app, client, known):
    """Each game's home line (status, winners, round) as the stored summary draws it: a
    finished game says who won, a game in progress where it stands."""
    _remember(client, _scorer_tokens(app, 7))
    page = client.get("/").text
    assert page.count('data-status="finished"') == 6
    assert 'data-status="playing"' in page and "round 2 of 3" in page  # the open game
    assert "a draw" in page and "won by Ana" in page and "won by Ben" in page


def _listed(page: str) -> list[str]:
    start = page.index('data-list="history"')
    return re.findall(r'<li data-game="([^"]+)"', page[start:page.index("</ul>", start)])


@pytest.mark.parametrize("query", ["", "&game=rebel-princess", "&player={ana}"])
def test_history_pages_show_every_finished_game_once_newest_first(app, client, known, query):
    """Walking the history page by page (``?page=``, no script needed) shows every finished
    game of the group once, in the database's order: newest change first, ties by newest id."""
    copy_games(app, known.group_id, 10)  # 66 finished games, many sharing one updated_at
    query = query.format(ana=known.person["Ana"])
    seen, page_number = [], 1
    while True:
        page = client.get(f"{known.base}/?page={page_number}{query}").text
        shown = _listed(page)
        assert len(shown) <= 30
        seen += shown
        if 'data-action="older"' not in page:
            break
        page_number += 1
    assert len(seen) == len(set(seen))
    total = int(re.search(r'data-total="(\d+)"', page).group(1))
    assert len(seen) == total and page_number == (total + 29) // 30
    tables = SQLModel.metadata.tables
    game, result = tables["game"], tables["gameresult"]
    with app.extensions["companion.engine"].connect() as connection:
        order = list(connection.execute(
            select(game.c.code).join(result, result.c.game_id == game.c.id)
            .where(game.c.group_id == known.group_id, result.c.finished.is_(True),
                   game.c.code.in_(seen))
            .order_by(game.c.updated_at.desc(), game.c.id.desc())).scalars())
    assert seen == order
    if not query:
        assert total == 66 and known.codes["open"] not in seen


def test_history_past_the_last_page_is_empty_not_an_error(client, known):
    page = client.get(f"{known.base}/?page=9")
    assert page.status_code == 200 and _listed(page.text) == []


@pytest.mark.parametrize("bad", ["abc", "0", "-3", "1.5", "99999999", "%00"])
def test_a_page_number_that_is_no_page_shows_the_first_page(client, known, bad):
    """A hand-edited or broken ``?page=`` is no error: the list starts at its first page."""
    first = client.get(f"{known.base}/")
    page = client.get(f"{known.base}/?page={bad}")
    assert page.status_code == 200 and _listed(page.text) == _listed(first.text) != []
