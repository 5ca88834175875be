"""A round as seen at the table, turn by turn: nobody's hand is known, only what is played.

The app cannot see hands, so a :class:`Turn` records what the table sees (the card played, its
target, the character a Garde names) and what the table answers (was the guess right, who had the
lower card, which card a player discarded face up). :class:`PublicRound` replays turns and answers
cheap questions: whose turn it is, who is still in, who is protected, whom a card may target, how
many cards are left in the deck, and how many cards of each value nobody has seen yet.

Rules (rulebook, seed 002; decisions from ``shared/rules/PRINCESSE_PRINCESSE.md``):

- Turns go clockwise (seat order) among the players still in; on your turn you draw one card, then
  play one of your two (« Tour des joueurs-euses »). Every played or discarded card stays face up in
  front of its player (« Cartes jouées et défaussées »).
- Leaving the round: you discard your hand face up without its effect, you cannot be targeted and
  you skip your turns until the next round (« Quitter la manche »).
- The round ends after a turn that leaves only one player in, or after a turn that leaves the deck
  empty (« Fin de la manche »).
- Whom a card targets: Garde, Conseillers, Bibliothécaire and Roi fantôme need *another* player;
  Vladric any player, yourself included. A player out of the round or protected by Oliver cannot be
  targeted. Oliver protects from the moment he is played until the start of his player's next turn.
  If every other player still in is protected, a card that needs another player is played with no
  effect, and Vladric must target the player who plays him (« Oliver le dragon »).
- Garde: name any character but the Garde (the Spy included); a right guess makes the target leave.
- Bibliothécaire: the lower hand leaves (its card is discarded face up); a tie, nobody leaves.
- Vladric: the target discards their hand and draws a new card; on an empty deck they draw the
  card set aside face down; discarding the Ogre makes them leave instead (app decision: they do
  not draw).
- Princesses: draw two, keep one, put two under the deck, so the deck count does not change; with
  one card left draw it and put one back; with an empty deck no effect.
- Roi fantôme: swap hands (nothing is revealed; receiving the Ogre does not discard it).
- Céleste: no effect; she must be played when the other card is the Roi fantôme or Vladric. Nobody
  sees the other card, so a breach is only *proven* when the card a player kept after playing 7 or 5
  is later revealed (end of round, Garde, Bibliothécaire, Vladric) as Céleste, with no turn of its
  holder in between; the hand travels with a Roi fantôme swap. The same bookkeeping proves a lie to
  a Garde (the denied character later revealed from the same hand) and a wrong Bibliothécaire answer
  (the « higher » hand later revealed no higher; a tie, once the two hands compared are revealed
  holding different cards: the lower one should have left). The rulebook names these mistakes
  (« Fautes de jeu ») but gives no penalty: the app lists them as faults and changes nothing else.
- Ogre: played or discarded for any reason, its holder leaves the round.

A turn refused by the rules comes back as problems (codes), never as an exception from
:meth:`PublicRound.check_turn`; :meth:`PublicRound.play` raises :class:`EntryError` with them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from companion.scoring.problems import EntryError, Problem

from .cards import (
    BIBLIOTHECAIRE,
    CELESTE,
    CELESTE_FORCED_BY,
    CHARACTERS,
    COPIES,
    GARDE,
    GARDE_NAMEABLE,
    OGRE,
    PRINCESSES,
    VLADRIC,
    Targeting,
    card_params,
    copy_problems,
    is_value,
    player_count,
    player_count_problem,
)
from .problems import CATALOGUE
from .round_end import RoundReveal, check_reveal
from .table import (
    VALUES,
    PublicTable,
    RoundEnding,
    Turn,
    apply_turn,
    revealed_faults,
)


@dataclass(frozen=True)
class TurnQuestions:
    """What the turn-log screen asks once a card is tapped, in the current state.

    ``targets``: the seats the card may target (empty: no target, or no effect). ``names``: the
    characters a Garde may name, each with its count of unseen cards. ``asks_hit`` (Garde: right
    guess?), ``asks_loser`` (Bibliothécaire: who had the lower card, or a tie), ``asks_revealed``
    (Vladric, Ogre: the card laid face up; for the Bibliothécaire, the loser's card).
    ``celeste_reminder``: a 7 or 5 while Céleste is unseen — remind that she must be played
    instead if she is the other card.
    """

    card: int
    has_effect: bool
    targets: tuple[int, ...]
    names: tuple[tuple[int, int], ...]
    asks_hit: bool
    asks_loser: bool
    asks_revealed: bool
    celeste_reminder: bool


@dataclass
class PublicRound:
    """One round at the table, replayed from its turns; hands stay unknown.

    Queries (cheap, never raise): :attr:`current_seat`, :meth:`is_in`, :meth:`is_protected`,
    :meth:`legal_targets`, :meth:`has_effect`, :meth:`target_problem`, :meth:`garde_names`,
    :meth:`unseen`, :meth:`check_turn`, :meth:`ending`, :meth:`faults`.
    Commands: :meth:`play` (checks, then pushes), :meth:`push` (trusted), :meth:`pop` (undo).
    """

    players: int
    first: int
    face_up: tuple[int, ...] = ()
    _stack: list[PublicTable] = field(default_factory=list, init=False, repr=False)
    _turns: list[Turn] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.face_up = tuple(self.face_up)
        problems = check_setup(self.players, self.first, self.face_up)
        if problems:
            raise EntryError(problems)
        count = player_count(self.players)
        self._stack.append(PublicTable(
            in_seats=frozenset(range(self.players)), protected={}, deck=count.deck_after_deal,
            set_aside_drawn=False, discards=((),) * self.players, current=self.first,
            ending=None, suspicions=((),) * self.players, faults=()))

    @classmethod
    def from_turns(cls, players: int, first: int, turns: Iterable[Turn | str],
                   face_up: Sequence[int] = ()) -> PublicRound:
        """Replay ``turns`` (objects or notation) with every check; raises :class:`EntryError`."""
        round_ = cls(players, first, tuple(face_up))
        for turn in turns:
            round_.play(turn if isinstance(turn, Turn) else Turn.from_notation(turn))
        return round_

    # ---- queries -------------------------------------------------------------------------------

    @property
    def _top(self) -> PublicTable:
        return self._stack[-1]

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(self._turns)

    @property
    def turn_number(self) -> int:
        """The 1-based number of the turn about to be played."""
        return len(self._turns) + 1

    @property
    def current_seat(self) -> int | None:
        """Whose turn it is; ``None`` once the round is over."""
        return self._top.current

    @property
    def deck_count(self) -> int:
        """Cards in the draw pile before the current player draws."""
        return self._top.deck

    @property
    def set_aside_drawn(self) -> bool:
        """True once Vladric on an empty deck made someone draw the face-down set-aside card."""
        return self._top.set_aside_drawn

    def is_over(self) -> bool:
        return self._top.ending is not None

    def ending(self) -> RoundEnding | None:
        """How the round ended and who is still in; ``None`` while it goes on."""
        return self._top.ending

    def is_in(self, seat: int) -> bool:
        return seat in self._top.in_seats

    def seats_in(self) -> tuple[int, ...]:
        return tuple(sorted(self._top.in_seats))

    def is_protected(self, seat: int) -> bool:
        """True if Oliver protects ``seat`` now (until the start of that player's next turn)."""
        return seat in self._top.protected and seat != self._top.current

    def protected_since(self) -> Mapping[int, int]:
        """Protected seats, each with the number of the turn in which they played Oliver."""
        return {seat: turn for seat, turn in sorted(self._top.protected.items())
                if seat != self._top.current}

    def discards(self, seat: int) -> tuple[int, ...]:
        """The cards face up in front of ``seat``, in the order they were laid down."""
        return self._top.discards[seat]

    def unseen(self) -> dict[int, int]:
        """How many cards of each value nobody has seen face up yet (deck, hands, set-aside card).

        Public information only: the full deck minus the cards face up at two players and every
        played or discarded card.
        """
        seen = Counter(self.face_up)
        for pile in self._top.discards:
            seen.update(pile)
        return {value: COPIES[value] - seen[value] for value in VALUES}

    def garde_names(self) -> tuple[int, ...]:
        """The characters a Garde may name: every value but the Garde's own (the Spy included)."""
        return GARDE_NAMEABLE

    def legal_targets(self, card: int, seat: int | None = None) -> frozenset[int]:
        """The seats ``seat`` (default: the current player) may target with ``card`` now."""
        seat = self._top.current if seat is None else seat
        if seat is None or not is_value(card):
            return frozenset()
        targeting = CHARACTERS[card].targeting
        if targeting is Targeting.NONE:
            return frozenset()
        others = frozenset(s for s in self._top.in_seats
                           if s != seat and s not in self._top.protected)
        if targeting is Targeting.ANY:
            return others | {seat}  # Vladric: yourself always, so never without a target
        return others

    def has_effect(self, card: int) -> bool:
        """False when a card that needs another player finds nobody to target, or when the
        Princesses are played on an empty deck: then it is played with no effect."""
        if not is_value(card):
            return False
        if CHARACTERS[card].targeting is Targeting.OTHER:
            return bool(self.legal_targets(card))
        if card == PRINCESSES:
            return self._top.deck - 1 > 0  # after the turn's own draw
        return True

    def questions(self, card: int) -> TurnQuestions:
        """What the table must tell the app about the current player's ``card`` (see
        :class:`TurnQuestions`); ``card`` must be a value 0–9."""
        effect = self.has_effect(card)
        unseen = self.unseen()
        garde = card == GARDE and effect
        return TurnQuestions(
            card=card, has_effect=effect, targets=tuple(sorted(self.legal_targets(card))),
            names=tuple((value, unseen[value]) for value in GARDE_NAMEABLE) if garde else (),
            asks_hit=garde, asks_loser=card == BIBLIOTHECAIRE and effect,
            asks_revealed=card in (VLADRIC, OGRE),
            celeste_reminder=card in CELESTE_FORCED_BY and unseen[CELESTE] > 0)

    def target_problem(self, card: int, target: int | None, seat: int | None = None
                       ) -> Problem | None:
        """Why ``target`` is refused for ``card`` (a problem), or ``None`` if it is allowed.

        Codes: ``target-needed``, ``target-not-taken`` (the card takes no target, or nobody can be
        targeted so it has no effect), ``unknown-seat``, ``target-self``, ``target-out``,
        ``target-protected``.
        """
        seat = self._top.current if seat is None else seat
        if not is_value(card) or seat is None:
            return None
        targeting = CHARACTERS[card].targeting
        legal = self.legal_targets(card, seat)
        if target is None:
            if targeting is Targeting.NONE or not legal:
                return None
            return CATALOGUE.problem("target-needed", seat=seat, **card_params(card))
        if not isinstance(target, int) or not 0 <= target < self.players:
            return CATALOGUE.problem("unknown-seat", value=target, players=self.players)
        if targeting is Targeting.NONE:
            return CATALOGUE.problem("target-not-taken", seat=seat, **card_params(card))
        if target == seat and targeting is Targeting.OTHER:
            return CATALOGUE.problem("target-self", seat=seat, **card_params(card))
        if target not in self._top.in_seats:
            return CATALOGUE.problem("target-out", seat=target, **card_params(card))
        if target in self._top.protected and target != seat:
            return CATALOGUE.problem("target-protected", seat=target, **card_params(card),
                                     since=self._top.protected[target])
        return None

    def check_turn(self, turn: Turn) -> list[Problem]:
        """Every reason the rules refuse ``turn`` now (empty if it may be played); never raises."""
        table = self._top
        if table.ending is not None:
            return [CATALOGUE.problem("round-over")]
        problems: list[Problem] = []
        if not isinstance(turn.seat, int) or not 0 <= turn.seat < self.players:
            problems.append(CATALOGUE.problem("unknown-seat", value=turn.seat,
                                              players=self.players))
        elif turn.seat != table.current:
            # The problem names whose turn it is: that is what the player needs to read.
            problems.append(CATALOGUE.problem("not-your-turn", seat=table.current,
                                              played_by=turn.seat))
        if not is_value(turn.card):
            problems.append(CATALOGUE.problem("value-out-of-range", value=turn.card,
                                              field="card"))
            return problems
        card = turn.card
        pool = Counter(self.unseen())
        if pool[card] <= 0:
            problems.append(_no_copy(card))
        pool[card] -= 1
        seat = table.current
        target_problem = self.target_problem(card, turn.target, seat)
        if target_problem is not None:
            problems.append(target_problem)
        effect = self.has_effect(card)
        expected: set[str] = set()
        if card == GARDE and effect:
            expected |= {"named", "hit", "revealed"}
            if turn.named is None:
                problems.append(CATALOGUE.problem("name-needed", seat=seat))
            elif turn.named == GARDE:
                problems.append(CATALOGUE.problem("garde-named", seat=seat))
            elif not is_value(turn.named):
                problems.append(CATALOGUE.problem("value-out-of-range", value=turn.named,
                                                  field="named"))
            elif turn.hit and pool[turn.named] <= 0:
                problems.append(_no_copy(turn.named))
            if turn.hit is None:
                problems.append(CATALOGUE.problem("hit-needed", seat=seat))
            if turn.revealed is not None and (not turn.hit or turn.revealed != turn.named):
                problems.append(_unexpected("revealed", card))
        elif card == BIBLIOTHECAIRE and effect:
            expected |= {"loser", "tie", "revealed"}
            problems += self._check_librarian(turn, pool)
        elif card in (VLADRIC, OGRE):
            expected.add("revealed")
            if turn.revealed is None:
                problems.append(CATALOGUE.problem("reveal-needed", seat=turn.target
                                                  if card == VLADRIC else seat))
            elif not is_value(turn.revealed):
                problems.append(CATALOGUE.problem("value-out-of-range", value=turn.revealed,
                                                  field="revealed"))
            elif pool[turn.revealed] <= 0:
                problems.append(_no_copy(turn.revealed))
        for name in ("named", "hit", "loser", "tie", "revealed"):
            given = getattr(turn, name)
            if name not in expected and given is not None and not (name == "tie" and not given):
                problems.append(_unexpected(name, card))
        return problems

    def _check_librarian(self, turn: Turn, pool: Counter[int]) -> list[Problem]:
        seat = self._top.current
        problems: list[Problem] = []
        if turn.tie:
            if turn.loser is not None:
                problems.append(_unexpected("loser", turn.card))
            if turn.revealed is not None:
                problems.append(_unexpected("revealed", turn.card))
            if not any(pool[value] >= 2 for value in VALUES):
                problems.append(CATALOGUE.problem("tie-impossible", seat=seat))
            return problems
        if turn.loser is None:
            return [CATALOGUE.problem("loser-needed", seat=seat)]
        if turn.loser not in (seat, turn.target):
            problems.append(CATALOGUE.problem("loser-not-compared", seat=turn.loser))
        if turn.revealed is None:
            problems.append(CATALOGUE.problem("reveal-needed", seat=turn.loser))
        elif not is_value(turn.revealed):
            problems.append(CATALOGUE.problem("value-out-of-range", value=turn.revealed,
                                              field="revealed"))
        elif pool[turn.revealed] <= 0:
            problems.append(_no_copy(turn.revealed))
        else:
            pool = pool.copy()
            pool[turn.revealed] -= 1
            if not any(pool[value] > 0 for value in VALUES if value > turn.revealed):
                problems.append(CATALOGUE.problem("no-higher-card", seat=turn.loser,
                                                  **card_params(turn.revealed)))
        return problems

    def faults(self, final: Mapping[int, int] | None = None) -> tuple[Problem, ...]:
        """The mistakes proven so far (``celeste-not-played``, ``garde-lie``, ``librarian-wrong``,
        ``librarian-tie-wrong``),
        in turn order; with ``final`` (the cards shown at the end, by seat) those it proves too."""
        found = list(self._top.faults)
        suspicions = [list(hand) for hand in self._top.suspicions]
        for seat, value in sorted((final or {}).items()):
            if 0 <= seat < self.players:
                found += revealed_faults(suspicions, seat, value)
        return tuple(found)

    def reveal(self, cards: Mapping[int, int]) -> RoundReveal:
        """The round-end reveal filled from the log: who is still in and both bonus answers come
        from the discards, so only the cards shown at the end are needed (none if one player is
        still in). Raises :class:`EntryError` (``round-not-over``, ``card-missing``,
        ``card-for-player-out``, ``no-copy-left`` …)."""
        ending = self._top.ending
        if ending is None:
            raise EntryError(CATALOGUE.problem("round-not-over", current=self.current_seat))
        shown = tuple(cards.get(seat) for seat in range(self.players))
        reveal = RoundReveal(frozenset(ending.still_in), shown, ending.spies, ending.princesses)
        # Copies are judged against what is still unseen, not against the deck alone.
        problems = [p for p in check_reveal(reveal) if p.code != "too-many-copies"]
        problems += [CATALOGUE.problem("unknown-seat", value=seat, players=self.players)
                     for seat in cards if not 0 <= seat < self.players]
        if not problems:
            problems = self.final_problems(cards)
        if problems:
            raise EntryError(problems)
        return reveal

    def final_problems(self, cards: Mapping[int, int]) -> list[Problem]:
        """``value-out-of-range`` and ``no-copy-left`` for the cards shown at the end."""
        problems: list[Problem] = []
        pool = Counter(self.unseen())
        for seat, value in sorted(cards.items()):
            if not is_value(value):
                problems.append(CATALOGUE.problem("value-out-of-range", seat=seat, value=value,
                                                  field="held"))
                continue
            if pool[value] <= 0:
                problems.append(_no_copy(value, seat=seat))
            pool[value] -= 1
        return problems

    # ---- commands ------------------------------------------------------------------------------

    def play(self, turn: Turn) -> None:
        """Check ``turn`` (:meth:`check_turn`) and push it; raises :class:`EntryError`."""
        problems = self.check_turn(turn)
        if problems:
            raise EntryError(problems)
        self.push(turn)

    def push(self, turn: Turn) -> None:
        """Apply ``turn`` **without checking it** (the trusted path for stored, checked logs)."""
        self._stack.append(apply_turn(self._top, turn, len(self._turns) + 1, self.players))
        self._turns.append(turn)

    def pop(self) -> Turn:
        """Undo the last turn and return it; raises :class:`IndexError` if there is none."""
        if not self._turns:
            raise IndexError("no turn to undo")
        self._stack.pop()
        return self._turns.pop()


def _no_copy(value: int, seat: int | None = None) -> Problem:
    return CATALOGUE.problem("no-copy-left", seat=seat, copies=COPIES[value],
                             **card_params(value))


def _unexpected(name: str, card: int) -> Problem:
    return CATALOGUE.problem("unexpected-answer", **card_params(card), field=name)


def check_setup(players: int, first: int, face_up: Sequence[int]) -> list[Problem]:
    """Problems of a round's set-up: player count, first player, the face-up cards (exactly three
    at two players, none otherwise, each a value with copies left)."""
    problem = player_count_problem(players)
    if problem is not None:
        return [problem]
    problems: list[Problem] = []
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
        problems.append(CATALOGUE.problem("unknown-seat", value=first, players=players))
    expected = player_count(players).face_up
    if len(face_up) != expected:
        problems.append(CATALOGUE.problem("face-up-count", expected=expected, got=len(face_up)))
    for value in face_up:
        if not is_value(value):
            problems.append(CATALOGUE.problem("value-out-of-range", value=value,
                                              field="face_up"))
    problems += copy_problems(face_up)
    return problems
