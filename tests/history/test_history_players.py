"""The group's players: a seat finds its person by name (case and accents aside), two people of
one name at one table stay two, renaming and merging keep every game, and the database refuses
what must be unique."""

from __future__ import annotations

import re

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from companion.common.person_names import name_key
from companion.db import get_session
from companion.models import Person, Player
from companion.play import groups, people, store

from .conftest import link


def people_of(app, code):
    with app.app_context():
        session = get_session()
        game = store.get_game(session, code) or store.game_by_token(session, code)
        rows = session.exec(select(Player).where(Player.game_id == game.id)
                            .order_by(Player.seat)).all()
        names = people.names_by_id(session, game.group_id)
        return [names[row.person_id] for row in rows]


def new_game(client, *names):
    data = {f"names-{i}": name for i, name in enumerate(names)}
    response = client.post("/reveillez/new", data={**data, "first": "0"})
    assert response.status_code in (302, 303), response.text
    return response.headers["Location"].rsplit("/", 1)[1]


@pytest.mark.parametrize("name, key", [
    ("Zoé", "zoe"), ("  ZOE ", "zoe"), ("Anne  Marie", "anne marie"), ("Ça", "ca")])
def test_names_fold_case_accents_and_spaces(name, key):
    assert name_key(name) == key


def test_a_name_typed_again_is_the_same_person(app, client):
    first = new_game(client, "Zoé", "Ben")
    second = new_game(client, "zoe", "BEN", "Cy")
    assert people_of(app, first) == ["Zoé", "Ben"]
    assert people_of(app, second) == ["Zoé", "Ben", "Cy"]
    with app.app_context():
        assert len(get_session().exec(select(Person)).all()) == 3


def test_two_people_of_one_name_at_one_table_stay_two(app, client):
    code = new_game(client, "Ana", "ana", "Ana")
    assert people_of(app, code) == ["Ana", "ana 2", "Ana 3"]
    again = new_game(client, "Ana", "Ana")
    assert people_of(app, again) == ["Ana", "ana 2"]  # the second Ana of the group again


def test_the_set_up_offers_earlier_players(client):
    new_game(client, "Zoé", "Ben")
    for page in ("/reveillez/new", "/princesse-princesse/new", "/kanai-duel/new",
                 "/rebel-princess/new"):
        html = client.get(page).text
        assert '<datalist id="known-players"><option value="Ben"><option value="Zoé">' in html \
            or '<option value="Zoé"><option value="Ben">' in html, page
        assert 'list="known-players"' in html, page


def test_rename_renames_every_seat(app, client, known):
    ana = known.person["Ana"]
    response = client.post(f"{known.base}/players/{ana}/rename", data={"name": "Anaïs"})
    assert response.status_code == 303
    assert people_of(app, known.codes["rp1"])[0] == "Anaïs"
    assert "Anaïs" in client.get("/rebel-princess"
                                 f"/g/{link(app, known.codes['rp1'])}").text  # the pad too
    assert ">Anaïs</a>" in client.get(f"{known.base}/stats").text


def test_rename_to_another_players_name_is_refused(app, client, known):
    response = client.post(f"{known.base}/players/{known.person['Ana']}/rename",
                           data={"name": " BEN "})
    assert response.status_code == 422
    assert "merge the two players instead" in response.text
    assert people_of(app, known.codes["rp1"])[:2] == ["Ana", "Ben"]


def test_rename_may_change_case_only(client, known):
    response = client.post(f"{known.base}/players/{known.person['Ana']}/rename",
                           data={"name": "ANA"})
    assert response.status_code == 303


def test_merge_moves_every_game_and_keeps_the_history(app, client, known):
    """A typo ("Evee") in a new game is merged into Eve: the seat becomes Eve's, named like her,
    on the game's own page too; the typo's person is gone."""
    client.get(f"/group/{known.token}/")  # this phone joins the group: its games go there
    code = new_game(client, "Evee", "Ana")
    with app.app_context():
        evee = get_session().exec(select(Person).where(Person.key == "evee")).one().id
    before = client.get(f"{known.base}/stats").text.count("data-person")
    response = client.post(f"{known.base}/players/merge",
                           data={"source": evee, "target": known.person["Eve"]})
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{known.base}/players/{known.person['Eve']}")
    assert people_of(app, code) == ["Eve", "Ana"]
    with app.app_context():
        assert get_session().get(Person, evee) is None
    assert client.get(f"{known.base}/stats").text.count("data-person") == before
    html = client.get(f"/reveillez/g/{code}").text
    assert "Eve" in html and "Evee" not in html


def test_merge_of_two_people_who_played_together_is_refused(app, client, known):
    response = client.post(f"{known.base}/players/merge",
                           data={"source": known.person["Ana"], "target": known.person["Ben"]})
    assert response.status_code == 422
    assert "two people, not a typo" in response.text
    assert people_of(app, known.codes["rp1"])[:2] == ["Ana", "Ben"]


def test_merge_into_the_same_person_is_refused(client, known):
    ana = known.person["Ana"]
    response = client.post(f"{known.base}/players/merge", data={"source": ana, "target": ana})
    assert response.status_code == 422


def test_the_database_refuses_a_second_person_of_one_name_in_a_group(app):
    """One Ana per group; another group may have its own Ana."""
    with app.app_context():
        session = get_session()
        first = groups.new_group(session, name="One").id
        second = groups.new_group(session, name="Two").id
        session.add(Person(name="Ana", key="ana", group_id=first))
        session.add(Person(name="Ana", key="ana", group_id=second))
        session.commit()
        session.add(Person(name="ANA", key="ana", group_id=first))
        with pytest.raises(IntegrityError):
            session.commit()


def test_the_database_refuses_one_person_on_two_seats(app, known):
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["kd1"])
        session.add(Player(game_id=game.id, seat=2, name="Ana", person_id=known.person["Ana"]))
        with pytest.raises(IntegrityError):
            session.commit()


def test_the_database_refuses_two_players_on_one_seat(app, known):
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["kd1"])
        session.add(Player(game_id=game.id, seat=0, name="Cy", person_id=known.person["Cy"]))
        with pytest.raises(IntegrityError):
            session.commit()


def test_players_page_lists_everyone_recent_first(client, known):
    html = client.get(f"{known.base}/players/").text
    assert html.count('<li data-person=') == 5
    assert 'data-form="merge"' in html


def test_players_list_counts_games_as_each_page_does(client, known):
    """Issue 22: the list said "24 games" (every seat, unfinished games too) where the player's
    page said 8 finished games. Ana, Ben and Cy also sit in the unfinished ``open`` game."""
    html = client.get(f"{known.base}/players/").text
    listed = dict(re.findall(r'<li data-person="(\d+)">.*?data-finished="(\d+)"', html, re.S))
    assert len(listed) == 5
    for name, person in known.person.items():
        page = client.get(f"{known.base}/players/{person}").text
        said = re.search(r"(\d+) finished games?", page)[1]
        assert listed[str(person)] == said, name
    assert listed[str(known.person["Ana"])] == "5"
