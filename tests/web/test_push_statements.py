"""The statements of one push save cycle, counted on the database the suite runs on (SQLite, or
PostgreSQL under ``make test-postgres``): a Kanai duel referee round saved while the viewers'
channel has listeners (the app publishes and draws their part), then the scorer's page the save
sends it to — every statement the app sends, on its engine and the polls' reader. Pinned here,
so that a statement added to every cycle shows up as a failure, not as a slower bench
(bench.save_cycle measures the cycle's CPU)."""

from __future__ import annotations

from tests.shell.test_lean_saves import statements, token_of, version_of
from tests.shell.test_save_statements import SAVE, on_this_database, shape

from .test_push import _viewer, publisher  # noqa: F401  (a fixture)
from .test_push_drawing import _channel

AFTER_COMMIT: list[str] = []
"""Nothing after the commit: the game's version, kind and live links (its channels, the viewer
link its part is drawn through) and the scorer's page drawn once for the scorer and the viewers
(routes/live.py's shared drawing: its link and game, the names and links of the page store's
key, the entries replayed for the board) are what the save noted as it stored the round
(companion.play.saved_games), not read again; tests/web/test_push_reuse.py for every game."""
PAGE = [
    "SELECT gamelink",  # the scorer link and its game
    "SELECT player",  # the players' names and the game's live links: the page store's key
]
"""The scorer's page after the save: found in the page store (the save drew it), so no entry
is read."""


def test_a_push_save_cycle_of_a_duel_round_is_pinned_statement_by_statement(app, client,
                                                                           publisher):  # noqa: F811
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert new.status_code == 303
    url = f"/kanai-duel/g/{token_of(new.headers['Location'])}"
    publisher.listening = {_channel(client, _viewer(client, url))}
    for cards in (("general", "minister"), ("minister", "general")):
        version = version_of(client, url)
        publisher.seen.clear()
        with statements(app) as saved:
            answer = client.post(f"{url}/round", data={
                "first": cards[0], "second": cards[1], "version": str(version),
                "key": f"k{version}"})
        assert answer.status_code == 303, answer.text
        parts = [body for method, _, body in publisher.seen if method == "POST" and "\n" in body]
        assert len(parts) == 1  # the part was drawn and published (one language listens)
        with statements(app) as page:
            assert client.get(url).status_code == 200
        assert [shape(s) for s in saved] == on_this_database(app, SAVE) + AFTER_COMMIT, saved
        assert [shape(s) for s in page] == PAGE, page
