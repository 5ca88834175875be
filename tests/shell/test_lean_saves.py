"""Lean saves: each save of each game reads its game once (no second load, no second replay
reading the rows again for the history summary) and writes in one transaction — and the summary
written with it is the one a fresh replay of the stored game gives.

The statements are counted with a SQLAlchemy listener on the app's engine, by the table each
SELECT reads: a test fails if a save reads its game, its entries, its seats or its rounds twice
(or reads the summary row before writing it).
"""

from __future__ import annotations

import re
from collections import Counter
from contextlib import contextmanager

import pytest
from sqlalchemy import event
from sqlmodel import select

from companion.db import get_session
from companion.games import by_key
from companion.models import Game, GameResult
from companion.play import summaries

FROM = re.compile(r"\bFROM\s+\"?(\w+)", re.I)


@contextmanager
def statements(app):
    """Every SQL statement run while the block runs, as a list (the polls' reader's too, and a
    page's reads sent to libpq alone: companion.play.page_reads)."""
    from companion.db import reader
    from companion.play import page_reads

    engines = {app.extensions["companion.engine"], reader(app.extensions["companion.engine"])}
    seen: list[str] = []

    def note(_conn, _cursor, statement, _params, _context, _many):
        seen.append(statement)

    sent = page_reads.read_rows

    def read_rows(engine, name, sql, params, **options):
        seen.append(sql)
        return sent(engine, name, sql, params, **options)

    for engine in engines:
        event.listen(engine, "before_cursor_execute", note)
    page_reads.read_rows = read_rows
    try:
        yield seen
    finally:
        page_reads.read_rows = sent
        for engine in engines:
            event.remove(engine, "before_cursor_execute", note)


def reads(seen: list[str]) -> Counter[str]:
    """How many SELECTs read each table first named after FROM (a join counts its first)."""
    return Counter(FROM.search(s)[1].lower() for s in seen
                   if s.lstrip().upper().startswith("SELECT") and FROM.search(s))


def writes(seen: list[str]) -> list[str]:
    """``INSERT <table>``, ``UPDATE <table>``, ``DELETE <table>`` of each write (one in a ``WITH``
    of its own, as a save's summary sent with its COMMIT on PostgreSQL: that write)."""
    from .test_save_statements import unwrapped

    seen = [unwrapped(s) for s in seen]
    return [s.split()[0].upper() + " " + re.sub(r"\W", "", s.split()[2 if s.upper().startswith(
        ("INSERT", "DELETE")) else 1]).lower() for s in seen
        if s.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


def assert_read_once(seen: list[str], *tables: str) -> None:
    """The save read the link (with its game) once, each of ``tables`` at most once, the game
    and its summary row never on their own."""
    counted = reads(seen)
    assert counted["gamelink"] == 1, counted
    assert counted["game"] == 0, counted  # the link's query gave it
    assert counted["gameresult"] == 0, counted  # written by one UPDATE, not read first
    for table in tables:
        assert counted[table] <= 1, (table, counted)
    assert set(counted) <= {"gamelink", *tables}, counted


def assert_summary_fresh(app, token: str) -> None:
    """The summary stored with the last save is the one replaying the stored game gives."""
    with app.app_context():
        session = get_session()
        from companion.play import store

        game = store.game_by_token(session, token)
        assert game is not None
        row = session.get(GameResult, game.id)
        assert row is not None and row.stamp == summaries.stamp_of(game)
        fresh = summaries.cached(game, by_key(game.kind).glue().summary(session, game))
        assert (row.finished, row.data, row.progress) == (fresh.finished, fresh.data,
                                                          fresh.progress)


def token_of(location: str) -> str:
    return re.search(r"/g/(\w+)", location)[1]


def version_of(client, url: str) -> int:
    return int(re.search(r'data-version="(\d+)"', client.get(url).text)[1])


# --- Rebel Princess ----------------------------------------------------------------------------

RP_NAMES = {f"names-{i}": n for i, n in enumerate(["Ana", "Ben", "Cy", "Di"])}
ROUND_A = {"base": "", "leader": "", "P1": "0", "P2": "1", "P3": "2", "P4": "0", "P5": "3",
           "P6": "1", "P7": "0", "P8": "2", "P9": "3", "P10": "0", "A8": "2"}
"""Round 1 of a 4-player Deluxe game on Round card a: Princes 1-10 and the Frog given out."""


@pytest.fixture
def rebel(client):
    response = client.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "first_leader": "0", **RP_NAMES,
        **{f"cards-{i}": letter for i, letter in enumerate("abcde")}})
    assert response.status_code == 302
    return f"/rebel-princess/g/{token_of(response.headers['Location'])}"


def test_rebel_princess_save_by_cards_reads_the_game_once(app, client, rebel):
    with statements(app) as seen:
        assert client.post(f"{rebel}/round/1/cards", data=ROUND_A).status_code == 302
    assert_read_once(seen, "player", "roundrecord")
    assert sorted(writes(seen)) == ["INSERT roundrecord", "UPDATE game", "UPDATE gameresult"]
    assert_summary_fresh(app, token_of(rebel))


def test_rebel_princess_double_tap_is_told_from_the_refusal_without_reading_again(
        app, client, rebel):
    """A double tap is answered like the first tap (a redirect to the pad, stored once), told
    from the round the refusal found: the rounds (and seats) are read by the request and once
    more by the save judging afresh what the request's view refused — never a third time to tell
    the double tap."""
    assert client.post(f"{rebel}/round/1/cards", data=ROUND_A).status_code == 302
    with statements(app) as seen:
        again = client.post(f"{rebel}/round/1/cards", data=ROUND_A)
    assert (again.status_code, again.headers["Location"]) == (302, rebel)
    counted = reads(seen)
    assert counted["roundrecord"] == 2, counted
    assert counted["player"] <= 2, counted
    assert writes(seen) == [], writes(seen)


def test_rebel_princess_edit_and_save_by_counts_read_the_game_once(app, client, rebel):
    client.post(f"{rebel}/round/1/cards", data=ROUND_A)
    page = client.get(f"{rebel}/round/1/counts").text
    base = re.search(r'name="base"[^>]*value="(\d+)"', page)[1]
    counts = {"base": base, "leader": "", "princes_0": "4", "princes_1": "2",
              "princes_2": "2", "princes_3": "2", "frog": "1"}
    with statements(app) as seen:
        assert client.post(f"{rebel}/round/1/counts", data=counts).status_code == 302
    assert_read_once(seen, "player", "roundrecord")
    assert_summary_fresh(app, token_of(rebel))
    with statements(app) as seen:  # the second round, by counts
        response = client.post(f"{rebel}/round/2/counts", data={
            "base": "", "leader": "", "princes_0": "3", "princes_1": "3", "princes_2": "3",
            "princes_3": "3", "frog": "0"})
    if response.status_code == 302:  # (round card b may not be counted by Princes)
        assert_read_once(seen, "player", "roundrecord")
        assert_summary_fresh(app, token_of(rebel))


def test_rebel_princess_save_by_numbers_reads_the_game_once(app, client, rebel):
    numbers = {"base": "", "leader": "", **{f"score_{s}": v for s, v in
                                             enumerate(["3", "2", "4", "1"])}, "confirm": "y"}
    with statements(app) as seen:
        assert client.post(f"{rebel}/round/1/numbers", data=numbers).status_code == 302
    assert_read_once(seen, "player", "roundrecord")
    assert_summary_fresh(app, token_of(rebel))


def test_rebel_princess_trick_tap_writes_one_row_and_no_summary(app, client, rebel):
    """A tap on the trick screen writes its round's log alone (the game is not moved: the
    summary is written when the round is confirmed)."""
    url = f"{rebel}/round/1/tricks"
    version = int(re.search(r'data-version="(\d+)"', client.get(url).text)[1])
    client.post(f"{url}/play", data={"card": "Q1", "version": version},
                headers={"HX-Request": "true"})  # the row's first write inserts it
    version = int(re.search(r'data-version="(\d+)"', client.get(url).text)[1])
    with statements(app) as seen:
        response = client.post(f"{url}/play", data={"card": "Q2", "version": version},
                               headers={"HX-Request": "true"})
    assert response.status_code == 200
    counted = reads(seen)
    assert counted["gameresult"] == 0 and counted["entry"] == 0, counted
    assert all(n <= 1 for n in counted.values()), counted
    assert writes(seen) == ["UPDATE tricklog"]


# --- Princesse Princesse -----------------------------------------------------------------------

@pytest.fixture
def princesse(client):
    response = client.post("/princesse-princesse/new", data={
        "names-0": "Ana", "names-1": "Ben", "names-2": "Cléo", "first": "0"})
    assert response.status_code == 303
    return f"/princesse-princesse/g/{token_of(response.headers['Location'])}"


def pp_round(client, url, key, **extra):
    return client.post(f"{url}/round", data={
        "version": version_of(client, url), "key": key, "step": "2", "in": ["0", "1"],
        "card-0": "3", "card-1": "5", **extra})


def test_princesse_princesse_save_reads_and_replays_the_game_once(app, client, princesse):
    version = version_of(client, princesse)
    with statements(app) as seen:
        response = client.post(f"{princesse}/round", data={
            "version": version, "key": "key-00000001", "step": "2", "in": ["0", "1"],
            "card-0": "3", "card-1": "5"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert sorted(writes(seen)) == ["INSERT entry", "UPDATE game", "UPDATE gameresult"]
    assert_summary_fresh(app, token_of(princesse))


def test_princesse_princesse_edit_undo_and_turn_log_read_the_game_once(app, client, princesse):
    assert pp_round(client, princesse, "key-00000001").status_code == 303
    assert pp_round(client, princesse, "key-00000002").status_code == 303
    rid = re.search(r'round\?edit=(\d+)', client.get(f"{princesse}/history").text)[1]
    version = version_of(client, princesse)
    with statements(app) as seen:
        response = client.post(f"{princesse}/round?edit={rid}", data={
            "version": version, "key": "key-00000003", "step": "2",
            "in": ["0", "2"], "card-0": "7", "card-2": "1"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert_summary_fresh(app, token_of(princesse))
    version = version_of(client, princesse)
    with statements(app) as seen:
        response = client.post(f"{princesse}/round/{rid}/undo",
                               data={"version": version, "key": "key-00000004"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert_summary_fresh(app, token_of(princesse))
    version = version_of(client, princesse)
    with statements(app) as seen:
        response = client.post(f"{princesse}/log/start",
                               data={"version": version, "key": "key-00000005"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert_summary_fresh(app, token_of(princesse))


# --- Réveillez ---------------------------------------------------------------------------------

@pytest.fixture
def reveillez(client):
    response = client.post("/reveillez/new", data={
        "names-0": "Ana", "names-1": "Ben", "names-2": "Cléo", "first": "0"})
    assert response.status_code == 303
    return f"/reveillez/g/{token_of(response.headers['Location'])}"


def test_reveillez_save_reads_its_entries_once(app, client, reveillez):
    version = version_of(client, reveillez)
    with statements(app) as seen:
        response = client.post(f"{reveillez}/act", data={
            "version": version, "key": "key-00000001", "do": "wake", "slot": "3",
            "value": "15"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert sorted(writes(seen)) == ["INSERT entry", "UPDATE game", "UPDATE gameresult"]
    assert_summary_fresh(app, token_of(reveillez))
    version = version_of(client, reveillez)
    with statements(app) as seen:
        response = client.post(f"{reveillez}/undo", data={"version": version,
                                                          "key": "key-00000002"})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert_summary_fresh(app, token_of(reveillez))


# --- the Kanai duel ----------------------------------------------------------------------------

DUEL = {"first": "Ana", "second": "Ben", "wins": "4", "abilities": "all", "set_aside": "none"}


def test_duel_referee_round_and_undo_read_the_game_once(app, client):
    url = client.post("/kanai-duel/new", data={**DUEL, "mode": "referee"}).headers["Location"]
    version = version_of(client, url)
    with statements(app) as seen:
        response = client.post(f"{url}/round", data={"first": "prince", "second": "clown",
                                                     "version": version})
    assert response.status_code == 303
    assert_read_once(seen, "player", "entry")
    assert sorted(writes(seen)) == ["INSERT entry", "UPDATE game", "UPDATE gameresult"]
    assert_summary_fresh(app, token_of(url))
    version = version_of(client, url)
    with statements(app) as seen:
        assert client.post(f"{url}/undo", data={"version": version}).status_code == 303
    assert_read_once(seen, "player", "entry")
    assert_summary_fresh(app, token_of(url))


def test_duel_picks_on_two_phones_read_the_game_once(app):
    first, second = app.test_client(), app.test_client()
    url = first.post("/kanai-duel/new", data={**DUEL, "mode": "phones"}).headers["Location"]
    join = re.search(r"/kanai-duel/g/\w+/join", first.get(url).text)[0]
    second.get(join)
    url2 = second.post(join).headers["Location"]
    for phone, address, card in ((first, url, "prince"), (second, url2, "clown")):
        page = phone.get(address).text
        data = {"card": card, "version": re.search(r'data-version="(\d+)"', page)[1],
                "round": re.search(r'data-stage="(\d+)"', page)[1]}
        with statements(app) as seen:
            assert phone.post(f"{address}/pick", data=data).status_code == 303
        assert_read_once(seen, "player", "entry")
        assert_summary_fresh(app, token_of(url))  # the second pick reveals the round
    with app.app_context():
        game = get_session().exec(select(Game).where(Game.kind == "kanai_duel")).one()
        summary = summaries.summary_of(get_session(), game)
        assert summary is not None and len(summary.progress) == 1  # the round was revealed


# --- one commit per save (issue 31, item 3) ----------------------------------------------------

@contextmanager
def commits(app):
    """The transactions committed on the app's engine while the block runs."""
    engine = app.extensions["companion.engine"]
    seen: list[str] = []

    def note(_conn):
        seen.append("COMMIT")

    event.listen(engine, "commit", note)
    try:
        yield seen
    finally:
        event.remove(engine, "commit", note)


def test_each_games_save_is_one_commit(app, client, rebel, princesse, reveillez):
    """Every game's save (its round, its summary and the group's totals with it) is one
    transaction, committed once; a save that changes nothing in the phone's session (no
    message to show) sends no new session cookie."""
    numbers = {"base": "", "leader": "", **{f"score_{s}": v for s, v in
                                             enumerate(["3", "2", "4", "1"])}, "confirm": "y"}
    duel = client.post("/kanai-duel/new", data={**DUEL, "mode": "referee"}).headers["Location"]
    saves = [
        lambda: client.post(f"{rebel}/round/1/numbers", data=numbers),
        lambda: pp_round(client, princesse, "key-00000001"),
        lambda: client.post(f"{reveillez}/act", data={
            "version": version_of(client, reveillez), "key": "key-00000001", "do": "wake",
            "slot": "3", "value": "15"}),
        lambda: client.post(f"{duel}/round", data={"first": "prince", "second": "clown",
                                                   "version": version_of(client, duel)}),
    ]
    for save in saves:
        with commits(app) as seen:
            response = save()
        assert response.status_code in (302, 303) and seen == ["COMMIT"], response.status_code
    quiet = client.post(f"{reveillez}/act", data={
        "version": version_of(client, reveillez), "key": "key-00000002", "do": "wake",
        "slot": "4", "value": "10"})
    assert quiet.status_code == 303 and "Set-Cookie" not in quiet.headers
