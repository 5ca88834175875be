"""Princess powers that block each other, through the engine, table entry and the JSON API.

Every conflict note of both rulebooks, read from the rulebooks and RULINGS.md:

- Deluxe "Princess Cards" p. 23: the Little Mermaid may not act once the Ice Princess or
  Rapunzel acted on the lead player this trick; Rapunzel not once the Ice Princess or the Little
  Mermaid did; Pocahontas not once the Little Mermaid or Rapunzel acted this trick; Scheherazade
  not on the leading player once the Ice Princess, the Little Mermaid or Rapunzel acted this
  trick; Sleeping Beauty not once any of those three acted. Deluxe "Using the power of a
  Princess" p. 10: a power that would undo another player's may not be used that trick (so the
  Ice Princess may not freeze the leader's card once the Little Mermaid or Rapunzel asked for a
  suit; RULINGS.md: "Little Mermaid vs Ice Princess vs Rapunzel ... block the later power").
- The classic rulebook lists no conflict; RULINGS.md applies the Deluxe ones to it (its Ice
  Princess always draws the leader's card).
- The Little Mermaid may not make the leader lead Princes before they snuck in (Deluxe: unless
  the leader holds only Princes; French: « vous ne pouvez pas faire jouer la couleur des Princes
  s'ils ne sont pas encore apparus »): naming them then changes nothing, the leader leads freely.
- Thumbelina may not use her power to ignore the suit the Little Mermaid or Rapunzel asked for.

A blocked power is refused where it is entered and never changes how later plays are judged:
each case is checked with and without later evidence (a card played later that would have made
an earlier play illegal had the blocked power counted).
"""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.cards import Suit
from companion.scoring.rebel_princess.engine import (
    PowerUse,
    RoundState,
    TableRound,
    parse_card,
    parse_cards,
)

from .conftest import NAMES, act, attr

API = "/api/v1/rebel-princess/check-round"
FIRST, SECOND = 1, 3  # Ben uses the first power, Di the second; Ana (seat 0) leads
#: The hands of the full-information cases (seat 0 leads).
HANDS = ["Q5Q6F1P1", "Q7F2P2A1", "Q9F3P3A2", "Q8F4P4A3"]
#: The card the Ice Princess freezes, by target.
FROZEN = {0: "Q5", 2: "Q9"}


def case(edition, first, second, blocked):
    first = first if isinstance(first, tuple) else (first, {})
    second = second if isinstance(second, tuple) else (second, {})
    name = f"{edition}-{first[0]}{first[1] or ''}-then-{second[0]}{second[1] or ''}"
    return pytest.param(edition, first, second, blocked, id=name.replace(" ", ""))


CASES = [
    # The Little Mermaid: not after the Ice Princess on the leader, nor after Rapunzel.
    case("deluxe", ("ice-princess", {"target": 0}), ("little-mermaid", {"suit": "F"}), True),
    case("deluxe", ("ice-princess", {"target": 2}), ("little-mermaid", {"suit": "F"}), False),
    case("deluxe", "rapunzel", ("little-mermaid", {"suit": "Q"}), True),
    # Rapunzel: not after the Ice Princess on the leader, nor after the Little Mermaid.
    case("deluxe", ("ice-princess", {"target": 0}), "rapunzel", True),
    case("deluxe", ("ice-princess", {"target": 2}), "rapunzel", False),
    case("deluxe", ("little-mermaid", {"suit": "Q"}), "rapunzel", True),
    # Pocahontas: not after the Little Mermaid or Rapunzel.
    case("deluxe", ("little-mermaid", {"suit": "Q"}), ("pocahontas", {"target": 2}), True),
    case("deluxe", "rapunzel", ("pocahontas", {"target": 2}), True),
    case("deluxe", ("ice-princess", {"target": 0}), ("pocahontas", {"target": 2}), False),
    # Scheherazade: not on the leader after any of the three; on another player she may.
    case("deluxe", ("ice-princess", {"target": 2}), ("scheherazade", {"target": 0}), True),
    case("deluxe", ("ice-princess", {"target": 0}), ("scheherazade", {"target": 0}), True),
    case("deluxe", ("little-mermaid", {"suit": "Q"}), ("scheherazade", {"target": 0}), True),
    case("deluxe", "rapunzel", ("scheherazade", {"target": 0}), True),
    case("deluxe", ("little-mermaid", {"suit": "Q"}), ("scheherazade", {"target": 2}), False),
    # Sleeping Beauty: not after any of the three, whoever the Ice Princess acted on.
    case("deluxe", ("little-mermaid", {"suit": "Q"}), "sleeping-beauty", True),
    case("deluxe", ("ice-princess", {"target": 2}), "sleeping-beauty", True),
    case("deluxe", "rapunzel", "sleeping-beauty", True),
    case("deluxe", "cinderella", "sleeping-beauty", False),
    # A power that would undo another's: the Ice Princess on the leader after a suit was asked.
    case("deluxe", ("little-mermaid", {"suit": "Q"}), ("ice-princess", {"target": 0}), True),
    case("deluxe", "rapunzel", ("ice-princess", {"target": 0}), True),
    case("deluxe", ("little-mermaid", {"suit": "Q"}), ("ice-princess", {"target": 2}), False),
    # The order matters: the later power is the one blocked.
    case("deluxe", ("pocahontas", {"target": 2}), ("little-mermaid", {"suit": "Q"}), False),
    case("deluxe", "cinderella", ("little-mermaid", {"suit": "Q"}), False),
    # Classic (RULINGS.md applies the Deluxe conflicts; her Ice Princess draws from the leader).
    case("classic", ("ice-princess", {"target": 0}), ("little-mermaid", {"suit": "F"}), True),
    case("classic", ("little-mermaid", {"suit": "Q"}), ("ice-princess", {"target": 0}), True),
    case("classic", ("little-mermaid", {"suit": "Q"}), "sleeping-beauty", True),
    case("classic", ("ice-princess", {"target": 0}), "sleeping-beauty", True),
    case("classic", ("little-mermaid", {"suit": "Q"}), ("scheherazade", {"target": 0}), True),
    case("classic", ("ice-princess", {"target": 0}), ("scheherazade", {"target": 0}), True),
    case("classic", ("little-mermaid", {"suit": "Q"}), ("scheherazade", {"target": 2}), False),
    case("classic", "cinderella", ("little-mermaid", {"suit": "Q"}), False),
]


def table_use(seat, slug, args, full=False):
    """The power use as entered at the table (hidden cards left out), or with every card
    (``full``, for the full-information state over :data:`HANDS`)."""
    target, suit, cards, more = args.get("target"), args.get("suit"), (), ()
    if slug == "ice-princess":
        cards = parse_cards(FROZEN[target])
    elif slug == "scheherazade" and full:
        cards = (sorted(parse_cards(HANDS[target]), key=str)[0], parse_card("A3"))
    elif slug == "sleeping-beauty" and full:
        cards, more = parse_cards("Q6 Q7 Q9 Q8"), parse_cards("Q7 Q9 Q6 Q8")
    return PowerUse(seat, slug, target, Suit(suit) if suit else None, cards, more)


def api_use(seat, slug, args):
    body = {"power": slug, "seat": seat, **args}
    if slug == "ice-princess":
        body["cards"] = [FROZEN[args["target"]]]
    return body


def princesses(first, second):
    return {FIRST: first[0], SECOND: second[0]}


def letter(edition):
    return "a" if edition == "deluxe" else "A"


def new_table(edition, names, **extra):
    seats = [None] * 4
    for seat, slug in names.items():
        seats[seat] = slug
    return TableRound(4, edition=edition, round_card=letter(edition), princesses=seats, **extra)


# --- the engine -----------------------------------------------------------------------------------

@pytest.mark.parametrize("edition, first, second, blocked", CASES)
def test_full_information_state_refuses_the_later_power(edition, first, second, blocked):
    seats = [None] * 4
    seats[FIRST], seats[SECOND] = first[0], second[0]
    state = RoundState(HANDS, edition=edition, round_card=letter(edition), princesses=seats)
    state.play_step(table_use(FIRST, *first, full=True))
    found = state.check_step(table_use(SECOND, *second, full=True))
    assert [p.code for p in found] == (["power-blocked"] if blocked else [])
    if blocked:
        assert (found[0].seat, found[0].params["rule"], found[0].params["by"]) == (
            SECOND, second[0], first[0])


@pytest.mark.parametrize("edition, first, second, blocked", CASES)
def test_table_entry_refuses_the_later_power(edition, first, second, blocked):
    table = new_table(edition, princesses(first, second))
    table.push_power(table_use(FIRST, *first))
    found = table.check_power(table_use(SECOND, *second))
    assert [(p.code, p.seat, p.trick) for p in found] == (
        [("power-blocked", SECOND, 0)] if blocked else [])
    # Not offered either, when it is blocked whoever it would act on.
    offered = table.blocked_power(SECOND) is None
    if not blocked or second[0] not in ("scheherazade", "ice-princess"):
        assert offered == (not blocked)


@pytest.mark.parametrize("edition, first, second, blocked", CASES)
def test_a_blocked_power_stored_earlier_is_a_finding_and_changes_nothing(
        edition, first, second, blocked):
    """A round stored before the rule was checked still opens: the blocked use is a finding
    at its trick naming its seat, and it changes nothing (not even who leads)."""
    table = new_table(edition, princesses(first, second))
    table.push_step(table_use(FIRST, *first))
    table.push_step(table_use(SECOND, *second))
    found = [(p.code, p.seat, p.trick, p.params["rule"]) for p in table.findings()]
    assert found == ([("power-blocked", SECOND, 0, second[0])] if blocked else [])
    if blocked and second[0] == "pocahontas":
        assert table.leader == 0


def test_the_refusal_names_who_acted_first():
    table = new_table("deluxe", {FIRST: "rapunzel", SECOND: "little-mermaid"})
    table.push_power(PowerUse(FIRST, "rapunzel"))
    (problem,) = table.check_power(PowerUse(SECOND, "little-mermaid", suit=Suit.QUEEN))
    assert problem.text("en", NAMES[:4]) == (
        "Rapunzel already asked Ana to lead a Prince this trick: the Little Mermaid can't act "
        "on her.")
    assert problem.text("fr", NAMES[:4]) == (
        "Raiponce a déjà demandé à Ana d'ouvrir avec un Prince dans ce pli\u00a0: la petite "
        "Sirène ne peut pas agir sur elle.")
    table = new_table("deluxe", {FIRST: "ice-princess", SECOND: "scheherazade"})
    table.push_power(PowerUse(FIRST, "ice-princess", target=2, cards=parse_cards("Q9")))
    (problem,) = table.check_power(PowerUse(SECOND, "scheherazade", target=0))
    assert problem.text("en", NAMES[:4]) == (
        "The Ice Princess already froze a card of Cy this trick: Scheherazade can't act on Ana, "
        "who leads it.")


# --- later evidence: a blocked power never changes how plays are judged -----------------------

#: (edition, Princesses, the powers used before trick 0, trick 0 from Ana, the later tricks
#: (leader, cards), what the later tricks prove had the blocked power counted).
EVIDENCE = {
    # Rapunzel asked Ana for a Prince; the Little Mermaid's Queens, blocked, would make Ana's
    # Prince lead a breach once Ana shows a Queen.
    "rapunzel-then-mermaid": ("deluxe", {FIRST: "rapunzel", SECOND: "little-mermaid"},
                              [(FIRST, "rapunzel", {}), (SECOND, "little-mermaid", {"suit": "Q"})],
                              "P3 P5 P7 P2", [(2, "Q1 Q2 Q3 Q4")]),
    # The Ice Princess froze Ana's Queen; the Little Mermaid's Fairies, blocked, would make
    # the frozen lead a breach once Ana shows a Fairy.
    "ice-then-mermaid": ("deluxe", {FIRST: "ice-princess", SECOND: "little-mermaid"},
                         [(FIRST, "ice-princess", {"target": 0}),
                          (SECOND, "little-mermaid", {"suit": "F"})],
                         "Q5 Q6 Q7 Q8", [(3, "F1 F2 F3 F4")]),
    "classic-ice-then-mermaid": ("classic", {FIRST: "ice-princess", SECOND: "little-mermaid"},
                                 [(FIRST, "ice-princess", {"target": 0}),
                                  (SECOND, "little-mermaid", {"suit": "F"})],
                                 "Q5 Q6 Q7 Q8", [(3, "F1 F2 F3 F4")]),
}


@pytest.mark.parametrize("later", [False, True], ids=["alone", "with-later-evidence"])
@pytest.mark.parametrize("name", sorted(EVIDENCE))
def test_blocked_power_changes_no_judgement(name, later):
    edition, names, uses, first_trick, rest = EVIDENCE[name]
    table = new_table(edition, names)
    for seat, slug, args in uses:
        table.push_step(table_use(seat, slug, args))
    for code in first_trick.split() + ([c for _, cards in rest for c in cards.split()]
                                       if later else []):
        table.push_card(parse_card(code))
    assert [(p.code, p.seat, p.trick) for p in table.findings()] == [
        ("power-blocked", SECOND, 0)]


@pytest.mark.parametrize("later", [False, True], ids=["alone", "with-later-evidence"])
@pytest.mark.parametrize("name", sorted(EVIDENCE))
def test_check_round_answers_a_blocked_power_with_a_422(client, name, later):
    edition, names, uses, first_trick, rest = EVIDENCE[name]
    tricks = [{"plays": plays(0, first_trick),
               "powers": [api_use(seat, slug, args) for seat, slug, args in uses]}]
    tricks += [{"plays": plays(lead, cards)} for lead, cards in rest] if later else []
    response = client.post(API, json=body(edition, names, tricks))
    assert response.status_code == 422
    data = response.get_json()
    assert [(p["code"], p["seat"], p["trick"], p["field"]) for p in data["problems"]] == [
        ("power-blocked", SECOND, 0, "tricks[0].powers[1]")]
    assert data["error"]


def plays(leader, cards):
    return [{"seat": (leader + i) % 4, "card": card} for i, card in enumerate(cards.split())]


def body(edition, names, tricks):
    return {"edition": edition, "round_card": letter(edition), "players": 4, "leader": 0,
            "princesses": {str(seat): slug for seat, slug in names.items()}, "tricks": tricks}


@pytest.mark.parametrize("edition, first, second, blocked", CASES)
def test_check_round_refuses_every_blocked_power(client, edition, first, second, blocked):
    tricks = [{"plays": [], "powers": [api_use(FIRST, *first), api_use(SECOND, *second)]}]
    response = client.post(API, json=body(edition, princesses(first, second), tricks))
    if not blocked:
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["violations"] == []
        return
    assert response.status_code == 422
    (problem,) = response.get_json()["problems"]
    assert (problem["code"], problem["seat"], problem["trick"]) == ("power-blocked", SECOND, 0)


# --- the Little Mermaid's Princes before they snuck in, Thumbelina under a named suit ---------

def judged(edition, names, uses, cards, rest=()):
    table = new_table(edition, names)
    for seat, slug, args in uses:
        table.push_step(table_use(seat, slug, args))
    for code in cards.split() + [c for _, more in rest for c in more.split()]:
        table.push_card(parse_card(code))
    return [(p.code.value, p.seat, p.trick) for p in table.findings()]


MERMAID_PRINCES = [(FIRST, "little-mermaid", {"suit": "P"})]
#: Ana leads a Queen after the Little Mermaid named Princes; later she plays a Prince (void in
#: Fairies), so she held one: her free lead was still legal.
FREE_LEAD = ("Q5 Q6 Q7 Q8", [(3, "F1 P2 F3 F4")])


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
@pytest.mark.parametrize("later", [False, True], ids=["alone", "with-later-evidence"])
def test_mermaid_naming_princes_before_they_snuck_in_leaves_the_lead_free(edition, later):
    rest = FREE_LEAD[1] if later else []
    assert judged(edition, {FIRST: "little-mermaid"}, MERMAID_PRINCES, FREE_LEAD[0], rest) == []


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_check_round_calls_the_free_lead_legal(client, edition):
    """Deluxe: accepted, the lead stays free. Classic: « vous ne pouvez pas faire jouer la
    couleur des Princes s'ils ne sont pas encore apparus dans la manche », no exception, so the
    table knows at entry that she cannot name them: refused there, on her seat."""
    tricks = [{"plays": plays(0, FREE_LEAD[0]),
               "powers": [api_use(FIRST, "little-mermaid", {"suit": "P"})]},
              {"plays": plays(3, FREE_LEAD[1][0][1])}]
    response = client.post(API, json=body(edition, {FIRST: "little-mermaid"}, tricks))
    data = response.get_json()
    if edition == "classic":
        assert response.status_code == 422
        assert [(p["code"], p["seat"]) for p in data["problems"]] == [("princes-not-yet", FIRST)]
        return
    assert (data["legal"], data["violations"]) == (True, [])


#: Thumbelina (Cy) plays a Fairy on the named suit; she later shows a card of that suit.
THUMBELINA = {
    "mermaid": ({FIRST: "little-mermaid", 2: "thumbelina"},
                [(FIRST, "little-mermaid", {"suit": "Q"}), (2, "thumbelina", {})],
                "Q5 Q6 F3 Q8", [(3, "Q1 Q2 Q3 Q4")]),
    "rapunzel": ({FIRST: "rapunzel", 2: "thumbelina"},
                 [(FIRST, "rapunzel", {}), (2, "thumbelina", {})],
                 "P3 P5 Q9 P2", [(1, "A1 P4 A2 A3")]),
}


@pytest.mark.parametrize("asked", sorted(THUMBELINA))
def test_thumbelina_cannot_ignore_the_suit_asked_for(asked):
    names, uses, cards, rest = THUMBELINA[asked]
    assert judged("deluxe", names, uses, cards) == []  # nothing proven yet
    found = judged("deluxe", names, uses, cards, rest)
    assert [(seat, trick) for _, seat, trick in found] == [(2, 0)]
    assert found[0][0] in ("must-follow-suit", "power-restriction")
    # Without the suit asked for, her power lets her leave the led suit.
    alone = judged("deluxe", {2: "thumbelina"}, [(2, "thumbelina", {})],
                   cards.replace("P3", "Q3") if asked == "rapunzel" else cards,
                   [(lead, more) for lead, more in rest])
    assert alone == []


@pytest.mark.parametrize("asked", sorted(THUMBELINA))
def test_check_round_flags_thumbelina_under_a_named_suit(client, asked):
    names, uses, cards, rest = THUMBELINA[asked]
    tricks = [{"plays": plays(0, cards),
               "powers": [api_use(seat, slug, args) for seat, slug, args in uses]}]
    data = client.post(API, json=body("deluxe", names, tricks)).get_json()
    assert data["legal"]
    tricks += [{"plays": plays(lead, more)} for lead, more in rest]
    data = client.post(API, json=body("deluxe", names, tricks)).get_json()
    assert [(v["seat"], v["trick"]) for v in data["violations"]] == [(2, 0)]


# --- table entry through the trick screen -------------------------------------------------------

def web_args(args):
    return {key: str(value) for key, value in args.items() if key in ("target", "suit")}


def use_on_screen(client, code, seat, slug, args):
    data = web_args(args)
    if slug == "ice-princess":
        data["card"] = FROZEN[args["target"]]
    return act(client, code, "power", seat=seat, **data)


@pytest.mark.parametrize("edition, first, second, blocked", CASES)
def test_trick_screen_refuses_a_blocked_power(client, make_table, edition, first, second,
                                              blocked):
    code = make_table(edition, **{f"s{FIRST}": first[0], f"s{SECOND}": second[0]})
    response = use_on_screen(client, code, FIRST, *first)
    assert response.status_code == 200 and attr(response.text, "data-refused") == []
    on_leader_only = second[0] in ("scheherazade", "ice-princess")
    if blocked and not on_leader_only:  # not offered any more
        assert f'data-power-seat="{SECOND}"' not in response.text
    response = use_on_screen(client, code, SECOND, *second)
    if not blocked:
        assert response.status_code == 200 and attr(response.text, "data-refused") == []
        return
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["power-refused"]
    assert "already" in response.text and f'data-power="{second[0]}"' not in response.text


def test_trick_screen_says_why_in_english_and_french(client, make_table):
    code = make_table(s1="rapunzel", s3="little-mermaid")
    act(client, code, "power", seat=1)
    html = act(client, code, "power", seat=3, suit="Q").text
    assert ("Rapunzel already asked Ana to lead a Prince this trick: the Little Mermaid can’t "
            "act on her.") in html.replace("&#39;", "’").replace("'", "’")
    client.set_cookie("lang", "fr")
    html = act(client, code, "power", seat=3, suit="Q").text
    assert "Raiponce a déjà demandé à Ana d’ouvrir avec un Prince dans ce pli" in html.replace(
        "&#39;", "’").replace("'", "’")


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_trick_screen_free_lead_after_mermaid_princes_is_legal(client, make_table, edition):
    code = make_table(edition, s1="little-mermaid")
    act(client, code, "power", seat=1, suit="P")
    html = ""
    for card in FREE_LEAD[0].split() + FREE_LEAD[1][0][1].split():
        html = act(client, code, "play", card=card).text
    assert attr(html, "data-violation") == []


@pytest.mark.parametrize("asked", sorted(THUMBELINA))
def test_trick_screen_flags_thumbelina_under_a_named_suit(client, make_table, asked):
    names, uses, cards, rest = THUMBELINA[asked]
    code = make_table(**{f"s{seat}": slug for seat, slug in names.items()})
    for seat, _, args in uses:
        act(client, code, "power", seat=seat, **web_args(args))
    for card in cards.split():
        html = act(client, code, "play", card=card).text
    assert attr(html, "data-violation") == []
    for _, more in rest:
        for card in more.split():
            html = act(client, code, "play", card=card).text
    assert len(attr(html, "data-violation")) == 1 and attr(html, "data-issue-trick") == ["1"]


@pytest.mark.parametrize("name", sorted(EVIDENCE))
def test_trick_screen_judges_later_plays_without_the_refused_power(client, make_table, name):
    edition, names, uses, first_trick, rest = EVIDENCE[name]
    code = make_table(edition, **{f"s{seat}": slug for seat, slug in names.items()})
    for seat, slug, args in uses:
        use_on_screen(client, code, seat, slug, args)
    for card in first_trick.split() + [c for _, cards in rest for c in cards.split()]:
        html = act(client, code, "play", card=card).text
    assert attr(html, "data-violation") == []

