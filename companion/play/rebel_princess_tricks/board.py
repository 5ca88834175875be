"""What the trick screen shows of a round being entered: the notes stored with its cards
(:class:`PowerNote`), the tricks as seen (:class:`TrickView`) and the whole :class:`Board`,
read from the round's judge; and :class:`TrickRejected`, why a tap stored nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...scoring.problems import Catalogue, EntryError, Problem
from ...scoring.rebel_princess import (
    Edition,
    PlayedRound,
    RebelCard,
    Scoring,
    Suit,
    deck,
    needs_no_tricks,
)
from ...scoring.rebel_princess.engine import (
    Chairs,
    Haggle,
    PowerUse,
    WinReason,
    round_card_class,
)

HAGGLE = "haggle"
#: The Musical Chairs passes after a trick (k / E), stored as a note like the haggle.
CHAIRS = "chairs"
#: Round cards whose hidden cards (kept cards, gift piles) the trick screen cannot see.
_UNSEEN = frozenset({Scoring.KEPT, Scoring.GIFTS})
SUITS = (Suit.PRINCE, Suit.QUEEN, Suit.FAIRY, Suit.PET)



class TrickCatalogue(Catalogue):
    """The trick screen's sentences: :class:`~companion.scoring.problems.Catalogue`, whose
    refusals carry the judge's own problem (``problem``) or problems (``problems``), worded as
    ``{why}`` in the same language, and a card (``card``: a :class:`RebelCard`) named as the
    deck shows it (« 3 de Princes », never P3)."""

    def text(self, code: str, /, lang: str = "en", names: Sequence[str] | None = None,
             **params: Any) -> str:
        inner, found = params.pop("problem", None), params.pop("problems", None)
        if inner is not None:
            params["why"] = inner.text(lang, names)
        elif found:
            params["why"] = " ".join(problem.text(lang, names) for problem in found)
        card = params.get("card")
        if isinstance(card, RebelCard):
            key = "card@frog" if card.is_frog else f"card@{card.suit.value}"
            params["card"] = super().text(key, lang, rank=card.rank)
        return super().text(code, lang, names=names, **params)


#: The trick screen's refusals in English and French (``messages.toml`` beside this module).
CATALOGUE = TrickCatalogue(__package__ or "companion.play.rebel_princess_tricks")


class TrickRejected(EntryError):
    """A tap that cannot be stored; its one problem's ``code`` says why (worded by
    :data:`CATALOGUE`) and its ``params`` give the details. Nothing was stored."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__([Problem(code, params=params, catalogue=CATALOGUE)])

    @property
    def code(self) -> str:
        return self.problems[0].code

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.problems[0].params)


@dataclass(frozen=True)
class PowerNote:
    """A Princess power taking effect after ``at`` cards of the round had been played (Snow
    White: ``at`` is the position of her zero card; Alice, Mulan, classic Pocahontas and the
    haggle: the end of the trick they follow), entered after ``entered`` cards (``at`` unless
    later). ``power`` is ``"haggle"`` for a Haggle with the Hag step: ``seat`` the trick's
    winner, ``cards`` (the card taken from the trick, the card given from the hand), empty when
    the winner did not haggle; ``"chairs"`` for the Musical Chairs passes after a trick: ``seat``
    the trick's winner, ``cards`` the card each seat passed to its right (in seat order), empty
    when the table did not see them. ``cards`` and ``more`` are the power's cards (codes)."""

    at: int
    seat: int
    power: str
    target: int | None = None
    suit: str | None = None
    cards: tuple[str, ...] = ()
    more: tuple[str, ...] = ()
    entered: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "more", tuple(self.more))

    @property
    def since(self) -> int:
        """Cards played when the note was entered."""
        return self.at if self.entered is None else self.entered

    @property
    def card_list(self) -> tuple[RebelCard, ...]:
        return tuple(RebelCard.from_code(code) for code in self.cards)

    @property
    def is_step(self) -> bool:
        """A Round-card step (the haggle, the passes), not a Princess power."""
        return self.power in (HAGGLE, CHAIRS)

    def to_step(self) -> PowerUse | Haggle | Chairs | None:
        """The engine's step (``None`` for a declined haggle or passes not seen)."""
        cards = self.card_list
        if self.power == CHAIRS:
            return Chairs(cards) if cards else None
        if self.power == HAGGLE:
            return Haggle(self.seat, cards[1], cards[0]) if cards else None
        return PowerUse(self.seat, self.power, self.target,
                        Suit(self.suit) if self.suit else None, cards,
                        tuple(RebelCard.from_code(code) for code in self.more))

    def as_json(self) -> dict[str, Any]:
        data = {"at": self.at, "seat": self.seat, "power": self.power}
        for name in ("target", "suit", "entered"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        for name in ("cards", "more"):
            if getattr(self, name):
                data[name] = list(getattr(self, name))
        return data


@dataclass(frozen=True)
class PlayedCard:
    """One card of a trick as the trick screen shows it: its position in the round's plays,
    the seat, the card, whether it wins the trick."""

    position: int  # index in the round's plays
    seat: int
    card: RebelCard
    wins: bool = False


@dataclass(frozen=True)
class TrickView:
    index: int  # 0-based
    leader: int
    plays: tuple[PlayedCard, ...]
    powers: tuple[PowerNote, ...]
    winner: int | None = None
    reason: WinReason | None = None
    after: tuple[PowerNote, ...] = ()  # Mulan, Alice, classic Pocahontas, the haggle, passes
    final: tuple[RebelCard, ...] = ()  # the cards as the trick ended (the judge's: Mulan's swap in)
    redone: bool = False  # dealt back to be played again (Alice)

    def note(self, power: str) -> PowerNote | None:
        """The after-trick note of ``power`` (a Princess slug, ``haggle`` or ``chairs``), if
        any."""
        return next((n for n in self.after if n.power == power), None)

    @property
    def cards(self) -> tuple[RebelCard, ...]:
        """The trick's cards as they ended (Mulan's swap included), in play order."""
        return self.final or tuple(p.card for p in self.plays)


@dataclass
class Board:
    """Everything the trick screen shows about a round being entered, read from its judge."""

    players: int
    edition: Edition
    letter: str
    first_leader: int
    trick_size: int
    total_tricks: int
    version: int
    validate: bool
    plays: tuple[RebelCard, ...]
    tricks: list[TrickView] = field(default_factory=list)  # complete tricks
    current: TrickView | None = None  # the trick being played (None when the round is over)
    issues: list[Problem] = field(default_factory=list)  # the rules broken (checks on)
    accepted: frozenset[str] = frozenset()  # the keys of the breaches the players accepted
    taken: tuple[frozenset[RebelCard], ...] | None = None
    tricks_won: tuple[int, ...] | None = None
    last_winner: int | None = None
    round_leader: int = 0
    powers_used: frozenset[int] = frozenset()
    out: frozenset[RebelCard] = frozenset()  # cards in no hand: played (and not back) or given away
    forced: RebelCard | None = None  # the card the seat to play must play (the judge's answer)
    chairs_due: bool = False  # the passes after the trick just finished may be entered (k / E)

    @property
    def over(self) -> bool:
        return self.current is None

    @property
    def turn(self) -> int | None:
        """The seat whose card is tapped next."""
        if self.current is None:
            return None
        return (self.current.leader + len(self.current.plays)) % self.players

    @property
    def played(self) -> frozenset[RebelCard]:
        """Cards that cannot be played now: on the table, or played and not back in a hand
        (Alice deals a trick back, Mulan and the haggle take a card back into a hand)."""
        return self.out

    @property
    def haggle_round(self) -> bool:
        return round_card_class(self.edition, self.letter).haggle_after_trick

    @property
    def chairs_round(self) -> bool:
        return round_card_class(self.edition, self.letter).chairs_after_trick

    @property
    def after_trick(self) -> TrickView | None:
        """The trick just finished while the next one has not started: Alice, Mulan and the
        haggle act now (the last trick too, once the round is over: the judge says which)."""
        if not self.tricks or self.current is not None and self.current.plays:
            return None
        return self.tricks[-1]

    def forced_card(self) -> RebelCard | None:
        """The card a power made the seat whose turn it is play (the Ice Princess's frozen
        card), if any: the cards show whether it was played, so another card is refused while
        the rule checks are on."""
        return self.forced

    def play_at(self, position: int) -> PlayedCard | None:
        """The play at ``position`` in the round's plays."""
        for trick in [*self.tricks, *([self.current] if self.current else [])]:
            for p in trick.plays:
                if p.position == position:
                    return p
        return None

    def last_trick_with(self, card: RebelCard) -> int:
        """The 1-based number of the last trick where ``card`` was played."""
        positions = [i for i, c in enumerate(self.plays) if c == card]
        return positions[-1] // self.trick_size + 1 if positions else 0

    @staticmethod
    def issue_key(issue: Problem) -> str:
        """A breach's stable key (stored when the players accept it)."""
        return f"{issue.trick}:{issue.code}:{issue.seat}:{issue.card or ''}"

    @property
    def open_issues(self) -> list[Problem]:
        return [i for i in self.issues if self.issue_key(i) not in self.accepted]

    def trick_at(self, index: int) -> TrickView | None:
        """A played trick, or the one being played."""
        if index < len(self.tricks):
            return self.tricks[index]
        return self.current if self.current and self.current.index == index else None

    @property
    def last_trick(self) -> TrickView | None:
        return self.tricks[-1] if self.tricks else None

    def seat_order(self) -> list[int]:
        """The seats of the current trick in play order (twice under u)."""
        leader = self.current.leader if self.current else self.first_leader
        return [(leader + i) % self.players for i in range(self.trick_size)]

    def deck_by_suit(self) -> list[tuple[str, list[RebelCard]]]:
        cards = deck(self.players)
        return [(suit.value, [c for c in cards if c.suit is suit]) for suit in SUITS]

    def played_round(self) -> PlayedRound | None:
        """The round as the score pad stores it, once every trick is in."""
        if self.taken is None or self.tricks_won is None:
            return None
        no_tricks = (frozenset(s for s, won in enumerate(self.tricks_won) if not won)
                     if needs_no_tricks(self.edition, self.letter) else None)
        return PlayedRound(
            taken=self.taken, no_tricks=no_tricks,
            leader=self.round_leader if self.round_leader != self.first_leader else None,
            last_trick_winner=self.last_winner if self.edition is Edition.CLASSIC else None)
