"""An app of a test's own config, on the test's database, disposed of afterwards."""

from __future__ import annotations

import pytest

from companion import create_app

from ..conftest import database_config, empty_tables


@pytest.fixture
def make_app(tmp_path):
    made = []

    def make(**config):
        app = create_app({"TESTING": True, "SECRET_KEY": "t", **database_config(tmp_path),
                          **config})
        empty_tables(app)
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["companion.engine"].dispose()
