"""Web tests of the duel: set-up, referee mode, two-phone mode (secrecy, the Spy's order, no
change of pick), live-update version, the JSON API, and bad input stores nothing."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from companion.play import store
from companion.scoring.kanai_duel import DuelCard

NEW = {"first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
       "set_aside": "none"}


def new_game(client, **changes) -> str:
    response = client.post("/kanai-duel/new", data={**NEW, **changes})
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    return response.headers["Location"]


def version_of(client, url) -> int:
    return int(re.search(r'data-version="(\d+)"', client.get(url).get_data(as_text=True))[1])


def play(client, url, first, second):
    return client.post(url + "/round", data={"first": first, "second": second,
                                             "version": version_of(client, url)})


def entries(app, url):
    code = url.rsplit("/", 1)[-1]
    with app.app_context():
        from companion.db import get_session
        session = get_session()
        return store.entries(session, store.game_by_token(session, code))


# --- set-up --------------------------------------------------------------------------------------

def test_the_set_up_page_offers_one_phone_or_two(client):
    """The set-up page asks the names and the mode."""
    page = client.get("/kanai-duel/new").get_data(as_text=True)
    assert 'data-form="new-duel"' in page and 'value="phones"' in page


def test_conflicting_variants_are_refused_and_nothing_is_stored(client, app):
    """G with Q is refused with the core's problem code; no game is created."""
    response = client.post("/kanai-duel/new", data={**NEW, "wins": "3", "until_dawn": "y"})
    assert response.status_code == 422 and 'data-problem="variants-conflict"' in response.text
    with app.app_context():
        from sqlmodel import select

        from companion.db import get_session
        from companion.models import Game
        assert get_session().exec(select(Game)).first() is None


def test_variant_b_needs_both_cards_set_aside(client):
    """B on one phone needs the two cards out of play; on two phones none may be entered at
    set-up (each player sets theirs aside secretly on their own phone)."""
    response = client.post("/kanai-duel/new", data={**NEW, "set_aside": "chosen"})
    assert response.status_code == 422
    response = client.post("/kanai-duel/new", data={**NEW, "set_aside": "chosen",
                                                    "mode": "phones", "out_first": "spy"})
    assert response.status_code == 422 and "leave “sets aside” empty" in response.text
    url = new_game(client, set_aside="chosen", out_first="spy", out_second="clown")
    page = client.get(url).text
    assert re.search(r'data-card="spy" data-used="1"', page)


# --- referee mode --------------------------------------------------------------------------------

def test_a_referee_round_shows_the_winner_steps_and_what_carries_over(client):
    """After a round: score, the steps (each linked to its rulings entry), the +2 and the Spy."""
    url = new_game(client)
    assert play(client, url, "spy", "general").status_code == 303
    page = client.get(url).text
    assert 'data-score="0-1"' in page and 'data-round-winner="1"' in page
    assert 'data-reveals-first="1"' in page  # Ana's Spy: Ben reveals first
    assert 'data-bonus-next="1"' in page
    assert 'href="/kanai-duel/rules/general"' in page and 'data-step="spy"' in page
    assert re.search(r'data-hand="0".*?data-card="spy" data-used="1"', page, re.S)


def test_held_rounds_show_what_each_is_worth_to_whom(client):
    """Two Ministers on hold: the round is worth 2 to each player."""
    url = new_game(client)
    play(client, url, "minister", "minister")
    page = client.get(url).text
    assert 'data-held="1"' in page and "worth 2 to Ana, 2 to Ben" in page


def test_a_card_played_twice_is_refused_and_nothing_is_stored(client, app):
    """The core's problem is shown (422); the entry log does not grow."""
    url = new_game(client)
    play(client, url, "spy", "general")
    response = play(client, url, "spy", "wizard")
    assert response.status_code == 422 and 'data-problem="card-played-twice"' in response.text
    assert len(entries(app, url)) == 1


def test_a_round_without_both_cards_is_refused(client):
    """Both cards must be tapped."""
    url = new_game(client)
    response = client.post(url + "/round", data={"first": "spy", "version": 0})
    assert response.status_code == 422 and 'data-problem="tap-both-cards"' in response.text


def test_a_stale_round_is_refused_with_a_clear_message(client, app):
    """A form based on an old version stores nothing and says someone else changed the game."""
    url = new_game(client)
    play(client, url, "spy", "general")
    response = client.post(url + "/round", data={"first": "prince", "second": "clown",
                                                 "version": 0})
    assert response.status_code == 409 and 'data-problem="stale-write"' in response.text
    assert len(entries(app, url)) == 1


def test_a_double_tap_is_stored_once(client, app):
    """The same idempotency key twice stores one round."""
    url = new_game(client)
    data = {"first": "spy", "second": "general", "version": 0, "key": "same-key"}
    assert client.post(url + "/round", data=data).status_code == 303
    assert client.post(url + "/round", data=data).status_code == 303
    assert len(entries(app, url)) == 1


def test_undo_takes_back_the_last_round(client):
    """Undo removes the last round; the card can be played again."""
    url = new_game(client)
    play(client, url, "spy", "general")
    response = client.post(url + "/undo", data={"version": version_of(client, url)})
    assert response.status_code == 303
    page = client.get(url).text
    assert 'data-score="0-0"' in page and 'data-used="1"' not in page


def test_the_end_of_the_game_says_how_it_was_won(client):
    """The Princess against the Prince ends the game at once; no further round is taken."""
    url = new_game(client)
    play(client, url, "prince", "princess")
    page = client.get(url).text
    assert 'data-result="princess"' in page and 'data-winner="1"' in page
    assert 'data-form="round"' not in page
    assert play(client, url, "spy", "spy").status_code == 422


def test_the_version_answers_304_when_unchanged(client):
    """Live updates: the version has an ETag; the same ETag back gets 304."""
    url = new_game(client)
    first = client.get(url + "/version")
    assert first.json == {"version": 0}
    again = client.get(url + "/version", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    play(client, url, "spy", "general")
    assert client.get(url + "/version", headers={"If-None-Match": first.headers["ETag"]}
                      ).status_code == 200


def test_french_pages_use_the_french_names_and_steps(client):
    """In French the cards and the steps are French."""
    url = new_game(client)
    play(client, url, "wizard", "assassin")
    client.set_cookie("lang", "fr")
    page = client.get(url).text
    # (a verdict's steps are listed each with a capital letter: issue 29)
    assert "Le Magicien annule l'Assassin" in page.replace("&#39;", "'")


# --- two-phone mode ------------------------------------------------------------------------------

def join_path(first, url) -> str:
    """The join link shown on the creator's page (seat 2's link)."""
    return re.search(r'/kanai-duel/g/\w+/join', first.get(url).text)[0]


def join(second, path) -> str:
    """The second phone opens the join link (a page with a button), presses Join, and is sent to
    its own link of the game."""
    page = second.get(path)
    assert page.status_code == 200 and 'data-form="join"' in page.text
    response = second.post(path)
    assert response.status_code == 303, response.text[:500]
    return response.headers["Location"]


@pytest.fixture
def phones(app):
    """Two phones (two clients with their own cookies) in one two-phone game; each phone's own
    link."""
    first, second = app.test_client(), app.test_client()
    url = new_game(first, mode="phones")
    url2 = join(second, join_path(first, url))
    return url, first, second, url2


def round_of(client, url) -> str:
    return re.search(r'data-stage="(\d+)"', client.get(url).text)[1]


def pick(client, url, card, **changes):
    data = {"card": card, "version": version_of(client, url), "round": round_of(client, url)}
    return client.post(url + "/pick", data={**data, **changes})


def normalise(html: str) -> str:
    html = re.sub(r'name="(csrf_token|key)"[^>]*value="[^"]*"', "", html)
    # When the game last changed (the live updates' version) says nothing of which card.
    html = re.sub(r'data-live-version="[^"]*"', "", html)
    # Nor the minute it changed, shown on the home page's line (two games made a minute apart).
    html = re.sub(r'<time datetime="[^"]*"[^>]*>[^<]*</time>', "", html)
    html = re.sub(r'title="Game code">#\w+', "", html)  # each game's own code
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    # Each game's links (and their QR codes) say nothing of which card either.
    html = re.sub(r'<div class="qr">.*?</div>', "", html, flags=re.S)
    html = re.sub(r"\b[0-9a-f]{32}\b", "TOKEN", html)
    return re.sub(r'value="[\w-]{16,}"', "", html)


def test_each_phone_takes_its_seat(phones):
    """The creator is seat 0; the phone that scanned the code is seat 1."""
    url, first, second, url2 = phones
    assert 'data-seat="0"' in first.get(url).text and 'data-seat="1"' in second.get(url2).text
    assert "data-join" not in first.get(url).text


def test_no_response_before_the_reveal_depends_on_the_other_pick(app):
    """Whatever player 0 picked, every page player 1 can get before the reveal is the same: the
    pick never reaches player 1's phone (only that it is in)."""
    seen = []
    for card in ("spy", "clown"):
        first, second = app.test_client(), app.test_client()
        url = new_game(first, mode="phones", first="Ana", second="Ben")
        url2 = join(second, join_path(first, url))
        assert pick(first, url, card).status_code == 303
        code, code2 = url.rsplit("/", 1)[-1], url2.rsplit("/", 1)[-1]
        answers = [second.get(url2).text, second.get(url2 + "/board").text,
                   second.get(url2 + "/version").text,
                   pick(second, url2, "nonsense").text,
                   second.get("/").text]
        assert 'data-other-picked="1"' in answers[0]
        seen.append([normalise(a).replace(code, "CODE").replace(code2, "CODE2") for a in answers])
    assert seen[0] == seen[1]


def test_a_pick_cannot_be_changed(phones, app):
    """A phone that has picked cannot pick again this round: it is told which card is in."""
    url, first, _, _ = phones
    assert pick(first, url, "spy").status_code == 303
    response = pick(first, url, "clown")
    assert response.status_code == 409 and 'data-problem="form-already-saved-card"' in response.text
    assert "already in: Spy" in response.text
    assert [e.data.get("card") for e in entries(app, url) if e.kind == "pick"] == ["spy"]


def test_the_round_is_revealed_when_both_picks_are_in(phones):
    """The second pick reveals the round to both phones."""
    url, first, second, url2 = phones
    pick(first, url, "spy")
    assert "data-last-round" not in first.get(url).text
    pick(second, url2, "general")
    for phone, its_url in ((first, url), (second, url2)):
        page = phone.get(its_url).text
        assert 'data-last-round="1"' in page and 'data-score="0-1"' in page


def test_after_a_spy_the_opponent_picks_first_and_the_spy_sees_it(phones):
    """Player 1's Spy: player 0 must pick first; player 1 then sees that card, never the reverse."""
    url, first, second, url2 = phones
    pick(first, url, "general")
    pick(second, url2, "spy")
    assert 'data-waiting-first="1"' in second.get(url2).text
    assert 'data-goes-first="1"' in first.get(url).text
    response = pick(second, url2, "prince")
    assert response.status_code == 422 and 'data-problem="reveal-first-pending"' in response.text
    pick(first, url, "wizard")
    assert 'data-seen="wizard"' in second.get(url2).text
    assert "data-seen" not in first.get(url).text
    pick(second, url2, "minister")
    assert 'data-last-round="2"' in first.get(url).text


def viewer_url(client, url) -> str:
    """The viewer link, as a seat's phone shows it (« Others at the table can watch »)."""
    return urlsplit(re.search(r'data-address="viewer">([^<]+)<', client.get(url).text)[1]).path


def test_a_phone_without_a_seat_cannot_pick(phones, app):
    """An onlooker with the viewer link sees the game but cannot pick; a browser that did not
    take a seat cannot use that seat's link."""
    url, first, _, url2 = phones
    onlooker = app.test_client()
    watch = viewer_url(first, url)
    assert 'data-watching="1"' in onlooker.get(watch).text
    assert onlooker.post(watch + "/pick", data={"card": "spy", "version": 1,
                                                "round": 1}).status_code == 403
    for seat_url in (url, url2):
        assert onlooker.get(seat_url).status_code == 403
        assert onlooker.post(seat_url + "/pick", data={"card": "spy", "version": 1,
                                                       "round": 1}).status_code == 403


# --- variant B on two phones: each sets a card aside secretly, both are revealed together --------

@pytest.fixture
def phones_b(app):
    """Two phones in a two-phone game with variant B (nothing set aside at set-up)."""
    first, second = app.test_client(), app.test_client()
    url = new_game(first, mode="phones", set_aside="chosen")
    url2 = join(second, join_path(first, url))
    return url, first, second, url2


def test_under_b_both_phones_first_set_a_card_aside(phones_b, app):
    """Before round 1 each phone is asked for its card out of play (stored as ``aside``)."""
    url, first, second, url2 = phones_b
    for phone, its_url in ((first, url), (second, url2)):
        page = phone.get(its_url).text
        assert 'data-phase="set-aside"' in page and 'data-action="set-aside"' in page
    assert pick(first, url, "prince").status_code == 303  # any card, even the Prince
    page = first.get(url).text
    assert 'data-my-aside="prince"' in page and 'data-form="pick"' not in page
    assert [e.kind for e in entries(app, url)][-1] == "aside"


def test_no_response_before_the_b_reveal_depends_on_the_other_card_set_aside(app):
    """Whatever player 0 set aside, every page player 1 can get before setting theirs aside is
    the same: player 0's card never reaches player 1's phone."""
    seen = []
    for card in ("spy", "clown"):
        first, second = app.test_client(), app.test_client()
        url = new_game(first, mode="phones", first="Ana", second="Ben", set_aside="chosen")
        url2 = join(second, join_path(first, url))
        assert pick(first, url, card).status_code == 303
        code, code2 = url.rsplit("/", 1)[-1], url2.rsplit("/", 1)[-1]
        answers = [second.get(url2).text, second.get(url2 + "/board").text,
                   second.get(url2 + "/version").text, pick(second, url2, "nonsense").text,
                   second.get("/").text, app.test_client().get(url).text]
        assert 'data-other-picked="1"' in answers[0] and 'data-phase="set-aside"' in answers[0]
        seen.append([normalise(a).replace(code, "CODE").replace(code2, "CODE2") for a in answers])
    assert seen[0] == seen[1]


def test_a_card_set_aside_cannot_be_changed(phones_b):
    """A phone that has set a card aside cannot set another."""
    url, first, _, _ = phones_b
    assert pick(first, url, "spy").status_code == 303
    response = pick(first, url, "clown")
    assert response.status_code == 409 and 'data-problem="form-already-saved-card"' in response.text
    assert 'data-my-aside="spy"' in first.get(url).text


def test_both_cards_set_aside_are_revealed_together_then_round_1_is_picked(phones_b):
    """The second card set aside reveals both to both phones; no round is played by it; each
    card set aside is greyed out and refused in the rounds."""
    url, first, second, url2 = phones_b
    pick(first, url, "spy")
    assert "data-out=" not in first.get(url).text
    pick(second, url2, "clown")
    for phone, its_url in ((first, url), (second, url2)):
        page = phone.get(its_url).text
        assert 'data-out="spy-clown"' in page and "data-last-round" not in page
        assert 'data-phase="set-aside"' not in page and 'data-action="commit"' in page
    assert re.search(r'data-card="spy" data-used="1"', first.get(url).text)
    response = pick(first, url, "spy")
    assert response.status_code == 422 and 'data-problem="card-set-aside"' in response.text
    pick(first, url, "general")
    pick(second, url2, "wizard")
    page = second.get(url2).text
    assert 'data-last-round="1"' in page and 'data-score="1-0"' in page


def test_the_set_aside_phase_is_in_french(phones_b):
    """The set-aside phase speaks French to a French phone."""
    url, first, second, url2 = phones_b
    pick(second, url2, "spy")
    first.set_cookie("lang", "fr")
    page = first.get(url).text.replace("&#39;", "'")
    assert "Écarter cette carte" in page and "a écarté une carte" in page


# --- JSON API ------------------------------------------------------------------------------------

def test_the_api_answers_the_issues_example(client):
    """POST /api/v1/kanai-duel/resolve with the issue's example."""
    response = client.post("/api/v1/kanai-duel/resolve",
                           json={"rounds": [["spy", "general"], ["minister", "spy"]]})
    body = response.json
    assert response.status_code == 200
    assert {k: body[k] for k in ("score", "held", "next", "game_over", "winner", "result")} == {
        "score": [0, 1], "held": 1, "next": {"bonus": [0, 0], "reveals_first": 0},
        "game_over": False, "winner": None, "result": None}
    assert body["rounds"][0] | {"steps": []} == {"winner": 1, "points": [0, 1], "held": False,
                                                 "steps": []}


@pytest.mark.parametrize(("rounds", "code"), [
    ([["spy", "joker"]], "unknown-card"),
    ([["spy", "general"], ["spy", "wizard"]], "card-played-twice"),
    ([["spy"]], "round-not-two-cards"),
    ([["princess", "prince"], ["spy", "spy"]], "game-over"),
    ([[c.value, c.value] for c in DuelCard] + [["spy", "spy"]], "too-many-rounds"),
])
def test_the_api_refuses_bad_rounds_with_422(client, rounds, code):
    """Every 422 case of the issue, in the project's error shape."""
    response = client.post("/api/v1/kanai-duel/resolve", json={"rounds": rounds})
    assert response.status_code == 422
    assert code in [p["code"] for p in response.json["problems"]]
    assert response.json["error"]


def test_the_api_is_in_the_openapi_document(client):
    """The endpoint and its models are documented."""
    doc = client.get("/api/v1/openapi.json").json
    assert "/api/v1/kanai-duel/resolve" in doc["paths"]


# --- French --------------------------------------------------------------------------------------

def test_every_french_entry_is_translated():
    """The game's French catalogue has no empty or fuzzy entry."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    path = (Path(__file__).resolve().parents[2] / "companion" / "translations" / "kanai_duel"
            / "fr" / "LC_MESSAGES" / "messages.po")
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="fr")
    entries = [m for m in catalog if m.id]
    assert len(entries) > 50
    for message in entries:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings) and not message.fuzzy, message.id


def test_the_game_page_is_french_in_french(client):
    """The page's own words come from the game's French catalogue."""
    url = new_game(client)
    client.set_cookie("lang", "fr")
    page = client.get(url).text
    assert "Révéler la manche 1" in page and "Annuler la dernière manche" in page


def test_french_colons_have_a_no_break_space_before_them(client):
    """French writes « Manche 2 : … », « Ana : 2 Espion », with a no-break space before the colon
    (U+00A0, as the shell's French does): the board's colons come from the catalogue."""
    url = new_game(client, set_aside="chosen", out_first="wizard", out_second="clown")
    client.set_cookie("lang", "fr")

    def text() -> str:
        page = re.sub(r"[ \t\r\n]+", " ", client.get(url).text)  # \s would match U+00A0
        return re.sub(r"<[^>]+>", "", page)

    play(client, url, "minister", "minister")
    held = text()
    assert "1 manche en attente\u00a0:" in held  # what is on hold
    assert "Manche 1\u00a0: Ministre / Ministre" in held
    play(client, url, "spy", "general")
    board_text = text()
    assert "Manche 2\u00a0: Ben remporte" in board_text  # the last round's heading
    assert "Ana\u00a0: 2 Espion" in board_text and "Ben\u00a0: 6 Général" in board_text
    assert "Hors jeu (B)\u00a0: Ana\u00a0: Magicien · Ben\u00a0: Clown" in board_text
    assert "Variantes\u00a0: B" in board_text
    board = board_text[board_text.index("Manche 2"):]
    assert not re.search(r"[^\u00a0]:", board.split("Toutes les manches")[0]), board[:600]


def test_every_french_colon_in_the_catalogue_has_a_no_break_space():
    """Not a plain space (the line could break before the colon), not none."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    path = (Path(__file__).resolve().parents[2] / "companion" / "translations" / "kanai_duel"
            / "fr" / "LC_MESSAGES" / "messages.po")
    with path.open("rb") as handle:
        catalog = read_po(handle, locale="fr")
    for message in (m for m in catalog if m.id):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert not re.search(r"[^\u00a0]:", text or ""), (message.id, text)


def history_lines(client, url) -> list[str]:
    """The words of each line of « Every round », in order (its steps included)."""
    page = client.get(url).get_data(as_text=True)
    listed = re.search(r'data-list="rounds">.*?<ol>(.*)</ol>\s*</details>', page, re.S)[1]
    return [" ".join(re.sub(r"<[^>]+>", " ", "<li " + line).split())
            for line in listed.split("<li data-round=")[1:]]


def test_undo_then_redo_keeps_the_words_of_the_round_undone(client):
    """Round 2 played, undone, played again with other cards: its line still says the cards and
    the verdict it was played with, marked undone; the new round 2 follows."""
    url = new_game(client)
    assert play(client, url, "spy", "general").status_code == 303
    assert play(client, url, "minister", "prince").status_code == 303
    written = history_lines(client, url)
    assert len(written) == 2
    client.post(url + "/undo", data={"version": version_of(client, url)})
    undone = history_lines(client, url)
    assert undone[0] == written[0] and len(undone) == 2
    assert undone[1].endswith(" (undone)")
    assert written[1].startswith(undone[1].removesuffix(" (undone)"))  # cards and verdict
    assert play(client, url, "prince", "minister").status_code == 303
    lines = history_lines(client, url)
    assert lines[:2] == undone  # as written, still undone
    assert len(lines) == 3 and not lines[2].endswith("(undone)") and lines[2] != written[1]
