"""The stateless JSON API of « Réveillez »: the issue's examples exactly, every 422 case in the
shared error shape, and the endpoints in the OpenAPI document."""

from __future__ import annotations

import pytest

EXAMPLES = [
    ("standings", {"players": 3, "awake": [[20, 15, 15, 5], [5], []], "sleeping": 7},
     {"points": [55, 5, 0], "princesses": [4, 1, 0], "to_win": {"princesses": 5, "points": 50},
      "game_over": True, "winners": [0], "reason": "points"}),
    ("jester", {"players": 4, "jester_seat": 0, "revealed": 6}, {"wakes": 1, "play_again": False}),
    ("jester", {"players": 4, "jester_seat": 0, "revealed": "chevalier"},
     {"wakes": None, "play_again": True}),
    ("discard", {"cards": [1, 3, 4, 8]}, {"valid": True, "kind": "addition", "draw": 4}),
    ("discard", {"cards": [2, 3]}, {"valid": False, "kind": None, "draw": 0}),
    ("standings", {"players": 4, "awake": [[5, 10], [20], [], [15, 15, 5]], "sleeping": 6},
     {"points": [15, 20, 0, 35], "princesses": [2, 1, 0, 3],
      "to_win": {"princesses": 4, "points": 40}, "game_over": False, "winners": [],
      "reason": None}),
]


@pytest.mark.parametrize(("endpoint", "body", "expected"), EXAMPLES)
def test_issue_examples(client, endpoint, body, expected):
    """The issue's requests get exactly the issue's answers."""
    answer = client.post(f"/api/v1/reveillez/{endpoint}", json=body)
    assert answer.status_code == 200 and answer.get_json() == expected


@pytest.mark.parametrize(("endpoint", "body", "code"), [
    ("standings", {"players": 6, "awake": [[]] * 6, "sleeping": 12}, "players-range"),
    ("standings", {"players": 1, "awake": [[]], "sleeping": 12}, "players-range"),
    ("standings", {"players": 3, "awake": [[5], [], []], "sleeping": 7}, "princess-count"),
    ("standings", {"players": 3, "awake": [[5], [], []], "sleeping": 13}, "sleeping-range"),
    ("standings", {"players": 3, "awake": [[5], []], "sleeping": 11}, "seats-mismatch"),
    ("standings", {"players": 3, "awake": [[0], [], []], "sleeping": 11}, "princess-value"),
    ("jester", {"players": 4, "jester_seat": 4, "revealed": 6}, "seat-range"),
    ("jester", {"players": 7, "jester_seat": 0, "revealed": 6}, "players-range"),
    ("jester", {"players": 4, "jester_seat": 0, "revealed": 11}, "number-range"),
    ("jester", {"players": 4, "jester_seat": 0, "revealed": "joker"}, "unknown-card"),
    ("discard", {"cards": [0, 3]}, "number-range"),
    ("discard", {"cards": ["épée"]}, "unknown-card"),
    ("discard", {"cards": []}, "discard-empty"),
    ("discard", {"cards": [1, 1, 1, 1, 1, 5]}, "discard-too-many"),
    ("standings", {"players": "3", "awake": [[], [], []], "sleeping": 12}, "wrong-type"),
    ("jester", {"players": 4, "jester_seat": 0}, "missing-field"),
    ("discard", {"cards": [1], "extra": 1}, "unknown-field"),
])
def test_refusals_are_422_in_the_shared_shape(client, endpoint, body, code):
    """Players outside 2–5, not 12 princesses, a seat outside the table, a number outside 1–10,
    an unknown card (and shape errors) answer 422 with every problem."""
    answer = client.post(f"/api/v1/reveillez/{endpoint}", json=body)
    assert answer.status_code == 422
    data = answer.get_json()
    assert data["error"] and code in [p["code"] for p in data["problems"]]
    assert all(p["message"] for p in data["problems"])


def test_problem_names_the_seat(client):
    """A bad value in a seat's list carries that seat."""
    answer = client.post("/api/v1/reveillez/standings",
                         json={"players": 3, "awake": [[5], [], [10, 0]], "sleeping": 9})
    assert answer.get_json()["problems"][0]["seat"] == 2


def test_not_json_is_400(client):
    assert client.post("/api/v1/reveillez/discard", data="[").status_code == 400


def test_openapi_document_lists_the_three_endpoints(client):
    """The OpenAPI document has the three endpoints with their models and examples."""
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    for name in ("standings", "jester", "discard"):
        operation = paths[f"/api/v1/reveillez/{name}"]["post"]
        assert operation["operationId"] == f"reveillez{name.title()}"
