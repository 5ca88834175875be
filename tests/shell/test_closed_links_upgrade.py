"""Migration 0009 (closed links kept, by digest) on a database written by release 584e0b5, the
last release: it adds an empty ``closedlink`` table and changes nothing stored; on the upgraded
database, replacing a group's link closes every link that phones of that release hold, and each
is then answered with the page saying the group is closed to that phone."""

from __future__ import annotations

import json
import sqlite3

import pytest

from ..conftest import DATA, upgraded_copy

BEFORE = json.loads((DATA / "db_584e0b5.json").read_text(encoding="utf-8"))
GROUP = BEFORE["groups"]["Ana · Ben · Cy · Di"]


@pytest.fixture
def upgraded(tmp_path):
    yield from upgraded_copy(tmp_path, "584e0b5")


def test_the_upgrade_adds_an_empty_table_and_changes_nothing_stored(upgraded):
    _, path = upgraded
    with sqlite3.connect(DATA / "db_584e0b5.sqlite") as before, sqlite3.connect(path) as after:
        assert after.execute("SELECT count(*) FROM closedlink").fetchone() == (0,)
        for table in ("playgroup", "game", "entry", "roundrecord", "person", "player"):
            old = [row[1] for row in before.execute(f"PRAGMA table_info({table})")]
            query = f"SELECT {', '.join(old)} FROM {table} ORDER BY 1"  # (our own names)
            assert after.execute(query).fetchall() == before.execute(query).fetchall(), table
            # a column a later migration added (roundrecord.key, 0013) holds nothing old
            for added in {row[1] for row in after.execute(f"PRAGMA table_info({table})")} \
                    - set(old):
                assert after.execute(f"SELECT count(*) FROM {table} "
                                     f"WHERE {added} IS NOT NULL").fetchone() == (0,), added


def test_links_of_that_release_close_when_their_group_replaces_them(upgraded):
    app, _ = upgraded
    member, other = app.test_client(), app.test_client()
    assert member.get(f"/group/{GROUP}/").status_code == 200
    held = [f"/rebel-princess/g/{BEFORE['scorer']['rp']}",
            f"/reveillez/g/{BEFORE['viewer']['rv']}", f"/group/{GROUP}/"]
    assert [other.get(path).status_code for path in held] == [200, 200, 200]
    assert member.post(f"/group/{GROUP}/replace").status_code == 303
    for path in held:
        page = other.get(path)
        assert page.status_code == 404 and 'data-closed="group"' in page.text, path
