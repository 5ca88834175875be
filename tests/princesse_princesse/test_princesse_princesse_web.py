"""Web pages and JSON API of Love Letter « Princesse Princesse » (flaskr-style: status, Location
and ``data-*`` markers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.db import get_session
from companion.play import princesse_princesse as play
from companion.play import store

ROOT = Path(__file__).resolve().parents[2]
BASE = "/princesse-princesse"
API = "/api/v1/princesse-princesse"


def make_game(client, names=("Ana", "Ben", "Cléo", "Dan"), first=0) -> str:
    data = {f"names-{i}": name for i, name in enumerate(names)} | {"first": str(first)}
    response = client.post(f"{BASE}/new", data=data)
    assert response.status_code == 303
    return response.headers["Location"]


def version_of(client, url) -> int:
    return int(re.search(r'data-version="(\d+)"', client.get(url).get_data(as_text=True))[1])


def save_round(client, url, still_in, cards=None, spies=(), princesses=(), key=None,
               version=None, round=None):
    data = {"version": version_of(client, url) if version is None else version,
            "key": key or "", "step": "2", "in": [str(s) for s in still_in],
            "spy": [str(s) for s in spies], "princesses": [str(s) for s in princesses]}
    if round is not None:  # the round the page was opened for
        data["round"] = str(round)
    data |= {f"card-{s}": str(c) for s, c in (cards or {}).items()}
    return client.post(f"{url}/round", data=data)


def text(response) -> str:
    return response.get_data(as_text=True)


# ---- set-up and the board ----------------------------------------------------------------------

def test_new_game_page_and_creation(client):
    """A game is set up with names in seat order and who starts; the board shows the threshold."""
    assert client.get(f"{BASE}/new").status_code == 200
    url = make_game(client, first=2)
    page = text(client.get(url))
    assert 'data-threshold="4"' in page and 'data-first-seat="2"' in page
    assert 'data-first-reason="chosen"' in page and page.count('data-tokens="0"') == 4


def test_new_game_with_one_name_is_refused_and_stores_nothing(app, client):
    """Fewer than 2 players: 422 with the problem; no game stored."""
    response = client.post(f"{BASE}/new", data={"names-0": "Ana", "first": "0"})
    assert response.status_code == 422
    assert 'data-problem="players-out-of-range"' in text(response)
    with app.app_context():
        from sqlmodel import select

        from companion.models import Game
        assert get_session().exec(select(Game)).first() is None


def test_board_is_remembered_on_the_home_page(client):
    """A game opened on this phone is listed on its home page."""
    url = make_game(client)
    assert client.get(url).status_code == 200
    home = text(client.get("/"))
    assert 'data-kind="princesse_princesse"' in home and "Ana, Ben, Cléo, Dan" in home


# ---- round end, fast path ----------------------------------------------------------------------

def test_fast_path_asks_the_bonus_questions_only_when_they_can_matter(client):
    """One player in: the Spy question only; two or more: both questions and the cards."""
    url = make_game(client)
    one = text(client.get(f"{url}/round?step=2&in=1"))
    assert 'data-question="spy"' in one and 'data-question="princesses"' not in one
    assert 'data-last-in="1"' in one and "data-card-seat" not in one
    two = text(client.get(f"{url}/round?step=2&in=0&in=2"))
    assert 'data-question="princesses"' in two and two.count("data-card-seat=") == 2



def test_the_cards_heading_reads_each_players_card(client):
    """« La carte de chacun » in French, "Each player's card" in English."""
    url = make_game(client)
    assert "<h2>Each player's card</h2>" in text(client.get(f"{url}/round?step=2&in=0&in=2"))
    client.set_cookie("lang", "fr")
    assert "<h2>La carte de chacun</h2>" in text(client.get(f"{url}/round?step=2&in=0&in=2"))

def test_fast_path_saves_a_round_with_its_reasons(client):
    """Highest card and Spy bonus: tokens move with their reason."""
    url = make_game(client)
    response = save_round(client, url, [0, 2], {0: 5, 2: 3}, spies=[2])
    assert response.status_code == 303 and response.headers["Location"] == url
    page = text(client.get(url))
    assert 'data-seat="0" data-tokens="1"' in page and 'data-seat="2" data-tokens="1"' in page
    assert 'data-award="highest-card" data-seat="0"' in page
    assert 'data-award="spy" data-seat="2"' in page
    assert 'data-first-seat="0" data-first-reason="won"' in page


def test_back_after_saving_a_round_cannot_save_it_a_second_time(client):
    """The round-end page names the round it is for: opened again with Back once that round is
    saved, it says so (with the way to the history), and saving it again is refused (422)."""
    url = make_game(client)
    step_2 = text(client.get(f"{url}/round?step=2&in=0&in=2"))
    assert '<input type="hidden" name="round" value="1">' in step_2
    assert save_round(client, url, [0, 2], {0: 5, 2: 3}, round=1).status_code == 303
    again = text(client.get(f"{url}/round?step=2&round=1&in=0&in=2&card-0=5&card-2=3"))
    assert 'data-problem="round-already-saved"' in again and 'data-action="history"' in again
    response = save_round(client, url, [0, 2], {0: 5, 2: 3}, round=1)
    assert response.status_code == 422 and 'data-problem="round-already-saved"' in text(response)
    assert text(client.get(url)).count('data-tokens="1"') == 1
    assert save_round(client, url, [2], round=2).status_code == 303


def test_a_tie_draws_the_next_starter_and_shows_it(client):
    """Tied winners each gain a token; the app draws who starts among them and says so."""
    url = make_game(client)
    assert save_round(client, url, [1, 3], {1: 6, 3: 6}).status_code == 303
    page = text(client.get(url))
    first = int(re.search(r'data-first-seat="(\d)"', page)[1])
    assert first in (1, 3) and 'data-first-reason="drawn"' in page and "data-draw" in page


def test_a_refused_round_stores_nothing(client):
    """A card missing for a player still in: 422 with the problem, the version unchanged."""
    url = make_game(client)
    response = save_round(client, url, [0, 1], {0: 4})
    assert response.status_code == 422 and 'data-problem="card-missing"' in text(response)
    too_many = save_round(client, url, [0, 1], {0: 9, 1: 9})
    assert 'data-problem="too-many-copies"' in text(too_many)
    assert version_of(client, url) == 0


def test_a_stale_write_is_refused_and_a_double_tap_stored_once(client):
    """Another phone's change makes an old form stale (409); the same key is stored once."""
    url = make_game(client)
    assert save_round(client, url, [0], key="tap-1", version=0).status_code == 303
    assert save_round(client, url, [0], key="tap-1", version=0).status_code == 303
    assert version_of(client, url) == 1
    stale = save_round(client, url, [1], key="tap-2", version=0)
    assert stale.status_code == 409 and 'data-problem="stale-write"' in text(stale)
    assert version_of(client, url) == 1


def test_a_save_sent_again_from_the_page_is_answered_like_the_first(client):
    """The page's save carries the round it was opened for; sent again with the same key (the
    phone never heard the first answer), it is answered like the first tap, not refused as
    "already saved", and stored once."""
    url = make_game(client)
    first = save_round(client, url, [0], key="queued-1", version=0, round=1)
    again = save_round(client, url, [0], key="queued-1", version=0, round=1)
    assert first.status_code == again.status_code == 303
    assert again.headers["Location"] == first.headers["Location"]
    assert version_of(client, url) == 1
    other = save_round(client, url, [1], key="queued-2", version=0, round=1)
    assert other.status_code == 422 and 'data-problem="round-already-saved"' in text(other)


def test_an_undone_round_stays_in_the_history_as_it_read(client):
    """Undo round 1 of two, then save a round again: the undone round is still in the history,
    marked undone, with the words it had (its number, who won it, the tokens after it)."""
    url = make_game(client)
    save_round(client, url, [0])
    save_round(client, url, [1])
    history = text(client.get(f"{url}/history"))
    rids = re.findall(r'data-rid="(\d+)"', history)
    first = re.search(r'<section class="panel pp-round" data-round="1".*?</section>', history,
                      re.S)[0]
    tokens_then = re.search(r"data-tokens-after>(.*?)</p>", first, re.S)[1]
    client.post(f"{url}/round/{rids[-1]}/undo", data={"version": version_of(client, url)})
    save_round(client, url, [2])
    history = text(client.get(f"{url}/history"))
    undone = re.search(rf'<section class="panel pp-round undone" data-undone-rid="{rids[-1]}">'
                       r".*?</section>", history, re.S)[0]
    assert "Round 1" in undone and "(undone)" in undone
    assert re.search(r"data-tokens-after>(.*?)</p>", undone, re.S)[1] == tokens_then
    assert history.count('class="panel pp-round"') == 2  # the rounds in effect


def test_edit_and_undo_any_round(client):
    """Editing a round recomputes the tokens; undoing takes it out; the history keeps both."""
    url = make_game(client)
    save_round(client, url, [0])
    save_round(client, url, [0])
    history = text(client.get(f"{url}/history"))
    rids = re.findall(r'data-rid="(\d+)"', history)
    first_rid = rids[-1]  # the history lists the newest round first
    edit = client.post(f"{url}/round?edit={first_rid}",
                       data={"version": version_of(client, url), "step": "2", "in": ["3"]})
    assert edit.status_code == 303
    page = text(client.get(url))
    assert 'data-seat="0" data-tokens="1"' in page and 'data-seat="3" data-tokens="1"' in page
    assert "data-edited" in text(client.get(f"{url}/history"))
    undo = client.post(f"{url}/round/{first_rid}/undo", data={"version": version_of(client, url)})
    assert undo.status_code == 303
    page = text(client.get(url))
    assert 'data-seat="3" data-tokens="0"' in page and 'data-round="2"' in page


def test_game_end_shows_every_winner_and_takes_no_more_rounds(client):
    """Two players tied at the threshold both win; no round can follow."""
    url = make_game(client, names=("Ana", "Ben", "Cléo", "Dan", "Eve"))
    for _ in range(3):
        assert save_round(client, url, [0, 1], {0: 1, 1: 1}).status_code == 303
    page = text(client.get(url))
    assert 'data-winners="0,1"' in page and 'data-action="round-end"' not in page
    refused = save_round(client, url, [2])
    assert refused.status_code == 422 and 'data-problem="game-already-over"' in text(refused)


def test_the_end_of_a_game_offers_a_new_one(client):
    """Once somebody has won, the board leads straight to a new game (as the duel does)."""
    url = make_game(client, names=("Ana", "Ben", "Cléo", "Dan", "Eve"))
    assert 'data-action="again"' not in text(client.get(url))
    for _ in range(3):
        assert save_round(client, url, [0]).status_code == 303
    page = text(client.get(url))
    assert re.search(f'href="{BASE}/new\\?again=[0-9a-f]{{32}}" data-action="again"', page)
    assert f'href="{BASE}/new" data-action="new-game"' in page


# ---- the turn log ------------------------------------------------------------------------------

def log_post(client, url, path, **data):
    data.setdefault("version", version_of(client, url))
    return client.post(f"{url}/log/{path}", data=data)


def test_turn_log_refuses_a_protected_target_and_says_why(client):
    """Oliver protects a player: the target is refused with the reason and a link to the rule."""
    url = make_game(client)
    assert log_post(client, url, "start").status_code == 303
    assert log_post(client, url, "turn", card="4").status_code == 303
    page = text(client.get(f"{url}/log?card=1"))
    assert 'data-refused="0" data-problem="target-protected"' in page
    assert "/princesse-princesse/rules/oliver" in page
    refused = log_post(client, url, "turn", card="1", target="0", named="5", hit="no")
    assert refused.status_code == 422 and 'data-problem="target-protected"' in text(refused)
    state = text(client.get(f"{url}/log"))
    assert 'data-current-seat="1"' in state and 'data-seat="0" data-status="protected"' in state


def test_turn_log_counts_unseen_cards_and_undoes_a_turn(client):
    """The unseen count follows the cards laid down; the last turn can be undone."""
    url = make_game(client)
    log_post(client, url, "start")
    log_post(client, url, "turn", card="5", target="2", revealed="9")
    page = text(client.get(f"{url}/log"))
    assert 'data-unseen-value="9" data-count="0"' in page
    assert 'data-unseen-value="5" data-count="1"' in page
    assert 'data-seat="2" data-status="out"' in page
    assert log_post(client, url, "undo").status_code == 303
    assert 'data-unseen-value="9" data-count="1"' in text(client.get(f"{url}/log"))


def test_a_card_tapped_in_the_turn_log_opens_at_its_questions(client):
    """The questions of a tapped card sit below the seats and the unseen count: the card's link
    opens the page at them (#turn-form), not at the top, where the phone would need a scroll."""
    url = make_game(client)
    log_post(client, url, "start")
    page = text(client.get(f"{url}/log"))
    picks = re.findall(r'href="([^"]+)" data-card-choice="(\d)"', page)
    assert len(picks) == 10 and all(href.endswith("#turn-form") for href, _ in picks)
    assert 'id="turn-form"' in text(client.get(f"{url}/log?card=1"))


def test_a_round_through_the_turn_log_fills_the_round_end(client):
    """The log knows who is still in and both bonuses: only the final cards are tapped."""
    url = make_game(client, names=("Ana", "Ben"))
    log_post(client, url, "start", **{"face-up-0": "1", "face-up-1": "1", "face-up-2": "2"})
    assert log_post(client, url, "turn", card="0").status_code == 303
    assert log_post(client, url, "turn", card="1", target="0", named="9",
                    hit="yes").status_code == 303
    page = text(client.get(f"{url}/log"))
    assert 'data-ending="last-in"' in page
    assert log_post(client, url, "finish").status_code == 303
    board = text(client.get(url))
    assert 'data-seat="1" data-tokens="1"' in board and 'data-seat="0" data-tokens="0"' in board
    assert 'data-award="last-in" data-seat="1"' in board


def test_two_player_log_needs_the_face_up_cards(client):
    """At two players the three face-up cards are part of the count: the log needs them."""
    url = make_game(client, names=("Ana", "Ben"))
    refused = log_post(client, url, "start")
    assert refused.status_code == 422 and 'data-problem="face-up-count"' in text(refused)


def test_glue_replays_a_simulated_round_from_its_log(app, client):
    """A random legal round pushed through the turn log and finished gives the core's tokens."""
    import random

    from companion.scoring.princesse_princesse import settle_round, simulate_round

    url = make_game(client)
    sim = simulate_round(4, 0, random.Random(3))
    log_post(client, url, "start")
    for turn in sim.turns:
        data = {"card": str(turn.card)}
        if turn.target is not None:
            data["target"] = str(turn.target)
        if turn.named is not None:
            data |= {"named": str(turn.named), "hit": "yes" if turn.hit else "no"}
        if turn.tie:
            data["loser"] = "tie"
        elif turn.loser is not None:
            data["loser"] = str(turn.loser)
        if turn.revealed is not None and not turn.hit:
            data["revealed"] = str(turn.revealed)
        assert log_post(client, url, "turn", **data).status_code == 303, turn
    cards = {f"card-{s}": str(c) for s, c in sim.final.items()}
    assert log_post(client, url, "finish", **cards).status_code == 303
    expected = settle_round(sim.round_.reveal(sim.final), [0] * 4).tokens_after
    with app.app_context():
        game = store.game_by_token(get_session(), url.rsplit("/", 1)[1])
        view = play.view_game(get_session(), game)
        assert view.progress.tokens == expected and view.rounds[0].from_log


# ---- French, rulings, API ----------------------------------------------------------------------

def test_pages_read_in_french(client):
    """With a French browser the board and the problems are in French."""
    url = make_game(client)
    page = text(client.get(url, headers={"Accept-Language": "fr"}))
    assert "Manche 1" in page and "jetons Faveur" in page
    refused = save_round(client, url, [0, 1], {0: 4})
    assert refused.status_code == 422


def test_french_catalogue_has_no_empty_or_fuzzy_entry():
    """Every string of the game's pages has a French translation."""
    path = ROOT / "companion/translations/princesse_princesse/fr/LC_MESSAGES/messages.po"
    with path.open("rb") as handle:
        catalogue = read_po(handle)
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), message.id
        assert "fuzzy" not in message.flags, message.id


def test_rulings_pages_are_served(client):
    """The shell serves this game's rulings: the index and one entry per slug."""
    assert client.get(f"{BASE}/rules").status_code == 200
    page = text(client.get(f"{BASE}/rules/spy-bonus", headers={"Accept-Language": "fr"}))
    assert "Espionne" in page


def test_api_round_end_gives_the_issue_answer(client):
    """The issue's example request gets exactly the issue's response."""
    response = client.post(f"{API}/round-end", json={
        "players": 3, "held": [7, 8, None], "discards": [[1], [4, 0], [2, 9]],
        "tokens_before": [0, 2, 1]})
    assert response.status_code == 200
    assert response.get_json() == {
        "round_winners": [1], "bonuses": [{"seat": 1, "kind": "spy"}],
        "tokens_gained": [0, 2, 0], "tokens_after": [0, 4, 1], "threshold": 5,
        "game_over": False, "game_winners": [], "next_first_candidates": [1]}


@pytest.mark.parametrize(("body", "code"), [
    ({"players": 7, "held": [1] * 7, "discards": [[]] * 7, "tokens_before": [0] * 7},
     "players-out-of-range"),
    ({"players": 3, "held": [1, 2], "discards": [[], [], []], "tokens_before": [0, 0, 0]},
     "wrong-length"),
    ({"players": 3, "held": [1, 12, None], "discards": [[], [], []], "tokens_before": [0, 0, 0]},
     "value-out-of-range"),
    ({"players": 3, "held": [9, 2, None], "discards": [[9], [], []], "tokens_before": [0, 0, 0]},
     "too-many-copies"),
    ({"players": 3, "held": [None, None, None], "discards": [[], [], []],
      "tokens_before": [0, 0, 0]}, "nobody-in"),
    ({"players": 3, "held": [1, 2, None], "discards": [[], [], []], "tokens_before": [0, -1, 0]},
     "negative-tokens"),
])
def test_api_round_end_refusals(client, body, code):
    """Every 422 case of the contract comes back in the shared error shape with its code."""
    response = client.post(f"{API}/round-end", json=body)
    assert response.status_code == 422
    assert code in [p["code"] for p in response.get_json()["problems"]]


def test_api_round_end_refuses_wrong_json_types(client):
    """A string where a number is expected is refused (422), a non-object body 400."""
    assert client.post(f"{API}/round-end", json={"players": "3", "held": [], "discards": [],
                                                 "tokens_before": []}).status_code == 422
    assert client.post(f"{API}/round-end", json=[1, 2]).status_code == 400


def test_api_turn_log_judges_the_turns(client):
    """The turn-log endpoint names the first refused turn and the table before it."""
    response = client.post(f"{API}/turn-log", json={
        "players": 3, "first": 0,
        "turns": [{"seat": 0, "card": 4}, {"seat": 1, "card": 1, "target": 0, "named": 5,
                                           "hit": False}]})
    body = response.get_json()
    assert response.status_code == 200 and not body["valid"]
    assert body["refused_turn"] == 1 and body["problems"][0]["code"] == "target-protected"
    assert body["protected"] == [0] and body["unseen"][4] == 1
    bad = client.post(f"{API}/turn-log", json={"players": 2, "first": 0, "turns": []})
    assert bad.status_code == 422 and bad.get_json()["problems"][0]["code"] == "face-up-count"


def test_openapi_document_lists_both_endpoints(client):
    """Both endpoints and their schemas are in the OpenAPI document."""
    document = client.get("/api/v1/openapi.json").get_json()
    assert f"{API}/round-end" in document["paths"] and f"{API}/turn-log" in document["paths"]
    schemas = document.get("components", {}).get("schemas", {})
    assert any("TurnLog" in name for name in schemas), list(schemas)


def test_the_history_names_whose_tokens_are_whose(client):
    """Each round of the history says the tokens after it by name ("Ana 2 · Ben 0 …"), not as a
    bare list of numbers; a name is escaped."""
    url = make_game(client, names=("Ana", "<b>Ben</b>", "Cléo", "Dan"))
    save_round(client, url, [0])
    save_round(client, url, [0])
    history = text(client.get(f"{url}/history"))
    assert "<b>Ben</b>" not in history
    # Each name follows its seat's mark (its colour and initial): read the line without them.
    history = re.sub(r'<span class="seat-mark[^"]*"[^>]*>[^<]*</span> |</?span[^>]*>', "", history)
    assert "Ana 2 · &lt;b&gt;Ben&lt;/b&gt; 0 · Cléo 0 · Dan 0" in history
    assert "Ana 1 · &lt;b&gt;Ben&lt;/b&gt; 0 · Cléo 0 · Dan 0" in history


def test_api_round_end_refuses_the_ogre_before_a_player_still_in(client):
    """Playing or discarding the Ogre puts its player out at once: a player who still holds a
    card cannot have it in front of them."""
    response = client.post(f"{API}/round-end", json={
        "players": 3, "held": [7, 8, None], "discards": [[9], [4, 0], [2]],
        "tokens_before": [0, 0, 0]})
    assert response.status_code == 422
    (problem,) = response.get_json()["problems"]
    assert (problem["code"], problem["seat"]) == ("ogre-but-still-in", 0)
    assert response.get_json()["error"]
    out = client.post(f"{API}/round-end", json={
        "players": 3, "held": [None, 8, 7], "discards": [[9], [4, 0], [2]],
        "tokens_before": [0, 0, 0]})
    assert out.status_code == 200 and out.get_json()["round_winners"] == [1]


def test_api_turn_log_flags_a_disproven_bibliothecaire_tie(client):
    turns = [{"seat": 0, "card": 3, "target": 3, "tie": True},
             {"seat": 1, "card": 1, "target": 3, "named": 5, "hit": True},
             {"seat": 2, "card": 1, "target": 0, "named": 7, "hit": True}]
    body = client.post(f"{API}/turn-log", json={"players": 4, "first": 0,
                                                 "turns": turns}).get_json()
    assert [(f["code"], f["seat"]) for f in body["faults"]] == [("librarian-tie-wrong", 3)]
    turns[2]["named"] = 5
    body = client.post(f"{API}/turn-log", json={"players": 4, "first": 0,
                                                 "turns": turns}).get_json()
    assert body["faults"] == []


def test_turn_log_page_flags_a_disproven_bibliothecaire_tie(client):
    url = make_game(client, names=("Ana", "Ben", "Cléo", "Dan"))
    log_post(client, url, "start")
    assert log_post(client, url, "turn", card="3", target="3", loser="tie").status_code == 303
    assert 'data-fault=' not in text(client.get(f"{url}/log"))
    log_post(client, url, "turn", card="1", target="3", named="5", hit="yes")
    log_post(client, url, "turn", card="1", target="0", named="7", hit="yes")
    page = text(client.get(f"{url}/log"))
    assert 'data-fault="librarian-tie-wrong" data-seat="3"' in page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_turn_form_says_each_cards_own_effect_once(client, lang):
    """Issue 22: every card's effect line is its own (the rulings' summary of that card), said
    once; « played with no effect » only where it is true; no « targets nobody here » per
    player for a card that targets nobody."""
    from companion.rulings import load

    client.set_cookie("lang", lang)
    entries = {e.value: e for e in load("companion.rulings.princesse_princesse").entries
               if e.value is not None}
    url = make_game(client)
    log_post(client, url, "start")
    for value in range(10):
        page = text(client.get(f"{url}/log?card={value}"))
        lines = re.findall(rf'<p class="pp-effect" data-effect="{value}">(.*?) <a', page, re.S)
        assert lines == [entries[value].summary(lang).replace("'", "&#39;")], (value, lines)
        assert "data-no-effect" not in page, value  # everyone is in and unprotected
        assert "target-not-taken" not in page and "data-refused" not in page, value
    # Oliver protects Ana: at Ben's turn, the Garde still has Cléo and Dan; nobody is refused
    # for « targets nobody », and the protected player is named once with the reason.
    log_post(client, url, "turn", card="4")
    page = text(client.get(f"{url}/log?card=1"))
    assert page.count('data-problem="target-protected"') == 1
    page = text(client.get(f"{url}/log?card=0"))
    assert "data-refused" not in page and "data-no-effect" not in page


def test_a_card_with_nobody_to_target_says_so_once(client):
    """Both other players behind Oliver: the Garde is played with no effect, said once."""
    url = make_game(client, names=("Ana", "Ben", "Cléo"))
    log_post(client, url, "start")
    log_post(client, url, "turn", card="4")
    log_post(client, url, "turn", card="4")
    page = text(client.get(f"{url}/log?card=1"))
    assert page.count("data-no-effect") == 1
    assert "Nobody can be targeted: this card is played with no effect." in page
    assert page.count('data-problem="target-protected"') == 2
