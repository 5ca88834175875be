"""Groups: a new table gets a group with no extra step, a phone joins one by its link, picks one
when it knows several, plays again in the same one; a member renames the group, replaces its
link, deletes it (typed confirmation); imports never reach another group; the server's own
commands list, export, delete and purge groups."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlmodel import select

from companion.db import get_session
from companion.models import Game, Group, Person
from companion.play import groups

from ..conftest import finished_import


def new_game(client, *names, **extra):
    data = {f"names-{i}": name for i, name in enumerate(names)}
    response = client.post("/reveillez/new", data={**data, "first": "0", **extra})
    assert response.status_code == 303, response.text
    return response.headers["Location"].rsplit("/", 1)[1]


def group_of(app, token) -> Group:
    """The group of the game this link opens."""
    with app.app_context():
        session = get_session()
        from companion.play import store

        return session.get(Group, store.game_by_token(session, token).group_id)


def group_links(html: str) -> list[str]:
    return re.findall(r'href="/group/(\w+)/" data-action="group"', html)


def test_a_new_table_gets_a_group_named_after_its_players(app, client):
    token = new_game(client, "Ana", "Ben", "Cy")
    group = group_of(app, token)
    assert group.name == "Ana · Ben · Cy" and len(group.token) == 32
    assert group_links(client.get("/").text) == [group.token]
    assert client.get(f"/group/{group.token}/").status_code == 200


def test_a_long_table_name_is_cut_after_a_whole_name():
    name = groups.default_name(["Marie-Christine", "Jean-Baptiste", "Anne-Sophie", "Bob"])
    assert name == "Marie-Christine · Jean-Baptiste …" and len(name) <= groups.NAME_MAX


def test_the_next_game_on_the_same_phone_goes_into_the_same_group(app, client):
    first = group_of(app, new_game(client, "Ana", "Ben"))
    second = group_of(app, new_game(client, "Ana", "Cy"))
    assert second.id == first.id


def test_a_phone_that_knows_several_groups_picks_one(app, client):
    one = group_of(app, new_game(client, "Ana", "Ben"))
    two = group_of(app, new_game(client, "Zoé", "Yann", group="new"))
    assert two.id != one.id
    page = client.get("/reveillez/new").text
    options = re.findall(r'<option value="(\w+)"( selected)?>', page.split("</select>")[0])
    assert options == [(two.token, " selected"), (one.token, ""), ("new", "")]  # last used first
    assert group_of(app, new_game(client, "Ana", "Di", group=one.token)).id == one.id
    assert group_links(client.get("/").text) == [one.token, two.token]


def test_a_replaced_group_link_in_a_form_never_lands_in_another_group(app, client):
    one = group_of(app, new_game(client, "Ana", "Ben"))
    made = group_of(app, new_game(client, "Ana", "Cy", group="0" * 32))
    assert made.id != one.id


def test_play_again_stays_in_the_games_group(app, client):
    """The phone used another group since: the set-up of Play again still preselects the
    played game's group."""
    first = new_game(client, "Ana", "Ben")
    group = group_of(app, first)
    new_game(client, "Zoé", "Yann", group="new")
    page = client.get(f"/reveillez/new?again={first}").text
    assert f'<option value="{group.token}" selected>' in page


def test_a_second_phone_joins_by_the_group_link_on_other_phones(app, client):
    token = new_game(client, "Ana", "Ben")
    share = client.get(f"/share/{token}").text
    address = re.search(r'data-address="group">([^<]+)<', share).group(1)
    path = "/" + address.split("/", 3)[3]
    second = app.test_client()
    assert second.get(path).status_code == 200
    group = group_of(app, token)
    assert group_links(second.get("/").text) == [group.token]
    assert group_of(app, new_game(second, "Ana", "Ben", "Cy")).id == group.id


def test_replacing_the_group_link_shuts_the_old_one(app, client):
    group = group_of(app, new_game(client, "Ana", "Ben"))
    other = app.test_client()
    other.get(f"/group/{group.token}/")
    answer = client.post(f"/group/{group.token}/replace")
    assert answer.status_code == 303
    fresh = re.search(r"/group/(\w+)/", answer.headers["Location"]).group(1)
    assert fresh != group.token
    assert client.get(f"/group/{group.token}/").status_code == 404
    assert other.get(f"/group/{group.token}/history/").status_code == 404
    assert group_links(other.get("/").text) == []  # the old link no longer shows
    assert group_links(client.get("/").text) == [fresh]


def test_renaming_the_group(app, client):
    group = group_of(app, new_game(client, "Ana", "Ben"))
    base = f"/group/{group.token}"
    assert client.post(f"{base}/rename", data={"name": "  Les   Jeudis "}).status_code == 303
    assert group_of(app, new_game(client, "Ana", "Ben")).name == "Les Jeudis"
    assert "Les Jeudis" in client.get("/").text
    for bad in ("", "   ", "x" * 41, "\x00", "Les\x07Jeudis"):
        assert client.post(f"{base}/rename", data={"name": bad}).status_code == 422
    assert group_of(app, new_game(client, "Ana", "Ben")).name == "Les Jeudis"


def rows_of_group(app, group_id) -> int:
    with app.app_context():
        connection = get_session().connection()
        games = "SELECT id FROM game WHERE group_id = :g"
        total = 0
        for query in ("SELECT count(*) FROM playgroup WHERE id = :g",
                      "SELECT count(*) FROM game WHERE group_id = :g",
                      "SELECT count(*) FROM person WHERE group_id = :g",
                      *(f"SELECT count(*) FROM {t} WHERE game_id IN ({games})"
                        for t in ("player", "entry", "roundrecord", "tricklog", "gamelink",
                                  "gameresult"))):
            total += connection.execute(text(query), {"g": group_id}).scalar_one()
        return total


def test_deleting_a_group_needs_its_name_and_leaves_no_row(app, client):
    group = group_of(app, new_game(client, "Ana", "Ben"))
    new_game(client, "Ana", "Cy")
    client.get(f"/group/{group.token}/history/stats")  # a cached result row, too
    other = app.test_client()
    kept = group_of(app, new_game(other, "Zoé", "Ben"))
    before_other = rows_of_group(app, kept.id)
    base = f"/group/{group.token}"
    page = client.get(f"{base}/delete").text
    assert 'data-action="export-packed"' in page  # the export is offered first
    assert client.post(f"{base}/delete", data={"confirm": "Ana"}).status_code == 422
    assert rows_of_group(app, group.id) > 0
    answer = client.post(f"{base}/delete", data={"confirm": " ana · BEN "})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert rows_of_group(app, group.id) == 0
    assert rows_of_group(app, kept.id) == before_other
    assert client.get(f"{base}/").status_code == 404
    assert group_links(client.get("/").text) == []


# --- importing into a group ---------------------------------------------------------------------

def upload(client, token, content: bytes):
    return finished_import(client, client.post(f"/group/{token}/history/import",
                                               data={"file": (io.BytesIO(content), "backup.json")},
                                               content_type="multipart/form-data"))


def finished_duel(client, *names):
    answer = client.post("/kanai-duel/new", data={
        "first": names[0], "second": names[1], "mode": "referee", "wins": "4",
        "abilities": "all", "set_aside": "none"})
    assert answer.status_code == 303, answer.text
    token = answer.headers["Location"].rsplit("/", 1)[1]
    version = int(re.search(r'data-version="(\d+)"', client.get(f"/kanai-duel/g/{token}").text)[1])
    assert client.post(f"/kanai-duel/g/{token}/round", data={
        "first": "princess", "second": "prince", "version": version}).status_code == 303
    return token


def test_an_import_never_touches_another_groups_games_or_players(app):
    """Group B exports its games; group A imports that file: A gets copies under new codes with
    its own people; B's rows are exactly as they were. The same file imported into B again
    changes nothing."""
    a_phone, b_phone = app.test_client(), app.test_client()
    finished_duel(a_phone, "Ana", "Ben")
    b_token = finished_duel(b_phone, "Ana", "Zoé")
    a, b = group_of(app, finished_duel(a_phone, "Cy", "Di")), group_of(app, b_token)
    exported = b_phone.get(f"/group/{b.token}/history/export.json").data
    before = rows_of_group(app, b.id)
    assert upload(a_phone, a.token, exported).status_code == 303
    assert rows_of_group(app, b.id) == before
    with app.app_context():
        session = get_session()
        a_codes = set(session.exec(select(Game.code).where(Game.group_id == a.id)))
        b_codes = set(session.exec(select(Game.code).where(Game.group_id == b.id)))
        a_people = sorted(session.exec(select(Person.name).where(Person.group_id == a.id)))
    assert len(a_codes) == 3 and not a_codes & b_codes
    assert a_people == ["Ana", "Ben", "Cy", "Di", "Zoé"]  # A's Ana is A's own
    assert upload(b_phone, b.token, exported).status_code == 303
    assert rows_of_group(app, b.id) == before


def test_an_import_cannot_name_another_groups_ids(app):
    """A crafted file whose players carry another group's person ids and whose games carry its
    codes: the ids mean nothing outside the file, the codes become new codes."""
    b_phone, a_phone = app.test_client(), app.test_client()
    b_token = finished_duel(b_phone, "Xavier", "Yves")
    b = group_of(app, b_token)
    a = group_of(app, finished_duel(a_phone, "Ana", "Ben"))
    document = json.loads(b_phone.get(f"/group/{b.token}/history/export.json").text)
    with app.app_context():
        ids = list(get_session().exec(select(Person.id).where(Person.group_id == b.id)))
    for player, person_id in zip(document["players"], ids, strict=True):
        player["id"] = person_id
    for game in document["games"]:
        for seat, person_id in zip(game["seats"], ids, strict=True):
            seat["player"] = person_id
    before = rows_of_group(app, b.id)
    assert upload(a_phone, a.token, json.dumps(document).encode()).status_code == 303
    assert rows_of_group(app, b.id) == before
    with app.app_context():
        names = sorted(get_session().exec(select(Person.name).where(Person.group_id == a.id)))
    assert names == ["Ana", "Ben", "Xavier", "Yves"]


def test_a_backup_is_restored_into_a_new_group(app, client):
    """A phone that knows no group (a fresh install) restores a backup: a new group holds the
    games, and the phone is shown it; a refused file makes no group."""
    group = group_of(app, finished_duel(client, "Ana", "Ben"))
    backup = client.get(f"/group/{group.token}/history/export.json").data
    phone = app.test_client()
    assert 'data-action="restore"' in phone.get("/").text
    refused = finished_import(phone, phone.post("/import", data={
        "file": (io.BytesIO(b"{}"), "x.json")}, content_type="multipart/form-data"))
    assert refused.status_code == 422
    with app.app_context():
        assert len(get_session().exec(select(Group)).all()) == 1
    answer = finished_import(phone, phone.post("/import", data={
        "file": (io.BytesIO(backup), "backup.json")}, content_type="multipart/form-data"))
    assert answer.status_code == 303
    restored = re.search(r"/group/(\w+)/history/", answer.headers["Location"]).group(1)
    assert "Imported 1 games" in phone.get(answer.headers["Location"]).text
    assert restored != group.token and group_links(phone.get("/").text) == [restored]


# --- the server's commands -------------------------------------------------------------------

def test_the_server_lists_exports_and_deletes_groups(app, client):
    group = group_of(app, finished_duel(client, "Ana", "Ben"))
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["groups", "list"]).output
    assert re.search(rf"^\s+{group.id}\s+1\s+2\s", listed, re.M) and "Ana" not in listed
    exported = runner.invoke(args=["groups", "export", str(group.id)])
    assert exported.exit_code == 0
    document = json.loads(exported.stdout)
    assert [p["name"] for p in document["players"]] == ["Ana", "Ben"]
    assert runner.invoke(args=["groups", "delete", str(group.id)], input="n\n").exit_code == 1
    assert rows_of_group(app, group.id) > 0
    assert runner.invoke(args=["groups", "delete", str(group.id), "--yes"]).exit_code == 0
    assert rows_of_group(app, group.id) == 0
    assert runner.invoke(args=["groups", "delete", str(group.id), "--yes"]).exit_code == 1


def test_purging_idle_groups_is_off_unless_configured(app, client):
    old = group_of(app, new_game(client, "Ana", "Ben"))
    recent = group_of(app, new_game(app.test_client(), "Zoé", "Yann"))
    with app.app_context():
        session = get_session()
        long_ago = datetime.now(UTC) - timedelta(days=400)
        for game in session.exec(select(Game).where(Game.group_id == old.id)):
            game.created_at = game.updated_at = long_ago
            session.add(game)
        session.get(Group, old.id).created_at = long_ago
        session.commit()
    runner = app.test_cli_runner()
    off = runner.invoke(args=["groups", "purge"])
    assert off.exit_code == 1 and "off" in off.output
    assert rows_of_group(app, old.id) > 0
    dry = runner.invoke(args=["groups", "purge", "--days", "365", "--dry-run"])
    assert f": {old.id}" in dry.output and rows_of_group(app, old.id) > 0
    app.config["GROUP_PURGE_DAYS"] = 365
    assert runner.invoke(args=["groups", "purge"]).exit_code == 0
    assert rows_of_group(app, old.id) == 0 and rows_of_group(app, recent.id) > 0


@pytest.mark.parametrize("token", ["x" * 65, "0" * 32, "..%2Fetc", "ab"])
def test_a_group_link_that_opens_nothing_is_a_404(client, token):
    assert client.get(f"/group/{token}/").status_code == 404


def test_the_groups_page_opens_a_game_through_the_link_this_phone_holds(app, client):
    """The scorer's phone opens its game in progress as the scorer; another member watches."""
    scorer = new_game(client, "Ana", "Ben")
    group = group_of(app, scorer)
    assert f'href="/reveillez/g/{scorer}"' in client.get(f"/group/{group.token}/").text
    member = app.test_client()
    page = member.get(f"/group/{group.token}/").text
    assert scorer not in page and 'data-list="in-progress"' in page


def test_the_group_history_says_a_duel_was_won_by_the_princess(app, client):
    """A duel won at once by the Princess meeting the Prince scores 0–0: the history's line says
    how it was won rather than leave « Ana 0 · Ben 0 » under « Winner: Ana »."""
    token = finished_duel(client, "Ana", "Ben")
    group = group_of(app, token)
    page = client.get(f"/group/{group.token}/history/").text
    line = re.search(r'<li data-game="[^"]*" data-kind="kanai_duel">.*?</li>', page, re.S)[0]
    assert "data-by-princess" in line and "the Princess met the Prince" in line, line
    assert "won at once by Ana" in line
    french = client.get(f"/group/{group.token}/history/", headers={"Accept-Language": "fr"}).text
    assert "data-by-princess" in french and "the Princess met the Prince" not in french
