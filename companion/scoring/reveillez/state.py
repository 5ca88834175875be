"""ReveillezGameState: one game of « Réveillez les 12 princesses » as the app follows it at the
table.

The state holds the 12 slots of the centre grid (which princess sleeps where), the princesses awake
in front of each seat, what the app has learnt about each princess (printed value, optional name)
and whose turn it is. It answers cheap questions (:meth:`ReveillezGameState.standings`,
:meth:`ReveillezGameState.stealable`, :meth:`ReveillezGameState.check`, which never raises …)
and takes explicit commands: :meth:`ReveillezGameState.play` checks then pushes,
:meth:`ReveillezGameState.push` trusts its input (the path for replaying stored history),
:meth:`ReveillezGameState.pop` undoes.

Rules applied (rulebook, seed 003, « Le jeu » and « Fin du jeu »; REVEILLEZ.md):

- Play goes clockwise (seat ``s + 1`` is the left neighbour of seat ``s``) from the player left of
  the dealer (``Setup.first``). Every action ends the turn, except a jester revealing a power card:
  that player plays again.
- Prince: wake one sleeping princess. Knight: take an opponent's awake princess unless they answer
  at once with a dragon (then nothing moves and play goes on left of the knight's player). Potion:
  put an opponent's princess to sleep face down on a free slot, unless answered with a wand. A
  defence not played at once is lost: it is part of the knight's or potion's entry and cannot be
  added afterwards (only undo can change it).
- Jester: see :mod:`.jester`; the seat reached wakes a princess, which may win them the game on
  somebody else's turn.
- The win is checked after every action (see :mod:`.standings`); a finished game takes no more
  actions.
- The app remembers every princess once seen: a princess woken again needs no value, and her value
  stays known while she sleeps (showing it is the table screen's choice).

Variant « caprices de princesses » (``Setup.variant``; rulebook « Variante »; REVEILLEZ.md):

- The Rose, each time she is woken from the centre (prince or jester, not a knight), wakes one more
  sleeping princess chosen by the same player; both arrive together, so the win is checked once both
  are in front of the player. If the Rose is the last one asleep she comes alone.
- Nobody holds the Dog and the Cat together: a player who wakes the second one puts her back face
  down in the slot she came from (the app keeps her value) and the turn ends. A knight cannot take
  one of them from an opponent while its player holds the other (our reading).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from companion.scoring.problems import EntryError, Problem

from .actions import Action, CentrePick, Discard, Jester, Sleep, Steal, Wake, parse_action, resolved
from .cards import (
    PRINCESSES,
    SLOTS,
    PrincessCard,
    ReveillezCard,
    Special,
    Target,
)
from .discard import check_discard_entry, read_discard
from .events import Event, Move, MoveKind, Place
from .jester import JesterCount, count_from
from .problems import CATALOGUE
from .setup import Setup
from .standings import Remaining, ReveillezStandings, evaluate

# --------------------------------------------------------------------------- the position

@dataclass(frozen=True, slots=True)
class _Position:
    slots: tuple[int | None, ...]            # the princess sleeping in each slot, if any
    awake: tuple[tuple[int, ...], ...]       # per seat, the princesses in front, in arrival order
    known: tuple[PrincessCard | None, ...]   # per princess, what the players have seen on her
    turn: int


class ReveillezGameState:
    """One game: the centre grid, who holds which awake princess, what is known of each princess,
    whose turn it is, and the history of actions (see the module docstring)."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self._position = _Position(
            slots=tuple(SLOTS),
            awake=tuple(() for _ in range(setup.players)),
            known=(None,) * PRINCESSES,
            turn=setup.first,
        )
        # Each action in effect: its event, the position before it, every seat's points after it.
        self._stack: list[tuple[Event, _Position, tuple[int, ...]]] = []
        self._cache: tuple[_Position, ReveillezStandings] | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def replay(cls, setup: Setup, actions: Iterable[Action | str]) -> ReveillezGameState:
        """A state with ``actions`` (values or notation) pushed in order, unchecked: the path for
        stored history, which was checked when it was played."""
        state = cls(setup)
        for action in actions:
            state.push(parse_action(action) if isinstance(action, str) else action)
        return state

    @classmethod
    def from_notation(cls, text: str) -> ReveillezGameState:
        """Rebuild a game from :meth:`notation`; raises EntryError on bad notation."""
        head, *rest = text.split(";")
        state = cls(Setup.parse(head))
        for part in rest:
            if part.strip():
                state.play(parse_action(part.strip()))
        return state

    def notation(self) -> str:
        """The set-up and every action: ``"3 first=0 variant; wake 3 10; steal 3"``."""
        return "; ".join([str(self.setup), *(str(event.action) for event in self.history)])

    def copy(self) -> ReveillezGameState:
        """An independent state with the same set-up, position and history."""
        other = ReveillezGameState(self.setup)
        other._position = self._position
        other._stack = list(self._stack)
        return other

    # ------------------------------------------------------------------ cheap queries

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def variant(self) -> bool:
        return self.setup.variant

    @property
    def target(self) -> Target:
        return self.setup.target

    @property
    def turn(self) -> int:
        """The seat whose turn it is (after the end: the seat that would have played next)."""
        return self._position.turn

    @property
    def history(self) -> tuple[Event, ...]:
        return tuple(event for event, _, _ in self._stack)

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(event.action for event, _, _ in self._stack)

    def progress(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's points after each action in effect, in order: what a replay of
        :attr:`actions` counts after each one, kept as they were played (a save's history
        summary needs them, and need not replay the game again for them)."""
        return tuple(points for _, _, points in self._stack)

    def __len__(self) -> int:
        return len(self._stack)

    def princess_in(self, slot: int) -> int | None:
        """The princess sleeping in ``slot``, or None if the slot is free."""
        return self._position.slots[slot]

    def sleeping_slots(self) -> tuple[int, ...]:
        """The slots holding a sleeping princess, in grid order."""
        return tuple(slot for slot, p in enumerate(self._position.slots) if p is not None)

    def free_slots(self) -> tuple[int, ...]:
        """The empty slots of the centre, where a potion may put a princess back."""
        return tuple(slot for slot, p in enumerate(self._position.slots) if p is None)

    def sleeping(self) -> int:
        """How many princesses are asleep in the centre."""
        return len(self.sleeping_slots())

    def slot_of(self, princess: int) -> int | None:
        """The slot a sleeping princess is in (None when she is awake)."""
        try:
            return self._position.slots.index(princess)
        except ValueError:
            return None

    def card(self, princess: int) -> PrincessCard | None:
        """What the app knows of ``princess`` (value, name), or None if nobody has seen her."""
        return self._position.known[princess]

    def card_in(self, slot: int) -> PrincessCard | None:
        """What the app knows of the princess sleeping in ``slot`` (None if unseen or free)."""
        princess = self._position.slots[slot]
        return None if princess is None else self._position.known[princess]

    def holder(self, princess: int) -> int | None:
        """The seat the awake ``princess`` is in front of, or None while she sleeps."""
        for seat, mine in enumerate(self._position.awake):
            if princess in mine:
                return seat
        return None

    def awake_of(self, seat: int) -> tuple[int, ...]:
        """The princesses in front of ``seat``, in the order they arrived."""
        return self._position.awake[seat]

    def values_of(self, seat: int) -> tuple[int, ...]:
        """The printed values of the princesses in front of ``seat``."""
        return tuple(self._value(p) for p in self._position.awake[seat])

    def points(self, seat: int) -> int:
        return sum(self.values_of(seat))

    def find(self, special: Special) -> int | None:
        """The princess known as the Rose, the Dog or the Cat, if she has been seen."""
        for princess, card in enumerate(self._position.known):
            if card is not None and card.special is special:
                return princess
        return None

    def standings(self) -> ReveillezStandings:
        """Points, princesses, target and (once over) winners and reason."""
        if self._cache is None or self._cache[0] is not self._position:
            table = evaluate([self.values_of(seat) for seat in range(self.players)],
                             self.sleeping())
            self._cache = (self._position, table)
        return self._cache[1]

    def remaining(self, seat: int) -> Remaining:
        """What ``seat`` still needs: "2 more princesses or 15 more points"."""
        return self.standings().remaining(seat)

    @property
    def is_over(self) -> bool:
        return self.standings().is_over

    @property
    def outcome(self) -> ReveillezStandings | None:
        """The final standings once the game is over, else None."""
        table = self.standings()
        return table if table.is_over else None

    def jester_count(self, revealed: object) -> JesterCount:
        """What a card revealed by the jester of the player to move does (raises EntryError for
        an unknown card)."""
        return count_from(self.players, self.turn, ReveillezCard.parse(revealed))

    def stealable(self, seat: int | None = None) -> tuple[int, ...]:
        """The princesses ``seat`` (default: the player to move) may take with a knight."""
        seat = self.turn if seat is None else seat
        return tuple(p for other in range(self.players) if other != seat
                     for p in self._position.awake[other] if not self._pets_clash(seat, p))

    def unstealable(self, seat: int | None = None) -> tuple[tuple[int, list[Problem]], ...]:
        """The awake princesses of the others that ``seat`` (default: the player to move) may
        not take with a knight, each with why (the variant's pets: never the Dog and the Cat
        together), so that the page says it instead of leaving her out silently."""
        seat = self.turn if seat is None else seat
        return tuple((p, self._check_steal(seat, p))
                     for other in range(self.players) if other != seat
                     for p in self._position.awake[other] if self._pets_clash(seat, p))

    def sleepable(self, seat: int | None = None) -> tuple[int, ...]:
        """The princesses ``seat`` (default: the player to move) may put to sleep with a potion."""
        seat = self.turn if seat is None else seat
        return tuple(p for other in range(self.players) if other != seat
                     for p in self._position.awake[other])

    def needs_companion(self, slot: int, card: PrincessCard | None = None) -> bool:
        """Whether waking the princess of ``slot`` (seen as ``card`` if the app does not know her
        yet) must bring a companion: the Rose under the variant, while another one sleeps."""
        princess = self._position.slots[slot]
        known = None if princess is None else self._position.known[princess]
        seen = known or card
        return (self.variant and seen is not None and seen.special is Special.ROSE
                and self.sleeping() > 1)

    def places(self) -> tuple[Place, ...]:
        """The 12 princesses as the table screen's grid, one per slot: a sleeping princess in the
        slot she sleeps in, an awake one on a free slot — the one she was last woken from when it
        is still free, else the first free slot left (there are as many free slots as awake
        princesses, so every princess has exactly one cell)."""
        left_from: dict[int, int] = {}
        for event in self.history:
            for move in event.moves:
                if move.kind is MoveKind.WOKEN and move.slot is not None:
                    left_from[move.princess] = move.slot
        shown: dict[int, int] = {}
        free = list(self.free_slots())
        awake = [p for seat in range(self.players) for p in self._position.awake[seat]]
        for princess in sorted(awake, key=lambda p: left_from.get(p, PRINCESSES)):
            slot = left_from.get(princess)
            if slot is not None and slot in free:
                shown[slot] = princess
                free.remove(slot)
        for princess in sorted(p for p in awake if p not in shown.values()):
            shown[free.pop(0)] = princess
        cells = []
        for slot in SLOTS:
            sleeping = self._position.slots[slot]
            princess = sleeping if sleeping is not None else shown[slot]
            cells.append(Place(slot, princess, None if sleeping is not None
                               else self.holder(princess), self._position.known[princess]))
        return tuple(cells)

    def is_legal(self, action: Action) -> bool:
        return not self.check(action)

    # ------------------------------------------------------------------ checking

    def check(self, action: Action) -> list[Problem]:
        """Every problem with ``action`` for the player to move (empty if it may be played).
        Never raises."""
        if self.is_over:
            return [CATALOGUE.problem("game-over")]
        seat = self.turn
        if isinstance(action, Wake):
            return self._check_wake(seat, action)
        if isinstance(action, Jester):
            count = count_from(self.players, seat, action.revealed)
            if count.wakes is None:
                if action.wake is not None:
                    return [CATALOGUE.problem("jester-no-wake", seat=seat,
                                              card=str(action.revealed))]
                return []
            if action.wake is None:
                return [CATALOGUE.problem("jester-wake-needed", seat=count.wakes,
                                          card=str(action.revealed))]
            return self._check_wake(count.wakes, action.wake)
        if isinstance(action, Steal):
            return self._check_steal(seat, action.princess)
        if isinstance(action, Sleep):
            problems = self._check_target(seat, action.princess)
            if action.slot is not None and not action.wand:
                problems += self._check_slot(action.slot, free=True)
            return problems
        if isinstance(action, Discard):
            problems = check_discard_entry(action.cards)
            if not problems and not read_discard(action.cards).is_valid:
                problems.append(CATALOGUE.problem(
                    "discard-invalid", seat=seat,
                    cards=" ".join(str(card) for card in action.cards)))
            return problems
        return [CATALOGUE.problem("notation", given=repr(action))]  # pragma: no cover

    def _check_steal(self, seat: int, princess: object) -> list[Problem]:
        problems = self._check_target(seat, princess)
        if not problems and isinstance(princess, int) and self._pets_clash(seat, princess):
            # Variant, our reading: a knight cannot make the Dog and the Cat meet.
            problems.append(CATALOGUE.problem("pets-apart", seat=seat))
        return problems

    def _check_slot(self, slot: object, *, free: bool) -> list[Problem]:
        if not isinstance(slot, int) or isinstance(slot, bool) or slot not in SLOTS:
            return [CATALOGUE.problem("slot-range", given=slot, high=PRINCESSES)]
        if free and self._position.slots[slot] is not None:
            return [CATALOGUE.problem("slot-taken", number=slot + 1)]
        if not free and self._position.slots[slot] is None:
            return [CATALOGUE.problem("slot-empty", number=slot + 1)]
        return []

    def _check_target(self, seat: int, princess: object) -> list[Problem]:
        if not isinstance(princess, int) or isinstance(princess, bool) or princess not in SLOTS:
            return [CATALOGUE.problem("princess-range", given=princess, high=PRINCESSES)]
        holder = self.holder(princess)
        if holder is None:
            return [CATALOGUE.problem("not-awake", seat=seat)]
        if holder == seat:
            return [CATALOGUE.problem("own-princess", seat=seat)]
        return []

    def _check_pick(self, pick: CentrePick,
                    names: set[str]) -> tuple[PrincessCard | None, list[Problem]]:
        problems = self._check_slot(pick.slot, free=False)
        if problems:
            return None, problems
        princess = self._position.slots[pick.slot]
        assert princess is not None
        known = self._position.known[princess]
        if known is None and pick.card is None:
            return None, [CATALOGUE.problem("value-needed", number=pick.slot + 1)]
        if known is not None and pick.card is not None and (
                pick.card.value != known.value
                or (pick.card.name is not None and pick.card.name != known.name)):
            return known, [CATALOGUE.problem("princess-differs", number=pick.slot + 1,
                                             value=known.value, name=known.name or "",
                                             given=pick.card.value)]
        seen = known or pick.card
        assert seen is not None
        if known is None and seen.name is not None and seen.name.casefold() in names:
            problems.append(CATALOGUE.problem("name-taken", name=seen.name))
        return seen, problems

    def _names_in_use(self) -> set[str]:
        return {card.name.casefold() for card in self._position.known
                if card is not None and card.name is not None}

    def _check_wake(self, seat: int, wake: Wake) -> list[Problem]:
        names = self._names_in_use()
        seen, problems = self._check_pick(wake.pick, names)
        if problems:
            return problems
        assert seen is not None
        if seen.name is not None:
            names.add(seen.name.casefold())
        rose = self.variant and seen.special is Special.ROSE
        others = [slot for slot in self.sleeping_slots() if slot != wake.slot]
        if wake.companion is None:
            if rose and others:
                problems.append(CATALOGUE.problem("companion-needed", seat=seat))
            return problems
        if not rose:
            return [CATALOGUE.problem("companion-unexpected", seat=seat)]
        if wake.companion.slot == wake.slot:
            return [CATALOGUE.problem("companion-same-slot", number=wake.slot + 1)]
        _, companion_problems = self._check_pick(wake.companion, names)
        return problems + companion_problems

    # ------------------------------------------------------------------ commands

    def play(self, action: Action) -> Event:
        """Check ``action`` for the player to move, then push it. Raises EntryError with every
        problem of :meth:`check`; the state is unchanged then."""
        problems = self.check(action)
        if problems:
            raise EntryError(problems)
        return self.push(action)

    def push(self, action: Action) -> Event:
        """Apply ``action`` for the player to move **without checking it** (stored history is
        replayed this way). Only a finished game is refused (EntryError ``game-over``), so a game
        ends exactly once."""
        if self.is_over:
            raise EntryError(CATALOGUE.problem("game-over"))
        before = self._position
        seat = before.turn
        moves: list[Move] = []
        count: JesterCount | None = None
        next_turn = (seat + 1) % self.players
        holder: int | None = None
        if self.free_slots():
            action = resolved(action, self.free_slots()[0])
        if isinstance(action, Wake):
            moves += self._wake(seat, action)
        elif isinstance(action, Jester):
            count = count_from(self.players, seat, action.revealed)
            if count.wakes is None:
                next_turn = seat  # a power card: the jester's player plays again
            elif action.wake is not None:
                moves += self._wake(count.wakes, action.wake)
        elif isinstance(action, Steal):
            holder = self.holder(action.princess)
            assert holder is not None, f"princess {action.princess} is not awake"
            if not action.dragon:
                self._take(holder, action.princess)
                self._give(seat, action.princess)
                moves.append(Move(MoveKind.STOLEN, action.princess, seat, source=holder))
        elif isinstance(action, Sleep):
            holder = self.holder(action.princess)
            assert holder is not None, f"princess {action.princess} is not awake"
            if not action.wand:
                assert action.slot is not None
                self._take(holder, action.princess)
                self._lay(action.slot, action.princess)
                moves.append(Move(MoveKind.ASLEEP, action.princess, holder, slot=action.slot))
        self._position = replace(self._position, turn=next_turn)
        table = self.standings()
        event = Event(index=len(self._stack), seat=seat, action=action, moves=tuple(moves),
                      turn=next_turn, count=count, defender=holder,
                      outcome=table if table.is_over else None)
        self._stack.append((event, before, table.points))
        return event

    def pop(self) -> Event:
        """Undo the last action and return it; raises IndexError if there is none."""
        event, before, _ = self._stack.pop()
        self._position = before
        return event

    def __iter__(self) -> Iterator[Event]:
        return iter(self.history)

    # ------------------------------------------------------------------ internals

    def _value(self, princess: int) -> int:
        card = self._position.known[princess]
        assert card is not None, f"princess {princess} is awake but her value is unknown"
        return card.value

    def _pets_clash(self, seat: int, princess: int) -> bool:
        """Variant: ``seat`` holds the other pet of ``princess`` (the Dog for the Cat …)."""
        if not self.variant:
            return False
        card = self._position.known[princess]
        other = None if card is None or card.special is None else card.special.other_pet
        return other is not None and any(
            self._special(p) is other for p in self._position.awake[seat])

    def _special(self, princess: int) -> Special | None:
        card = self._position.known[princess]
        return None if card is None else card.special

    def _learn(self, princess: int, card: PrincessCard | None) -> None:
        if self._position.known[princess] is None and card is not None:
            known = list(self._position.known)
            known[princess] = card
            self._position = replace(self._position, known=tuple(known))

    def _give(self, seat: int, princess: int) -> None:
        awake = list(self._position.awake)
        awake[seat] = (*awake[seat], princess)
        self._position = replace(self._position, awake=tuple(awake))

    def _take(self, seat: int, princess: int) -> None:
        awake = list(self._position.awake)
        awake[seat] = tuple(p for p in awake[seat] if p != princess)
        self._position = replace(self._position, awake=tuple(awake))

    def _lay(self, slot: int, princess: int | None) -> None:
        slots = list(self._position.slots)
        slots[slot] = princess
        self._position = replace(self._position, slots=tuple(slots))

    def _wake_one(self, seat: int, pick: CentrePick) -> Move:
        princess = self._position.slots[pick.slot]
        assert princess is not None, f"slot {pick.slot} is empty"
        self._learn(princess, pick.card)
        if self._pets_clash(seat, princess):
            # Variant: the Dog and the Cat never together; she goes back face down, turn over.
            return Move(MoveKind.SENT_BACK, princess, seat, slot=pick.slot)
        self._lay(pick.slot, None)
        self._give(seat, princess)
        return Move(MoveKind.WOKEN, princess, seat, slot=pick.slot)

    def _wake(self, seat: int, wake: Wake) -> list[Move]:
        moves = [self._wake_one(seat, wake.pick)]
        if wake.companion is not None:
            moves.append(self._wake_one(seat, wake.companion))
        return moves

    def __repr__(self) -> str:
        return f"ReveillezGameState.from_notation({self.notation()!r})"
