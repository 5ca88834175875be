"""``flask backup`` then ``flask restore`` into an empty instance: every game opens at the links
the phones hold, every group at its link (SQLite here; PostgreSQL in ``make test-postgres``).
And ``flask groups export --with-links`` then ``flask groups import`` on another server: the
same, with the group's name, and a second import adds nothing (from the command line and from a
phone)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from companion import create_app

from ..conftest import empty_tables, finished_import

NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def _play(app) -> None:
    """A table's evening on one phone (so in one group): a Rebel Princess game with a round
    scored, and a finished one."""
    client = app.test_client()
    for rounds in (1, 5):
        started = client.post("/rebel-princess/new", data=NEW_GAME)
        assert started.status_code == 302
        token = started.headers["Location"].rsplit("/", 1)[1]
        for number in range(1, rounds + 1):
            scores = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])},
                      "confirm": "y"}
            assert client.post(f"/rebel-princess/g/{token}/round/{number}/numbers",
                               data=scores).status_code == 302


def _links(app) -> dict[str, list[tuple[str, str]]]:
    """Every live game link (kind slug, token) and every group link."""
    with app.extensions["companion.engine"].connect() as db:
        games = [(kind.replace("_", "-"), token) for kind, token in db.execute(text(
            "SELECT game.kind, gamelink.token FROM gamelink JOIN game ON game.id ="
            " gamelink.game_id WHERE gamelink.revoked_at IS NULL ORDER BY gamelink.token"))]
        groups = [("group", token) for (token,) in db.execute(text(
            'SELECT token FROM playgroup ORDER BY token'))]
    return {"games": games, "groups": groups}


def _opens_everything(app, links) -> None:
    phone = app.test_client()
    for slug, token in links["games"]:
        page = phone.get(f"/{slug}/g/{token}")
        assert page.status_code == 200, (slug, page.status_code)
        assert "Ana" in page.data.decode()
    for _, token in links["groups"]:
        assert phone.get(f"/group/{token}/").status_code == 200


def _instance(config) -> object:
    return create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                       **config})


def test_backup_then_restore_opens_every_game_at_the_links_phones_hold(
        app, tmp_path, second_database):
    _play(app)
    links = _links(app)
    assert len(links["games"]) == 4 and links["groups"]
    file = tmp_path / "companion.backup"
    done = app.test_cli_runner().invoke(args=["backup", str(file)])
    assert done.exit_code == 0, done.output
    other = _instance(second_database)
    try:
        restored = other.test_cli_runner().invoke(args=["restore", str(file)])
        assert restored.exit_code == 0, restored.output
        assert _links(other) == links
        _opens_everything(other, links)
        again = other.test_cli_runner().invoke(args=["restore", str(file)])
        assert again.exit_code != 0 and "empty" in again.output  # never over stored games
    finally:
        other.extensions["companion.engine"].dispose()


def test_restore_refuses_a_file_that_is_no_backup(app, tmp_path):
    file = tmp_path / "not.backup"
    file.write_bytes(b"hello")
    empty_tables(app)
    answer = app.test_cli_runner().invoke(args=["restore", str(file)])
    assert answer.exit_code != 0 and "not a" in answer.output


def _group_id(app) -> int:
    with app.extensions["companion.engine"].connect() as db:
        return int(db.execute(text('SELECT id FROM playgroup ORDER BY id')).scalars().first())


def test_export_with_links_then_import_twice_on_another_server(app, tmp_path, second_database):
    _play(app)
    links = _links(app)
    file = tmp_path / "group.json"
    file.write_text("an older copy, once readable by all")
    file.chmod(0o644)
    group = _group_id(app)
    done = app.test_cli_runner().invoke(args=["groups", "export", str(group), "--with-links",
                                              "-o", str(file)])
    assert done.exit_code == 0, done.output
    assert file.stat().st_mode & 0o777 == 0o600  # it opens every game: its owner's only
    document = json.loads(file.read_text(encoding="utf-8"))
    assert document["group"]["name"] == "Ana · Ben · Cy · Di"
    assert document["group"]["token"] == links["groups"][0][1]
    other = _instance(second_database)
    try:
        runner = other.test_cli_runner()
        first = runner.invoke(args=["groups", "import", str(file)])
        assert first.exit_code == 0, first.output
        assert "2 games imported, 0 already there" in first.output
        assert _links(other) == links  # the same links: every phone's QR code works here
        _opens_everything(other, links)
        second = runner.invoke(args=["groups", "import", str(file)])
        assert second.exit_code == 0 and "0 games imported, 2 already there" in second.output
        into = runner.invoke(args=["groups", "import", str(file), "--into",
                                   str(_group_id(other))])
        assert into.exit_code == 0 and "0 games imported, 2 already there" in into.output
        assert _links(other) == links
        with other.extensions["companion.engine"].connect() as db:
            assert db.execute(text('SELECT name FROM playgroup')).scalars().all() == [
                "Ana · Ben · Cy · Di"]
            assert db.execute(text("SELECT count(*) FROM game")).scalar() == 2
    finally:
        other.extensions["companion.engine"].dispose()


def test_a_phones_export_carries_no_link(app):
    _play(app)
    group_token = _links(app)["groups"][0][1]
    phone = app.test_client()
    export = phone.get(f"/group/{group_token}/history/export.json")
    if export.status_code == 404:  # (the export's address)
        pytest.fail("the group's JSON export is not at /group/<token>/history/export.json")
    text_ = export.data.decode()
    assert not re.search(r"[0-9a-f]{32}", text_)  # no link of any kind
    assert "group" not in json.loads(text_)  # (its name and link: the operator's export)


def test_a_phone_restoring_the_same_backup_twice_adds_nothing(app, tmp_path, second_database):
    """A phone restores a group's export on a new server (a new group, which it then knows),
    then restores the same file again: nothing is added, no second group is made."""
    _play(app)
    file = tmp_path / "group.json"
    assert app.test_cli_runner().invoke(
        args=["groups", "export", str(_group_id(app)), "-o", str(file)]).exit_code == 0
    other = _instance(second_database)
    try:
        phone = other.test_client()
        for _ in range(2):
            answer = finished_import(phone, phone.post("/import", data={  # (a job: its end)
                "file": (io.BytesIO(file.read_bytes()), "group.json")},
                content_type="multipart/form-data"))
            assert answer.status_code == 303, answer.status_code
            with other.extensions["companion.engine"].connect() as db:
                assert db.execute(text("SELECT count(*) FROM game")).scalar() == 2
                assert db.execute(text('SELECT name FROM playgroup')).scalars().all() == [
                    "Ana · Ben · Cy · Di"]  # the group's own name, not « Imported games »
        group = phone.get(answer.headers["Location"])
        assert group.status_code == 200
    finally:
        other.extensions["companion.engine"].dispose()


def test_a_backup_is_its_owners_only_and_says_how_it_was_made(app, tmp_path):
    """It holds every link: mode 0600 whatever the umask; the command it prints is the one the
    guide gives (pg_dump's --file once)."""
    _play(app)
    file = tmp_path / "companion.backup"
    done = app.test_cli_runner().invoke(args=["backup", str(file)])
    assert done.exit_code == 0, done.output
    assert file.stat().st_mode & 0o777 == 0o600
    if app.config.get("DATABASE_URL"):
        assert "pg_dump --format=custom --no-owner --host " in done.output
        assert done.output.count("--file") == 1 and done.output.rstrip().endswith("--file FILE)")
    else:
        assert "SQLite online backup" in done.output


def test_backup_refuses_a_database_that_is_not_companions(tmp_path):
    """``flask backup`` run without the server's settings (as root, say, without the environment
    file) opens the SQLite file of the instance beside the code, empty: it says so, and writes no
    backup of nothing."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DATABASE_URL", "RATELIMIT_STORAGE_URI", "CACHE_REDIS_URL")}
    environment["COMPANION_INSTANCE"] = str(tmp_path / "instance")
    file = tmp_path / "companion.backup"
    answer = subprocess.run([str(Path(sys.executable).with_name("flask")), "--app", "companion",
                             "backup", str(file)], env=environment, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert answer.returncode != 0 and "no companion database" in answer.stderr, answer.stderr
    assert "companion.env" in answer.stderr and "Traceback" not in answer.stderr
    assert not file.exists()


def test_backup_into_a_missing_folder_says_so(app, tmp_path):
    answer = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "no" / "x.backup")])
    assert answer.exit_code != 0 and "no folder" in answer.output
    assert "Traceback" not in answer.output
