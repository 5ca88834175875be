"""Table entry: judging a round as it is played at the table, with the hands unknown.

At the table the app sees the tricks (and the powers announced), not the hands. The rules are
judged in two stages (RULINGS.md "Trick rules the engine must apply"; HOUSE_STYLE.md section 2):

- **At once** (:meth:`TableRound.check_trick`): the trick's leader, its card count, cards outside
  the deck, a card named twice, a card already played, and the winner (decided from the cards,
  the Round card and the powers in effect).
- **Later** (:meth:`TableRound.findings`): a play that breaks the rules whatever else the player
  held. A card a player plays later was already in their hand, unless it could have arrived since,
  so every later play adds to what each hand is *known* to have held
  (:meth:`TableRound.known_hands`). Each earlier play is checked again by the full-information
  engine against that smallest known hand; a violation found then is proven. Typical findings: a
  revoke (a player did not follow suit and later plays that suit), and Princes led before they
  snuck in by a leader who later shows other cards.

Cards arrive unseen through Musical Chairs (k / E: every seat, after every trick), the set-aside
cards coming back (b / G, m / N, q / Q), Sleeping Beauty and Scheherazade (cards not seen) and
Alice when the dealt cards are not entered: knowledge stops at such a point for the seats
concerned. Cards arriving in sight (a haggled card, the card Mulan takes back, Alice's dealt cards
when entered) are left out of what the seat is known to have held before.

The cards kept under Late for a Very Important Date (n) and the Wedding Gift piles (o / M) are not
seen at the table: :meth:`TableRound.outcome` leaves them empty, and the players enter them for the
scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.scoring.rebel_princess.cards import Card, Edition, hand_size

from .cards import card_id, cards_of, deck_mask, mask_of
from .errors import IllegalTrickError, InvalidEntryError, Violation, ViolationCode
from .state import RoundOutcome, RoundState, Trick, parse_edition
from .steps import Haggle, PowerUse, Step

__all__ = ["Finding", "TableRound"]

V = ViolationCode
#: Codes that describe a broken trick rule (as opposed to a malformed entry).
RULE_CODES = frozenset({
    V.MUST_FOLLOW_SUIT, V.PRINCES_NOT_INVITED, V.MUST_PLAY_HIGHEST_OR_LOWEST,
    V.MUST_MATCH_PARITY, V.POWER_RESTRICTION,
})
#: Powers that change how a trick is played or won (the others move cards or the lead).
_TRICK_POWERS = frozenset({"cinderella", "snow-white", "pea-princess", "little-mermaid",
                           "rapunzel", "thumbelina", "ice-princess"})
_BIG = 10**6


@dataclass(frozen=True)
class Finding:
    """A rule broken in trick number ``trick`` (0-based), proven by what was played since."""

    trick: int
    violation: Violation


@dataclass
class _Played:
    """One trick as replayed: who led, whether Princes were in, the powers in effect, the
    winner, and the after-trick events that followed it."""

    trick: Trick
    princes_before: bool
    uses: list[PowerUse]
    winner: int
    mulan: PowerUse | None = None
    after: list[Step] = field(default_factory=list)


def tally(played: Sequence[_Played], players: int) -> tuple[list[int], list[int]]:
    """Cards taken (as masks) and tricks won per seat from judged tricks: Mulan's swap counts
    her new card, a haggle swaps a card of the trick for one from the winner's hand, and a trick
    Alice deals back is neither taken nor won."""
    taken = [0] * players
    won = [0] * players
    for entry in played:
        cards = list(entry.trick.cards)
        if entry.mulan is not None:
            old, new = entry.mulan.cards
            cards[cards.index(old)] = new
        taken[entry.winner] |= mask_of(cards)
        won[entry.winner] += 1
        for event in entry.after:
            if isinstance(event, Haggle):
                taken[event.seat] = taken[event.seat] & ~(1 << card_id(event.take)) | (
                    1 << card_id(event.give))
            elif isinstance(event, PowerUse) and event.power == "alice":
                taken[entry.winner] &= ~mask_of(cards)
                won[entry.winner] -= 1
    return taken, won


class TableRound:
    """A round entered at the table, trick by trick, with the hands unknown."""

    def __init__(self, players: int, *, edition: Edition | str = Edition.DELUXE,
                 round_card: str | None = None, leader: int = 0,
                 princesses: Sequence[str | None] | None = None) -> None:
        """Raises :class:`InvalidEntryError` for a bad player count, edition, Round card, leader
        or Princess."""
        if not (isinstance(players, int) and 3 <= players <= 6):
            raise InvalidEntryError(f"{players!r} players; Rebel Princess seats 3 to 6")
        self.edition = parse_edition(edition)
        # An empty full-information state gives the Round card's shape and checks the setup.
        self._shape = RoundState([0] * players, edition=self.edition, round_card=round_card,
                                 leader=leader, princesses=princesses)
        self.players = players
        self.round_card = self._shape.round_card
        self.first_leader = leader
        self.princesses = self._shape.princesses
        self.events: list[Trick | Haggle | PowerUse] = []

    # -- replay -----------------------------------------------------------------------------------

    def _judge_state(self, hands: list[int], leader: int, princes: bool) -> RoundState:
        """A full-information state in trick play with the given (partial) hands."""
        state = RoundState([0] * self.players, edition=self.edition, round_card=self.round_card,
                           leader=leader, princes_in=princes, princesses=self.princesses)
        state.hands = list(hands)
        state._pending = None
        state._left = _BIG  # the hands are partial: never end the round here
        return state

    def _decide(self, trick: Trick, princes: bool, uses: list[PowerUse],
                mulan: PowerUse | None = None) -> tuple[int, bool]:
        """The winner of ``trick`` and whether Princes are in after it."""
        hands = [0] * self.players
        for index, card in enumerate(trick.cards):
            hands[trick.seat_of(index, self.players)] |= 1 << card_id(card)
        if mulan is not None:
            hands[mulan.seat] |= 1 << card_id(mulan.cards[1])
        state = self._judge_state(hands, trick.leader, princes)
        for use in uses:
            if use.power in _TRICK_POWERS:
                state.push_step(use)
        state.leader = trick.leader
        winner = state.push(Trick(trick.leader, trick.cards))
        if mulan is not None:
            state.push_step(mulan)
            winner = state._history[-1][2]
        return winner, state.princes_in

    def _replay(self) -> tuple[list[_Played], int, bool, list[PowerUse]]:
        """Every trick in order, plus the next leader, the Princes flag and the powers declared
        for the next trick."""
        played: list[_Played] = []
        leader, princes = self.first_leader, False
        uses: list[PowerUse] = []
        for event in self.events:
            if isinstance(event, Trick):
                winner, after = self._decide(event, princes, uses)
                played.append(_Played(event, princes, uses, winner))
                leader, princes, uses = winner, after, []
            elif isinstance(event, PowerUse) and event.power == "mulan" and played:
                last = played[-1]
                last.mulan = event
                last.after.append(event)
                last.winner, princes = self._decide(last.trick, last.princes_before, last.uses,
                                                    event)
                leader = last.winner
            elif isinstance(event, PowerUse) and event.power == "alice" and played:
                played[-1].after.append(event)
                if any(card.suit.value == "P" for card in played[-1].trick.cards):
                    princes = True  # Princes dealt back by Alice are in (RULINGS.md)
            elif isinstance(event, PowerUse) and event.power == "pocahontas":
                if played and self._shape.powers[event.seat] is not None and \
                        self._shape.powers[event.seat].when() == "after":  # type: ignore[union-attr]
                    played[-1].after.append(event)
                else:
                    uses.append(event)
                if event.target is not None:
                    leader = event.target
            elif isinstance(event, PowerUse):
                uses.append(event)
            elif played:
                played[-1].after.append(event)
        return played, leader, princes, uses

    # -- knowledge -----------------------------------------------------------------------------

    def _breaks(self, played: list[_Played]) -> list[set[int]]:
        """For each trick, the seats that may have received unseen cards just before it."""
        shape = self._shape
        per_seat = shape.trick_size // self.players
        size = hand_size(self.players)
        aside = shape._aside_cards
        aside = size // 2 if aside == -1 else aside
        count = size - aside  # cards in each hand in the current phase
        breaks: list[set[int]] = []
        pending: set[int] = set()
        everyone = set(range(self.players))
        for number, entry in enumerate(played):
            breaks.append(pending)
            pending = set()
            count -= per_seat
            if shape._chairs_on and number + 1 < len(played):
                pending |= everyone
            for event in entry.after:
                if isinstance(event, PowerUse) and event.power == "alice":
                    count += per_seat
                    if not event.cards:
                        pending |= everyone  # dealt unseen
            if count <= 0 and aside:
                count, aside = aside, 0
                pending |= everyone  # the set-aside cards come back
            for event in self._uses_before(number + 1):
                if event.power == "sleeping-beauty":
                    pending |= everyone
                elif event.power == "scheherazade":
                    target = event.target if event.target is not None else event.seat
                    pending |= {event.seat, target}
        return breaks

    def _uses_before(self, number: int) -> list[PowerUse]:
        """The power uses entered between trick ``number - 1`` and trick ``number``."""
        seen = 0
        found: list[PowerUse] = []
        for event in self.events:
            if isinstance(event, Trick):
                seen += 1
                if seen > number:
                    break
            elif seen == number and isinstance(event, PowerUse):
                found.append(event)
        return found

    def known_hands(self, number: int) -> tuple[frozenset[Card], ...]:
        """The cards each seat is proven to have held at the start of trick ``number`` (0-based),
        from the cards it played from then on until unseen cards may have reached it."""
        played, _, _, _ = self._replay()
        return tuple(cards_of(mask) for mask in self._known(played, number))

    def _known(self, played: list[_Played], number: int) -> list[int]:
        breaks = self._breaks(played)
        known = [0] * self.players
        open_seats = set(range(self.players))
        arrived = [0] * self.players  # cards seen arriving since trick ``number`` started
        for index in range(number, len(played)):
            if index > number:
                open_seats -= breaks[index]
            entry = played[index]
            for position, card in enumerate(entry.trick.cards):
                seat = entry.trick.seat_of(position, self.players)
                bit = 1 << card_id(card)
                if seat in open_seats and not arrived[seat] & bit:
                    known[seat] |= bit
            for event in entry.after:
                if isinstance(event, Haggle):
                    arrived[event.seat] |= 1 << card_id(event.take)
                elif isinstance(event, PowerUse) and event.power == "mulan":
                    arrived[event.seat] |= 1 << card_id(event.cards[0])
                elif isinstance(event, PowerUse) and event.power == "alice":
                    for position, card in enumerate(event.cards):
                        arrived[position % self.players] |= 1 << card_id(card)
        return known

    def _proven(self, played: list[_Played], number: int) -> list[Violation]:
        """The rule violations in trick ``number`` that hold for any hand containing the known
        cards (the smallest hand the player can have held)."""
        entry = played[number]
        hands = self._known(played, number)
        for position, card in enumerate(entry.trick.cards):
            hands[entry.trick.seat_of(position, self.players)] |= 1 << card_id(card)
        state = self._judge_state(hands, entry.trick.leader, entry.princes_before)
        for use in entry.uses:
            if use.power in _TRICK_POWERS:
                state.push_step(use)
        state.leader = entry.trick.leader
        return [v for v in state.check_trick(Trick(entry.trick.leader, entry.trick.cards))
                if v.code in RULE_CODES]

    def findings(self) -> list[Finding]:
        """Every rule proven broken so far, by trick; later tricks can add findings about earlier
        ones (a revoke shows when the player later plays the suit)."""
        played, _, _, _ = self._replay()
        return [Finding(number, violation) for number in range(len(played))
                for violation in self._proven(played, number)]

    # -- entering tricks and powers ----------------------------------------------------------------

    @property
    def leader(self) -> int:
        """The seat to lead the next trick."""
        return self._replay()[1]

    @property
    def princes_in(self) -> bool:
        """Whether the Princes have snuck in."""
        return self._replay()[2]

    def _expected_tricks(self, played: list[_Played]) -> int:
        shape = self._shape
        size = hand_size(self.players)
        per_seat = shape.trick_size // self.players
        base = size // 2 // per_seat if shape._gift_on else (size - shape._kept) // per_seat
        alices = sum(1 for e in self.events if isinstance(e, PowerUse) and e.power == "alice")
        return base + alices

    def is_over(self) -> bool:
        """Whether every trick of the round has been entered."""
        played = self._replay()[0]
        return len(played) >= self._expected_tricks(played)

    def _in_play(self, played: list[_Played]) -> int:
        """Cards already played and not back in a hand (a mask)."""
        used = 0
        for entry in played:
            used |= mask_of(entry.trick.cards)
            for event in entry.after:
                if isinstance(event, Haggle):
                    used &= ~(1 << card_id(event.take))
                    used |= 1 << card_id(event.give)
                elif isinstance(event, PowerUse) and event.power == "mulan":
                    used = used & ~(1 << card_id(event.cards[0])) | 1 << card_id(event.cards[1])
                elif isinstance(event, PowerUse) and event.power == "alice":
                    used &= ~mask_of(entry.trick.cards)
        return used

    def check_trick(self, trick: Trick) -> list[Violation]:
        """What can be judged at once about ``trick`` as the next trick (see the module
        docstring); never raises. Rules that need the hands are judged by :meth:`findings`."""
        played, leader, princes, uses = self._replay()
        if len(played) >= self._expected_tricks(played):
            return [Violation(V.ROUND_OVER)]
        if trick.leader != leader:
            return [Violation(V.WRONG_LEADER, trick.leader)]
        if len(trick.cards) != self._shape.trick_size:
            return [Violation(V.WRONG_CARD_COUNT)]
        violations = []
        used = self._in_play(played)
        in_deck = deck_mask(self.players)
        seen: set[Card] = set()
        for index, card in enumerate(trick.cards):
            seat = trick.seat_of(index, self.players)
            bit = 1 << card_id(card)
            if not bit & in_deck:
                violations.append(Violation(V.CARD_NOT_IN_DECK, seat, card))
            elif card in seen:
                violations.append(Violation(V.DUPLICATE_CARD, seat, card))
            elif bit & used:
                violations.append(Violation(V.CARD_ALREADY_PLAYED, seat, card))
            seen.add(card)
        if violations:
            return violations
        entry = _Played(trick, princes, uses, self._decide(trick, princes, uses)[0])
        violations = self._proven(played + [entry], len(played))
        if trick.winner is not None and trick.winner != entry.winner:
            violations.append(Violation(V.WRONG_WINNER, trick.winner))
        return violations

    def play_trick(self, trick: Trick) -> int:
        """Check ``trick`` then record it; returns the winner. Raises
        :class:`IllegalTrickError` with what :meth:`check_trick` found."""
        violations = self.check_trick(trick)
        if violations:
            raise IllegalTrickError(f"trick {trick} at the table", violations)
        return self.push(trick)

    def push(self, trick: Trick) -> int:
        """Record ``trick`` WITHOUT CHECKING it; returns the winner decided from its cards."""
        self.events.append(Trick(trick.leader, trick.cards))
        return self._replay()[0][-1].winner

    def push_step(self, step: Haggle | PowerUse) -> None:
        """Record a haggle or a power use (checked only for whose power it is and once per round:
        the hands needed for more are unknown). Raises :class:`InvalidEntryError`."""
        if isinstance(step, PowerUse):
            power = self._shape.powers[step.seat] if 0 <= step.seat < self.players else None
            if power is None or power.slug != step.power:
                raise InvalidEntryError(f"seat {step.seat} has no power {step.power!r}")
            if any(isinstance(e, PowerUse) and e.seat == step.seat for e in self.events):
                raise InvalidEntryError(f"seat {step.seat} already used its power this round")
        elif not isinstance(step, Haggle):
            raise InvalidEntryError(f"{step} is not entered at the table")
        self.events.append(step)

    def pop(self) -> Trick | Haggle | PowerUse:
        """Undo the last entry. Raises :class:`IndexError` when there is none."""
        return self.events.pop()

    def outcome(self) -> RoundOutcome | None:
        """Cards taken and tricks won per seat once every trick is in; ``None`` before. Kept cards
        (n) and gift piles (o / M) are not seen at the table and are left empty."""
        played = self._replay()[0]
        if len(played) < self._expected_tricks(played):
            return None
        taken, won = tally(played, self.players)
        empty = (frozenset(),) * self.players
        return RoundOutcome(self.edition, self.round_card, self.players,
                            tuple(cards_of(t) for t in taken), tuple(won), empty,
                            played[0].trick.leader if played else self.first_leader,
                            played[-1].winner if played else None, empty)
