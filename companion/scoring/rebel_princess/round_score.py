"""Scoring one round: from the cards each seat took to a score and the lines that explain it.

Rules (Deluxe "Scoring Marriage Proposals", "Rebel of the Ball" and Round cards d, e, j, n, o, t,
y, z; French "Demandes en mariage" and cards F, K, M, O, P; RULINGS.md "Scoring a round"):

- Each Prince taken scores 1, the Frog (A8) 5, every other card 0.
- Three Times a Lady (d): every 3 taken scores -3 (the Prince 3 nets -2).
- Arranged Marriage (e): +5 to each player who won no trick.
- Pet's Revenge (j / F): every Pet +1, so the Frog scores 6.
- Late for a Very Important Date (n) and Wedding Gift (o / M): kept cards and gift piles are
  entered as taken cards, so they score like any other. Wedding Gift forbids Rebel of the Ball.
- Single Fairy (t / P): every Fairy -1.
- Bathroom Break (y / O): Princes score 2, except for every player whose total before this round
  equals the highest total before this round.
- Dancing Queens (z / K): same-rank Prince-Queen couples form first (3 each), then the other Princes
  pair with the other Queens (2 each); a lone Prince scores 1, a lone Queen 0.
- Rebel of the Ball (Deluxe only): a player who took every Prince in the deck and the Frog scores
  exactly -10 for the round, whatever else they took and whatever the Round card says.

Entry by counts: when the only cards a Round card scores (:func:`required_cards`) are the Princes
and the Frog, every Prince scores the same whatever its rank, so how many Princes each player took
and who took the Frog decide the round (Rebel of the Ball included: all the Princes and the Frog).
:func:`is_counted_by_princes` says so from the card's declared scoring; :func:`entry_from_counts`
turns counts into an entry scored like any other (tests prove both against every deal).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache

from .cards import FROG, Edition, RebelCard, Suit, check_player_count, deck, hand_size, princes
from .errors import IncompleteEntryError, InvalidValueError, Problem
from .problems import CATALOGUE
from .round_cards import RoundCard, Scoring, parse_edition, round_card

REBEL_OF_THE_BALL_POINTS = -10


@dataclass(frozen=True)
class ScoreLine:
    """One reason for points: ``count`` cards or events under ``rule`` gave ``points`` in all."""

    rule: str
    count: int
    points: int

    def as_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "count": self.count, "points": self.points}


@dataclass(frozen=True)
class SeatScore:
    """The round score of one seat and the lines that add up to it."""

    seat: int
    points: int
    lines: tuple[ScoreLine, ...]
    rebel: bool = False


@dataclass(frozen=True)
class RoundScore:
    """The scored round: one :class:`SeatScore` per seat, in seat order."""

    seats: tuple[SeatScore, ...]

    @property
    def scores(self) -> list[int]:
        return [seat.points for seat in self.seats]

    @property
    def rebels(self) -> list[int]:
        return [seat.seat for seat in self.seats if seat.rebel]


@dataclass(frozen=True)
class RoundEntry:
    """What happened in a round, as far as scoring needs to know.

    ``taken`` holds, per seat, the cards that seat took (kept cards under n and gift piles under o
    included). ``no_tricks`` is the set of seats that won no trick (only Arranged Marriage needs
    it).
    ``totals_before`` is each seat's total before this round (only Bathroom Break needs it).
    """

    edition: Edition
    round_card: str
    players: int
    taken: tuple[frozenset[RebelCard], ...]
    no_tricks: frozenset[int] | None = None
    totals_before: tuple[int, ...] | None = None

    @property
    def card(self) -> RoundCard:
        return round_card(self.edition, self.round_card)


@cache
def required_cards(edition: Edition, letter: str, players: int) -> tuple[RebelCard, ...]:
    """The cards that must each be given to exactly one seat before a round can be scored.

    Always every Prince in the deck and the Frog; also every Queen under Dancing Queens, every Pet
    under Pet's Revenge, every Fairy under Single Fairy and every 3 under Three Times a Lady.
    """
    scoring = round_card(edition, letter).scoring
    extra_suit = {Scoring.DANCING: Suit.QUEEN, Scoring.PETS: Suit.PET,
                  Scoring.FAIRIES: Suit.FAIRY}.get(scoring)
    wanted = []
    for card in deck(players):
        if (card.suit is Suit.PRINCE or card == FROG or card.suit is extra_suit
                or (scoring is Scoring.THREES and card.rank == 3)):
            wanted.append(card)
    return tuple(wanted)


def is_counted_by_princes(edition: Edition, letter: str, players: int) -> bool:
    """Whether how many Princes each seat took and who took the Frog decide this round's scores.

    True exactly when the cards this Round card scores are the Princes and the Frog: then no
    Prince's rank matters (Three Times a Lady scores the 3s, Dancing Queens pairs Princes with
    Queens by rank, so both list more cards). Arranged Marriage and Bathroom Break still need
    their extra inputs (tricks won, totals before), which a count entry gives like a card entry.
    """
    wanted = set(required_cards(edition, letter, players))
    return wanted == set(princes(players)) | {FROG}


@dataclass(frozen=True)
class RoundCounts:
    """A round entered by counts: how many Princes each seat took and which seat took the Frog
    (``None`` until someone is tapped)."""

    princes: tuple[int | None, ...]
    frog: int | None

    def __str__(self) -> str:
        """``3,2,0,4,1,2/5``: Princes per seat, then the Frog's seat."""
        counts = ",".join("" if n is None else str(n) for n in self.princes)
        return f"{counts}/{'' if self.frog is None else self.frog}"

    @classmethod
    def from_notation(cls, text: str) -> RoundCounts:
        """Read :meth:`__str__` back; raises :class:`InvalidValueError` (``bad-counts``)."""
        counts, sep, frog = text.partition("/")
        try:
            parsed = tuple(None if n == "" else int(n) for n in counts.split(","))
            return cls(parsed, None if frog == "" else int(frog))
        except ValueError:
            raise InvalidValueError("bad-counts", value=text) from None


def check_counts(edition: Edition, letter: str, players: int,
                 counts: RoundCounts) -> list[Problem]:
    """Every reason a count entry cannot be scored; an empty list means it can.

    Problems: ``counts-not-enough`` (this Round card scores cards by identity),
    ``wrong-seat-count``, ``missing-prince-count`` (a seat without a count), ``bad-prince-count``
    (not 0 to the number of Princes), ``princes-total`` (the counts do not add up to the Princes
    in the deck) and ``missing-card`` for the Frog. Never raises.
    """
    if not is_counted_by_princes(edition, letter, players):
        return [CATALOGUE.problem("counts-not-enough")]
    if len(counts.princes) != players:
        return [CATALOGUE.problem("wrong-seat-count", expected=players,
                                  got=len(counts.princes))]
    total = len(princes(players))
    problems = []
    for seat, count in enumerate(counts.princes):
        if count is None:
            problems.append(CATALOGUE.problem("missing-prince-count", seat=seat))
        elif isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= total:
            problems.append(CATALOGUE.problem("bad-prince-count", seat=seat, expected=total))
    if not problems and sum(counts.princes) != total:  # type: ignore[arg-type]
        problems.append(CATALOGUE.problem("princes-total", expected=total,
                                          got=sum(counts.princes)))
    if counts.frog is None or not 0 <= counts.frog < players:
        problems.append(CATALOGUE.problem("missing-card", card=FROG.code))
    return problems


def entry_from_counts(edition: Edition, letter: str, players: int, counts: RoundCounts, *,
                      no_tricks: frozenset[int] | None = None,
                      totals_before: tuple[int, ...] | None = None) -> RoundEntry:
    """The round entry a count entry stands for: the Princes handed out in rank order by count
    (any handing-out scores the same, see :func:`is_counted_by_princes`).

    Raises :class:`IncompleteEntryError` with every problem from :func:`check_counts`.
    """
    problems = check_counts(edition, letter, players, counts)
    if problems:
        raise IncompleteEntryError(problems)
    return RoundEntry(edition, round_card(edition, letter).letter, players,
                      taken_from_counts(players, counts), no_tricks, totals_before)


def taken_from_counts(players: int, counts: RoundCounts) -> tuple[frozenset[RebelCard], ...]:
    """The cards a count entry stands for: the Princes handed out in rank order by count (a
    missing count is none; any handing-out scores the same, see
    :func:`is_counted_by_princes`), the Frog to its seat."""
    pile = list(princes(players))
    taken: list[frozenset[RebelCard]] = []
    for seat, count in enumerate(counts.princes):
        mine = set(pile[:count or 0])
        del pile[:count or 0]
        if seat == counts.frog:
            mine.add(FROG)
        taken.append(frozenset(mine))
    return tuple(taken)


def counts_from_taken(players: int, taken: Sequence[frozenset[RebelCard]]) -> RoundCounts:
    """The count entry cards stand for: each seat's number of Princes, the Frog's seat."""
    pile = frozenset(princes(players))
    return RoundCounts(tuple(len(cards & pile) for cards in taken),
                       next((seat for seat, cards in enumerate(taken) if FROG in cards), None))


@dataclass(frozen=True)
class Tally:
    """A round being entered, scored so far (the live tally of the entry screens): ``score``,
    the ``problems`` that already show, and what is still to enter: the ``missing`` cards (by
    cards), or (by counts) the Princes not counted yet, the Frog, the seats without a count."""

    score: RoundScore
    problems: tuple[Problem, ...] = ()
    missing: tuple[RebelCard, ...] = ()
    princes_left: int = 0
    frog_missing: bool = False
    unset: tuple[int, ...] = ()

    @property
    def still_to_enter(self) -> int:
        """How many things are still to enter (by counts: the unset seats count once the
        Princes are all counted)."""
        if self.missing:
            return len(self.missing)
        return self.princes_left + self.frog_missing + (
            len(self.unset) if not self.princes_left else 0)


def tally(entry: RoundEntry) -> Tally:
    """The live tally of a round entered by cards, from the cards given out so far (the
    caller has left out duplicated or foreign cards)."""
    given = set().union(*entry.taken) if entry.taken else set()
    missing = tuple(c for c in required_cards(entry.edition, entry.round_card, entry.players)
                    if c not in given)
    problems = tuple(p for p in check_entry(entry) if p.code != "missing-card")
    return Tally(score_so_far(entry), problems, missing)


def tally_counts(edition: Edition, letter: str, players: int, counts: RoundCounts, *,
                 no_tricks: frozenset[int] | None = None,
                 totals_before: tuple[int, ...] | None = None) -> Tally:
    """The live tally of a round entered by counts, from the counts tapped so far: what is not
    counted yet is named, not a problem; counts adding up to too many are."""
    entry = RoundEntry(edition, round_card(edition, letter).letter, players,
                       taken_from_counts(players, counts), no_tricks, totals_before)
    counted = sum(n or 0 for n in counts.princes)
    total = len(princes(players))
    problems = [p for p in check_counts(edition, letter, players, counts)
                if p.code not in ("missing-prince-count", "missing-card")]
    if counted > total:
        problems = [CATALOGUE.problem("princes-total", expected=total, got=counted)]
    problems += [p for p in check_entry(entry) if p.code == "cards-without-trick"]
    return Tally(score_so_far(entry), tuple(problems), princes_left=max(total - counted, 0),
                 frog_missing=counts.frog is None,
                 unset=tuple(s for s, n in enumerate(counts.princes) if n is None))


def needs_no_tricks(edition: Edition, letter: str) -> bool:
    """Whether scoring this Round card needs to know which seats won no trick."""
    return round_card(edition, letter).scoring is Scoring.NO_TRICKS


def needs_totals_before(edition: Edition, letter: str) -> bool:
    """Whether scoring this Round card needs each seat's total before the round."""
    return round_card(edition, letter).scoring is Scoring.BATHROOM


def can_have_rebel(edition: Edition, letter: str) -> bool:
    """Rebel of the Ball exists in the Deluxe edition only, and never under Wedding Gift."""
    return edition is Edition.DELUXE and round_card(edition, letter).scoring is not Scoring.GIFTS


def parse_taken(players: int, taken: Sequence[Iterable[str]]) -> tuple[
        tuple[frozenset[RebelCard], ...], list[Problem]]:
    """Turn card codes per seat into cards, collecting every problem instead of stopping at one.

    Problems: ``wrong-seat-count``, ``unknown-card``, ``card-not-in-deck``, ``duplicate-card``.
    """
    check_player_count(players)
    problems: list[Problem] = []
    if len(taken) != players:
        problems.append(CATALOGUE.problem("wrong-seat-count",
                                **{"expected": players, "got": len(taken)}))
    in_deck = set(deck(players))
    owner: dict[RebelCard, int] = {}
    result = []
    for seat, codes in enumerate(taken):
        cards = set()
        for code in codes:
            try:
                card = RebelCard.from_code(code)
            except InvalidValueError as error:
                problems.append(CATALOGUE.problem("unknown-card", seat=seat, card=str(code)))
                del error
                continue
            if _placed(card, seat, in_deck, owner, problems):
                cards.add(card)
        result.append(frozenset(cards))
    return tuple(result), problems


def _placed(card: RebelCard, seat: int, in_deck: AbstractSet[RebelCard],
            owner: dict[RebelCard, int], problems: list[Problem]) -> bool:
    """Note ``card`` as taken by ``seat`` in ``owner``; a card not in this deck
    (``card-not-in-deck``) or already taken (``duplicate-card``) is a problem instead."""
    if card not in in_deck:
        problems.append(CATALOGUE.problem("card-not-in-deck", seat=seat, card=card.code))
        return False
    if card in owner:
        problems.append(CATALOGUE.problem("duplicate-card", seat=seat, card=card.code))
        return False
    owner[card] = seat
    return True


@cache
def _deck_set(players: int) -> frozenset[RebelCard]:
    return frozenset(deck(players))


def check_entry(entry: RoundEntry) -> list[Problem]:
    """Every reason this round entry cannot be scored; an empty list means it can.

    Checks the seat count, that every required card (see :func:`required_cards`) was taken by
    exactly one seat, and that the Round card's extra inputs are present and consistent. Never
    raises for problems in the entry itself.
    """
    problems: list[Problem] = []
    players = entry.players
    if len(entry.taken) != players:
        return [CATALOGUE.problem("wrong-seat-count", expected=players,
                                  got=len(entry.taken))]
    seen: dict[RebelCard, int] = {}
    in_deck = _deck_set(players)
    for seat, cards in enumerate(entry.taken):
        for card in sorted(cards):
            _placed(card, seat, in_deck, seen, problems)
    for card in required_cards(entry.edition, entry.round_card, players):
        if card not in seen:
            problems.append(CATALOGUE.problem("missing-card", card=card.code))
    if needs_no_tricks(entry.edition, entry.round_card):
        if entry.no_tricks is None:
            problems.append(CATALOGUE.problem("missing-tricks-won"))
        else:
            for seat in sorted(entry.no_tricks):
                if 0 <= seat < players and entry.taken[seat]:
                    problems.append(CATALOGUE.problem("cards-without-trick", seat=seat))
    if needs_totals_before(entry.edition, entry.round_card):
        if entry.totals_before is None:
            problems.append(CATALOGUE.problem("missing-totals-before"))
        elif len(entry.totals_before) != players:
            problems.append(CATALOGUE.problem("wrong-seat-count",
                                    **{"expected": players, "got": len(entry.totals_before)}))
    return problems


def check_tricks_won(players: int, tricks_won: Sequence[object],
                     taken: Sequence[frozenset[RebelCard]] | None = None) -> list[Problem]:
    """Check a tricks-won count per seat for a round of plain tricks (as under Arranged Marriage).

    The counts must be whole numbers of 0 or more adding up to the hand size, and a seat can hold at
    most one full trick of cards per trick won.
    """
    if len(tricks_won) != players:
        return [CATALOGUE.problem("wrong-seat-count", expected=players,
                                  got=len(tricks_won))]
    problems = []
    for seat, count in enumerate(tricks_won):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            problems.append(CATALOGUE.problem("bad-tricks-won", seat=seat))
    if problems:
        return problems
    counts = [int(c) for c in tricks_won]  # type: ignore[call-overload]
    if sum(counts) != hand_size(players):
        problems.append(CATALOGUE.problem("tricks-won-total",
                                **{"expected": hand_size(players), "got": sum(counts)}))
    for seat, cards in enumerate(taken or ()):
        if cards and counts[seat] == 0:
            problems.append(CATALOGUE.problem("cards-without-trick", seat=seat))
        elif len(cards) > counts[seat] * players:
            problems.append(CATALOGUE.problem("too-many-cards", seat=seat, **{
                "got": len(cards), "tricks": counts[seat], "players": players}))
    return problems


def _dancing_lines(cards: frozenset[RebelCard]) -> list[ScoreLine]:
    prince_ranks = {c.rank for c in cards if c.suit is Suit.PRINCE}
    queen_ranks = {c.rank for c in cards if c.suit is Suit.QUEEN}
    same = len(prince_ranks & queen_ranks)
    spare_princes = len(prince_ranks) - same
    spare_queens = len(queen_ranks) - same
    mixed = min(spare_princes, spare_queens)
    single = spare_princes - mixed
    lines = []
    if same:
        lines.append(ScoreLine("same-rank-couple", same, 3 * same))
    if mixed:
        lines.append(ScoreLine("mixed-couple", mixed, 2 * mixed))
    if single:
        lines.append(ScoreLine("prince", single, single))
    lone_queens = spare_queens - mixed
    if lone_queens:
        lines.append(ScoreLine("lone-queen", lone_queens, 0))
    return lines


def _seat_lines(entry: RoundEntry, seat: int, exempt: frozenset[int]) -> list[ScoreLine]:
    """The score lines of one seat under the round's card, Rebel of the Ball aside."""
    cards = entry.taken[seat]
    scoring = entry.card.scoring
    lines: list[ScoreLine] = []
    n_princes = sum(1 for c in cards if c.suit is Suit.PRINCE)
    if scoring is Scoring.DANCING:
        lines.extend(_dancing_lines(cards))
    elif scoring is Scoring.BATHROOM and seat not in exempt:
        if n_princes:
            lines.append(ScoreLine("prince-doubled", n_princes, 2 * n_princes))
    elif scoring is Scoring.BATHROOM:
        if n_princes:
            lines.append(ScoreLine("prince-highest-total", n_princes, n_princes))
    elif n_princes:
        lines.append(ScoreLine("prince", n_princes, n_princes))
    if FROG in cards:
        lines.append(ScoreLine("frog", 1, 5))
    if scoring is Scoring.PETS:
        pets = sum(1 for c in cards if c.suit is Suit.PET)
        if pets:
            lines.append(ScoreLine("pet", pets, pets))
    elif scoring is Scoring.FAIRIES:
        fairies = sum(1 for c in cards if c.suit is Suit.FAIRY)
        if fairies:
            lines.append(ScoreLine("fairy", fairies, -fairies))
    elif scoring is Scoring.THREES:
        threes = sum(1 for c in cards if c.rank == 3)
        if threes:
            lines.append(ScoreLine("three", threes, -3 * threes))
    elif scoring is Scoring.NO_TRICKS and entry.no_tricks and seat in entry.no_tricks:
        lines.append(ScoreLine("no-tricks", 1, 5))
    return lines


def bathroom_exempt(totals_before: Sequence[int]) -> frozenset[int]:
    """Seats whose total before the round equals the highest: their Princes stay at 1 under
    Bathroom Break. In a first round everyone is tied at 0, so everyone is exempt."""
    if not totals_before:
        return frozenset()
    highest = max(totals_before)
    return frozenset(seat for seat, total in enumerate(totals_before) if total == highest)


def score_entry(entry: RoundEntry) -> RoundScore:
    """Score a round entry.

    Raises :class:`IncompleteEntryError` with every problem from :func:`check_entry` when the entry
    cannot be scored.
    """
    problems = check_entry(entry)
    if problems:
        raise IncompleteEntryError(problems)
    return _score(entry)


def score_so_far(entry: RoundEntry) -> RoundScore:
    """Score the cards given out so far, without requiring every card: the live tally shown while a
    round is being entered. The caller must already have left out duplicated or foreign cards."""
    return _score(entry)


def _score(entry: RoundEntry) -> RoundScore:
    exempt: frozenset[int] = frozenset()
    if entry.card.scoring is Scoring.BATHROOM and entry.totals_before is not None:
        exempt = bathroom_exempt(entry.totals_before)
    rebel_cards = frozenset(princes(entry.players)) | {FROG}
    rebel_possible = can_have_rebel(entry.edition, entry.round_card)
    seats = []
    for seat in range(entry.players):
        if rebel_possible and rebel_cards <= entry.taken[seat]:
            # Rebel of the Ball replaces the whole count, other cards and Round card included.
            line = ScoreLine("rebel-of-the-ball", 1, REBEL_OF_THE_BALL_POINTS)
            seats.append(SeatScore(seat, REBEL_OF_THE_BALL_POINTS, (line,), rebel=True))
            continue
        lines = tuple(_seat_lines(entry, seat, exempt))
        seats.append(SeatScore(seat, sum(line.points for line in lines), lines))
    return RoundScore(tuple(seats))


def score_round(*, edition: str | Edition, round_card: str, players: int,
                taken: Sequence[Iterable[str]], tricks_won: Sequence[int] | None = None,
                no_tricks: Iterable[int] | None = None,
                totals_before: Sequence[int] | None = None) -> RoundScore:
    """Score a round from card codes, the way the JSON API and the web form give them.

    ``tricks_won`` (a count per seat) or ``no_tricks`` (the seats that won none) is needed for
    Arranged Marriage; ``totals_before`` for Bathroom Break. Raises :class:`InvalidValueError` for a
    bad edition, Round card or player count, and :class:`IncompleteEntryError` listing every problem
    with the cards or the extra inputs.
    """
    edition = parse_edition(edition)
    check_player_count(players)
    letter = round_card_letter(edition, round_card)
    cards, problems = parse_taken(players, taken)
    no_trick_seats = frozenset(no_tricks) if no_tricks is not None else None
    if tricks_won is not None and needs_no_tricks(edition, letter):
        trick_problems = check_tricks_won(players, tricks_won, cards if not problems else None)
        problems.extend(trick_problems)
        if not trick_problems:
            no_trick_seats = frozenset(s for s, n in enumerate(tricks_won) if n == 0)
    totals = tuple(totals_before) if totals_before is not None else None
    if totals is not None and any(isinstance(t, bool) or not isinstance(t, int) for t in totals):
        problems.append(CATALOGUE.problem("missing-totals-before"))
    entry = RoundEntry(edition, letter, players, cards, no_trick_seats, totals)
    if problems:
        # Report everything at once: a mistyped code (P1O for P10) also leaves its card missing.
        if len(cards) == players:
            seen = {(p.code, p.seat, p.card) for p in problems}
            for problem in check_entry(entry):
                skip = problem.code == "missing-tricks-won" and tricks_won is not None
                if not skip and (problem.code, problem.seat, problem.card) not in seen:
                    problems.append(problem)
        raise IncompleteEntryError(problems)
    return score_entry(entry)


def round_card_letter(edition: Edition, letter: str) -> str:
    """The canonical letter of a Round card (raises ``unknown-round-card``)."""
    return round_card(edition, letter).letter
