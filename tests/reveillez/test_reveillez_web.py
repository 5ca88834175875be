"""The « Réveillez » pages: set-up, one tap per step of each action, refusals that store nothing,
stale and repeated writes, undo and history, French, the home page and the rulings."""

from __future__ import annotations

import itertools
import re

import pytest

from companion.db import get_session
from companion.models import Entry, Game

KEYS = (f"key-{n:04d}" for n in itertools.count())


def start(client, names=("Ana", "Ben", "Cléo"), variant=False, first=0) -> str:
    data = {f"names-{i}": name for i, name in enumerate(names)}
    data["first"] = str(first)
    if variant:
        data["variant"] = "y"
    answer = client.post("/reveillez/new", data=data)
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"].rsplit("/", 1)[-1]


def version(client, code) -> int:
    return int(re.search(r'data-version="(\d+)"', client.get(f"/reveillez/g/{code}").text)[1])


def act(client, code, key=None, based_on=None, **fields):
    data = {"version": version(client, code) if based_on is None else based_on,
            "key": key or next(KEYS), **{k: str(v) for k, v in fields.items()}}
    return client.post(f"/reveillez/g/{code}/act", data=data)


def entries(app) -> int:
    with app.app_context():
        return len(get_session().exec(Entry.__table__.select()).all())


def games(app) -> int:
    with app.app_context():
        return len(get_session().exec(Game.__table__.select()).all())


# ------------------------------------------------------------------ set-up

def test_new_game_page(client):
    html = client.get("/reveillez/new").text
    assert 'data-option="variant"' in html and 'data-option="show-values"' in html
    assert "4 princesses or 40 points" in html and "5 princesses or 50 points" in html


def test_create_game_and_open_the_table(client):
    code = start(client)
    html = client.get(f"/reveillez/g/{code}").text
    assert html.count('class="rv-cell asleep') == 12 and html.count('data-seat=') == 3
    assert 'data-turn="0"' in html and "5 princesses or 50 points" in html


@pytest.mark.parametrize(("names", "first", "code"), [(["Ana"], 0, "players-range"),
                                                      (["Ana", "Ben"], 3, "seat-range")])
def test_bad_setup_is_refused_and_stores_nothing(client, app, names, first, code):
    data = {f"names-{i}": n for i, n in enumerate(names)} | {"first": str(first)}
    answer = client.post("/reveillez/new", data=data)
    assert answer.status_code == 422 and f'data-problem="{code}"' in answer.text
    assert games(app) == 0


def test_home_and_game_page_list_the_game(client):
    code = start(client)
    assert f'data-game="{code}"' in client.get("/").text
    assert 'data-kind="reveillez"' in client.get("/reveillez/").text


# ------------------------------------------------------------------ waking

def test_wake_asks_the_slot_then_the_value(client):
    code = start(client)
    assert 'data-question="slot"' in client.get(f"/reveillez/g/{code}?do=wake").text
    assert 'data-question="value"' in act(client, code, do="wake", slot=3).text
    answer = act(client, code, do="wake", slot=3, value=15)
    assert answer.status_code == 303
    html = client.get(f"/reveillez/g/{code}").text
    assert 'data-seat="0" data-points="15" data-princesses="1"' in html
    assert 'data-slot="3" data-princess="3" data-holder="0"' in html


def test_an_action_half_built_has_an_address_that_asks_the_same_question(client, app):
    """The page answered to a tap gives the address of the question it asks (a reload, Back or
    the language switch asks it again); that address writes nothing, and nonsense in it gives
    the action's first question, never an error."""
    code = start(client)
    page = act(client, code, do="wake", slot=3).text
    address = re.search(r'data-replace-url="([^"]+)"', page)[1].replace("&amp;", "&")
    assert address.startswith(f"/reveillez/g/{code}?") and "slot=3" in address
    again = client.get(address)
    assert again.status_code == 200 and 'data-question="value"' in again.text
    assert 'name="slot" value="3"' in again.text and entries(app) == 0
    for nonsense in ("slot=abc", "slot=99", "slot=-1&value=x", "princess=7&dest=zz"):
        answer = client.get(f"/reveillez/g/{code}?do=wake&{nonsense}")
        assert answer.status_code == 200 and "data-question=" in answer.text, nonsense
    assert entries(app) == 0


def test_typed_value_and_name(client):
    code = start(client)
    assert act(client, code, do="wake", slot=0, value="typed", value_typed=7, name="other",
               name_typed="Aurore").status_code == 303
    assert "Aurore" in client.get(f"/reveillez/g/{code}").text


def test_bad_value_is_refused(client, app):
    code = start(client)
    before = entries(app)
    answer = act(client, code, do="wake", slot=0, value="typed", value_typed=0)
    assert answer.status_code == 422 and 'data-problem="princess-value"' in answer.text
    assert 'data-question="value"' in answer.text and entries(app) == before


def test_rose_asks_for_her_companion_with_the_variant(client):
    code = start(client, variant=True)
    answer = act(client, code, do="wake", slot=0, value=5, name="rose")
    assert answer.status_code == 200 and 'data-question="companion"' in answer.text
    answer = act(client, code, do="wake", slot=0, value=5, name="rose", companion_slot=1)
    assert 'data-question="companion-value"' in answer.text
    assert act(client, code, do="wake", slot=0, value=5, name="rose", companion_slot=1,
               companion_value=20).status_code == 303
    assert 'data-points="25" data-princesses="2"' in client.get(f"/reveillez/g/{code}").text


def test_second_pet_goes_back_to_sleep(client):
    code = start(client, names=("Ana", "Ben"), variant=True)
    act(client, code, do="wake", slot=0, value=10, name="chien")
    act(client, code, do="discard", add=1, go=1)
    act(client, code, do="wake", slot=1, value=15, name="chat")
    html = client.get(f"/reveillez/g/{code}/history").text
    assert "cannot keep the Dog and the Cat" in html


# ------------------------------------------------------------------ knight, potion, jester

def test_knight_then_dragon_question(client):
    code = start(client)
    act(client, code, do="wake", slot=0, value=20)
    assert 'data-question="target"' in client.get(f"/reveillez/g/{code}?do=steal").text
    assert 'data-question="defence"' in act(client, code, do="steal", princess=0).text
    assert act(client, code, do="steal", princess=0, defended="yes").status_code == 303
    html = client.get(f"/reveillez/g/{code}").text
    assert 'data-seat="0" data-points="20"' in html
    assert "answers with a dragon" in client.get(f"/reveillez/g/{code}/history").text


def test_knight_takes_the_princess(client):
    code = start(client)
    act(client, code, do="wake", slot=0, value=20)
    act(client, code, do="steal", princess=0, defended="no")
    assert 'data-seat="1" data-points="20"' in client.get(f"/reveillez/g/{code}").text


def test_own_princess_is_refused(client, app):
    code = start(client, names=("Ana", "Ben"))
    act(client, code, do="wake", slot=0, value=20)
    act(client, code, do="discard", add=1, go=1)
    before = entries(app)
    answer = act(client, code, do="steal", princess=0, defended="no")
    assert answer.status_code == 422 and 'data-problem="own-princess"' in answer.text
    assert entries(app) == before


def test_potion_with_a_chosen_slot(client):
    code = start(client)
    act(client, code, do="wake", slot=4, value=10)
    assert act(client, code, do="sleep", princess=4, defended="no", dest=4).status_code == 303
    html = client.get(f"/reveillez/g/{code}").text
    assert 'data-seat="0" data-points="0"' in html and html.count("rv-cell asleep") == 12


def test_jester_power_card_plays_again(client):
    code = start(client)
    assert act(client, code, do="jester", revealed="chevalier").status_code == 303
    assert 'data-turn="0"' in client.get(f"/reveillez/g/{code}").text


def test_jester_number_shows_the_count_and_the_seat_that_wakes(client):
    code = start(client)
    answer = act(client, code, do="jester", revealed=5)
    assert 'data-question="slot"' in answer.text and 'data-wakes="1"' in answer.text
    assert 'data-seat="1" data-points="0" data-princesses="0" data-counted="2,5"' in answer.text
    assert act(client, code, do="jester", revealed=5, slot=2, value=15).status_code == 303
    html = client.get(f"/reveillez/g/{code}").text
    assert 'data-seat="1" data-points="15"' in html and 'data-turn="1"' in html


# ------------------------------------------------------------------ discard

def test_discard_checks_the_addition_as_cards_are_tapped(client):
    code = start(client)
    answer = act(client, code, do="discard", cards="1 3 4", add=8)
    assert 'data-valid="yes" data-kind="addition" data-draw="4"' in answer.text
    assert "1 + 3 + 4 = 8" in answer.text
    answer = act(client, code, do="discard", cards="2", add=3)
    assert 'data-valid="no"' in answer.text
    assert act(client, code, do="discard", cards="1 3 4 8", go=1).status_code == 303


def test_a_discard_that_is_no_discard_is_said_once_in_the_panel(client):
    """While the cards are still being tapped, "not a discard" is said once, in the discard
    panel above the cards (issue 39: a box above the table said it again in other words and
    pushed the cards down); a discard really sent and refused is said there too, once, with
    nothing recorded."""
    code = start(client)
    building = act(client, code, do="discard", cards="2", add=3)
    assert building.status_code == 200 and 'class="problems"' not in building.text
    assert "data-hints" not in building.text
    assert building.text.count('data-problem="discard-invalid"') == 1
    assert re.search(r'class="rv-discard"[^>]*>.*data-problem="discard-invalid"', building.text,
                     re.S)
    refused = act(client, code, do="discard", cards="2 3", go=1)
    assert refused.status_code == 422 and 'class="problems"' not in refused.text
    assert "data-hints" not in refused.text
    assert refused.text.count('data-problem="discard-invalid"') == 1


def test_a_card_out_of_range_keeps_its_hint_box(client):
    """Only the discard's own verdict moved into the panel: other problems keep their box."""
    code = start(client)
    building = act(client, code, do="discard", cards="2", add="99")
    assert re.search(r'data-hints>.*data-problem="number-range"', building.text, re.S)


def test_invalid_discard_is_refused(client, app):
    code = start(client)
    before = entries(app)
    answer = act(client, code, do="discard", cards="2 3", go=1)
    assert answer.status_code == 422 and 'data-problem="discard-invalid"' in answer.text
    assert entries(app) == before


# ------------------------------------------------------------------ writes, undo, win

def test_stale_write_stores_nothing(client, app):
    code = start(client)
    act(client, code, do="wake", slot=0, value=20)
    before = entries(app)
    answer = act(client, code, based_on=0, do="wake", slot=1, value=10)
    assert answer.status_code == 409 and 'data-problem="stale"' in answer.text
    assert entries(app) == before


def test_double_tap_stores_once(client, app):
    code = start(client)
    first = act(client, code, key="same-key-1234", based_on=0, do="wake", slot=0, value=20)
    again = act(client, code, key="same-key-1234", based_on=0, do="wake", slot=0, value=20)
    assert first.status_code == again.status_code == 303
    assert entries(app) == 1


def test_undo_keeps_the_history(client):
    code = start(client)
    act(client, code, do="wake", slot=0, value=20)
    answer = client.post(f"/reveillez/g/{code}/undo",
                         data={"version": version(client, code), "key": next(KEYS)})
    assert answer.status_code == 303
    assert 'data-points="20"' not in client.get(f"/reveillez/g/{code}").text
    assert 'data-undone="yes"' in client.get(f"/reveillez/g/{code}/history").text


def history_lines(client, code) -> dict[str, str]:
    """Each history line's words by its entry number."""
    html = client.get(f"/reveillez/g/{code}/history").text
    return {seq: " ".join(re.sub(r"<[^>]+>", " ", body).split())
            for seq, body in re.findall(r'<li data-seq="(\d+)"[^>]*>(.*?)</li>', html, re.S)}


def test_an_undone_line_keeps_the_words_it_was_written_with(client):
    """Wake the princess in place 1 as a 15, undo, then wake her as a 20: the undone line still
    says 15 (not "?" while she was asleep, nor today's 20), the new line says 20."""
    code = start(client)
    act(client, code, do="wake", slot=0, value=15)
    written = history_lines(client, code)["1"]
    assert "(15)" in written and "place 1" in written
    client.post(f"/reveillez/g/{code}/undo",
                data={"version": version(client, code), "key": next(KEYS)})
    undone = history_lines(client, code)["1"]
    assert undone == written + " (undone)"  # the same words, marked undone; no "?"
    act(client, code, do="wake", slot=0, value=20)
    lines = history_lines(client, code)
    assert lines["1"] == written + " (undone)"
    assert "(20)" in lines["3"] and "(15)" not in lines["3"]


def test_win_is_announced_and_ends_the_game(client):
    code = start(client, names=("Ana", "Ben"))
    for slot in range(3):
        act(client, code, do="wake", slot=slot, value=20)
        if slot < 2:
            act(client, code, do="discard", add=1, go=1)
    html = client.get(f"/reveillez/g/{code}").text
    assert 'data-winners="0" data-reason="points"' in html and 'data-action="wake"' not in html
    answer = act(client, code, do="discard", cards="1", go=1)
    assert answer.status_code == 422 and 'data-problem="game-over"' in answer.text


def test_the_end_of_a_game_offers_a_new_one(client):
    """Once somebody has won, the table leads straight to a new game (as the duel does)."""
    code = start(client, names=("Ana", "Ben"))
    assert 'data-action="again"' not in client.get(f"/reveillez/g/{code}").text
    for slot in range(3):
        act(client, code, do="wake", slot=slot, value=20)
        if slot < 2:
            act(client, code, do="discard", add=1, go=1)
    page = client.get(f"/reveillez/g/{code}").text
    assert re.search(r'href="/reveillez/new\?again=[0-9a-f]{32}" data-action="again"', page)
    assert 'href="/reveillez/new" data-action="new-game"' in page


def test_french_table(client):
    code = start(client)
    html = client.get(f"/reveillez/g/{code}", headers={"Accept-Language": "fr"}).text
    assert "À Ana de jouer" in html and "Réveiller" in html and "5 princesses ou 50 points" in html


def test_unknown_game_is_404(client):
    assert client.get("/reveillez/g/nope99").status_code == 404


def test_rulings_pages(client):
    assert client.get("/reveillez/rules").status_code == 200
    assert 'href="/reveillez/rules/bouffon"' in client.get("/reveillez/rules?q=jester").text
    assert client.get("/reveillez/rules/princesse-rose").status_code == 200


def test_csrf_protects_every_write(app_csrf):
    client = app_csrf.test_client()
    page = client.get("/reveillez/new").text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)[1]
    data = {"names-0": "Ana", "names-1": "Ben", "first": "0"}
    assert client.post("/reveillez/new", data=data).status_code == 400
    assert client.post("/reveillez/new", data=data,
                       headers={"X-CSRFToken": token}).status_code == 303


@pytest.fixture
def app_csrf(tmp_path):
    from companion import create_app
    return create_app({"TESTING": True, "SECRET_KEY": "t",
                       "DATABASE": str(tmp_path / "csrf.sqlite")})


@pytest.mark.parametrize("shown", [False, True])
def test_put_back_value_is_shown_only_when_chosen(client, shown):
    """A princess put back to sleep keeps her value in the app; the grid shows it only when the
    set-up option is on (off by default)."""
    data = {"names-0": "Ana", "names-1": "Ben", "first": "0"} | ({"show_values": "y"} if shown
                                                                 else {})
    code = client.post("/reveillez/new", data=data).headers["Location"].rsplit("/", 1)[-1]
    act(client, code, do="wake", slot=4, value=15)
    act(client, code, do="sleep", princess=4, defended="no", dest=4)
    assert ('rv-value known' in client.get(f"/reveillez/g/{code}").text) is shown


def test_remembered_princess_is_woken_in_one_tap(client):
    """Waking a princess the app knows needs no value: the slot tap records the action."""
    code = start(client)
    act(client, code, do="wake", slot=4, value=15)
    act(client, code, do="sleep", princess=4, defended="no", dest=4)
    assert act(client, code, do="wake", slot=4).status_code == 303
    assert 'data-seat="2" data-points="15"' in client.get(f"/reveillez/g/{code}").text
