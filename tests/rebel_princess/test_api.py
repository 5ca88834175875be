"""The stateless JSON API: status codes, scores and problem codes (never English wording)."""

from __future__ import annotations

import pytest

from companion import create_app
from companion.scoring.rebel_princess import FROG, deck, princes, suit_cards
from companion.scoring.rebel_princess.cards import Suit

FOUR_PLAYER_A = [["P1", "P2", "P3"], ["P4", "P5", "A8"], ["P6", "P7", "P8"], ["P9", "P10"]]


def post(client, endpoint, body):
    return client.post(f"/api/v1/rebel-princess/{endpoint}", json=body)


def codes(response):
    return [problem["code"] for problem in response.get_json()["problems"]]


def spread(players, fixed, cards=None):
    """Seats in ``fixed`` take exactly their cards; every other card of ``cards`` (the whole deck
    by default) is dealt round-robin to the remaining seats."""
    taken = [list(fixed.get(seat, ())) for seat in range(players)]
    used = {code for seat_cards in fixed.values() for code in seat_cards}
    others = [seat for seat in range(players) if seat not in fixed]
    pool = [card.code for card in (cards or deck(players)) if card.code not in used]
    for index, code in enumerate(pool):
        taken[others[index % len(others)]].append(code)
    return taken


def score(client, edition="deluxe", round_card="a", players=4, taken=None, **extra):
    body = {"edition": edition, "round_card": round_card, "players": players,
            "taken": FOUR_PLAYER_A if taken is None else taken, **extra}
    return post(client, "score-round", body)


# --- score-round ----------------------------------------------------------------------------------

def test_plain_round(client):
    response = score(client)
    assert response.status_code == 200
    assert response.get_json()["scores"] == [3, 7, 3, 2]
    assert response.get_json()["rebel_of_the_ball"] == []


def test_rulebook_six_player_trick_scores_six(client):
    """Q3 Q7 P12 F9 A8 Q4 in one trick: one Prince and the Frog, 6 points."""
    taken = spread(6, {1: ["Q3", "Q7", "P12", "F9", "A8", "Q4"]})
    response = score(client, players=6, taken=taken)
    assert response.status_code == 200
    data = response.get_json()
    assert data["scores"][1] == 6
    assert data["lines"][1] == [{"rule": "prince", "points": 1, "count": 1},
                                {"rule": "frog", "points": 5, "count": 1}]
    assert sum(data["scores"]) == 12 + 5


def test_rebel_of_the_ball_scores_minus_ten(client):
    """Every Prince and the Frog: exactly -10, not +17."""
    rebel = [card.code for card in princes(6)] + ["A8", "Q1"]
    response = score(client, players=6, taken=spread(6, {4: rebel}))
    data = response.get_json()
    assert data["scores"][4] == -10
    assert data["rebel_of_the_ball"] == [4]
    assert data["lines"][4] == [{"rule": "rebel-of-the-ball", "points": -10, "count": 1}]


@pytest.mark.parametrize(("edition", "round_card"), [("deluxe", "o"), ("classic", "A")])
def test_no_rebel_of_the_ball_under_wedding_gift_or_in_classic(client, edition, round_card):
    everything = [card.code for card in princes(4)] + ["A8"]
    response = score(client, edition, round_card, taken=spread(4, {0: everything}))
    assert response.get_json()["scores"][0] == 15
    assert response.get_json()["rebel_of_the_ball"] == []


def test_dancing_queens_pairs_couples_first(client):
    """P2 P7 P9 Q2 Q5: same-rank couple 3, mixed couple 2, single Prince 1."""
    pool = princes(4) + suit_cards(4, Suit.QUEEN) + (FROG,)
    taken = spread(4, {0: ["P2", "P7", "P9", "Q2", "Q5"]}, pool)
    data = score(client, round_card="z", taken=taken).get_json()
    assert data["scores"][0] == 6
    assert data["lines"][0] == [{"rule": "same-rank-couple", "points": 3, "count": 1},
                                {"rule": "mixed-couple", "points": 2, "count": 1},
                                {"rule": "prince", "points": 1, "count": 1}]


SCORING_CARDS = [
    # edition, card, players, cards of the seats we check, extra fields, expected scores
    ("deluxe", "d", 4, {0: ["P3", "Q3", "F3"]}, {}, {0: 1 - 9}),
    ("deluxe", "e", 4, {0: []}, {"tricks_won": [0, 4, 3, 3]}, {0: 5}),
    ("deluxe", "j", 4, {0: ["A8", "A1"]}, {}, {0: 6 + 1}),
    ("deluxe", "n", 4, {0: ["P1", "A8"]}, {}, {0: 6}),
    ("deluxe", "o", 4, {0: ["P1", "P2"]}, {}, {0: 2}),
    ("deluxe", "t", 4, {0: ["F1", "F2", "P1"]}, {}, {0: 1 - 2}),
    ("deluxe", "y", 4, {0: ["P1", "P2"], 1: ["P3"]}, {"totals_before": [0, 5, 5, 1]},
     {0: 4, 1: 1}),
    ("deluxe", "z", 4, {0: ["P1", "Q1"]}, {}, {0: 3}),
    ("classic", "F", 3, {0: ["A8", "A2"]}, {}, {0: 7}),
    ("classic", "K", 5, {0: ["P1", "Q2"]}, {}, {0: 2}),
    ("classic", "M", 4, {0: ["P1", "P2", "A8"]}, {}, {0: 7}),
    ("classic", "O", 3, {0: ["P3"], 1: ["P2", "P4"]}, {"totals_before": [9, 4, 9]},
     {0: 1, 1: 4}),
    ("classic", "P", 6, {0: ["F12"]}, {}, {0: -1}),
]


@pytest.mark.parametrize(("edition", "round_card", "players", "fixed", "extra", "expected"),
                         SCORING_CARDS, ids=[f"{case[0]}-{case[1]}" for case in SCORING_CARDS])
def test_scoring_round_cards(client, edition, round_card, players, fixed, extra, expected):
    # Under Arranged Marriage only scored cards go out, so nobody holds more than their tricks.
    pool = princes(players) + (FROG,) if round_card == "e" else None
    response = score(client, edition, round_card, players, spread(players, fixed, pool), **extra)
    assert response.status_code == 200, response.get_json()
    data = response.get_json()
    assert {seat: data["scores"][seat] for seat in expected} == expected
    for seat_score, lines in zip(data["scores"], data["lines"], strict=True):
        assert seat_score == sum(line["points"] for line in lines)


def _without(taken, code):
    return [[card for card in cards if card != code] for cards in taken]


REFUSALS = [
    ("unknown-card", dict(taken=[["X9", *FOUR_PLAYER_A[0]], *FOUR_PLAYER_A[1:]]), "X9"),
    ("unknown-card", dict(taken=[["P²", *FOUR_PLAYER_A[0]], *FOUR_PLAYER_A[1:]]), "P²"),
    ("card-not-in-deck", dict(taken=[["P11", *FOUR_PLAYER_A[0]], *FOUR_PLAYER_A[1:]]), "P11"),
    ("card-not-in-deck", dict(players=3, taken=spread(3, {0: ["P1"]}, princes(3) + (FROG,))),
     "P1"),
    ("duplicate-card", dict(taken=[["P4", *FOUR_PLAYER_A[0]], *FOUR_PLAYER_A[1:]]), "P4"),
    ("missing-card", dict(taken=_without(FOUR_PLAYER_A, "A8")), "A8"),
    ("missing-card", dict(round_card="z", taken=_without(spread(
        4, {}, princes(4) + suit_cards(4, Suit.QUEEN) + (FROG,)), "Q4")), "Q4"),
    ("wrong-seat-count", dict(taken=FOUR_PLAYER_A[:3]), None),
    ("bad-player-count", dict(players=7), None),
    ("bad-player-count", dict(players=2), None),
    ("unknown-edition", dict(edition="base"), None),
    ("unknown-round-card", dict(edition="classic", round_card="z"), None),
    ("unknown-round-card", dict(edition="classic", round_card="V"), None),
    ("missing-tricks-won", dict(round_card="e"), None),
    ("tricks-won-total", dict(round_card="e", tricks_won=[2, 2, 2, 2]), None),
    ("bad-tricks-won", dict(round_card="e", tricks_won=[-1, 5, 3, 3]), None),
    ("cards-without-trick", dict(round_card="e", tricks_won=[0, 4, 3, 3]), None),
    ("missing-totals-before", dict(round_card="y"), None),
    ("missing-totals-before", dict(edition="classic", round_card="O"), None),
    ("wrong-seat-count", dict(round_card="y", totals_before=[0, 0]), None),
    ("wrong-type", dict(players=True), None),
    ("wrong-type", dict(round_card="e", tricks_won=[True, 4, 3, 2]), None),
    ("wrong-type", dict(round_card="y", totals_before=[0, 1, False, 2]), None),
    ("wrong-type", dict(players="4"), None),
    ("wrong-type", dict(taken=[["P1", 3], [], [], []]), None),
    ("too-many-items", dict(taken=[[]] * 7), None),
    ("unknown-field", dict(trick_won=[1, 2, 3, 4]), None),
]


@pytest.mark.parametrize(("code", "changes", "card"), REFUSALS,
                         ids=[f"{case[0]}-{index}" for index, case in enumerate(REFUSALS)])
def test_refusals_name_the_problem(client, code, changes, card):
    response = score(client, **changes)
    assert response.status_code == 422
    assert code in codes(response)
    problem = next(p for p in response.get_json()["problems"] if p["code"] == code)
    assert problem.get("card") == card
    assert response.get_json()["error"]


def test_missing_field_is_named(client):
    response = post(client, "score-round", {"edition": "deluxe", "players": 4, "taken": []})
    assert response.status_code == 422
    assert response.get_json()["problems"] == [
        {"code": "missing-field", "field": "round_card", "message": "“round_card” is missing."}]


def test_wrong_type_names_the_seat(client):
    response = score(client, round_card="e", tricks_won=[0, 4, True, 6])
    assert response.get_json()["problems"][0]["seat"] == 2
    assert response.get_json()["problems"][0]["field"] == "tricks_won[2]"


def test_every_problem_is_listed(client):
    taken = [["X9", "P4", *FOUR_PLAYER_A[0]], *FOUR_PLAYER_A[1:]]
    response = score(client, round_card="e", taken=taken)
    assert codes(response) == ["unknown-card", "duplicate-card", "missing-tricks-won"]


def test_cards_that_score_nothing_may_be_listed_or_left_out(client):
    listed = score(client, taken=spread(4, {0: ["P1", "A8"]})).get_json()["scores"]
    left_out = score(client, taken=spread(4, {0: ["P1", "A8"]}, princes(4) + (FROG,)))
    assert left_out.get_json()["scores"] == listed


def test_edition_and_round_card_case_does_not_matter(client):
    assert score(client, edition=" Deluxe", round_card="A").status_code == 200


@pytest.mark.parametrize(("data", "content_type"), [
    ("{", "application/json"),
    ("", "application/json"),
    ("[1, 2]", "application/json"),
    ("null", "application/json"),
    ('{"edition": "deluxe"}', "text/plain"),
])
def test_malformed_json_is_400(client, data, content_type):
    response = client.post("/api/v1/rebel-princess/score-round", data=data,
                           content_type=content_type)
    assert response.status_code == 400
    assert codes(response) == ["malformed-json"]


def test_body_too_large_is_413(client):
    response = score(client, taken=[["P1" * 40_000]])
    assert response.status_code == 413
    assert codes(response) == ["body-too-large"]


# --- next-leader ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("totals", "last_leader", "leader", "reason"), [
    ([5, 3, 3, 8], 0, 1, "tie-broken"),
    ([5, 3, 4, 8], 0, 1, "lowest-total"),
    ([2, 5, 2, 5], 2, 0, "tie-broken"),  # the scan wraps round past the last seat
    ([1, 4, 4, 1], 0, 3, "tie-broken"),  # the previous leader comes last
    ([1, 4, 4, 1], 3, 0, "tie-broken"),
    ([0, 0, 0], 1, 2, "tie-broken"),
])
def test_next_leader_deluxe(client, totals, last_leader, leader, reason):
    body = {"edition": "deluxe", "totals": totals, "last_leader": last_leader}
    data = post(client, "next-leader", body).get_json()
    assert (data["leader"], data["reason"]) == (leader, reason)


def test_next_leader_deluxe_lists_the_tie(client):
    body = {"edition": "deluxe", "totals": [5, 3, 3, 8], "last_leader": 0}
    assert post(client, "next-leader", body).get_json()["tied"] == [1, 2]


def test_next_leader_classic_is_the_last_trick_winner(client):
    body = {"edition": "classic", "players": 4, "last_trick_winner": 2}
    response = post(client, "next-leader", body)
    assert response.status_code == 200
    assert response.get_json() == {"leader": 2, "reason": "last-trick", "tied": []}


@pytest.mark.parametrize(("body", "code"), [
    ({"edition": "deluxe", "totals": [1, 2, 3, 4], "last_leader": 4}, "bad-leader"),
    ({"edition": "deluxe", "totals": [1, 2], "last_leader": 0}, "bad-player-count"),
    ({"edition": "deluxe", "totals": [1, 2, 3], "last_leader": True}, "wrong-type"),
    ({"edition": "deluxe", "totals": [1, 2, 3]}, "missing-field"),
    ({"edition": "classic", "players": 7, "last_trick_winner": 2}, "bad-player-count"),
    ({"edition": "classic", "players": 4, "last_trick_winner": -1}, "bad-leader"),
    ({"edition": "classic", "totals": [1, 2, 3], "last_leader": 0}, "unknown-field"),
    ({"totals": [1, 2, 3], "last_leader": 0}, "missing-field"),
    ({"edition": "base", "players": 4, "last_trick_winner": 2}, "unknown-edition"),
    ({"edition": 4, "players": 4, "last_trick_winner": 2}, "wrong-type"),
])
def test_next_leader_refusals(client, body, code):
    response = post(client, "next-leader", body)
    assert response.status_code == 422
    assert code in codes(response)


# --- standings ------------------------------------------------------------------------------------

def standings(client, edition, rounds, **extra):
    return post(client, "standings", {"edition": edition, "rounds": rounds, **extra})


def test_standings_plain_win(client):
    data = standings(client, "deluxe", [[1, 2, 3, 4], [0, 1, 0, 2]]).get_json()
    assert data["totals"] == [1, 3, 3, 6]
    assert data["ranking"][0] == 0
    assert (data["winners"], data["decided_by"], data["playoff"]) == ([0], "total", [])


def test_deluxe_tie_broken_by_rounds_at_or_below_zero(client):
    data = standings(client, "deluxe", [[2, 5, 1, 3], [2, -1, 4, 4]]).get_json()
    assert (data["winners"], data["decided_by"]) == ([1], "rounds_at_or_below_zero")
    assert data["ranking"][:2] == [1, 0]


def test_deluxe_tie_that_stands_calls_a_playoff(client):
    data = standings(client, "deluxe", [[2, 2, 3, 3]]).get_json()
    assert (data["winners"], data["decided_by"], data["playoff"]) == ([], "playoff", [0, 1])


def test_deluxe_playoff_resolves_the_tie(client):
    data = standings(client, "deluxe", [[2, 2, 3, 3]], playoffs=[[1, 0, 2, 2]]).get_json()
    assert (data["winners"], data["decided_by"], data["playoffs_played"]) == ([1], "total", 1)


def test_deluxe_playoff_tied_again(client):
    data = standings(client, "deluxe", [[2, 2, 3, 3]], playoffs=[[1, 1, 0, 0]]).get_json()
    assert (data["decided_by"], data["playoff"]) == ("playoff", [0, 1, 2, 3])


def test_classic_tie_broken_by_rounds_at_exactly_zero(client):
    data = standings(client, "classic", [[2, 4, 1, 3], [2, 0, 4, 4]]).get_json()
    assert (data["winners"], data["decided_by"]) == ([1], "rounds_at_zero")


def test_classic_negative_round_is_not_zero(client):
    data = standings(client, "classic", [[2, 5, 1, 3], [2, -1, 4, 4]]).get_json()
    assert (data["winners"], data["decided_by"]) == ([0, 1], "shared")


def test_classic_tie_is_shared(client):
    data = standings(client, "classic", [[2, 2, 3, 3]]).get_json()
    assert (data["winners"], data["decided_by"], data["playoff"]) == ([0, 1], "shared", [])


@pytest.mark.parametrize(("edition", "rounds", "extra", "code"), [
    ("classic", [[2, 2, 3, 3]], {"playoffs": [[1, 0, 2, 2]]}, "playoffs-classic"),
    ("deluxe", [], {}, "no-rounds"),
    ("deluxe", [[1, 2, 3], [1, 2]], {}, "wrong-seat-count"),
    ("deluxe", [[1, 2, 3]] * 6, {}, "too-many-items"),
    ("deluxe", [[1, 2, 3]], {"playoffs": [[1, 2, 3]] * 11}, "too-many-items"),
    ("deluxe", [[1, 2, 3, 4, 5, 6, 7]], {}, "too-many-items"),
    ("deluxe", [[1, 2]], {}, "bad-player-count"),
    ("deluxe", [[1, False, 3]], {}, "wrong-type"),
    ("deluxe", [[1, 2.5, 3]], {}, "wrong-type"),
    ("tournament", [[1, 2, 3]], {}, "unknown-edition"),
])
def test_standings_refusals(client, edition, rounds, extra, code):
    response = standings(client, edition, rounds, **extra)
    assert response.status_code == 422
    assert code in codes(response)


# --- statelessness --------------------------------------------------------------------------------

@pytest.mark.parametrize(("endpoint", "body"), [
    ("score-round", {"edition": "deluxe", "round_card": "a", "players": 4, "taken": FOUR_PLAYER_A}),
    ("next-leader", {"edition": "classic", "players": 4, "last_trick_winner": 2}),
    ("standings", {"edition": "deluxe", "rounds": [[1, 2, 3]]}),
    ("standings", {"edition": "deluxe"}),
])
def test_api_sets_no_cookie(client, endpoint, body):
    response = post(client, endpoint, body)
    assert "Set-Cookie" not in response.headers
    assert response.content_type == "application/json"


def test_api_needs_no_csrf_token(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": True,
                      "DATABASE": str(tmp_path / "csrf.sqlite")})
    app.add_url_rule("/probe", "probe", lambda: "ok", methods=["POST"])
    assert app.test_client().post("/probe").status_code == 400  # CSRF is really on
    response = post(app.test_client(), "score-round", {
        "edition": "deluxe", "round_card": "a", "players": 4, "taken": FOUR_PLAYER_A})
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers
