"""The scaling bench's copies of a group (``bench/groups.py``) keep every link token unique,
however the first tokens read: a token whose last hex digits read like a copy number once made
the 100,000-game fill fail (UNIQUE gamelink.token)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from bench.groups import copy_group, copy_within
from bench.scaling import _app
from bench.stats import fill


def _tokens(app) -> list[str]:  # type: ignore[no-untyped-def]
    with app.extensions["companion.engine"].connect() as connection:
        return list(connection.execute(text("SELECT token FROM gamelink")).scalars())


def _tail_like_copy(app, copy_number: int) -> None:  # type: ignore[no-untyped-def]
    """Make one stored token end in the digits the old scheme gave its copy ``copy_number``."""
    with app.extensions["companion.engine"].begin() as connection:
        first = connection.execute(text("SELECT MIN(id) FROM gamelink")).scalar_one()
        connection.execute(text(
            "UPDATE gamelink SET token = substr(token, 1, 26) || printf('%06d', :k) "
            "WHERE id = :i"), {"k": copy_number, "i": first})


def test_copies_within_a_group_keep_tokens_unique(tmp_path: Path) -> None:
    app = _app(tmp_path / "within.sqlite")
    fill(app, 4)
    _tail_like_copy(app, 2)
    before = len(_tokens(app))
    copy_within(app, 3)
    tokens = _tokens(app)
    assert len(tokens) == 4 * before
    assert len(set(tokens)) == len(tokens)
    app.extensions["companion.engine"].dispose()


def test_copies_of_a_group_keep_tokens_unique(tmp_path: Path) -> None:
    app = _app(tmp_path / "groups.sqlite")
    fill(app, 4)
    _tail_like_copy(app, 1)
    before = len(_tokens(app))
    copy_group(app, 2)
    copy_group(app, 1)  # called again: the copy numbers go on
    tokens = _tokens(app)
    assert len(tokens) == 4 * before
    assert len(set(tokens)) == len(tokens)
    with app.extensions["companion.engine"].connect() as connection:
        groups = list(connection.execute(text("SELECT token FROM playgroup")).scalars())
    assert len(set(groups)) == len(groups) == 4
    app.extensions["companion.engine"].dispose()


def test_copies_keep_the_peoples_lists(tmp_path: Path) -> None:
    """The copies' ``playedby`` rows are what the table's definition makes from their games
    (the bench's lists read the same table a server's do)."""
    from ..conftest import played_by

    for name, copy in (("groups", copy_group), ("within", copy_within)):
        app = _app(tmp_path / f"{name}-lists.sqlite")
        fill(app, 4)
        before = len(played_by(app)[0])
        copy(app, 2)
        kept, made = played_by(app)
        assert kept == made and len(kept) == 3 * before > 0, name
        app.extensions["companion.engine"].dispose()
