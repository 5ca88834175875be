"""POST /api/v1/rebel-princess/check-round: every card that becomes known is evidence, and the
timing rules declared on the Round cards and powers are refused with a 422 (expectations from the
rulebooks and RULINGS.md; see tests/rebel_princess/engine/test_evidence.py)."""

from __future__ import annotations

import pytest

from .check_round_api import URL, check, plays, violations

TRICK_0 = {"plays": plays(0, 4, "Q5 A2 Q9 Q7")}  # seat 1 plays A2 on a Queen lead; seat 2 wins
REVOKE = (0, 1, "must-follow-suit", 1)


def trick_1(**extra):
    return {"plays": plays(2, 4, "F5 F2 F3 F9"), **extra}  # won by seat 1


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "p"), ("classic", "T")])
def test_haggle_shows_a_card_that_proves_a_revoke(client, edition, letter):
    """The issue's case: trick 1 won by seat 1, who haggles giving Q3: A2 was a revoke."""
    haggle = {"step": "haggle", "seat": 1, "give": "Q3", "take": "F5"}
    response = check(client, letter, TRICK_0, trick_1(steps=[haggle]), edition=edition)
    assert violations(response) == [REVOKE] and response.get_json()["legal"] is False
    assert violations(check(client, letter, TRICK_0, trick_1(), edition=edition)) == []


def test_scheherazade_drawn_card_proves_a_revoke(client):
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["Q3", "F10"]}
    response = check(client, "a", TRICK_0, trick_1(powers=[power]),
                     princesses={"0": "scheherazade"})
    assert violations(response) == [REVOKE]
    hidden = {"power": "scheherazade", "seat": 0, "target": 1}
    assert violations(check(client, "a", TRICK_0, trick_1(powers=[hidden]),
                            princesses={"0": "scheherazade"})) == []


def test_sleeping_beauty_contribution_proves_a_revoke(client):
    power = {"power": "sleeping-beauty", "seat": 0, "cards": ["F10", "Q3", "P2", "P3"],
             "more": ["Q3", "F10", "P3", "P2"]}
    response = check(client, "a", TRICK_0, trick_1(powers=[power]),
                     princesses={"0": "sleeping-beauty"})
    assert violations(response) == [REVOKE]
    hidden = {"power": "sleeping-beauty", "seat": 0}
    assert violations(check(client, "a", TRICK_0, trick_1(powers=[hidden]),
                            princesses={"0": "sleeping-beauty"})) == []


def test_card_received_from_scheherazade_is_no_revoke(client):
    power = {"power": "scheherazade", "seat": 0, "target": 1, "cards": ["F10", "Q3"]}
    later = {"plays": plays(2, 4, "F5 F2 F3 Q3")}  # seat 1 plays the Q3 it was given
    assert violations(check(client, "a", TRICK_0, {**later, "powers": [power]},
                            princesses={"0": "scheherazade"})) == []


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "o"), ("classic", "M")])
def test_gift_pile_card_proves_a_revoke(client, edition, letter):
    first = {**TRICK_0, "steps": [{"step": "gift", "cards": ["P2", "P3", "P4", "P5"]}]}
    gift = {"step": "gift", "cards": ["P6", "Q3", "P7", "P8"]}
    response = check(client, letter, first, trick_1(steps=[gift]), edition=edition)
    assert violations(response) == [REVOKE]
    plain = {"step": "gift", "cards": ["P6", "P9", "P7", "P8"]}
    assert violations(check(client, letter, first, trick_1(steps=[plain]),
                            edition=edition)) == []


def test_kept_cards_prove_a_revoke(client):
    """Deluxe n: the 3 kept cards are shown at the end; seat 1's Q3 proves its A10 a revoke."""
    tricks, leader = [], 0
    for cards in ("Q2 A10 Q4", "F2 F3 F4", "F5 F6 F7", "F8 F9 F10", "A2 A3 A4", "A5 A6 A7",
                  "A8 P10 A9", "P2 P3 P4", "P5 P6 P7"):  # each won by the last to play
        tricks.append({"plays": plays(leader, 3, cards)})
        leader = (leader + 2) % 3
    kept = [["Q5", "Q6", "Q7"], ["Q3", "P8", "P9"], ["Q8", "Q9", "Q10"]]
    found = violations(check(client, "n", *tricks, players=3, kept=kept))
    assert found == [(0, 8, "must-follow-suit", 1)]
    assert violations(check(client, "n", *tricks, players=3)) == []


def late_round(power_at, power):
    cards = [f"{suit}{rank}" for suit in "QFAP" for rank in range(2, 11)]
    tricks, leader = [], 0
    for number, start in enumerate(range(0, len(cards), 3)):
        trick = {"plays": plays(leader, 3, " ".join(cards[start:start + 3]))}
        if number == power_at:
            trick["powers"] = [power]
        tricks.append(trick)
        leader = (leader + 2) % 3
    return tricks


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "b"), ("classic", "G")])
@pytest.mark.parametrize("power", [{"power": "sleeping-beauty", "seat": 0},
                                   {"power": "scheherazade", "seat": 0, "target": 1}])
def test_late_to_the_ball_power_on_the_last_trick_is_a_422(client, edition, letter, power):
    """Late to the Ball: Sleeping Beauty and Scheherazade may not act on the last card."""
    princesses = {"0": power["power"]}
    fine = check(client, letter, *late_round(10, power), edition=edition, players=3,
                 princesses=princesses)
    assert fine.status_code == 200 and fine.get_json()["legal"] is True
    response = check(client, letter, *late_round(11, power), edition=edition, players=3,
                     princesses=princesses)
    assert response.status_code == 422
    (problem,) = response.get_json()["problems"]
    assert problem["code"] == "not-on-last-trick"
    assert problem["field"] == "tricks[11].powers[0]"
    french = client.post(URL, json={"edition": edition, "round_card": letter, "players": 3,
                                    "leader": 0, "tricks": late_round(11, power),
                                    "princesses": princesses},
                         headers={"Accept-Language": "fr"}).get_json()["problems"][0]
    assert "dernier pli" in french["message"] or "last trick" in problem["message"]


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "k"), ("classic", "E")])
def test_musical_chairs_pass_proves_a_revoke(client, edition, letter):
    """After each trick every player passes a card from their hand to the right (k / E)."""
    chairs = {"step": "chairs", "cards": ["P2", "Q3", "P4", "P5"]}
    response = check(client, letter, {**TRICK_0, "steps": [chairs]}, edition=edition)
    assert violations(response) == [(0, 0, "must-follow-suit", 1)]
    later = {"plays": plays(2, 4, "F5 F2 F3 Q3")}  # seat 1 plays Q3; passes not entered
    assert violations(check(client, letter, TRICK_0, later, edition=edition)) == []
    wrong = check(client, "a", {**TRICK_0, "steps": [chairs]})
    assert wrong.status_code == 422 and [p["code"] for p in wrong.get_json()["problems"]] == [
        "step-not-due"]
