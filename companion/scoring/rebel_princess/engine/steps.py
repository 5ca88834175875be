"""Round-card steps outside the tricks, as small frozen value types.

Rules (Deluxe "Sequence of Play" and "Round Cards"; French "Principe du jeu" and "Cartes de Manche";
RULINGS.md):

- :class:`Pass` - at the start of the round every player gives cards to the player on the left
  and/or the right, simultaneously: a card received cannot be passed on. The pattern is printed on
  each Round card as icons (not in the rulebook text), so the engine checks only that every seat
  passes the same numbers in the same directions, from its own hand, before anything else happens.
- :class:`SetAside` - after passing, before the first trick: *Late to the Ball* (b / G) one card per
  seat, played in the last trick; *After Party* (m / N) half the hand, taken back once the hand is
  empty; *Blind Man's Bluff* (q / Q) half the hand, handed to the player on the right once the hands
  are empty.
- :class:`Reveal` - *Crystal Clear* (h / I): every player shows all cards of one suit they hold;
  they stay in the hand. Cards of that suit received later stay hidden.
- :class:`Gift` - *Wedding Gift* (o / M): before each trick every player puts one card face down
  in a pile that goes to the trick's winner, so only half as many tricks are played.
- :class:`Chairs` - *Musical Chairs* (k / E): after each trick (except the last) every player passes
  one card to the player on the right, simultaneously.
- :class:`Haggle` - *Haggle with the Hag* (p / T): the winner of a trick may swap a card of their
  hand, shown, for a card of that trick other than the one(s) they played in it. Optional.

Seats are numbered clockwise; the left of seat ``s`` is ``s + 1``, the right ``s - 1`` (RULINGS.md).
Each step prints as one line of the round record and parses back (:func:`parse_step`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.rebel_princess.cards import RebelCard, Suit

from .cards import format_cards, parse_card, parse_cards
from .errors import InvalidEntryError

__all__ = ["Chairs", "Gift", "Haggle", "Pass", "PowerUse", "Reveal", "SetAside", "Step",
           "StepKind", "parse_step"]


class StepKind(StrEnum):
    """The kinds of step, by the word that starts their record line."""

    PASS = "pass"
    SET_ASIDE = "aside"
    REVEAL = "reveal"
    GIFT = "gift"
    CHAIRS = "chairs"
    HAGGLE = "haggle"
    POWER = "power"


def _seats(cards: tuple[frozenset[RebelCard], ...]) -> str:
    return "/".join(format_cards(sorted(hand, key=_order)) for hand in cards)


def _order(card: RebelCard) -> tuple[int, int]:
    return ("PQFA".index(card.suit.value), card.rank)


def _parse_seats(text: str) -> tuple[frozenset[RebelCard], ...]:
    return tuple(frozenset() if part == "-" else frozenset(parse_cards(part))
                 for part in text.split("/"))


@dataclass(frozen=True)
class Pass:
    """Cards each seat gives to its left and to its right neighbour, simultaneously."""

    left: tuple[frozenset[RebelCard], ...]
    right: tuple[frozenset[RebelCard], ...]
    kind = StepKind.PASS

    def __str__(self) -> str:
        return f"pass left={_seats(self.left)} right={_seats(self.right)}"


@dataclass(frozen=True)
class SetAside:
    """Cards each seat sets aside face down before the first trick (b / G, m / N, q / Q)."""

    cards: tuple[frozenset[RebelCard], ...]
    kind = StepKind.SET_ASIDE

    def __str__(self) -> str:
        return f"aside {_seats(self.cards)}"


@dataclass(frozen=True)
class Reveal:
    """The suit each seat shows (h / I)."""

    suits: tuple[Suit, ...]
    kind = StepKind.REVEAL

    def __str__(self) -> str:
        return "reveal " + "/".join(suit.value for suit in self.suits)


@dataclass(frozen=True)
class Gift:
    """The card each seat adds to the gift pile before a trick (o / M)."""

    cards: tuple[RebelCard, ...]
    kind = StepKind.GIFT

    def __str__(self) -> str:
        return "gift " + "/".join(str(card) for card in self.cards)


@dataclass(frozen=True)
class Chairs:
    """The card each seat passes to its right after a trick (k / E)."""

    cards: tuple[RebelCard, ...]
    kind = StepKind.CHAIRS

    def __str__(self) -> str:
        return "chairs " + "/".join(str(card) for card in self.cards)


@dataclass(frozen=True)
class Haggle:
    """Trick winner ``seat`` gives ``give`` from their hand and takes ``take`` from the trick."""

    seat: int
    give: RebelCard
    take: RebelCard
    kind = StepKind.HAGGLE

    def __str__(self) -> str:
        return f"haggle {self.seat} {self.give} {self.take}"


@dataclass(frozen=True)
class PowerUse:
    """Seat ``seat`` uses its Princess power ``power`` (a slug), with the power's arguments: a
    ``target`` seat, a ``suit``, ``cards`` and ``more`` cards (see :mod:`.powers` for what each
    power takes). Prints as ``power SEAT SLUG [@TARGET] [#SUIT] [CARDS] [> MORE]`` with card lists
    joined by ``/``."""

    seat: int
    power: str
    target: int | None = None
    suit: Suit | None = None
    cards: tuple[RebelCard, ...] = ()
    more: tuple[RebelCard, ...] = ()
    kind = StepKind.POWER

    def __str__(self) -> str:
        words = ["power", str(self.seat), self.power]
        if self.target is not None:
            words.append(f"@{self.target}")
        if self.suit is not None:
            words.append(f"#{self.suit.value}")
        if self.cards:
            words.append("/".join(str(card) for card in self.cards))
        if self.more:
            words += [">", "/".join(str(card) for card in self.more)]
        return " ".join(words)


Step = Pass | SetAside | Reveal | Gift | Chairs | Haggle | PowerUse


def parse_step(line: str) -> Step:
    """Parse one step line of a round record; raises :class:`InvalidEntryError` if malformed."""
    words = line.split()
    if not words:
        raise InvalidEntryError("empty step line")
    try:
        kind = StepKind(words[0])
        if kind is StepKind.PASS:
            fields = dict(word.split("=", 1) for word in words[1:])
            if set(fields) != {"left", "right"}:
                raise ValueError
            return Pass(_parse_seats(fields["left"]), _parse_seats(fields["right"]))
        if kind is StepKind.POWER:
            return _parse_power(words[1:])
        if kind is StepKind.HAGGLE:
            seat, give, take = words[1:]
            if not seat.isdigit():
                raise ValueError
            return Haggle(int(seat), parse_card(give), parse_card(take))
        (text,) = words[1:]
        if kind is StepKind.SET_ASIDE:
            return SetAside(_parse_seats(text))
        if kind is StepKind.REVEAL:
            return Reveal(tuple(Suit(part) for part in text.split("/")))
        cards = tuple(parse_card(part) for part in text.split("/"))
        return Gift(cards) if kind is StepKind.GIFT else Chairs(cards)
    except (ValueError, TypeError):
        raise InvalidEntryError(f"malformed step line {line!r}") from None


def _parse_power(words: list[str]) -> PowerUse:
    seat, power, *rest = words
    if not seat.isdigit() or not power or not power.replace("-", "").isalpha():
        raise ValueError
    target: int | None = None
    suit: Suit | None = None
    lists: list[tuple[RebelCard, ...]] = []
    arrow = False
    for word in rest:
        if word.startswith("@") and target is None and not lists:
            target = int(word[1:])
        elif word.startswith("#") and suit is None and not lists:
            suit = Suit(word[1:])
        elif word == ">" and len(lists) == 1 and not arrow:
            arrow = True
        elif len(lists) == int(arrow):
            lists.append(tuple(parse_card(code) for code in word.split("/")))
        else:
            raise ValueError
    if arrow and len(lists) != 2:
        raise ValueError
    return PowerUse(int(seat), power, target, suit, lists[0] if lists else (),
                    lists[1] if arrow else ())
