"""A whole game replayed from its round entries: scores, totals, leaders and the result.

The web app stores only what players entered (cards taken, or typed scores) and replays the game
through :func:`play_through` every time, so editing an early round recomputes everything after it:
Bathroom Break scores depend on the totals before, and every leader depends on the totals after.
A replay is :func:`play_on` applied round after round, and a save judges a new round with one
step of it, from the game as its page showed it.

Game length: 5 rounds; the Deluxe edition may play a shortened game of 3. A Deluxe tie that survives
the zero-rounds count adds play-off rounds (see :mod:`.standings`).

Decisions where neither rulebook nor RULINGS.md says: a classic game's last round needs no last
trick winner (nobody leads after it); a play-off Round card may be typed in either case and is
stored with the edition's letter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import Edition, RebelCard, check_player_count
from .engine.powers import power_slugs
from .errors import IncompleteEntryError, InvalidValueError, Problem
from .leaders import Leader, check_seat, next_leader_classic, next_leader_deluxe
from .problems import CATALOGUE
from .round_cards import round_card
from .round_score import (
    RoundCounts,
    RoundEntry,
    RoundScore,
    ScoreLine,
    entry_from_counts,
    score_entry,
)
from .standings import RebelStandings, standings
from .totals import describe_totals, possible_round_totals


@dataclass(frozen=True)
class GameSetup:
    """How a game was set up: edition, number of seats, first leader, planned Round cards."""

    edition: Edition
    players: int
    first_leader: int
    round_cards: tuple[str, ...]

    def __post_init__(self) -> None:
        check_player_count(self.players)
        if not 0 <= self.first_leader < self.players:
            raise InvalidValueError("bad-leader", value=str(self.first_leader))
        allowed = (3, 5) if self.edition is Edition.DELUXE else (5,)
        if len(self.round_cards) not in allowed:
            raise InvalidValueError("wrong-round-count", got=len(self.round_cards),
                                    expected=" or ".join(str(n) for n in allowed))
        for letter in self.round_cards:
            round_card(self.edition, letter)

    @property
    def rounds_planned(self) -> int:
        return len(self.round_cards)


def check_new_table(setup: GameSetup, princesses: Sequence[str | None] = ()) -> None:
    """What the rulebooks make impossible when a table is set up, beyond :class:`GameSetup`'s
    own checks (with which stored games are replayed, so that a game stored before these checks
    still opens). Raises :class:`InvalidValueError`:

    - ``duplicate-round-card``: the Round cards are chosen from a deck of distinct cards, one per
      round (Deluxe, Setup 4 "Choose 5 Round cards"; classic, Mise en place 4 "Choisissez 5
      cartes de Manche"), so no card comes twice.
    - ``unknown-princess``: a Princess of another edition (12 in Deluxe, 10 in the classic box).
    - ``duplicate-princess``: the Princesses are dealt from one deck of distinct cards and each
      player keeps one (Deluxe, Setup 1; classic, Mise en place 3 "l'une des cartes Pouvoirs
      disponibles"), so no Princess sits at two seats. A seat may have none (first games play
      without powers).
    """
    seen: set[str] = set()
    for letter in setup.round_cards:
        if letter in seen:
            raise InvalidValueError("duplicate-round-card", value=letter, field="cards")
        seen.add(letter)
    known = power_slugs(setup.edition)
    held: set[str] = set()
    for seat, slug in enumerate(princesses[:setup.players]):
        if not slug:
            continue
        if slug not in known:
            raise InvalidValueError("unknown-princess", seat=seat, value=slug,
                                    field="princesses")
        if slug in held:
            raise InvalidValueError("duplicate-princess", seat=seat, field="princesses")
        held.add(slug)


@dataclass(frozen=True)
class PlayedRound:
    """What the players entered for one round.

    One of ``taken`` (cards per seat, entry by cards), ``counts`` (Princes per seat and the Frog,
    entry by counts) or ``scores`` (entry by numbers) is set.
    ``leader`` overrides who led the first trick (a power such as Pocahontas can change it).
    ``last_trick_winner`` is needed in the classic edition to know who leads next.
    ``round_card`` is needed only for a play-off round, whose card is drawn at random.
    """

    taken: tuple[frozenset[RebelCard], ...] | None = None
    no_tricks: frozenset[int] | None = None
    scores: tuple[int, ...] | None = None
    leader: int | None = None
    last_trick_winner: int | None = None
    round_card: str | None = None
    counts: RoundCounts | None = None


@dataclass(frozen=True)
class RebelRoundResult:
    """One round after scoring: who led, each score with its lines, and the totals after it."""

    number: int
    round_card: str
    playoff: bool
    leader: Leader
    scores: tuple[int, ...]
    lines: tuple[tuple[ScoreLine, ...], ...] | None
    rebels: tuple[int, ...]
    totals_after: tuple[int, ...]
    by_cards: bool
    warnings: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class RebelGameState:
    """Everything the score pad shows: rounds so far, the next round and, at the end, the result."""

    setup: GameSetup
    rounds: tuple[RebelRoundResult, ...]
    totals: tuple[int, ...]
    next_leader: Leader | None
    next_round_card: str | None
    next_is_playoff: bool
    standings: RebelStandings | None
    errors: tuple[tuple[int, tuple[Problem, ...]], ...] = field(default=())

    @property
    def finished(self) -> bool:
        return self.standings is not None and self.standings.decided_by != "playoff"

    @property
    def next_round_number(self) -> int:
        return len(self.rounds) + 1


def round_scores(setup: GameSetup, played: PlayedRound, letter: str,
                 totals_before: Sequence[int]) -> tuple[RoundScore | None, tuple[int, ...]]:
    """Score one played round; returns the detailed score (by cards) and the plain scores.

    Raises :class:`IncompleteEntryError` when the entry cannot be scored.
    """
    if played.taken is not None or played.counts is not None:
        if played.counts is not None:
            entry = entry_from_counts(setup.edition, letter, setup.players, played.counts,
                                      no_tricks=played.no_tricks,
                                      totals_before=tuple(totals_before))
        else:
            entry = RoundEntry(setup.edition, letter, setup.players, played.taken or (),
                               played.no_tricks, tuple(totals_before))
        detailed = score_entry(entry)
        return detailed, tuple(detailed.scores)
    if played.scores is None or len(played.scores) != setup.players:
        got = 0 if played.scores is None else len(played.scores)
        raise IncompleteEntryError([CATALOGUE.problem("wrong-seat-count",
                                            **{"expected": setup.players, "got": got})])
    bad = [CATALOGUE.problem("bad-score", seat=seat) for seat, value in enumerate(played.scores)
           if isinstance(value, bool) or not isinstance(value, int)]
    if bad:
        raise IncompleteEntryError(bad)
    return None, tuple(played.scores)


def total_warnings(setup: GameSetup, letter: str, scores: Sequence[int],
                   totals_before: Sequence[int]) -> list[Problem]:
    """A warning when typed scores add up to a total this Round card cannot produce."""
    possible = possible_round_totals(setup.edition, letter, setup.players, totals_before)
    if sum(scores) in possible:
        return []
    return [CATALOGUE.problem("impossible-round-total",
                    **{"got": sum(scores), "expected": describe_totals(possible)})]


def play_through(setup: GameSetup, played: Sequence[PlayedRound]) -> RebelGameState:
    """Replay a game: score every round, work out every leader, and the standings at the end;
    :func:`play_on` from the game before its first round, round after round.

    Rounds after the planned ones are Deluxe play-off rounds. A round that cannot be scored (which
    the app never stores, but old data might hold) stops the replay; it is reported in ``errors``,
    never raised: an unknown play-off Round card, a typed score that is not a whole number, an
    entered leader or classic last trick winner that is not a seat.
    """
    state = _state(setup, (), (0,) * setup.players, Leader(setup.first_leader, "first-round"),
                   None, ())
    for entry in played:
        state = play_on(state, entry)
    return state


def play_on(state: RebelGameState, played: PlayedRound) -> RebelGameState:
    """The game ``state`` with one more round, ``played``: what :func:`play_through` gives for
    the rounds of ``state`` and this one (a save judges a new round on the game as the page
    showed it, without replaying the rounds before).

    A game stopped by a round that cannot be scored (``errors``) stays as it is, and so does a
    game over: no play-off is due, so an extra round is ignored.
    """
    setup, result = state.setup, state.standings
    number = len(state.rounds) + 1
    is_playoff = number > setup.rounds_planned
    if state.errors or (is_playoff and (result is None or result.decided_by != "playoff")):
        return state
    leader = state.next_leader
    assert leader is not None  # (nobody leads only a game stopped or over)
    letter = played.round_card if is_playoff else setup.round_cards[number - 1]
    if letter is None:
        return _stopped(state, number, (CATALOGUE.problem("unknown-round-card", value=""),))
    try:
        letter = round_card(setup.edition, letter).letter  # a play-off card is typed in
        if played.leader is not None:
            check_seat(played.leader, setup.players)
        detailed, scores = round_scores(setup, played, letter, state.totals)
    except (IncompleteEntryError, InvalidValueError) as error:
        return _stopped(state, number, tuple(error.problems))
    if played.leader is not None:
        leader = Leader(played.leader, "entered")
    warnings = () if detailed else tuple(total_warnings(setup, letter, scores, state.totals))
    totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
    rounds = (*state.rounds, RebelRoundResult(
        number, letter, is_playoff, leader, scores,
        tuple(s.lines for s in detailed.seats) if detailed else None,
        tuple(detailed.rebels) if detailed else (), totals, detailed is not None,
        warnings))
    if number >= setup.rounds_planned:  # every planned round played (the later are play-offs)
        result = standings(setup.edition, [r.scores for r in rounds if not r.playoff],
                           [r.scores for r in rounds if r.playoff])
    game_over = result is not None and result.decided_by != "playoff"
    errors: tuple[tuple[int, tuple[Problem, ...]], ...] = ()
    if setup.edition is Edition.DELUXE:
        leader = next_leader_deluxe(totals, leader.seat)
    elif played.last_trick_winner is not None:
        try:
            leader = next_leader_classic(setup.players, played.last_trick_winner)
        except InvalidValueError as error:
            errors = ((number, tuple(error.problems)),)
    elif not game_over:  # after the last round nobody leads: the winner is not needed
        errors = ((number, (CATALOGUE.problem("bad-leader", **{"value": "?"}),)),)
    return _state(setup, rounds, totals, leader, result, errors)


def _stopped(state: RebelGameState, number: int,
             problems: tuple[Problem, ...]) -> RebelGameState:
    """``state`` stopped by round ``number``, which cannot be scored for ``problems``."""
    return _state(state.setup, state.rounds, state.totals, None, state.standings,
                  ((number, problems),))


def _state(setup: GameSetup, rounds: tuple[RebelRoundResult, ...], totals: tuple[int, ...],
           leader: Leader | None, result: RebelStandings | None,
           errors: tuple[tuple[int, tuple[Problem, ...]], ...]) -> RebelGameState:
    """The game after ``rounds``: who leads and which Round card comes next, if anyone does."""
    done = result is not None and result.decided_by != "playoff"
    next_is_playoff = result is not None and result.decided_by == "playoff"
    if errors or done:
        next_card = None
    elif next_is_playoff:
        next_card = None  # drawn at random from the black-hourglass cards: the players say which
    else:
        next_card = setup.round_cards[len(rounds)]
    return RebelGameState(setup, rounds, totals, None if (done or errors) else leader,
                          next_card, next_is_playoff, result, errors)
