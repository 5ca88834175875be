"""A game in progress: the rounds played so far, with cheap queries and explicit commands.

:class:`Duel` holds the rules, the cards set aside (variants B and C) and a stack of decided rounds,
each with the :class:`Standing` it leaves. Queries (:meth:`Duel.score`, :meth:`Duel.held`,
:meth:`Duel.bonus`, :meth:`Duel.reveals_first`, :meth:`Duel.used`, :meth:`Duel.check` …) never
change anything; commands (:meth:`Duel.play`, :meth:`Duel.push`, :meth:`Duel.pop`,
:meth:`Duel.set_aside`) do.

A player may play each card once (rulebook 004, « Comment jouer »: a card played stays on the
table), never a card set aside (variants B, C), and nothing once the game is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from companion.scoring.problems import EntryError, Problem

from .cards import HAND, DuelCard, card_words, parse_card
from .problems import CATALOGUE
from .resolve import DuelRoundResult, HeldRound, Outcome, finish, resolve_round
from .rules import RULES, DuelSetAside, Rules

__all__ = ["Duel", "Standing"]

Pair = tuple[int, int]


@dataclass(frozen=True)
class Standing:
    """Where a game stands between two rounds: the score, the rounds on hold, the +2 each player's
    next card gets, who must reveal first next round (``None``: nobody), each player's used cards,
    and the outcome once the game is over."""

    score: Pair = (0, 0)
    held: tuple[HeldRound, ...] = ()
    bonus: Pair = (0, 0)
    reveals_first: int | None = None
    used: tuple[frozenset[DuelCard], frozenset[DuelCard]] = (frozenset(), frozenset())
    outcome: Outcome | None = None
    rounds: int = 0

    def after(self, result: DuelRoundResult, rules: Rules) -> tuple[DuelRoundResult, Standing]:
        """The round ``result`` (with the game's end if it comes) and the standing it leaves."""
        score = (self.score[0] + result.points[0], self.score[1] + result.points[1])
        held = (*self.held, result.as_held()) if result.held else ()
        if result.game_won:
            held = self.held
        result = finish(result, score=score, held=held, rules=rules)
        used = (self.used[0] | {result.cards[0]}, self.used[1] | {result.cards[1]})
        if result.outcome is not None:
            held = ()
        return result, Standing(score, held, result.next_bonus, result.reveals_first, used,
                                result.outcome, result.number)


@dataclass(eq=False)
class Duel:
    """One game of the Kanai duel: rules, the cards set aside, and the rounds played.

    ``out`` is the card each player set aside (variants B and C), ``None`` when unknown (variant C
    played with real cards: the hidden card is never shown). Raises :class:`EntryError`
    (``no-set-aside``) for a card set aside without B or C.
    """

    rules: Rules = RULES
    out: tuple[DuelCard | None, DuelCard | None] = (None, None)
    _results: list[DuelRoundResult] = field(default_factory=list, init=False, repr=False)
    _standings: list[Standing] = field(default_factory=lambda: [Standing()], init=False,
                                       repr=False)

    def __post_init__(self) -> None:
        problems = self.rules.check()
        if self.rules.set_aside is DuelSetAside.NONE:
            problems += [CATALOGUE.problem("no-set-aside", seat=seat, card=card.value,
                                           **card_words(card))
                         for seat, card in enumerate(self.out) if card is not None]
        if problems:
            raise EntryError(problems)

    # --- notation -----------------------------------------------------------------------------

    @classmethod
    def from_notation(cls, text: str, rules: Rules = RULES) -> Duel:
        """A game from its rounds written ``"spy/general minister/spy"`` (player 0's card first);
        every round is checked (:meth:`play`). Raises :class:`EntryError`."""
        duel = cls(rules)
        for number, word in enumerate(text.split(), start=1):
            parts = word.split("/")
            if len(parts) != 2:
                raise EntryError(CATALOGUE.problem("round-not-two-cards", round=number,
                                                   count=len(parts)))
            duel.play(*(parse_card(part, seat=seat, round=number)
                        for seat, part in enumerate(parts)))
        return duel

    def __str__(self) -> str:
        return " ".join(f"{r.cards[0]}/{r.cards[1]}" for r in self._results)

    def __repr__(self) -> str:
        return f"Duel.from_notation({str(self)!r}, {self.rules!r})"

    # --- queries ------------------------------------------------------------------------------

    @property
    def standing(self) -> Standing:
        """Where the game stands now."""
        return self._standings[-1]

    @property
    def results(self) -> tuple[DuelRoundResult, ...]:
        """Every round played, in order."""
        return tuple(self._results)

    def score(self) -> Pair:
        """The wins of player 0 and player 1 (held rounds not yet taken are not counted)."""
        return self.standing.score

    def held(self) -> tuple[HeldRound, ...]:
        """The rounds waiting on hold, each with what it is worth to each player."""
        return self.standing.held

    def bonus(self) -> Pair:
        """The +2 (or 0) each player's next card gets from a General."""
        return self.standing.bonus

    def reveals_first(self) -> int | None:
        """The player who must reveal (commit) first next round because of a Spy, or ``None``."""
        return self.standing.reveals_first

    def used(self, seat: int) -> frozenset[DuelCard]:
        """The cards ``seat`` has played."""
        return self.standing.used[seat]

    def hand(self, seat: int) -> frozenset[DuelCard]:
        """The cards ``seat`` may still play (none once the game is over)."""
        if self.is_over():
            return frozenset()
        return HAND - self.used(seat) - {self.out[seat]}

    def is_legal(self, seat: int, card: DuelCard) -> bool:
        """Whether ``seat`` may play ``card`` next round."""
        return card in self.hand(seat)

    def round_number(self) -> int:
        """The number of the next round (from 1)."""
        return self.standing.rounds + 1

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        return self.standing.outcome

    def is_over(self) -> bool:
        return self.standing.outcome is not None

    def awaits_set_aside(self) -> bool:
        """Whether the cards set aside under B are still to be chosen before round 1 (two phones:
        each player sets one aside secretly, both are shown together, rulebook « Variantes », B)."""
        return (self.rules.set_aside is DuelSetAside.CHOSEN and None in self.out
                and not self._results)

    def check(self, first: DuelCard, second: DuelCard) -> list[Problem]:
        """Every reason the next round cannot be ``first`` (player 0) against ``second`` (player
        1): ``game-over``, ``card-played-twice``, ``card-set-aside``. Never raises."""
        if self.is_over():
            return self._game_over()
        return self.check_card(0, first) + self.check_card(1, second)

    def check_card(self, seat: int, card: DuelCard) -> list[Problem]:
        """Every reason ``seat`` cannot play ``card`` next round (see :meth:`check`)."""
        if self.is_over():
            return self._game_over()
        number = self.round_number()
        if card in self.used(seat):
            earlier = next(r.number for r in self._results if r.cards[seat] is card)
            return [CATALOGUE.problem("card-played-twice", seat=seat, card=card.value,
                                      round=number, first=earlier, **card_words(card))]
        if card is self.out[seat]:
            return [CATALOGUE.problem("card-set-aside", seat=seat, card=card.value,
                                      round=number, **card_words(card))]
        return []

    def _game_over(self) -> list[Problem]:
        outcome = self.outcome()
        assert outcome is not None
        return [CATALOGUE.problem("game-over", round=self.round_number(), ended=outcome.round)]

    # --- commands -----------------------------------------------------------------------------

    def set_aside(self, first: DuelCard, second: DuelCard) -> None:
        """Variant B: the card each player sets aside, both shown at once before round 1. Raises
        :class:`EntryError` (``set-aside-closed``) unless :meth:`awaits_set_aside`."""
        if not self.awaits_set_aside():
            raise EntryError(CATALOGUE.problem("set-aside-closed"))
        self.out = (first, second)

    def play(self, first: DuelCard, second: DuelCard) -> DuelRoundResult:
        """Check (:meth:`check`), then play the round. Raises :class:`EntryError` listing every
        problem; nothing changes then."""
        problems = self.check(first, second)
        if problems:
            raise EntryError(problems)
        return self.push(first, second)

    def push(self, first: DuelCard, second: DuelCard) -> DuelRoundResult:
        """Play the round **without checking it** (the trusted path for replaying stored rounds)."""
        before = self.standing
        result = resolve_round((first, second), bonus=before.bonus, held=before.held,
                               rules=self.rules, number=before.rounds + 1)
        result, after = before.after(result, self.rules)
        self._results.append(result)
        self._standings.append(after)
        return result

    def pop(self) -> DuelRoundResult:
        """Take back the last round (undo). Raises :class:`EntryError` (``nothing-to-undo``)."""
        if not self._results:
            raise EntryError(CATALOGUE.problem("nothing-to-undo"))
        self._standings.pop()
        return self._results.pop()

    def replay(self, rounds: Iterable[Sequence[DuelCard]]) -> Duel:
        """Push every round of ``rounds`` (trusted), and return ``self``."""
        for first, second in rounds:
            self.push(first, second)
        return self
