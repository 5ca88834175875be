"""« Play again »: the end of every game opens its set-up filled in with the same players in the
same seats and the game's options, from a link of the finished game (``?again=<token>``).

The known finished games of ``conftest.py`` are played again: the set-up page holds their names
and options, posting it as a browser would creates a game whose seats are the same people (so
statistics count both games for them), and anything but a live link of a game of that kind — no
token, a guessed one, a replaced one, the game's code, another game's link — gives the empty
set-up, never an error.
"""

from __future__ import annotations

import secrets
from html.parser import HTMLParser

import pytest
from sqlmodel import col, select

from companion.db import get_session
from companion.history import stats
from companion.models import Player
from companion.play import kanai_duel, store, summaries

from .conftest import game_of_token, link

NEW = {"rebel_princess": "/rebel-princess/new", "princesse_princesse": "/princesse-princesse/new",
       "reveillez": "/reveillez/new", "kanai_duel": "/kanai-duel/new"}
GAME_URL = {"rebel_princess": "/rebel-princess"
                              "/g/{}", "princesse_princesse": "/princesse-princesse/g/{}",
            "reveillez": "/reveillez/g/{}", "kanai_duel": "/kanai-duel/g/{}"}
KNOWN = {"rebel_princess": ("rp2", ["Ben", "Ana", "Di", "Cy"]),
         "princesse_princesse": ("pp", ["Ana", "Ben", "Cy", "Di", "Eve"]),
         "reveillez": ("rv", ["Ana", "Ben"]),
         "kanai_duel": ("kd1", ["Ana", "Ben"])}
NAME_FIELDS = {"kanai_duel": ["first", "second"]}


class FormReader(HTMLParser):
    """What a browser would send from the page's set-up form: each field's value, as shown."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.action: str | None = None
        self._select: str | None = None
        self._first_option: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("method") == "post" and self.action is None:
            self.action = a.get("action")
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("radio", "checkbox"):
                if "checked" in a:
                    self.fields[a["name"]] = a.get("value") or "y"
            elif kind != "submit":
                self.fields.setdefault(a["name"], a.get("value") or "")
        elif tag == "select":
            self._select, self._first_option = a.get("name"), None
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
                self.fields.setdefault(self._select, self._first_option)
            if "selected" in a:
                self.fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def read_form(html: str) -> FormReader:
    reader = FormReader()
    reader.feed(html)
    return reader


def names_shown(kind: str, fields: dict[str, str]) -> list[str]:
    keys = NAME_FIELDS.get(kind) or [f"names-{i}" for i in range(6)]
    return [fields[k] for k in keys if fields.get(k)]


def people_of(app, game) -> list[int]:
    with app.app_context():
        return list(get_session().exec(select(Player.person_id).where(
            Player.game_id == game.id).order_by(col(Player.seat))).all())


@pytest.mark.parametrize("kind", list(KNOWN))
@pytest.mark.parametrize("role", ["scorer", "viewer"])
def test_the_set_up_holds_the_same_players_in_the_same_seats(client, app, known, kind, role):
    code, names = KNOWN[kind]
    page = client.get(NEW[kind], query_string={"again": link(app, known.codes[code], role)})
    assert page.status_code == 200
    assert names_shown(kind, read_form(page.get_data(as_text=True)).fields) == names


@pytest.mark.parametrize("kind", list(KNOWN))
def test_posting_it_creates_a_game_of_the_same_people(client, app, known, kind):
    code, names = KNOWN[kind]
    token = link(app, known.codes[code], "scorer")
    form = read_form(client.get(NEW[kind], query_string={"again": token}).get_data(as_text=True))
    response = client.post(form.action, data=form.fields)
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:3000]
    new_token = response.headers["Location"].rstrip("/").split("/")[-1]
    old, new = game_of_token(app, token), game_of_token(app, new_token)
    assert new.kind == kind and new.id != old.id
    assert people_of(app, new) == people_of(app, old)


def bad_tokens(app, known, kind):
    code = known.codes[KNOWN[kind][0]]
    other = known.codes["rv" if kind != "reveillez" else "pp"]
    return {"none": None, "empty": "", "guessed": secrets.token_hex(16), "code": code,
            "other game's link": link(app, other, "scorer"), "long junk": "x" * 500}


@pytest.mark.parametrize("kind", list(KNOWN))
def test_anything_but_a_link_of_that_game_gives_the_empty_set_up(client, app, known, kind):
    for why, token in bad_tokens(app, known, kind).items():
        page = client.get(NEW[kind], query_string={} if token is None else {"again": token})
        assert page.status_code == 200, why
        assert names_shown(kind, read_form(page.get_data(as_text=True)).fields) == [], why


def test_a_replaced_link_pre_fills_nothing(client, app, known):
    old = link(app, known.codes["pp"], "scorer")
    with app.app_context():
        session = get_session()
        store.replace_link(session, store.get_game(session, known.codes["pp"]), "scorer")
        session.commit()
    page = client.get(NEW["princesse_princesse"], query_string={"again": old})
    assert names_shown("princesse_princesse", read_form(page.get_data(as_text=True)).fields) == []


def test_rebel_princess_keeps_edition_and_length_and_chooses_the_rest_afresh(client, app):
    created = client.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "3", "names-0": "Zoé", "names-1": "Yann", "names-2": "Xia",
        "first_leader": "2", "cards-0": "a", "cards-1": "b", "cards-2": "c", "cards-3": "d",
        "cards-4": "e", "princesses-0": "", "create": "1"})
    assert created.status_code == 302
    token = created.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/rebel-princess/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert fields["edition"] == "deluxe" and fields["length"] == "3"
    assert names_shown("rebel_princess", fields) == ["Zoé", "Yann", "Xia"]
    assert fields["first_leader"] == "0"  # who leads: the usual default, chosen afresh
    classic = client.post("/rebel-princess/new", data={
        "edition": "classic", "length": "5", "names-0": "Zoé", "names-1": "Yann",
        "names-2": "Xia", "first_leader": "0", "cards-0": "A", "cards-1": "C", "cards-2": "B",
        "cards-3": "D", "cards-4": "M", "create": "1"})
    token = classic.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/rebel-princess/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert fields["edition"] == "classic" and fields["length"] == "5"
    assert fields["cards-0"] == "A"  # the classic edition's Round cards, not the Deluxe ones


def test_reveillez_keeps_its_variant_and_display(client, app):
    created = client.post("/reveillez/new", data={"names-0": "Zoé", "names-1": "Yann",
                                                   "first": "1", "variant": "y",
                                                   "show_values": "y"})
    token = created.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/reveillez/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert fields.get("variant") == "y" and fields.get("show_values") == "y"
    assert fields["first"] == "0"
    plain = client.post("/reveillez/new", data={"names-0": "Zoé", "names-1": "Yann",
                                                 "first": "0"})
    token = plain.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/reveillez/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert "variant" not in fields and "show_values" not in fields


def test_the_duel_keeps_its_mode_and_variants_but_not_the_cards_set_aside(client, app):
    created = client.post("/kanai-duel/new", data={
        "first": "Zoé", "second": "Yann", "mode": kanai_duel.REFEREE, "wins": "4",
        "abilities": "clown_minister", "until_dawn": "y", "set_aside": "chosen",
        "out_first": "spy", "out_second": "clown"})
    assert created.status_code == 303, created.get_data(as_text=True)[:2000]
    token = created.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/kanai-duel/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert (fields["first"], fields["second"]) == ("Zoé", "Yann")
    assert fields["mode"] == kanai_duel.REFEREE and fields["wins"] == "4"
    assert fields["abilities"] == "clown_minister" and fields["until_dawn"] == "y"
    assert fields["set_aside"] == "chosen"
    assert fields["out_first"] == "" and fields["out_second"] == ""  # set aside afresh
    two = client.post("/kanai-duel/new", data={"first": "Zoé", "second": "Yann",
                                                "mode": kanai_duel.PHONES, "wins": "3",
                                                "abilities": "none", "set_aside": "random"})
    token = two.headers["Location"].rstrip("/").split("/")[-1]
    fields = read_form(client.get("/kanai-duel/new", query_string={"again": token})
                       .get_data(as_text=True)).fields
    assert fields["mode"] == kanai_duel.PHONES and fields["wins"] == "3"
    assert fields["abilities"] == "none" and fields["set_aside"] == "random"
    assert "until_dawn" not in fields


def test_pre_filled_names_are_judged_again_when_posted(client, app, known):
    """Nothing pre-filled is trusted: a name changed to something too long is refused."""
    token = link(app, known.codes["rv"], "scorer")
    form = read_form(client.get(NEW["reveillez"], query_string={"again": token})
                     .get_data(as_text=True))
    response = client.post(form.action, data={**form.fields, "names-1": "B" * 80})
    assert response.status_code == 422


@pytest.mark.parametrize("kind", list(KNOWN))
def test_only_the_scorer_sees_play_again_at_the_end(client, app, known, kind):
    code = known.codes[KNOWN[kind][0]]
    scorer, viewer = link(app, code, "scorer"), link(app, code, "viewer")
    page = client.get(GAME_URL[kind].format(scorer)).get_data(as_text=True)
    assert f'{NEW[kind]}?again={scorer}" data-action="again"' in page
    assert f'href="{NEW[kind]}" data-action="new-game"' in page
    page = client.get(GAME_URL[kind].format(viewer)).get_data(as_text=True)
    assert 'data-action="again"' not in page and "?again=" not in page
    assert f'href="{NEW[kind]}" data-action="new-game"' in page


def test_statistics_count_both_duels_for_the_same_people(client, app, known):
    """Ana beat Ben (kd1); they play again from the set-up it fills in, and Ana wins again."""
    token = link(app, known.codes["kd1"], "scorer")
    form = read_form(client.get(NEW["kanai_duel"], query_string={"again": token})
                     .get_data(as_text=True))
    url = client.post(form.action, data=form.fields).headers["Location"]
    version = int(client.get(url).get_data(as_text=True).split('data-version="')[1].split('"')[0])
    assert client.post(url + "/round", data={"first": "princess", "second": "prince",
                                             "version": version}).status_code == 303
    with app.app_context():
        lines = stats.lines(summaries.played(get_session(), group_id=known.group_id))
    ana, ben = lines[(known.person["Ana"], "kanai_duel")], lines[(known.person["Ben"],
                                                                 "kanai_duel")]
    assert (ana.games, ana.wins) == (2, 2)
    assert ben.games == 3  # kd1, kd2 and this one
