"""Export and import: everything (or one game) as versioned JSON and as CSV; an export imported
into a fresh install gives the same games — the same export again, every game's pages the same —
and a bad or hostile file is refused with a reason, storing nothing."""

from __future__ import annotations

import csv
import io
import json
import pathlib
import random
import re

import pytest
from sqlmodel import col, select

from companion import create_app
from companion.db import get_session
from companion.history import export_format as schema
from companion.models import Entry, Game, Group, Person, Player, RoundRecord, TrickLog
from companion.play import (
    export,
    groups,
    kanai_duel,
    princesse_princesse,
    rebel_princess,
    reveillez,
    store,
    summaries,
)
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess.engine import RoundState
from companion.scoring.reveillez import PrincessCard, Wake

from ..conftest import finished_import
from .conftest import by_numbers, kd_game, link, rebel_game

TABLES = (Game, Player, Person, Entry, RoundRecord, TrickLog)


def add_edits_undos_and_a_trick_log(app, client, known):
    """What the known games lack, each game finished in the end: edits and undos of every kind,
    a round entered trick by trick (its trick log is kept), a two-phone duel with its picks.
    Returns the codes of the new games."""
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["open"])
        first = rebel_princess.view_game(session, game).records[0]
        rebel_princess.save_round(session=session, game=game, number=1,
                                  played=by_numbers(2, 2, 2), mode="numbers", base_id=first.id)
        rebel_princess.save_round(session=session, game=game, number=2,
                                  played=by_numbers(0, 5, 1), mode="numbers", base_id=None)
        rebel_princess.undo_last(session=session, game=game)
        for number, scores in ((2, (1, 5, 0)), (3, (4, 0, 9))):
            rebel_princess.save_round(session=session, game=game, number=number,
                                      played=by_numbers(*scores), mode="numbers", base_id=None)
        pp = princesse_princesse.create_game(session=session, names=["Ana", "Zoé"], first=1,
                                             group_id=known.group_id)

        def pp_round(reveal, **kw):
            view = princesse_princesse.view_game(session, pp)
            return princesse_princesse.save_round(session=session, view=view,
                                                  based_on=view.version, reveal=reveal, **kw)

        pp_round(RoundReveal.of([None, 3]), key="r1")
        pp_round(RoundReveal.of([4, None]), key="r2")
        view = princesse_princesse.view_game(session, pp)
        pp_round(RoundReveal.of([2, None]), key="edit", rid=view.rounds[0].rid)
        view = princesse_princesse.view_game(session, pp)
        princesse_princesse.undo_round(session=session, view=view, based_on=view.version,
                                       key="undo", rid=view.rounds[1].rid)
        for n in range(3):  # Zoé, alone with a Spy: 2 tokens a round, 6 to win
            pp_round(RoundReveal.of([None, None], still_in={1}, spies={1}), key=f"z{n}")
        rv = store.get_game(session, known.codes["rv"])
        reveillez.undo(session=session, game=rv, based_on=5, key="undo-1")
        reveillez.record(session=session, game=rv, action=Wake(4, PrincessCard(15)),
                         based_on=6, key="again")
        duel, _ = kanai_duel.create(session=session, names=["Cy", "Di"], mode=kanai_duel.PHONES,
                                    variants=["impatience"], group_id=known.group_id)
        kanai_duel.claim(session=session, game=duel,
                         link=kanai_duel.seat_link(session, duel, 1))
        for seat, card in [(0, "prince"), (1, "wizard"), (0, "general"),
                           (1, "minister"), (0, "wizard"), (1, "assassin")]:
            now = kanai_duel.view_game(session, duel)
            kanai_duel.pick(session=session, game=duel, seat=seat, card=card,
                            for_stage=now.stage, based_on=now.version)
        tricks = rebel_game(session, ["Ana", "Ben", "Cy", "Di"], [], group_id=known.group_id)
    scorer = link(app, tricks.code, "scorer")
    base = f"/rebel-princess/g/{scorer}/round/1/tricks"
    state = RoundState.deal(4, edition="deluxe", round_card="a", seed=3, leader=0)
    rng = random.Random(3)
    while not state.is_over():
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        version = re.search(r'data-version="(\d+)"', client.get(base).text).group(1)
        answer = client.post(f"{base}/play", data={"card": str(card), "version": version})
        assert answer.status_code == 303  # stored, back to the trick screen
    version = re.search(r'data-version="(\d+)"', client.get(base).text).group(1)
    assert client.post(f"{base}/confirm", data={"version": version}).status_code == 302
    assert "saved from the tricks" in client.get("/rebel-princess"
                                                 f"/g/{scorer}").text  # the flash, shown once
    with app.app_context():
        session = get_session()
        game = store.get_game(session, tricks.code)
        for number, scores in ((2, (0, 20, 40, 60)), (3, (0, 20, 40, 60))):
            rebel_princess.save_round(session=session, game=game, number=number,
                                      played=by_numbers(*scores), mode="numbers", base_id=None)
        assert all(summaries.summary_of(session, store.get_game(session, code)).finished
                   for code in (pp.code, duel.code, tricks.code, known.codes["open"]))
    return [pp.code, duel.code, tricks.code]


@pytest.fixture
def fresh(tmp_path):
    """A second install, on its own empty database."""
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                      "DATABASE": str(tmp_path / "fresh.sqlite")})
    yield app
    app.extensions["companion.engine"].dispose()


def upload(client, content: bytes | str, base: str, name="backup.json"):
    """Import ``content`` into the group whose history is at ``base``."""
    data = content.encode() if isinstance(content, str) else content
    return finished_import(client, client.post(f"{base}/import", data={
        "file": (io.BytesIO(data), name)}, content_type="multipart/form-data"))


def group_of(app) -> str:
    """The history address of the install's first group (made, empty, if it has none)."""
    with app.app_context():
        session = get_session()
        group = session.exec(select(Group).order_by(col(Group.id))).first()
        if group is None:
            group = groups.new_group(session, name="Our table")
            session.commit()
        return f"/group/{group.token}/history"


def record(app, code) -> str:
    """The record of a finished game, through its own viewer link."""
    return f"/record/{link(app, code)}"


def rows(app):
    with app.app_context():
        session = get_session()
        return {model.__name__: len(session.exec(select(model)).all()) for model in TABLES}


def game_pages(app, code):
    """Every page of a game: the GET views of its blueprint that take only the game (opened
    through its scorer link, with ``{token}`` in the address)."""
    kind = None
    with app.app_context():
        kind = store.get_game(get_session(), code).kind
    rules = [r for r in app.url_map.iter_rules()
             if r.endpoint.split(".")[0] == kind and r.arguments == {"code"}
             and "GET" in (r.methods or ())]
    assert rules, kind
    return [r.rule.replace("<code>", "{token}") for r in rules]


def normalised(html: str, app=None, code=None) -> str:
    """A page's <main> (or a JSON answer) without what changes with every rendering (CSRF
    tokens, one-time keys) or with every install (the game's link tokens)."""
    if app is not None:
        for role in ("scorer", "viewer"):
            html = html.replace(link(app, code, role), role.upper())
    found = re.search(r"<main>(.*)</main>", html, re.S)
    html = found.group(1) if found else html
    html = re.sub(r'<div class="qr">.*?</div>', "QR", html, flags=re.S)  # a link, drawn
    html = re.sub(r'<p class="hx-group">.*?</p>', "GROUP", html)  # the group's name and link
    html = re.sub(r"/group/[0-9a-f]{32}/", "/group/GROUP/", html)
    html = re.sub(r'(name="(?:csrf_token|key)"[^>]*value=")[^"]*', r"\1", html)
    return re.sub(r'value="[^"]*"([^>]*name="(?:csrf_token|key)")', r"\1", html)


def test_export_import_export_is_identical_and_every_page_reads_the_same(app, client, known,
                                                                          fresh):
    extra = add_edits_undos_and_a_trick_log(app, client, known)
    exported = client.get(f"{known.base}/export.json")
    assert exported.headers["Content-Disposition"].startswith("attachment; filename=")
    document = json.loads(exported.text)
    assert document["format"] == "princess-table-export" and document["version"] == 1
    assert len(document["games"]) == 10  # every game, each one finished
    before = rows(app)
    # The once open game: round 1, its edit, round 2, its undo, rounds 2 and 3 again.
    assert before["TrickLog"] == 1 and before["RoundRecord"] == 3 + 3 + 6 + 3

    other = fresh.test_client()
    answer = upload(other, exported.data, group_of(fresh))
    assert answer.status_code == 303, answer.text
    assert "Imported 10 games (0 already here)." in other.get(answer.headers["Location"]).text
    assert rows(fresh) == before
    assert other.get(f"{group_of(fresh)}/export.json").text == exported.text

    for code in [*known.codes.values(), *extra]:
        for page in game_pages(app, code):
            mine = client.get(page.format(token=link(app, code, "scorer")))
            theirs = other.get(page.format(token=link(fresh, code, "scorer")))
            assert theirs.status_code == mine.status_code, page
            assert normalised(theirs.headers.get("Location", ""), fresh, code) == \
                normalised(mine.headers.get("Location", ""), app, code), page
            assert normalised(theirs.text, fresh, code) == normalised(mine.text, app, code), page
    code = known.codes["rp2"]
    for mine, theirs in ((f"{known.base}/stats", f"{group_of(fresh)}/stats"),
                         (record(app, code), record(fresh, code))):
        assert normalised(other.get(theirs).text, fresh, code) == \
            normalised(client.get(mine).text, app, code), mine


def test_one_game_exports_alone_and_imports_next_to_others(client, known, fresh):
    one = client.get(f"{known.record('pp')}/export.json")
    document = json.loads(one.text)
    assert [g["code"] for g in document["games"]] == [known.codes["pp"]]
    assert [p["name"] for p in document["players"]] == ["Ana", "Ben", "Cy", "Di", "Eve"]
    assert document["games"][0]["result"]["winners"] == [0]
    other = fresh.test_client()
    assert upload(other, one.data, group_of(fresh)).status_code == 303
    assert rows(fresh)["Game"] == 1
    assert upload(other, client.get(f"{known.base}/export.json").data,
                  group_of(fresh)).status_code == 303
    assert rows(fresh)["Game"] == 6  # the game already there is kept, the five others added
    assert rows(fresh)["Person"] == 5


def test_importing_into_the_same_install_changes_nothing(app, client, known):
    before = rows(app)
    answer = upload(client, client.get(f"{known.base}/export.json").data, known.base)
    assert answer.status_code == 303
    assert rows(app) == before
    assert "Imported 0 games (6 already here)." in client.get(f"{known.base}/").text


def test_imported_names_meet_the_players_already_here(client, known, fresh):
    """A player of the file whose name folds like one of the install's is that person."""
    other = fresh.test_client()
    other.post("/reveillez/new", data={"names-0": "ANA", "names-1": "Zed", "first": "0"})
    assert upload(other, client.get(f"{known.base}/export.json").data,
                  group_of(fresh)).status_code == 303
    with fresh.app_context():
        names = sorted(p.name for p in get_session().exec(select(Person)))
    assert names == ["ANA", "Ben", "Cy", "Di", "Eve", "Zed"]


def test_csv_has_one_row_per_player_per_game(client, known):
    answer = client.get(f"{known.base}/export.csv")
    assert answer.mimetype == "text/csv"
    table = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(table[0]) == list(export.CSV_COLUMNS)
    assert len(table) == 4 + 4 + 5 + 2 + 2 + 2  # every finished game
    rp2 = [row for row in table if row["game_code"] == known.codes["rp2"]]
    assert [(r["player"], r["score"], r["winner"], r["rank"]) for r in rp2] == [
        ("Ben", "-5", "1", "1"), ("Ana", "4", "0", "2"), ("Di", "5", "0", "3"),
        ("Cy", "16", "0", "4")]
    assert {r["unit"] for r in table} == {"points", "tokens", "round-wins"}


def test_csv_quotes_what_a_spreadsheet_would_run(app, client):
    with app.app_context():
        kd_game(get_session(), ["=HYPERLINK(1)", "Ben"], ["princess/prince"])
    text = client.get(f"{group_of(app)}/export.csv").text
    assert "'=HYPERLINK(1)" in text and ",=HYPERLINK" not in text


# --- refused files ---------------------------------------------------------------------------

def good_document(client, base) -> dict:
    return json.loads(client.get(f"{base}/export.json").text)


def spoil(document: dict, how: str) -> str:
    games, players = document["games"], document["players"]
    kanai = next(g for g in games if g["kind"] == "kanai_duel")
    rebel = next(g for g in games if g["kind"] == "rebel_princess")
    if how == "not-json":
        return "{ not json"
    if how == "array":
        return "[1, 2]"
    if how == "not-an-export":
        return json.dumps({"format": "something-else", "version": 1})
    if how == "newer-version":
        return json.dumps({**document, "version": 2})
    if how == "unknown-field":
        games[0]["evil"] = True
    elif how == "bad-code":
        games[0]["code"] = "<script>"
    elif how == "long-name":
        players[0]["name"] = "A" * 41
    elif how == "duplicate-code":
        games[1]["code"] = games[0]["code"]
    elif how == "unknown-game":
        games[0]["kind"] = "chess"
    elif how == "unknown-player":
        games[0]["seats"][0]["player"] = 99
    elif how == "player-twice":
        games[0]["seats"][1]["player"] = games[0]["seats"][0]["player"]
    elif how == "bad-seats":
        games[0]["seats"][0]["seat"] = 7
    elif how == "bad-undo":
        rebel["round_records"][0]["undoes"] = 3
    elif how == "duplicate-player":
        players.append({**players[0], "id": 50, "name": players[0]["name"].upper()})
    elif how == "does-not-replay":  # the last game is good, this one is not: nothing is kept
        # (an entry of the duel's own shape that its rules cannot replay: an undo first)
        kanai["entries"][0] = {**kanai["entries"][0], "kind": "undo", "data": {}}
    elif how == "bad-entry":  # no duel has such a card: not even of a duel entry's shape
        kanai["entries"][0]["data"]["cards"][0] = "dragon"
    elif how == "does-not-replay-rebel":
        rebel["round_records"][0]["taken"] = "ZZ9|||"
    elif how == "deep":
        games[0]["settings"] = json.loads("[" * 300 + "]" * 300)
    return json.dumps(document)


@pytest.mark.parametrize("how, code", [
    ("not-json", "not-json"), ("array", "not-an-export"), ("not-an-export", "not-an-export"),
    ("newer-version", "newer-version"), ("unknown-field", "bad-shape"), ("bad-code", "bad-shape"),
    ("long-name", "bad-shape"), ("duplicate-code", "duplicate-code"),
    ("unknown-game", "unknown-game"), ("unknown-player", "unknown-player"),
    ("player-twice", "player-twice"), ("bad-seats", "bad-seats"), ("bad-undo", "bad-undo"),
    ("duplicate-player", "duplicate-player"), ("does-not-replay", "does-not-replay"),
    ("bad-entry", "bad-entry"),
    ("does-not-replay-rebel", "does-not-replay"), ("deep", "bad-shape"),
])
def test_a_bad_file_is_refused_and_nothing_is_stored(client, known, fresh, how, code):
    content = spoil(good_document(client, known.base), how)
    other = fresh.test_client()
    answer = upload(other, content, group_of(fresh))
    assert answer.status_code == 422
    assert f'data-problem="{code}"' in answer.text
    assert "Nothing was imported" in answer.text
    assert rows(fresh) == dict.fromkeys(["Game", "Player", "Person", "Entry", "RoundRecord",
                                         "TrickLog"], 0)


def _import_codes_used() -> set[str]:
    """Every import problem code the app can raise, read from its source."""
    root = pathlib.Path(schema.__file__).parents[1]
    found = set()
    for path in root.rglob("*.py"):
        text = path.read_text()
        found |= set(re.findall(r'ImportProblem\(\s*"([a-z-]+)"', text))
        found |= set(re.findall(r'ImportProblem\("[a-z-]+" if \w+ else "([a-z-]+)"', text))
    return found


def test_every_import_problem_is_worded_in_both_languages():
    """One catalogue words every refusal (no ``code ==`` in a template), in English and
    French, with its game and detail filled in."""
    used = _import_codes_used()
    assert {"not-json", "bad-shape", "newer-version", "bad-version", "not-stored"} <= used
    worded = {lang: schema.IMPORT_MESSAGES.codes(lang) for lang in ("en", "fr")}
    for lang in ("en", "fr"):
        assert used <= worded[lang], (lang, used - worded[lang])
    assert worded["en"] == worded["fr"]
    problem = schema.ImportProblem("unknown-game", game="abcd1234", detail="chess")
    assert problem.text("en") == "Game abcd1234 is of a kind this app does not know (chess)."
    assert problem.text("fr") == ("La partie abcd1234 est d'un jeu que l'appli ne connaît pas "
                                  "(chess).")
    assert "{" not in "".join(schema.ImportProblem(code, game="g", detail="d").text(lang)
                              for code in used for lang in ("en", "fr"))


def test_the_import_page_words_a_refusal_in_the_phones_language(client, known, fresh):
    content = spoil(good_document(client, known.base), "duplicate-code")
    other = fresh.test_client()
    answer = upload(other, content, group_of(fresh))
    assert re.search(r"Game \w+ is in the file twice\.", answer.text)
    other.get("/lang/fr?next=/")
    answer = upload(other, content, group_of(fresh))
    assert re.search(r"La partie \w+ figure deux fois dans le fichier\.", answer.text)


def test_a_file_too_large_is_refused(fresh, monkeypatch):
    monkeypatch.setattr(schema, "MAX_BYTES", 100)
    with pytest.raises(schema.TransferError) as refused:
        schema.parse(b" " * 101, frozenset())
    assert [p.code for p in refused.value.problems] == ["too-large"]


def test_a_request_too_large_gets_the_import_page(fresh, monkeypatch):
    monkeypatch.setattr("companion.routes.history.MAX_BYTES", 1000)
    answer = upload(fresh.test_client(), b"x" * 200_000, group_of(fresh))
    assert answer.status_code == 413
    assert 'data-problem="too-large"' in answer.text


def test_no_file_is_asked_again(fresh):
    answer = fresh.test_client().post(f"{group_of(fresh)}/import", data={})
    assert answer.status_code == 422 and 'data-form="import"' in answer.text


def test_the_import_needs_its_csrf_token(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t",
                      "DATABASE": str(tmp_path / "csrf.sqlite")})
    answer = upload(app.test_client(), json.dumps({"format": "x"}), group_of(app))
    assert answer.status_code in (400, 422)
    assert 'data-problem="not-an-export"' not in answer.text
    app.extensions["companion.engine"].dispose()


def test_a_round_entered_by_counts_survives_export_and_import(app, client, fresh):
    """The counts themselves travel (mode ``counts``), not cards made up from them."""
    from companion.scoring.rebel_princess import PlayedRound, RoundCounts

    with app.app_context():
        rounds = [("counts", PlayedRound(counts=RoundCounts(c, f)))
                  for c, f in (((5, 3, 1), 0), ((0, 9, 0), 1), ((2, 2, 5), 2))]
        code = rebel_game(get_session(), ["Ana", "Ben", "Cy"], rounds, cards="abc").code
    exported = client.get(f"{record(app, code)}/export.json")
    records = json.loads(exported.text)["games"][0]["round_records"]
    assert [(r["mode"], r["counts"], r["taken"]) for r in records] == [
        ("counts", "5,3,1/0", None), ("counts", "0,9,0/1", None), ("counts", "2,2,5/2", None)]
    other = fresh.test_client()
    assert upload(other, exported.data, group_of(fresh)).status_code == 303
    assert other.get(f"{record(fresh, code)}/export.json").text == exported.text


def test_csv_times_are_the_phones_with_their_offset(client, known):
    """Issue 22: a spreadsheet opened at the table reads local times, each with its offset."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    utc_rows = list(csv.DictReader(io.StringIO(client.get(f"{known.base}/export.csv").text)))
    client.set_cookie("tz", "Europe/Paris")
    answer = client.get(f"{known.base}/export.csv")
    paris_rows = list(csv.DictReader(io.StringIO(answer.text)))
    for utc_row, paris_row in zip(utc_rows, paris_rows, strict=True):
        for column in ("started_at", "ended_at"):
            stored, local = (datetime.fromisoformat(utc_row[column]),
                             datetime.fromisoformat(paris_row[column]))
            assert stored.utcoffset().total_seconds() == 0
            assert local == stored  # the same moment…
            assert local.utcoffset() == stored.astimezone(ZoneInfo("Europe/Paris")).utcoffset()
            assert local.utcoffset().total_seconds() != 0  # …said in Paris time
    today = datetime.now(ZoneInfo("Europe/Paris")).strftime("%Y-%m-%d")
    assert f"princess-table-{today}.csv" in answer.headers["Content-Disposition"]
