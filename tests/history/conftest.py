"""A known set of finished games of all four kinds, stored through each game's own glue, with
figures worked out by hand in the tests.

- Rebel Princess (lowest total wins), Deluxe a, d, y:
  - ``rp1`` Ana, Ben, Cy, Di by cards: rounds 8 2 5 0 / 1 -4 -2 8 / 3 2 5 12, totals 12 0 8 20:
    Ben wins; Di scored 0 in round 1.
  - ``rp2`` Ben, Ana, Di, Cy: round 1 by cards, Ben takes every Prince and the Frog (Rebel of the
    Ball: -10 0 0 0), then by numbers 3 0 5 7 and 2 4 0 9; totals -5 4 5 16: Ben wins.
- Princesse Princesse ``pp`` Ana, Ben, Cy, Di, Eve (3 tokens): Ana last one in with a Spy (+2);
  Ben 8 against Cy 5, both with a Princesses card (Ben +2, Cy +1); Ana and Di tied on 5 (+1
  each). Tokens 3 2 1 1 0: Ana wins.
- Réveillez ``rv`` Ana, Ben: Ana wakes 20, Ben 10, Ana 20, Ben 5, Ana 15: points 55 15, Ana wins
  by points with 3 princesses.
- Kanai duel: ``kd1`` Ana, Ben: the Princess against the Prince, Ana wins (0-0 in rounds won);
  ``kd2`` Ben, Cy: eight rounds, 3-3 and two rounds on hold at the end: a draw.
- ``open`` a Rebel Princess game not finished (Ana, Ben, Cy): never in statistics.
"""

from __future__ import annotations

import pytest
from sqlmodel import func, select

from companion.db import get_session
from companion.models import Entry, Game, Group, Person, Player
from companion.play import (
    groups,
    kanai_duel,
    princesse_princesse,
    rebel_princess,
    reveillez,
    store,
)
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Edition, PlayedRound, RebelCard
from companion.scoring.reveillez import PrincessCard, Wake

#: The tables an import writes to: what "nothing stored" is counted in.
TABLES = (Game, Player, Person, Entry, Group)


def counts(app) -> dict[str, int]:
    """The number of rows in each of :data:`TABLES`, by model name."""
    with app.app_context():
        session = get_session()
        return {m.__name__: session.exec(select(func.count()).select_from(m)).one()
                for m in TABLES}


def by_cards(*seats: str) -> PlayedRound:
    return PlayedRound(taken=tuple(frozenset(RebelCard.from_code(c) for c in text.split())
                                   for text in seats))


def by_numbers(*scores: int) -> PlayedRound:
    return PlayedRound(scores=scores)


ALL_PRINCES = " ".join(f"P{n}" for n in range(1, 11)) + " A8"


def rebel_game(session, names, rounds, cards="ady", group_id=None):
    game = rebel_princess.create_game(session=session, edition=Edition.DELUXE, names=names,
                                      first_leader=0, round_cards=list(cards), group_id=group_id)
    for number, (mode, played) in enumerate(rounds, start=1):
        rebel_princess.save_round(session=session, game=game, number=number, played=played,
                                  mode=mode, base_id=None)
    return game


def pp_game(session, names, reveals, group_id=None):
    game = princesse_princesse.create_game(session=session, names=names, first=0,
                                           group_id=group_id)
    for reveal in reveals:
        view = princesse_princesse.view_game(session, game)
        princesse_princesse.save_round(session=session, view=view, based_on=view.version,
                                       key=None, reveal=reveal)
    return game


def rv_game(session, names, values, group_id=None):
    game = reveillez.create_game(session=session, names=names, first=0, variant=False,
                                 show_values=False, group_id=group_id)
    for index, value in enumerate(values):
        reveillez.record(session=session, game=game, action=Wake(index, PrincessCard(value)),
                         based_on=index, key=f"wake-{index}")
    return game


def kd_game(session, names, rounds, group_id=None):
    game, _ = kanai_duel.create(session=session, names=names, mode=kanai_duel.REFEREE,
                                variants=[], group_id=group_id)
    for number, pair in enumerate(rounds):
        kanai_duel.play_round(session=session, game=game, cards=pair.split("/"),
                              based_on=number, key=None)
    return game


def store_known_games(session, group_id: int | None = None) -> dict[str, str]:
    """Store the games of the module docstring in one group (``group_id``, else a new one made
    for them); returns their codes by name."""
    if group_id is None:
        group_id = groups.new_group(session, name="The known table").id
        session.commit()
    codes = {}
    codes["rp1"] = rebel_game(session, ["Ana", "Ben", "Cy", "Di"], [
        ("cards", by_cards("P1 P2 P3 A8", "P4 P5", "P6 P7 P8 P9 P10", "")),
        ("cards", by_cards("P1", "P2 P3 Q3", "P4 P5 P6 P7 F3 A3", "P8 P9 P10 A8")),
        ("cards", by_cards("P1 P2 P3", "P4", "A8", "P5 P6 P7 P8 P9 P10")),
    ], group_id=group_id).code
    codes["rp2"] = rebel_game(session, ["Ben", "Ana", "Di", "Cy"], [
        ("cards", by_cards(ALL_PRINCES, "", "", "")),
        ("numbers", by_numbers(3, 0, 5, 7)),
        ("numbers", by_numbers(2, 4, 0, 9)),
    ], group_id=group_id).code
    codes["pp"] = pp_game(session, ["Ana", "Ben", "Cy", "Di", "Eve"], [
        RoundReveal.of([None] * 5, still_in={0}, spies={0}),
        RoundReveal.of([None, 8, 5, None, None], princesses={1, 2}),
        RoundReveal.of([5, None, None, 5, None]),
    ], group_id=group_id).code
    codes["rv"] = rv_game(session, ["Ana", "Ben"], [20, 10, 20, 5, 15], group_id=group_id).code
    codes["kd1"] = kd_game(session, ["Ana", "Ben"], ["princess/prince"], group_id=group_id).code
    codes["kd2"] = kd_game(session, ["Ben", "Cy"], [
        "prince/spy", "wizard/assassin", "minister/general", "general/wizard",
        "assassin/minister", "spy/prince", "princess/clown", "clown/princess"],
        group_id=group_id).code
    codes["open"] = rebel_game(session, ["Ana", "Ben", "Cy"], [
        ("numbers", by_numbers(1, 2, 3))], group_id=group_id).code
    return codes


@pytest.fixture
def known(app):
    """The known games stored in ``app``: ``known.codes["rp1"]``, ``known.person["Ana"]``."""
    with app.app_context():
        session = get_session()
        codes = store_known_games(session)
        people = {p.name: p.id for p in session.exec(select(Person))}
        group = store.get_game(session, codes["rp1"]).group_id
        token = session.get(Group, group).token
        viewers = {name: store.links_of(session, store.get_game(session, code))["viewer"].token
                   for name, code in codes.items()}

    class Known:
        pass

    found = Known()
    found.codes, found.person = codes, people
    found.group_id, found.token = group, token
    found.base = f"/group/{token}/history"  # the group's history: only through its link
    found.record = lambda name: f"/record/{viewers[name]}"  # a finished game, by its own link
    return found


def link(app, code: str, role: str = "viewer") -> str:
    """The token of a stored game's ``role`` link: games open only through their links."""
    with app.app_context():
        session = get_session()
        return store.links_of(session, store.get_game(session, code))[role].token


def game_of_token(app, token: str):
    with app.app_context():
        return store.game_by_token(get_session(), token)
