"""Helpers shared by the tests of POST /api/v1/rebel-princess/check-round that read evidence
(test_api_evidence.py, test_api_known_in.py, test_api_known_kinds.py): one place, not three."""

from __future__ import annotations

URL = "/api/v1/rebel-princess/check-round"


def plays(leader, players, cards):
    """The plays of a trick led by ``leader``, one card per seat in turn (``"Q5 A2 Q9"``)."""
    return [{"seat": (leader + i) % players, "card": card} for i, card in enumerate(cards.split())]


def check(client, round_card, *tricks, edition="deluxe", players=4, **extra):
    """POST a round (4 players, seat 0 leads) and return the response."""
    body = {"edition": edition, "round_card": round_card, "players": players, "leader": 0,
            "tricks": list(tricks), **extra}
    return client.post(URL, json=body)


def violations(response):
    """``(trick, proven_in, code, seat)`` of every violation of a 200 answer."""
    assert response.status_code == 200, response.get_json()
    return [(v["trick"], v["proven_in"], v["code"], v["seat"])
            for v in response.get_json()["violations"]]


def refusals(response):
    """``(code, seat, field)`` of every problem of a 422 answer (an entry refused)."""
    assert response.status_code == 422, response.get_json()
    return [(p["code"], p.get("seat"), p.get("field")) for p in response.get_json()["problems"]]
