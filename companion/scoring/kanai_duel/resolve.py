"""Deciding one round: who wins it, what it is worth, what waits on hold, what carries over.

The order is KANAI_DUEL.md « Deciding a round » (cards x and y; a card's effective value is its
printed value plus a General's +2 from last round):

1. A Wizard cancels the opponent's ability; two Wizards cancel each other, and so do two Princes
   (rulebook 004, « Prince ») and two Spies (« Spy »). A cancelled ability does nothing at all, now
   or next round.
2. A Clown whose ability stands puts the round on hold and cancels every other ability of the round
   (« Clown »: it beats every ability but the Wizard's).
3. A Princess against the opponent's Prince wins the whole game (« Princess »).
4. A Prince wins the round whatever the values, the Assassin notwithstanding (« Prince »).
5. An Assassin whose ability stands: the lower effective value wins (« Assassin »).
6. Otherwise the higher effective value wins. Equal values: the round goes on hold (« Comment
   jouer »).

Points (KANAI_DUEL.md « Holds and points »): a round is worth 1 win, or 2 to the player whose
standing Minister is in it, also while it waits on hold. The winner of the next decided round takes
every round on hold, each worth to them what it was worth to them. A held round stays on hold with
its General's +2 and Spy for the next round; a Clown's hold keeps nothing.

Next round: a standing General gives its player +2 on their next card only; a standing Spy makes the
opponent reveal first. Nothing carries over when the game ends (:func:`finish`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .abilities import Abilities, ability_of
from .cards import DuelCard
from .rules import RULES, Rules
from .steps import NEXT_ROUND_CODES, Step, StepCode

__all__ = ["DuelRoundResult", "HeldRound", "Outcome", "Result", "finish", "resolve_round"]

Pair = tuple[int, int]


class Result(StrEnum):
    """How a game ended: 4 wins (or most wins in variant Q), the Princess, or a draw."""

    WIN = "win"
    PRINCESS = "princess"
    DRAW = "draw"


@dataclass(frozen=True)
class HeldRound:
    """A round waiting on hold: its number (from 1), its cards, and what taking it is worth to
    player 0 and to player 1 (2 to a player whose Minister stood in it, else 1)."""

    number: int
    cards: tuple[DuelCard, DuelCard]
    worth: Pair


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how, who (``None`` for a draw), in which round, with which score, and
    how many rounds on hold went to nobody."""

    result: Result
    winner: int | None
    round: int
    score: Pair
    lost: int = 0


@dataclass(frozen=True)
class DuelRoundResult:
    """One decided round.

    ``bonus`` is the +2 each card had from last round and ``values`` the effective values;
    ``standing`` says whose ability stood once everything was cancelled. ``winner`` is ``None``
    for a round on hold. ``worth`` is what the round is worth to each player (1, or 2 with a
    standing Minister); ``points`` are the wins each player scores with it, the held rounds taken
    (``taken``) included. ``next_bonus`` and ``reveals_first`` carry over to the next round.
    ``outcome`` is set when the game ends with this round.
    """

    number: int
    cards: tuple[DuelCard, DuelCard]
    bonus: Pair
    values: Pair
    standing: tuple[bool, bool]
    winner: int | None
    game_won: bool
    worth: Pair
    points: Pair
    taken: tuple[HeldRound, ...]
    next_bonus: Pair
    reveals_first: int | None
    steps: tuple[Step, ...]
    outcome: Outcome | None = None

    @property
    def held(self) -> bool:
        """Whether the round went on hold (no winner)."""
        return self.winner is None

    def as_held(self) -> HeldRound:
        """This round as it waits on hold."""
        return HeldRound(self.number, self.cards, self.worth)


def _step(code: StepCode, seat: int | None = None, card: DuelCard | None = None,
          **params: Any) -> Step:
    return Step(code, seat, card, MappingProxyType(params))


def resolve_round(cards: Sequence[DuelCard], *, bonus: Pair = (0, 0),
                  held: Sequence[HeldRound] = (), rules: Rules = RULES,
                  number: int = 1) -> DuelRoundResult:
    """Decide the round where player 0 played ``cards[0]`` and player 1 ``cards[1]``.

    ``bonus`` is each card's +2 from a General last round, ``held`` the rounds waiting on hold,
    ``number`` this round's number (from 1). Trusts its input: cards are :class:`DuelCard` values.
    """
    first, second = cards
    pair = (first, second)
    kinds = (ability_of(first), ability_of(second))
    stands = [rules.abilities.keeps(card) for card in pair]
    values = (first.strength + bonus[0], second.strength + bonus[1])
    steps: list[Step] = []

    if rules.abilities is Abilities.NONE:
        steps.append(_step(StepCode.NUMBERS_ONLY))
    elif not all(stands):
        steps.append(_step(StepCode.NUMBERS_BUT_CLOWN_MINISTER))
    for seat in (0, 1):
        if bonus[seat]:
            steps.append(_step(StepCode.BONUS, seat, pair[seat], bonus=bonus[seat]))

    # 1. The Wizard cancels the opponent's ability; the same card twice may cancel itself.
    wizards = [stands[s] and kinds[s].cancels_opponent for s in (0, 1)]
    twins = first is second and kinds[0].cancels_twin and all(stands)
    if all(wizards) or twins:
        stands = [False, False]
        steps.append(_step(StepCode.TWINS_CANCEL, card=first))
    else:
        for seat in (0, 1):
            if wizards[seat] and stands[1 - seat]:
                stands[1 - seat] = False
                steps.append(_step(StepCode.WIZARD_CANCELS, seat, pair[1 - seat]))
    for seat in (0, 1):
        if wizards[seat] and bonus[1 - seat]:
            # The General's +2 is not the card's own ability (rulebook 004, « General »).
            steps.append(_step(StepCode.BONUS_STAYS, 1 - seat, pair[1 - seat]))

    winner: int | None = None
    game_won = False
    # 2. A standing Clown: on hold, and every other ability of the round is cancelled.
    clowns = [stands[s] and kinds[s].holds_round for s in (0, 1)]
    if any(clowns):
        if all(clowns):
            steps.append(_step(StepCode.CLOWNS))
        else:
            seat = clowns.index(True)
            other = 1 - seat
            if stands[other]:
                stands[other] = False
                steps.append(_step(StepCode.CLOWN_CANCELS, seat, pair[other]))
            else:
                steps.append(_step(StepCode.CLOWN_HOLDS, seat, DuelCard.CLOWN))
    else:
        # 3. The Princess against the opponent's Prince wins the game.
        princess = [stands[s] and kinds[s].wins_game_against is pair[1 - s] for s in (0, 1)]
        # 4. A single standing Prince wins whatever the values.
        princes = [stands[s] and kinds[s].wins_round for s in (0, 1)]
        if any(princess):
            winner = princess.index(True)
            game_won = True
            steps.append(_step(StepCode.PRINCESS, winner, pair[winner]))
        elif any(princes) and not all(princes):
            winner = princes.index(True)
            steps.append(_step(StepCode.PRINCE_WINS, winner, pair[winner]))
        else:
            # 5. A standing Assassin: the lower value wins. 6. Otherwise the higher.
            assassins = [stands[s] and kinds[s].lower_wins for s in (0, 1)]
            if any(assassins):
                steps.append(_step(StepCode.ASSASSIN, None if all(assassins) else
                                   assassins.index(True), DuelCard.ASSASSIN))
            steps.append(_step(StepCode.COMPARE, first=(first.strength, bonus[0]),
                               second=(second.strength, bonus[1])))
            if values[0] != values[1]:
                lower = 0 if values[0] < values[1] else 1
                winner = lower if any(assassins) else 1 - lower

    worth = (kinds[0].stake if stands[0] else 1, kinds[1].stake if stands[1] else 1)
    points = [0, 0]
    taken: tuple[HeldRound, ...] = ()
    if game_won:
        pass  # the Princess's win scores nothing; the game ends (see :func:`finish`)
    elif winner is None:
        steps.append(_step(StepCode.HOLD))
        for seat in (0, 1):
            if worth[seat] > 1:
                steps.append(_step(StepCode.MINISTER_HOLDS, seat, pair[seat], worth=worth[seat]))
    else:
        taken = tuple(held)
        points[winner] = worth[winner] + sum(h.worth[winner] for h in taken)
        steps.append(_step(StepCode.WINS, winner))
        if worth[winner] > 1:
            steps.append(_step(StepCode.MINISTER_WINS, winner, pair[winner],
                               worth=worth[winner]))
        if taken:
            steps.append(_step(StepCode.TAKES_HELD, winner, count=len(taken),
                               points=sum(h.worth[winner] for h in taken)))
        if points[winner] > 1:
            steps.append(_step(StepCode.SCORES, winner, points=points[winner]))

    next_bonus = (0, 0)
    reveals_first: int | None = None
    if not game_won:
        next_bonus = (kinds[0].next_bonus if stands[0] else 0,
                      kinds[1].next_bonus if stands[1] else 0)
        for seat in (0, 1):
            if next_bonus[seat]:
                steps.append(_step(StepCode.GENERAL, seat, pair[seat], bonus=next_bonus[seat]))
        spies = [stands[s] and kinds[s].opponent_reveals_first for s in (0, 1)]
        if any(spies) and not all(spies):
            reveals_first = 1 - spies.index(True)
            steps.append(_step(StepCode.SPY, reveals_first, DuelCard.SPY))

    return DuelRoundResult(
        number=number, cards=pair, bonus=(bonus[0], bonus[1]), values=values,
        standing=(stands[0], stands[1]), winner=winner, game_won=game_won, worth=worth,
        points=(points[0], points[1]), taken=taken, next_bonus=next_bonus,
        reveals_first=reveals_first, steps=tuple(steps))


def finish(result: DuelRoundResult, *, score: Pair, held: Sequence[HeldRound],
           rules: Rules = RULES) -> DuelRoundResult:
    """``result`` with the end of the game, if it ends with this round (else unchanged).

    ``score`` is the score after the round and ``held`` the rounds still on hold after it. The game
    ends (KANAI_DUEL.md « End »): with the Princess's win; when a player has ``wins_needed`` wins or
    more (not in variant Q); when the last round has been played (a draw, or in variant Q the most
    wins). Rounds still on hold go to nobody; nothing carries over to a next round.
    """
    outcome: Outcome | None = None
    end: list[Step] = []
    lost = len(held)
    if result.game_won:
        outcome = Outcome(Result.PRINCESS, result.winner, result.number, score, lost)
    else:
        ahead = [seat for seat in (0, 1) if score[seat] >= rules.wins_needed]
        if ahead and not rules.until_dawn:
            winner = ahead[0]
            outcome = Outcome(Result.WIN, winner, result.number, score, lost)
            end.append(_step(StepCode.GAME_WON, winner, wins=score[winner],
                             needed=rules.wins_needed))
        elif result.number >= rules.rounds:
            if rules.until_dawn and score[0] != score[1]:
                winner = 0 if score[0] > score[1] else 1
                outcome = Outcome(Result.WIN, winner, result.number, score, lost)
                end.append(_step(StepCode.DAWN_WON, winner, wins=score[winner],
                                 other=score[1 - winner]))
            else:
                outcome = Outcome(Result.DRAW, None, result.number, score, lost)
                end.append(_step(StepCode.DRAW, wins=score[0], other=score[1]))
    if outcome is None:
        return result
    if lost:
        end.append(_step(StepCode.HELD_LOST, count=lost))
    steps = tuple(s for s in result.steps if s.code not in NEXT_ROUND_CODES) + tuple(end)
    return replace(result, steps=steps, next_bonus=(0, 0), reveals_first=None, outcome=outcome)
