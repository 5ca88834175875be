"""The permanent guard against 500s: a form fuzzer over every POST route of the URL map.

One game of every kind is set up through its own pages (the duel twice: one phone and two), a
few entries are made, and every page of each game is read for its write forms. Then every POST
route of ``app.url_map`` — new routes are covered as they are added — is sent hostile values in
every field its forms have (and in the usual fields when no form of it is on a page): huge and
negative numbers, unicode digits, NUL and control characters, very long strings, blanks, wrong
types (a field sent twice, JSON where text is expected), ids beyond 64 bits, and hostile values
in the address itself (a token nobody has, numbers beyond what the database stores). No answer is
a 5xx, and a refused write (4xx) leaves every stored row as it was. It runs on SQLite (``make
test``) and PostgreSQL (``make test-postgres``), in a few seconds.
"""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from sqlmodel import col, func, select
from werkzeug.exceptions import MethodNotAllowed, NotFound

from companion.db import get_session
from companion.models import Entry, Game, GameLink, Person, Player, RoundRecord, TrickLog

from ..conftest import finished_import

HOSTILE = [
    "", " ", "\t\n ", "0", "-1", "-99", "1.5", "1e309", "NaN", "9" * 5000, str(2**31),
    str(2**63), str(-(2**63) - 1), "10" + "0" * 30, "²", "١٢", "１２", "\x00", "a\x00b",
    "\x07\x1b[31m\x7f", "x" * 5000, "ﷺ" * 5, "<script>alert(1)</script>", "' OR 1=1 --",
    "{}", "[1, 2]", "true", "null", "%00", "../../etc/passwd",
]
"""What every field gets, one after the other."""

USUAL_FIELDS = ("version", "key", "round", "card", "first", "second", "name", "source",
                "target", "do", "slot", "value", "step", "in", "number", "base", "score_0")
"""Fields sent to a POST route no page showed a form of (its page needs another state)."""

STORED = (Game, Player, Person, Entry, RoundRecord, TrickLog, GameLink)
"""Every table of what players entered (not the results cache, rebuilt at will)."""


class _Forms(HTMLParser):
    """The POST forms of a page: action and the fields with a value each would send."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, list[str]]]] = []
        self._fields: dict[str, list[str]] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._fields = {}
            self.forms.append((a.get("action") or "", self._fields))
        elif self._fields is None:
            return
        elif tag in ("input", "button", "textarea") and a.get("name"):
            values = self._fields.setdefault(a["name"], [])
            if a.get("type") not in ("radio", "checkbox") or not values:
                values[:] = [a.get("value") or ""]
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self._fields.setdefault(a["name"], [])
        elif tag == "option" and self._select and not self._fields[self._select]:
            self._fields[self._select] = [a.get("value") or ""]

    def handle_endtag(self, tag):
        if tag == "form":
            self._fields = None
        elif tag == "select":
            self._select = None


def forms_of(html: str) -> list[tuple[str, dict[str, list[str]]]]:
    parser = _Forms()
    parser.feed(html)
    return parser.forms


def _fingerprint_query():
    """One query that changes whenever a row of :data:`STORED` is added, removed or changed as
    the app changes rows: counts, newest ids, the games' last change, names' lengths, revoked
    links, trick logs' versions."""
    parts = []
    for model in STORED:
        parts += [select(func.count()).select_from(model).scalar_subquery(),
                  select(func.coalesce(func.max(model.id), 0)).scalar_subquery()]
    parts += [select(func.max(Game.updated_at)).scalar_subquery(),
              select(func.coalesce(func.sum(func.length(Person.name)), 0)).scalar_subquery(),
              select(func.coalesce(func.sum(func.length(Player.name)), 0)).scalar_subquery(),
              select(func.count()).where(col(GameLink.revoked_at).is_not(None))
              .scalar_subquery(),
              select(func.coalesce(func.sum(TrickLog.version), 0)).scalar_subquery()]
    return select(*parts)


FINGERPRINT = _fingerprint_query()


def snapshot(app) -> tuple:
    """What a refused write must leave as it was (see :func:`_fingerprint_query`)."""
    with app.app_context():
        return tuple(get_session().connection().execute(FINGERPRINT).one())


def new(client, path, data) -> str:
    response = client.post(path, data=data)
    assert response.status_code in (302, 303), (path, response.status_code)
    return urlsplit(response.headers["Location"]).path


@pytest.fixture
def table(app):
    """A game of every kind, with something entered, and the pages of each (through their
    links): the pages the fuzzer reads forms from."""
    client = app.test_client()
    rp = new(client, "/rebel-princess/new", {
        "edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
        **{f"names-{i}": n for i, n in enumerate(["Ana", "Ben", "Cléo", "Dan"])},
        **{f"cards-{i}": c for i, c in enumerate("abcde")}})
    client.post(f"{rp}/round/1/numbers", data={"score_0": "0", "score_1": "3", "score_2": "8",
                                               "score_3": "4"})
    rp = urlsplit(client.get(rp).request.url).path if client.get(rp).status_code != 200 else rp
    pp = new(client, "/princesse-princesse/new", {"names-0": "Ana", "names-1": "Ben",
                                                  "names-2": "Cléo", "first": "0"})
    client.post(f"{pp}/round", data={"version": "0", "key": "fuzz-pp-1", "step": "2",
                                     "round": "1", "in": ["0"]})
    rv = new(client, "/reveillez/new", {"names-0": "Ana", "names-1": "Ben", "first": "0"})
    client.post(f"{rv}/act", data={"version": "0", "key": "fuzz-rv-01", "do": "wake",
                                   "slot": "0", "value": "20"})
    duel = new(client, "/kanai-duel/new", {"first": "Ana", "second": "Ben", "mode": "referee",
                                           "wins": "4", "abilities": "all", "set_aside": "none"})
    client.post(f"{duel}/round", data={"first": "spy", "second": "general", "version": "0"})
    phones = new(client, "/kanai-duel/new", {"first": "Ana", "second": "Ben", "mode": "phones",
                                             "wins": "4", "abilities": "all",
                                             "set_aside": "none"})
    group = re.search(r'href="(/group/\w+)/" data-action="group"', client.get("/").text)[1]
    pages = [rp, f"{rp}/round/2/cards", f"{rp}/round/2/numbers", f"{rp}/round/2/counts",
             f"{rp}/round/2/tricks", f"{rp}/history", pp, f"{pp}/round",
             f"{pp}/round?step=2&in=0&in=1", f"{pp}/log",
             f"{pp}/history", rv, f"{rv}?do=wake", f"{rv}?do=discard", f"{rv}?do=jester",
             duel, phones, "/rebel-princess/new", "/princesse-princesse/new",
             "/reveillez/new", "/kanai-duel/new", f"{group}/history/players/",
             f"{group}/history/import", f"{group}/", f"{group}/delete", "/import"]
    html = client.get(phones).text
    join = re.search(r'/kanai-duel/g/\w+/join', html)
    if join:
        pages.append(join[0])
    pages += [f"/share/{p.rsplit('/', 1)[-1]}" for p in (rp, pp, rv, duel)]
    person = re.search(r'href="(/group/\w+/history/players/\d+)"',
                       client.get(f"{group}/history/players/").text)
    if person:
        pages.append(person[1])
    tokens = {"rebel_princess": rp, "princesse_princesse": pp, "reveillez": rv,
              "kanai_duel": duel, "group": group}
    return client, pages, tokens


def _concrete(rule, tokens) -> list[str]:
    """Addresses of ``rule`` with its arguments filled in: first with the games' tokens and
    small numbers, then with one hostile value each (a token nobody has, numbers beyond what
    the database stores)."""
    kind = rule.endpoint.partition(".")[0]
    base = {"code": (tokens.get(kind) or tokens["rebel_princess"]).rsplit("/", 1)[-1],
            "token": tokens["rebel_princess"].rsplit("/", 1)[-1], "number": 1, "rid": 1,
            "person_id": 1, "action": "play", "role": "viewer",
            "group_token": tokens["group"].rsplit("/", 1)[-1]}
    hostile = {"code": "0" * 32, "token": "f" * 32, "number": 2**63, "rid": 2**31,
               "person_id": 10**30, "action": "\x00", "role": "nobody",
               "group_token": "e" * 32}
    found = []
    for args in ({a: base[a] for a in rule.arguments},
                 *({**{a: base[a] for a in rule.arguments}, arg: hostile[arg]}
                   for arg in sorted(rule.arguments))):
        try:
            found.append(rule.build(args, append_unknown=False)[1])
        except Exception:  # a converter that refuses the value: not an address
            pass
    return found[:1] + [path for path in found[1:] if path != found[0]]


def _variants(fields: dict[str, list[str]]):
    """Each hostile value in every field at once; then each field alone, with the next hostile
    value (every third field: sent twice, a list where one value is expected)."""
    for value in HOSTILE:
        yield {name: value for name in fields}
    cycle = itertools.cycle(HOSTILE[1:])
    for number, name in enumerate(fields):
        yield {**fields, name: next(cycle) if number % 3 else ["1", "x"]}


FIRST = ("rebel_princess.trick_act",)
"""Fuzzed first: the round being entered trick by trick is gone once a round is saved."""
LAST = ("links.", "history.", "kanai_duel.join", "kanai_duel.reinvite")
"""Routes fuzzed last: replacing links, merging players or taking a seat changes what the other
routes are sent to."""


def _forms_by_endpoint(app, client, pages):
    """``{endpoint: {path: page}}``: the write forms found on the pages, by route."""
    adapter = app.url_map.bind("localhost")
    found: dict[str, dict[str, str]] = {}
    for page in pages:
        response = client.get(page)
        assert response.status_code < 500, page
        for action, _fields in forms_of(response.text):
            path = urlsplit(action).path
            try:
                endpoint, _ = adapter.match(path, method="POST")
            except (NotFound, MethodNotAllowed):
                continue
            found.setdefault(endpoint, {}).setdefault(path, page)
    return found


def _fresh_fields(client, page, path) -> dict[str, str] | None:
    """The fields of the form posting to ``path`` as ``page`` shows it now (its version and key
    are current), or None if the page no longer shows it."""
    for action, fields in forms_of(client.get(page).text):
        if urlsplit(action).path == path:
            return {name: values[0] if values else "" for name, values in fields.items()}
    return None


def test_no_form_answers_5xx_and_a_refusal_stores_nothing(app, table):
    client, pages, tokens = table
    crawled = _forms_by_endpoint(app, client, pages)
    post_rules = sorted((r for r in app.url_map.iter_rules() if "POST" in (r.methods or ())
                         and not r.rule.startswith("/api/")),
                        key=lambda r: (not r.endpoint.startswith(FIRST),
                                       r.endpoint.startswith(LAST), r.endpoint))
    assert len(post_rules) >= 25
    # Every write form of every game was found on a page but the few that need another state
    # (an old address that redirects to a form's page is no form of its own: it is still sent
    # every body below).
    missing = sorted(r.endpoint for r in post_rules if r.endpoint not in crawled
                     and not r.endpoint.partition(".")[0].endswith("_moved"))
    assert len(missing) <= 8, missing
    sent = 0
    for rule in post_rules:
        # Two forms of a route are enough (the links page has one per game and role).
        targets: dict[str, str | None] = dict(list(crawled.get(rule.endpoint, {}).items())[:2])
        concrete = _concrete(rule, tokens)
        for path in concrete:
            targets.setdefault(path, None)
        for path, page in targets.items():
            fields = _fresh_fields(client, page, path) if page else None
            if fields is None:
                fields = {name: "" for name in USUAL_FIELDS}
            variants = list(_variants(fields))
            if path in concrete[1:]:  # a hostile address: a few bodies are enough
                variants = variants[::len(variants) // 3 or 1]
            before = snapshot(app)
            for data in variants:
                response = client.post(path, data=data)
                sent += 1
                assert response.status_code < 500, (rule.rule, path, data)
                after = snapshot(app)
                if response.status_code >= 400:
                    assert after == before, (rule.rule, path, data)
                before = after
    assert sent > 700


def _numbers_and_names(value, path=()):
    """Where ``value`` (an export) holds an integer, and where a name."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield "int", path
    elif isinstance(value, str) and path and path[-1] == "name":
        yield "name", path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers_and_names(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers_and_names(item, (*path, index))


def test_a_hostile_import_is_refused_and_stores_nothing(app, table):
    """An export of the games with one number made huge or negative (``leader: 10^30``, an id
    beyond 2^31) or one name made of control characters or of a long folded key: a clear 4xx,
    never a 500, and nothing stored; the export itself imports again (
    each game under a new code, so that it is stored and replayed)."""
    import io
    import json

    client, _pages, tokens = table
    group = tokens["group"]
    duel = new(client, "/kanai-duel/new", {"first": "Ana", "second": "Ben", "mode": "referee",
                                           "wins": "4", "abilities": "all", "set_aside": "none"})
    client.post(f"{duel}/round", data={"first": "princess", "second": "prince",
                                       "version": "0"})  # the Princess wins at once
    rp = new(client, "/rebel-princess/new", {
        "edition": "deluxe", "length": "3", "first_leader": "0", "create": "1",
        **{f"names-{i}": n for i, n in enumerate(["Ana", "Ben", "Cléo", "Dan"])},
        **{f"cards-{i}": c for i, c in enumerate("abc")}})
    for number in range(1, 4):  # a short game, played to its end
        assert client.post(f"{rp}/round/{number}/numbers", data={
            "score_0": "0", "score_1": "3", "score_2": "8", "score_3": "4"}).status_code == 302
    export = json.loads(client.get(f"{group}/history/export.json").text)
    assert {game["kind"] for game in export["games"]} >= {"kanai_duel", "rebel_princess"}
    for game in export["games"]:
        for record in game.get("round_records", []):
            record["leader"] = 0  # a number where the issue's « leader: 10^30 » goes
        if game["kind"] == "rebel_princess":
            game["first_leader"] = 0
    places = list(_numbers_and_names(export))
    ints = [p for kind, p in places if kind == "int"]
    names = [p for kind, p in places if kind == "name"]
    leaders = [p for p in ints if p[-1] in ("leader", "first_leader")][:3]
    chosen = ints[:: max(1, len(ints) // 40)] + leaders + names[:4]
    fresh = app  # the same database: a refused import must leave it as it is
    other = fresh.test_client()
    sent = 0
    for path in chosen:
        values = ([10**30, 2**31, 2**63, -(2**40)] if path in ints
                  else ["A\x00B", "ﷺ" * 5, "\x07"])
        for value in values:
            changed = json.loads(json.dumps(export))
            for number, game in enumerate(changed["games"]):  # new games: imported, replayed
                game["code"] = f"fz{sent:04d}{number}"
            target = changed
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            before = snapshot(fresh)
            raw = json.dumps(changed).encode()
            response = finished_import(other, other.post(f"{group}/history/import", data={
                "file": (io.BytesIO(raw), "export.json")}, content_type="multipart/form-data"))
            sent += 1
            assert response.status_code < 500, (path, value)
            if response.status_code >= 400:
                assert snapshot(fresh) == before, (path, value)
    assert sent >= 40
    # The file unchanged but for new codes is imported: the refusals above were the values'.
    for number, game in enumerate(export["games"]):
        game["code"] = f"ok{number:04d}"
    response = finished_import(other, other.post(f"{group}/history/import", data={
        "file": (io.BytesIO(json.dumps(export).encode()), "export.json")},
        content_type="multipart/form-data"))
    assert response.status_code == 303
