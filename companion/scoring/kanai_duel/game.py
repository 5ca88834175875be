"""The pure function behind ``POST /api/v1/kanai-duel/resolve``: a whole game from its rounds.

Stateless: the rounds are replayed from the start (:class:`~.state.Duel`) and the answer is the
issue's fixed contract (:meth:`Resolution.as_dict`). Everything the endpoint must refuse with 422 is
found here, every problem at once: an unknown card, a card played twice by the same player, a round
with other than two cards, a round after the game has ended, more than 8 rounds, a number of wins
outside 1-8 and an unknown ``abilities`` setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .abilities import Abilities
from .cards import DuelCard, card_words, parse_card
from .problems import CATALOGUE
from .resolve import DuelRoundResult, Outcome
from .rules import Rules
from .state import Duel

__all__ = ["Resolution", "resolve"]

Pair = tuple[int, int]


@dataclass(frozen=True)
class Resolution:
    """A game replayed from its rounds: each round's result and where the game stands now."""

    rules: Rules
    rounds: tuple[DuelRoundResult, ...]
    score: Pair
    held: int
    bonus: Pair
    reveals_first: int | None
    outcome: Outcome | None

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        """The JSON answer of the endpoint (steps as sentences in ``lang``)."""
        return {
            "rounds": [{"winner": r.winner, "points": list(r.points), "held": r.held,
                        "steps": [step.text(lang) for step in r.steps]} for r in self.rounds],
            "score": list(self.score),
            "held": self.held,
            "next": {"bonus": list(self.bonus), "reveals_first": self.reveals_first},
            "game_over": self.outcome is not None,
            "winner": None if self.outcome is None else self.outcome.winner,
            "result": None if self.outcome is None else self.outcome.result.value,
        }


def parse_abilities(value: object) -> Abilities:
    """``all``, ``none`` or ``clown_minister`` (variant H); raises :class:`EntryError`
    (``unknown-abilities``)."""
    if isinstance(value, str):
        try:
            return Abilities(value.strip().lower())
        except ValueError:
            pass
    raise EntryError(CATALOGUE.problem("unknown-abilities", value=str(value)))


def resolve(rounds: object, *, wins_needed: object = 4, abilities: object = "all") -> Resolution:
    """Replay ``rounds`` (a list of ``[player 0's card, player 1's card]``) under the standard
    rules, with ``wins_needed`` wins to win (variant G: 3) and ``abilities`` (variant H).

    Raises :class:`EntryError` listing every problem: ``unknown-abilities``, ``bad-wins-needed``,
    ``rounds-not-a-list``, ``too-many-rounds``, and by round ``round-not-two-cards``,
    ``unknown-card``, ``card-played-twice``, ``game-over`` (the first round after the end).
    """
    problems: list[Problem] = []
    setting = Abilities.ALL
    try:
        setting = parse_abilities(abilities)
    except EntryError as error:
        problems += error.problems
    rules = Rules(wins_needed=wins_needed, abilities=setting)  # type: ignore[arg-type]
    problems += rules.check()
    rules_ok = not problems
    if not isinstance(rounds, list | tuple):
        raise EntryError([*problems, CATALOGUE.problem("rounds-not-a-list")])
    if len(rounds) > rules.rounds:
        problems.append(CATALOGUE.problem("too-many-rounds", count=len(rounds),
                                          most=rules.rounds))
    duel = Duel(rules) if rules_ok else None
    first_played: tuple[dict[DuelCard, int], dict[DuelCard, int]] = ({}, {})
    for number, entry in enumerate(rounds, start=1):
        cards, found = _round(entry, number, first_played)
        problems += found
        if duel is None:
            continue
        outcome = duel.outcome()
        if outcome is not None:
            problems.append(CATALOGUE.problem("game-over", round=number, ended=outcome.round))
            duel = None
        elif found or cards is None:
            duel = None  # later rounds cannot be replayed; their cards are still checked
        else:
            duel.push(*cards)
    if problems:
        raise EntryError(problems)
    assert duel is not None
    standing = duel.standing
    return Resolution(rules, duel.results, standing.score, len(standing.held), standing.bonus,
                      standing.reveals_first, standing.outcome)


def _round(entry: object, number: int, first_played: tuple[dict[DuelCard, int], dict[DuelCard, int]]
           ) -> tuple[tuple[DuelCard, DuelCard] | None, list[Problem]]:
    """One round's cards and its problems (a card already played is recorded in
    ``first_played``, by seat)."""
    if not isinstance(entry, list | tuple) or len(entry) != 2:
        count = len(entry) if isinstance(entry, list | tuple) else None
        return None, [CATALOGUE.problem("round-not-two-cards", round=number, count=count)]
    problems: list[Problem] = []
    cards: list[DuelCard] = []
    for seat, text in enumerate(entry):
        try:
            card = parse_card(text, seat=seat, round=number)
        except EntryError as error:
            problems += error.problems
            continue
        cards.append(card)
        earlier = first_played[seat].setdefault(card, number)
        if earlier != number:
            problems.append(CATALOGUE.problem("card-played-twice", seat=seat, card=card.value,
                                              round=number, first=earlier, **card_words(card)))
    if problems:
        return None, problems
    return (cards[0], cards[1]), []
