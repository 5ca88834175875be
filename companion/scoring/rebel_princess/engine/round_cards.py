"""The Round cards of both editions as modifiers, one small class each.

Deluxe cards are lettered a-z, classic cards A-U (RULINGS.md "Classic Round card letters"). One
class serves both editions where the card exists in both; the few tie rules that differ read
``self.edition``. Cards whose effect is only on scoring (d, e, j/F, t/P, y/O, z/K) change nothing
in the tricks: the scoring core applies them from the
:class:`~companion.scoring.rebel_princess.engine.values.RoundOutcome`.

Trick rules implemented here (Deluxe "Round Cards" p. 15-22; French "Cartes de Manche" p. 9-13;
RULINGS.md "Trick rules the engine must apply"):

- **Magic Beans** (c): a player may only play the highest or the lowest card, of the suit they play,
  among the cards they may legally play; the leader too (Bezier FAQ).
- **Late for a Very Important Date** (n): the last 3 cards of each hand are not played; they are
  kept and scored as taken.
- **Royal Decree** (f / D): Queens are trump; the highest Queen played wins.
- **Always the Bridesmaid** (g): the second-highest card of the led suit wins; if the lead is the
  only card of its suit, the leader wins.
- **Sisterhood** (l): the lead card is only the reference and never wins. If anyone followed suit,
  the followed card furthest in value from the lead wins; if all others are void, the card furthest
  from the lead's value wins whatever its suit. Equal distance: the higher number; same number: the
  first played.
- **Poisoned Apple** (r / H): a void player wins with the card they played; several void players:
  the highest value; equal values: the first played (Deluxe), the last played (classic).
- **Odds and Evens** (s / U): follow suit first; within what may be played, match the parity of the
  lead card if able (so a void player plays a matching parity if able).
- **The Prince Always Rings Twice** (u / L): every seat plays two cards, two laps in the same order;
  the led suit is fixed by the lead. Each seat's led-suit values are summed: the highest sum wins;
  tie: the higher single led-suit card; then the first played.
- **Midnight Makeover** (v / R): Fairies are wild. A player holding the led suit or a Fairy must
  play one of them. The highest value among led-suit cards and Fairies wins; equal values: first
  played (Deluxe), last played (classic). A Fairy lead makes Fairies the led suit.
- **Pass the Bouquet** (w / S): a card of another suit than the one to follow (so played by a void
  player) becomes the suit to follow; the highest card of the last such suit wins.
- **Upside Down** (x / J): every 6 played, of any suit, reverses the order for that trick; with an
  odd number of 6s the lowest card of the led suit wins.

Round-card steps outside the tricks are described by class attributes and carried out by the state
(see :mod:`.steps`): Late to the Ball (b / G), Crystal Clear (h / I), Musical Chairs (k / E),
After Party (m / N), Wedding Gift (o / M), Haggle with the Hag (p / T), Blind Man's Bluff (q / Q).
Masquerade Ball (i / C) changes what the table sees, not the rules of a trick.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit
from companion.scoring.rebel_princess.round_cards import round_card

from .cards import FAIRY, QUEEN, SUIT_MASKS
from .errors import ViolationCode
from .modifiers import HALF, Modifier, NotOn, RoundForModifiers, TrickTime, WinReason, register

D, C = Edition.DELUXE, Edition.CLASSIC
_FAIRY_MASK = SUIT_MASKS[FAIRY]
_ODD = sum(1 << (16 * s + r) for s in range(4) for r in range(1, 13, 2))
_EVEN = sum(1 << (16 * s + r) for s in range(4) for r in range(2, 13, 2))


class RoundCardRule(Modifier):
    """A Round card."""

    kind: ClassVar[str] = "round-card"

    @classmethod
    def display_name(cls, edition: Edition, lang: str = "en") -> str:
        shown = edition if edition in cls.letters else next(iter(cls.letters))
        return round_card(shown, cls.letters[shown]).name(lang)

    def card_reason(self, code: str, suit: Suit | str | None, reversed_: bool,
                    low: bool | None = None) -> WinReason:
        """A :class:`WinReason` that names this Round card."""
        shown = suit.value if isinstance(suit, Suit) else suit
        return WinReason(code, shown, reversed_ if low is None else low, True, reversed_)


def _plain(slug: str, doc: str) -> None:
    cls = type(slug.title().replace("-", ""), (RoundCardRule,), {
        "slug": slug, "__doc__": doc, "__module__": __name__})
    register(cls)


# Cards with no trick rule of their own (scoring-only cards are scored by the scoring core).
_plain("once-upon-a-time", "No special rules (Deluxe a, classic A).")
_plain("invitation", "No special rules (classic B, an introductory card).")
_plain("three-times-a-lady", "Scoring only: every 3 scores -3 (Deluxe d).")
_plain("arranged-marriage", "Scoring only: +5 for no trick won (Deluxe e).")
_plain("pets-revenge", "Scoring only: every Pet +1 (Deluxe j, classic F).")
_plain("single-fairy", "Scoring only: every Fairy -1 (Deluxe t, classic P).")
_plain("bathroom-break", "Scoring only: Princes score 2 (Deluxe y, classic O).")
_plain("dancing-queens", "Scoring only: Prince-Queen couples (Deluxe z, classic K).")
_plain("masquerade-ball",
       "Deluxe i, classic C: cards after the lead are played face down and turned over before the "
       "winner is decided, so the trick rules are unchanged; only the table sees less (and Snow "
       "White, Thumbelina and Mulan announce or act after the reveal).")


@register
class LateToTheBall(RoundCardRule):
    """Deluxe b, classic G: one card per seat set aside, played in the last trick."""

    slug = "late-to-the-ball"
    aside_cards = 1
    # Deluxe b: « Sleeping Beauty and Scheherazade may not use their powers on the last card of
    # this round » (the saved cards); RULINGS.md reads the classic G alike.
    not_on = (NotOn(TrickTime.LAST_TRICK, ("sleeping-beauty", "scheherazade")),)


@register
class CrystalClear(RoundCardRule):
    """Deluxe h, classic I: every seat shows all its cards of one suit it holds."""

    slug = "crystal-clear"
    reveals = True


@register
class MusicalChairs(RoundCardRule):
    """Deluxe k, classic E: after each trick every seat passes a card to the right."""

    slug = "musical-chairs"
    chairs_after_trick = True
    not_on = (NotOn(TrickTime.AFTER_LAST_TRICK),)  # no hand left to pass from


@register
class AfterParty(RoundCardRule):
    """Deluxe m, classic N: half the hand set aside, taken back once the hand is empty."""

    slug = "after-party"
    aside_cards = HALF


@register
class WeddingGift(RoundCardRule):
    """Deluxe o, classic M: a gift card per seat before each trick, won with the trick."""

    slug = "wedding-gift"
    gift_before_trick = True


@register
class HaggleWithTheHag(RoundCardRule):
    """Deluxe p, classic T: the trick winner may swap a card of their hand for one of the trick
    other than their own."""

    slug = "haggle-with-the-hag"
    haggle_after_trick = True
    not_on = (NotOn(TrickTime.AFTER_LAST_TRICK),)  # « from their hand »: empty by then


@register
class BlindMansBluff(RoundCardRule):
    """Deluxe q, classic Q: half the hand set aside, handed to the right once hands are empty."""

    slug = "blind-mans-bluff"
    aside_cards = HALF
    aside_to = -1


@register
class LateForAVeryImportantDate(RoundCardRule):
    """Deluxe n: the last 3 cards of each hand are kept, not played, and scored as taken."""

    slug = "late-for-a-very-important-date"
    kept_cards = 3


@register
class MagicBeans(RoundCardRule):
    """Deluxe c: only the highest or lowest legal card of a suit may be played (leader included)."""

    slug = "magic-beans"
    restriction = ViolationCode.MUST_PLAY_HIGHEST_OR_LOWEST

    def legal(self, state: RoundForModifiers, seat: int, legal: int) -> int:
        extremes = 0
        for suit_mask in SUIT_MASKS:
            cards = legal & suit_mask
            if cards:  # keep the lowest and the highest of this suit
                extremes |= (cards & -cards) | (1 << (cards.bit_length() - 1))
        return extremes


@register
class RoyalDecree(RoundCardRule):
    """Deluxe f, classic D: Queens are trump; the highest Queen wins."""

    slug = "royal-decree"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        if card.suit is Suit.QUEEN and cards[0].suit is not Suit.QUEEN:
            return self.card_reason("trump", Suit.QUEEN, reversed_)
        return super().win_reason(cards, card, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        queens = [i for i, cid in enumerate(plays) if cid >> 4 == QUEEN]
        return max(queens, key=lambda i: state.key(plays[i])) if queens else winner


@register
class AlwaysTheBridesmaid(RoundCardRule):
    """Deluxe g: the second-highest card of the led suit wins; the leader if it stands alone."""

    slug = "always-the-bridesmaid"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        followers = [c for c in cards if c.suit is cards[0].suit]
        return self.card_reason("alone" if len(followers) == 1 else "second", cards[0].suit,
                                reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        led = [i for i, cid in enumerate(plays) if cid >> 4 == plays[0] >> 4]
        if len(led) < 2:
            return 0  # everyone else was void: the leader wins
        return sorted(led, key=lambda i: state.key(plays[i]), reverse=True)[1]


@register
class Sisterhood(RoundCardRule):
    """Deluxe l: the card furthest in value from the lead wins (followers first); the lead never."""

    slug = "sisterhood"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        return self.card_reason("furthest", None, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        led, reference = plays[0] >> 4, state.value(plays[0])
        others = range(1, len(plays))
        pool = [i for i in others if plays[i] >> 4 == led] or list(others)
        # Furthest from the lead value; then the higher number (Cinderella: the lower); then the
        # first played.
        return max(pool, key=lambda i: (abs(state.value(plays[i]) - reference),
                                        state.key(plays[i]), -i))


@register
class PoisonedApple(RoundCardRule):
    """Deluxe r, classic H: void players win; highest value among them; ties first (Deluxe) or
    last (classic) played."""

    slug = "poisoned-apple"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        if card.suit is not cards[0].suit:
            return self.card_reason("void", None, reversed_)
        return super().win_reason(cards, card, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        led = plays[0] >> 4
        void = [i for i in range(1, len(plays)) if plays[i] >> 4 != led]
        if not void:
            return winner
        last = self.edition is Edition.CLASSIC
        return max(void, key=lambda i: (state.key(plays[i]), i if last else -i))


@register
class OddsAndEvens(RoundCardRule):
    """Deluxe s, classic U: after following suit, match the lead card's parity if able."""

    slug = "odds-and-evens"
    restriction = ViolationCode.MUST_MATCH_PARITY

    def legal(self, state: RoundForModifiers, seat: int, legal: int) -> int:
        plays = state.trick_ids
        if not plays:
            return legal  # the leader sets the parity
        matching = legal & (_ODD if plays[0] & 1 else _EVEN)
        return matching or legal


@register
class ThePrinceAlwaysRingsTwice(RoundCardRule):
    """Deluxe u, classic L: two cards per seat; the highest sum of led-suit values wins."""

    slug = "the-prince-always-rings-twice"
    plays_per_seat = 2

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        return self.card_reason("sum", cards[0].suit, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        players = state.players
        led = plays[0] >> 4
        values: list[list[int]] = [[] for _ in range(players)]
        for i, cid in enumerate(plays):
            if cid >> 4 == led:
                values[i % players].append(state.value(cid))
        sign = -1 if state.reversed_order else 1
        # Highest sum; tie: the higher single led-suit card; then the first in play order.
        # Cinderella: lowest sum, tie by the lowest card (RULINGS.md). A seat without a led card
        # never wins.
        def key(p: int) -> tuple[int, int, int, int]:
            cards = values[p]
            best = (max if sign > 0 else min)(cards) if cards else 0
            return (bool(cards), sign * sum(cards), sign * best, -p)
        return max(range(players), key=key)


@register
class MidnightMakeover(RoundCardRule):
    """Deluxe v, classic R: Fairies are wild; highest led-suit card or Fairy wins; ties first
    (Deluxe) or last (classic) played."""

    slug = "midnight-makeover"

    def legal(self, state: RoundForModifiers, seat: int, legal: int) -> int:
        if not state.trick_ids:
            return legal
        hand = state.hands[seat]
        # Not void while holding a Fairy: the led suit or a Fairy, if any is held.
        return hand & (SUIT_MASKS[state.follow_id] | _FAIRY_MASK) or hand

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        if card.suit is Suit.FAIRY and cards[0].suit is not Suit.FAIRY:
            return self.card_reason("wild", cards[0].suit, reversed_)
        return super().win_reason(cards, card, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        led = state.follow_id
        candidates = [i for i, cid in enumerate(plays) if cid >> 4 in (led, FAIRY)]
        last = self.edition is Edition.CLASSIC
        return max(candidates, key=lambda i: (state.key(plays[i]), i if last else -i))


@register
class PassTheBouquet(RoundCardRule):
    """Deluxe w, classic S: a void player's card of another suit becomes the suit to follow."""

    slug = "pass-the-bouquet"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        if card.suit is not cards[0].suit:
            return self.card_reason("bouquet", card.suit, reversed_)
        return super().win_reason(cards, card, reversed_)

    def follow(self, state: RoundForModifiers, cid: int, follow: int) -> int:
        return cid >> 4  # a follower plays the suit to follow, or a void player starts a new one


@register
class UpsideDown(RoundCardRule):
    """Deluxe x, classic J: each 6 played reverses the order; odd count, lowest led card wins."""

    slug = "upside-down"

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        if sum(1 for c in cards if c.rank == 6) % 2:  # an odd number of 6s: the order flips
            return self.card_reason("highest", card.suit, reversed_, low=not reversed_)
        return super().win_reason(cards, card, reversed_)

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        # Printed 6s count, a 6 played by Snow White as a zero included (engine decision).
        sixes = sum(1 for cid in plays if cid & 15 == 6)
        if not sixes & 1:
            return winner
        led = [i for i, cid in enumerate(plays) if cid >> 4 == state.follow_id]
        return min(led, key=lambda i: state.key(plays[i]))
