"""Nothing of a group without one of its links: every route of the app, enumerated from its URL
map, with two groups stored.

- A browser holding only group A's links (its group link and its games' scorer and viewer links)
  reads nothing of group B on any GET page — no name, no group name, no game code, no link — even
  when it puts B's game codes or person ids into the addresses, and no write of it changes B.
- A browser holding no link reads nothing of either group, whatever codes or ids it tries, and
  every write route refuses it (only starting a new game of its own, and the stateless JSON API,
  are open to anyone) with nothing of A or B changed.
"""

from __future__ import annotations

import gzip
import itertools
import re
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
from sqlalchemy import text
from sqlmodel import select
from werkzeug.routing import Rule

from companion.db import get_session
from companion.models import Group, Person
from companion.play import groups, kanai_duel, princesse_princesse, rebel_princess, reveillez, store
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Edition, PlayedRound
from companion.scoring.reveillez import PrincessCard, Wake

NAMES = {"A": ["Anouk", "Basile", "Capucine", "Dorian"],
         "B": ["Xavière", "Yannick", "Zéphyrine", "Wladimir"]}
GROUP_NAMES = {"A": "Table des Aulnes", "B": "Table des Bouleaux"}


@dataclass
class Stored:
    """One group as stored: its link, its games' codes and links, its people."""

    token: str = ""
    group_id: int = 0
    codes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # scorer and viewer tokens of every game
    people: list[int] = field(default_factory=list)

    def secrets(self, names: list[str], group_name: str) -> list[str]:
        """What must never show outside the group (names, codes, links)."""
        return [self.token, group_name, *names, *self.codes, *self.links]


def store_group(session, label: str) -> Stored:
    names = NAMES[label]
    group = groups.new_group(session, name=GROUP_NAMES[label])
    session.commit()
    games = []
    rp = rebel_princess.create_game(session=session, edition=Edition.DELUXE, names=names,
                                    first_leader=0, round_cards=list("ady"), group_id=group.id)
    for number, scores in enumerate([(3, 0, 5, 7), (2, 4, 0, 9), (1, 1, 1, 1)], start=1):
        rebel_princess.save_round(session=session, game=rp, number=number,
                                  played=PlayedRound(scores=scores), mode="numbers", base_id=None)
    games.append(rp)
    pp = princesse_princesse.create_game(session=session, names=names[:2], first=0,
                                         group_id=group.id)
    for _ in range(3):
        view = princesse_princesse.view_game(session, pp)
        princesse_princesse.save_round(session=session, view=view, based_on=view.version,
                                       key=None, reveal=RoundReveal.of([None, None],
                                                                       still_in={0}, spies={0}))
    games.append(pp)
    rv = reveillez.create_game(session=session, names=names[:2], first=0, variant=False,
                               show_values=False, group_id=group.id)
    for index, value in enumerate([20, 10, 20, 5, 15]):
        reveillez.record(session=session, game=rv, action=Wake(index, PrincessCard(value)),
                         based_on=index, key=f"wake-{index}")
    games.append(rv)
    kd, _ = kanai_duel.create(session=session, names=names[2:], mode=kanai_duel.REFEREE,
                              variants=[], group_id=group.id)
    kanai_duel.play_round(session=session, game=kd, cards=["princess", "prince"], based_on=0,
                          key=None)
    games.append(kd)
    games.append(rebel_princess.create_game(  # in progress
        session=session, edition=Edition.CLASSIC, names=names[:3], first_leader=1,
        round_cards=list("ACBDM"), group_id=group.id))
    found = Stored(token=group.token, group_id=group.id, codes=[g.code for g in games])
    for game in games:
        found.links += [link.token for link in store.links_of(session, game).values()]
    found.people = list(session.exec(select(Person.id).where(Person.group_id == group.id)))
    return found


@pytest.fixture
def two_groups(app):
    with app.app_context():
        session = get_session()
        return {label: store_group(session, label) for label in ("A", "B")}


def member_of(app, stored: Stored):
    """A browser that opened the group's link and every link of its games."""
    client = app.test_client()
    assert client.get(f"/group/{stored.token}/").status_code == 200
    for token in stored.links:
        client.get(f"/live/{token}")
    with client.session_transaction() as cookie:
        cookie["games"] = list(stored.links)
    return client


GUESS = "0123456789abcdef0123456789abcdef"


def values_for(rule: Rule, argument: str, mine: Stored | None, theirs: list[Stored]) -> list:
    """What a browser tries for one part of an address: its own links (if it holds any), and
    the other groups' codes and person ids and guesses (never their links: it has none)."""
    own_links = [*(mine.links if mine else [])]
    codes = [code for other in theirs for code in other.codes]
    people = [p for other in theirs for p in other.people]
    return {
        "group_token": [mine.token] if mine else [GUESS, *codes],
        "code": [*own_links, *codes, GUESS],
        "token": [*own_links, *codes, GUESS],
        "person_id": [*(mine.people if mine else []), *people, 2**31, 2**63],
        "number": [1], "rid": [1], "key": ["x"], "kind": ["rebel-princess", "kanai-duel"],
        "slug": ["frog", "x"], "lang": ["en", "fr"], "edition": ["deluxe"], "letter": ["a"],
        "filename": ["app.css"], "rest": ["x"], "action": ["play"], "role": ["viewer"],
    }[argument]


def addresses(app, mine: Stored | None, theirs: list[Stored], method: str):
    """Every address of every rule of ``method`` the browser can try."""
    for rule in app.url_map.iter_rules():
        if method not in (rule.methods or ()) or rule.endpoint == "static":
            continue
        arguments = sorted(rule.arguments)
        choices = [values_for(rule, a, mine, theirs) for a in arguments]
        for combination in itertools.product(*choices):
            path = rule.rule
            for name, value in zip(arguments, combination, strict=True):
                path = re.sub(rf"<(?:[^:<>]+:)?{name}>", str(value), path)
            yield rule, path, dict(zip(arguments, combination, strict=True))
            if method == "GET" and rule.endpoint.startswith(("history.", "shell.", "groups.")):
                for other in theirs:  # their people's ids in the query string
                    for person in other.people[:2]:
                        yield rule, f"{path}?player={person}&a={person}&b={person}", {}
            if method == "GET" and rule.endpoint.endswith("new_game"):
                for other in theirs:  # "play again" with their game's code
                    yield rule, f"{path}?again={other.codes[0]}", {}


def table_rows(app, stored: Stored) -> dict[str, list]:
    """Every row of a group, table by table (what no refused write may change)."""
    with app.app_context():
        connection = get_session().connection()
        game_ids = "SELECT id FROM game WHERE group_id = :g"
        queries = {
            "playgroup": "SELECT * FROM playgroup WHERE id = :g",
            "game": "SELECT * FROM game WHERE group_id = :g",
            "person": "SELECT * FROM person WHERE group_id = :g",
            **{table: f"SELECT * FROM {table} WHERE game_id IN ({game_ids})"
               for table in ("player", "entry", "roundrecord", "tricklog", "gamelink")},
        }
        return {table: sorted(map(tuple, connection.execute(text(query),
                                                            {"g": stored.group_id})), key=str)
                for table, query in queries.items()}


def leaks(response, secrets: list[str], path: str) -> list[str]:
    """The secrets in an answer, but for the address asked itself, which pages echo (a link
    to switch language comes back to the same address): echoing what was sent reveals nothing."""
    data = response.get_data()
    if data.startswith(b"\x1f\x8b"):  # a compressed export: what it holds
        data = gzip.decompress(data)
    body = data.decode() + response.headers.get("Location", "")
    echoes = {path, quote(path, safe=""), quote(path, safe="/"), quote(path, safe="/?"),
              path.replace("&", "&amp;"), quote(path, safe="/?").replace("&", "&amp;")}
    for echo in sorted(echoes, key=len, reverse=True):
        body = body.replace(echo, "")
    return [secret for secret in secrets if secret in body]


def test_a_member_of_one_group_reads_nothing_of_another(app, two_groups):
    a, b = two_groups["A"], two_groups["B"]
    phone = member_of(app, a)
    forbidden = b.secrets(NAMES["B"], GROUP_NAMES["B"])
    checked = 0
    for _rule, path, _ in addresses(app, a, [b], "GET"):
        response = phone.get(path)
        assert response.status_code < 500, path
        assert not leaks(response, forbidden, path), (path, leaks(response, forbidden, path))
        checked += 1
    assert checked > 150
    # And it does read its own group: the enumeration reached the pages that show it.
    assert "Anouk" in phone.get(f"/group/{a.token}/history/").text


def test_a_browser_without_a_link_reads_nothing_of_either(app, two_groups):
    a, b = two_groups["A"], two_groups["B"]
    stranger = app.test_client()
    forbidden = [*a.secrets(NAMES["A"], GROUP_NAMES["A"]),
                 *b.secrets(NAMES["B"], GROUP_NAMES["B"])]
    for _rule, path, _ in addresses(app, None, [a, b], "GET"):
        response = stranger.get(path)
        assert response.status_code < 500, path
        assert not leaks(response, forbidden, path), (path, leaks(response, forbidden, path))


OPEN_TO_ANYONE = ("new_game", "restore.restore")
"""Writes any browser may make: starting a game of its own, or restoring a backup, each in a new
group of its own."""


def test_every_write_refuses_a_browser_without_the_right_link(app, two_groups):
    a, b = two_groups["A"], two_groups["B"]
    before = {label: table_rows(app, stored) for label, stored in two_groups.items()}
    stranger, member = app.test_client(), member_of(app, a)
    refused = 0
    for who, mine, theirs in ((stranger, None, [a, b]), (member, a, [b])):
        for rule, path, values in addresses(app, mine, theirs, "POST"):
            if rule.endpoint.endswith(OPEN_TO_ANYONE) or rule.endpoint.split(".")[0].endswith(
                    "_api"):
                continue  # open to anyone
            if mine is not None and (values.get("code") in mine.links
                                     or values.get("token") in mine.links):
                continue  # a write through this browser's own game link
            if mine is not None and values.get("group_token") == mine.token and \
                    values.get("person_id", mine.people[0]) in mine.people and \
                    rule.endpoint != "history.merge":
                continue  # a write to its own group, naming nothing of another
            moved = rule.endpoint.split(".")[0].endswith("_moved")  # an old address: its page
            response = who.post(path, data={"name": "Hacked", "confirm": "x", "source":
                                            str(b.people[0]), "target": str(b.people[1])},
                                follow_redirects=moved)
            assert 400 <= response.status_code < 500, (path, response.status_code)
            refused += 1
    assert refused > 40
    assert table_rows(app, b) == before["B"]
    assert table_rows(app, a) == before["A"]


def test_a_member_cannot_touch_anothers_players_through_its_own_group(app, two_groups):
    """Rename or merge with another group's person ids, through one's own group link: refused,
    nothing changed."""
    a, b = two_groups["A"], two_groups["B"]
    before = table_rows(app, b)
    phone = member_of(app, a)
    base = f"/group/{a.token}/history/players"
    assert phone.post(f"{base}/{b.people[0]}/rename", data={"name": "Hacked"}).status_code == 404
    for source, target in ((b.people[0], b.people[1]), (b.people[0], a.people[0]),
                           (a.people[0], b.people[0])):
        answer = phone.post(f"{base}/merge", data={"source": source, "target": target})
        assert answer.status_code == 422 and "Hacked" not in answer.text
    assert table_rows(app, b) == before


def test_the_set_up_type_ahead_offers_the_groups_players_only(app, two_groups):
    a = two_groups["A"]
    phone = member_of(app, a)
    for page in ("/reveillez/new", "/princesse-princesse/new", "/kanai-duel/new",
                 "/rebel-princess/new"):
        html = phone.get(page).text
        offered = re.findall(r'<option value="([^"]*)">', html.split('id="known-players"')[1]
                             .split("</datalist>")[0])
        assert sorted(offered) == sorted(NAMES["A"]), page
    assert 'id="known-players"></datalist>' in app.test_client().get("/reveillez/new").text


def test_a_viewer_link_shows_its_game_and_nothing_of_the_group(app, two_groups):
    a = two_groups["A"]
    with app.app_context():
        session = get_session()
        game = store.get_game(session, a.codes[1])
        viewer = store.links_of(session, game)["viewer"].token
        group = session.get(Group, a.group_id)
    watcher = app.test_client()
    assert watcher.get(f"/princesse-princesse/g/{viewer}").status_code == 200
    home = watcher.get("/").text
    assert group.name not in home and a.token not in home
    assert a.token not in watcher.get(f"/princesse-princesse/g/{viewer}").text
    assert watcher.get(f"/share/{viewer}").status_code == 403
