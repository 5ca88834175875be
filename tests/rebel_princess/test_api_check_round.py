"""POST /api/v1/rebel-princess/check-round: tricks entered at the table, judged and scored."""

from __future__ import annotations

import random

import pytest

from companion import create_app
from companion.scoring.rebel_princess.engine import RoundState

URL = "/api/v1/rebel-princess/check-round"


def plays(leader, players, cards):
    return [{"seat": (leader + i) % players, "card": card} for i, card in enumerate(cards.split())]


def check(client, players, *tricks, **extra):
    body = {"edition": "deluxe", "round_card": "a", "players": players, "leader": 0,
            "tricks": [t if isinstance(t, dict) else {"plays": plays(*t)} for t in tricks],
            **extra}
    return client.post(URL, json=body)


def codes(response):
    return [problem["code"] for problem in response.get_json()["problems"]]


def test_rulebook_six_player_trick(client):
    """Kevin Q3, Jay Q7, Renée P12, Antonia F9, Ted A8, Ryan Q4: Jay (seat 1) wins."""
    response = check(client, 6, (0, 6, "Q3 Q7 P12 F9 A8 Q4"))
    assert response.status_code == 200
    data = response.get_json()
    assert data["tricks"] == [{"leader": 0, "winner": 1, "princes_in": True, "complete": True}]
    assert (data["complete"], data["legal"], data["next_seat"]) == (False, True, 1)
    assert data["taken"][1] == ["P12", "Q3", "Q4", "Q7", "F9", "A8"]
    assert data["scores"] is None


@pytest.mark.parametrize("seed", [1, 7])
def test_whole_round_is_scored_like_score_round(client, seed):
    """A legal 4-player round of a from a seeded deal: complete, legal, the core's scores."""
    rng = random.Random(seed)
    state = RoundState.deal(4, round_card="a", rng=rng)
    while not state.is_over():
        state.push_card(rng.choice(sorted(state.legal_plays(), key=str)))
    tricks = [{"plays": [{"seat": s, "card": str(c)} for s, c in t.plays(4)]}
              for t in state.tricks]
    data = check(client, 4, *tricks).get_json()
    assert (data["complete"], data["legal"], data["violations"]) == (True, True, [])
    taken = [[str(card) for card in cards] for cards in state.outcome().taken]
    scored = client.post("/api/v1/rebel-princess/score-round", json={
        "edition": "deluxe", "round_card": "a", "players": 4, "taken": taken}).get_json()
    assert data["scores"] == scored["scores"] and data["lines"] == scored["lines"]
    assert data["tricks_won"] == list(state.outcome().tricks_won)


def test_revoke_is_a_violation_not_an_error(client):
    """Seat 1 shows void in Queens (F7), then plays Q5: must-follow-suit in trick 0."""
    response = check(client, 3, (0, 3, "Q3 F7 Q9"), (2, 3, "A5 A2 A3"), (2, 3, "F2 F4 Q5"))
    assert response.status_code == 200
    data = response.get_json()
    assert data["legal"] is False
    violation = data["violations"][0]
    assert (violation["code"], violation["trick"], violation["proven_in"], violation["seat"],
            violation["card"]) == ("must-follow-suit", 0, 2, 1, "F7")
    assert violation["message"]


def test_prince_led_early(client):
    """A Prince led before they snuck in, by a leader who later plays another suit."""
    data = check(client, 3, (0, 3, "P5 P3 P9"), (2, 3, "Q4 Q2 Q3"),
                 (2, 3, "A2 A3 A4")).get_json()
    assert ("princes-not-invited", 0, 0) in [(v["code"], v["trick"], v["seat"])
                                             for v in data["violations"]]
    assert data["legal"] is False


def test_partial_round(client):
    data = check(client, 4, (0, 4, "Q3 Q7 Q9 Q1"), (2, 4, "F2 F4")).get_json()
    assert [t["winner"] for t in data["tricks"]] == [2, None]
    assert (data["complete"], data["next_seat"], data["scores"]) == (False, 0, None)


def test_empty_round(client):
    data = check(client, 4).get_json()
    assert (data["tricks"], data["next_seat"], data["legal"]) == ([], 0, True)


@pytest.mark.parametrize(("tricks", "extra", "code"), [
    ([(1, 3, "Q3 Q7 Q9")], {}, "wrong-leader"),
    ([{"plays": [{"seat": 0, "card": "Q3"}, {"seat": 2, "card": "Q7"}]}], {}, "not-your-turn"),
    ([(0, 3, "Q3 Q7 Q9"), (2, 3, "Q3 A2 A3")], {}, "card-already-played"),
    ([(0, 3, "Q3 Q7 Q3")], {}, "duplicate-card"),
    ([(0, 3, "Q3 Q7 Q1")], {}, "card-not-in-deck"),
    ([(0, 3, "Q3 Q7 Z9")], {}, "unknown-card"),
    ([{"plays": [{"seat": 0, "card": "Q3"}, {"seat": 5, "card": "Q7"}]}], {}, "unknown-seat"),
    ([(0, 3, "Q3 Q7 Q9 Q4")], {}, "wrong-card-count"),
    ([(0, 3, "Q3 Q7"), (1, 3, "A2 A3 A4")], {}, "trick-not-finished"),
    ([{"plays": plays(0, 3, "Q3 Q7 Q9"), "powers": [{"power": "frog", "seat": 0}]}], {},
     "unknown-power"),
    ([{"plays": plays(0, 3, "Q3 Q7 Q9"), "powers": [{"power": "alice", "seat": 0}]}], {},
     "power-not-in-play"),
    ([], {"princesses": {"0": "godmother"}}, "unknown-power"),
    ([], {"princesses": {"9": "alice"}}, "unknown-seat"),
    ([], {"princesses": {"²": "alice"}}, "unknown-seat"),
    ([], {"princesses": {"١": "alice"}}, "unknown-seat"),
    ([], {"princesses": {"1" * 4400: "alice"}}, "unknown-seat"),
    ([(0, 3, "Q3 Q7 Q²")], {}, "unknown-card"),
    ([(0, 3, "Q3 Q7 Q١")], {}, "unknown-card"),
    ([{"plays": plays(0, 3, "Q3 Q7 Q9"), "steps": [{"step": "haggle", "seat": 1,
                                                   "give": "F²", "take": "Q9"}]}], {},
     "unknown-card"),
    ([], {"players": 7}, "bad-player-count"),
    ([], {"players": 2}, "bad-player-count"),
    ([], {"leader": 3}, "bad-leader"),
    ([], {"round_card": "9"}, "unknown-round-card"),
    ([], {"edition": "base"}, "unknown-edition"),
    ([], {"players": "3"}, "wrong-type"),
    ([], {"tricks": [{"plays": [{"seat": 0}]}]}, "missing-field"),
    ([], {"tricks": [{"cards": []}]}, "missing-field"),
])
def test_malformed_entries_are_422(client, tricks, extra, code):
    extra = dict(extra)
    response = check(client, extra.pop("players", 3), *tricks, **extra)
    assert response.status_code == 422
    assert code in codes(response)
    assert response.get_json()["error"]


def test_422_names_the_trick_and_seat(client):
    response = check(client, 3, (0, 3, "Q3 Q7 Q9"), (2, 3, "A2 A3 Q7"))
    problem = response.get_json()["problems"][0]
    assert (problem["code"], problem["trick"], problem["seat"], problem["card"]) == (
        "card-already-played", 1, 1, "Q7")
    assert problem["field"] == "tricks[1].plays[2].card"


def test_royal_decree_winner(client):
    """Royal Decree (f): the only Queen wins, visible at once."""
    data = check(client, 3, (0, 3, "F5 Q2 F9"), round_card="f").get_json()
    assert data["tricks"][0]["winner"] == 1


@pytest.mark.parametrize(("edition", "round_card", "winner"), [("classic", "H", 2),
                                                                ("deluxe", "r", 1)])
def test_poisoned_apple_tie(client, edition, round_card, winner):
    """Poisoned Apple: two void 7s - classic: the last played wins; Deluxe: the first."""
    data = check(client, 3, (0, 3, "Q5 F7 A7"), edition=edition,
                 round_card=round_card).get_json()
    assert data["tricks"][0]["winner"] == winner


def test_cinderella_reverses_a_trick(client):
    trick = {"plays": plays(0, 3, "Q5 Q9 Q7"), "powers": [{"power": "cinderella", "seat": 2}]}
    data = check(client, 3, trick, princesses={"2": "cinderella"}).get_json()
    assert data["tricks"][0]["winner"] == 0


def test_ice_princess_card_is_binding(client):
    """The Ice Princess chose Q2 for seat 1, who played Q9 and later shows Q2."""
    trick = {"plays": plays(0, 3, "Q5 Q9 Q7"),
             "powers": [{"power": "ice-princess", "seat": 0, "target": 1, "cards": ["Q2"]}]}
    data = check(client, 3, trick, (1, 3, "Q2 Q3 Q4"), princesses={"0": "ice-princess"}).get_json()
    assert ("power-restriction", "ice-princess", 0, 1) in [
        (v["code"], v["rule"], v["trick"], v["proven_in"]) for v in data["violations"]]


def test_power_used_twice_is_422(client):
    power = {"power": "cinderella", "seat": 0}
    response = check(client, 3, {"plays": plays(0, 3, "Q5 Q9 Q7"), "powers": [power]},
                     {"plays": plays(0, 3, "A5 A9 A7"), "powers": [power]},
                     princesses={"0": "cinderella"})
    assert codes(response) == ["power-already-used"]


def test_bathroom_break_needs_totals_before_once_complete(client):
    rng = random.Random(3)
    state = RoundState.deal(3, round_card="y", rng=rng)
    while not state.is_over():
        state.push_card(rng.choice(sorted(state.legal_plays(), key=str)))
    tricks = [{"plays": [{"seat": s, "card": str(c)} for s, c in t.plays(3)]}
              for t in state.tricks]
    data = check(client, 3, *tricks, round_card="y").get_json()
    assert (data["complete"], data["missing"], data["scores"]) == (True, ["totals_before"], None)
    data = check(client, 3, *tricks, round_card="y", totals_before=[0, 4, 4]).get_json()
    assert data["missing"] == [] and len(data["scores"]) == 3


def test_no_cookie_and_no_csrf_token(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": True,
                      "DATABASE": str(tmp_path / "csrf.sqlite")})
    response = check(app.test_client(), 6, (0, 6, "Q3 Q7 P12 F9 A8 Q4"))
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers


def rules_broken(data):
    return [(v["trick"], v["proven_in"], v["code"], v["seat"], v["rule"])
            for v in data["violations"]]


def test_classic_ice_princess_on_another_seat_is_refused_at_entry(client):
    """Classic Ice Princess draws from the leader's hand (« vous piochez aléatoirement dans sa
    main »): the table knows who leads, so a use on another seat is refused at entry, on her
    seat (the target broke nothing)."""
    ice = {"power": "ice-princess", "seat": 2, "target": 1, "cards": ["Q3"]}
    response = check(client, 3, {"plays": plays(0, 3, "F5 Q3 F7"), "powers": [ice]},
                     (2, 3, "F9 F3 F4"), edition="classic", round_card="A",
                     princesses={"2": "ice-princess"})
    assert response.status_code == 422
    assert [(p["code"], p["seat"], p["field"]) for p in response.get_json()["problems"]] == [
        ("not-the-leader", 2, "tricks[0].powers[0]")]
    deluxe = check(client, 3, {"plays": plays(0, 3, "F5 Q3 F7"), "powers": [ice]},
                   (2, 3, "F9 F3 F4"), princesses={"2": "ice-princess"}).get_json()
    assert deluxe["violations"] == []  # Deluxe: any player's card may be frozen


def test_little_mermaid_asking_princes_of_a_leader_with_other_cards(client):
    """Deluxe Little Mermaid names Princes before they snuck in; the leader later shows a
    Queen, so they did not hold only Princes: her rule was broken in trick 0, proven in 1."""
    mermaid = {"power": "little-mermaid", "seat": 1, "suit": "P"}
    body = [{"plays": plays(0, 3, "P5 P3 P9"), "powers": [mermaid]}]
    assert check(client, 3, *body, princesses={"1": "little-mermaid"}).get_json()["legal"]
    data = check(client, 3, *body, (2, 3, "Q4 Q2 Q3"),
                 princesses={"1": "little-mermaid"}).get_json()
    # Her naming Princes changed nothing: the lead broke the basic rule.
    assert rules_broken(data) == [(0, 1, "princes-not-invited", 0, "basic")]
    assert data["violations"][0]["message"].startswith("Player 1 led the 5 of Princes, a Prince")
