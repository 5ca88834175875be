"""Glue for "Enter tricks": a round tapped in card by card, judged as it goes, then scored.

One :class:`~companion.models.TrickLog` row per game and round holds what was tapped: the cards in
the order they hit the table, the Princess powers announced (with the number of cards played
before), the rule breaches the players accepted, the game's rule-check switch and a version.
Seats are never stored: the app decides whose turn it is (the first leader, then clockwise; the
winner of a trick leads the next), so a card can never be entered for the wrong seat, and fixing
an earlier card re-derives every later seat and winner.

Rows never enter the engine: :func:`board_of` replays the log through
:class:`~companion.scoring.rebel_princess.engine.TableRound` (trusted ``push``; the judging comes from ``findings``), and
:func:`confirm` hands the cards each seat took to :func:`companion.play.save_round`, which checks
the whole game again. Commands raise :class:`TrickRejected` (with a stable ``code``) and store
nothing then.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from ..scoring.rebel_princess import table_check as tricks
from . import rebel_princess as play
from ..scoring.rebel_princess.engine import EngineError, Haggle, PowerUse, TableRound, Trick, round_card_class
from ..scoring.rebel_princess.engine.cards import cards_of
from ..models import Game, TrickLog
from ..scoring.rebel_princess import (
    Card,
    Edition,
    IncompleteEntryError,
    PlayedRound,
    Scoring,
    Suit,
    deck,
    hand_size,
    needs_no_tricks,
    round_card,
)
from ..scoring.rebel_princess import InvalidEntryError as ScoringEntryError

#: How each Princess power is entered on the trick screen: ``None`` (one tap), ``"target"`` (a
#: player), ``"suit"``, ``"cards"`` (a player, then cards tapped on the grid: the Ice Princess),
#: ``"hidden"`` (a player for Scheherazade, nobody for Sleeping Beauty; the cards are optional, as
#: they stay hidden at the table), ``"zero"`` (Snow White, with her card) and ``"after"`` (right
#: after a trick, with cards tapped on the grid: Alice and Mulan).
POWER_ARGS: dict[str, str | None] = {
    "cinderella": None, "pea-princess": None, "rapunzel": None, "thumbelina": None,
    "pocahontas": "target", "little-mermaid": "suit", "ice-princess": "cards",
    "scheherazade": "hidden", "sleeping-beauty": "hidden", "snow-white": "zero",
    "mulan": "after", "alice": "after",
}
#: Powers announced before the first card of a trick only (they change the lead or its card).
_LEAD_POWERS = frozenset({"pocahontas", "ice-princess"})
#: Powers that act right after a trick (as in :mod:`companion.scoring.rebel_princess.table_check`), and the haggle step.
_AFTER = frozenset({"alice", "mulan"})
HAGGLE = "haggle"
#: Round cards whose hidden cards (kept cards, gift piles) the trick screen cannot see.
_UNSEEN = frozenset({Scoring.KEPT, Scoring.GIFTS})
SUITS = (Suit.PRINCE, Suit.QUEEN, Suit.FAIRY, Suit.PET)


class TrickRejected(ValueError):
    """A tap that cannot be stored; ``code`` says why (templates word it). Nothing was stored."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(code)


@dataclass(frozen=True)
class PowerNote:
    """A Princess power taking effect after ``at`` cards of the round had been played (Snow
    White: ``at`` is the position of her zero card; Alice, Mulan, classic Pocahontas and the
    haggle: the end of the trick they follow), entered after ``entered`` cards (``at`` unless
    later). ``power`` is ``"haggle"`` for a Haggle with the Hag step: ``seat`` the trick's
    winner, ``cards`` (the card taken from the trick, the card given from the hand), empty when
    the winner did not haggle. ``cards`` and ``more`` are the power's cards (codes), as
    :class:`companion.scoring.rebel_princess.table_check.PowerInput` reads them."""

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
    def card_list(self) -> tuple[Card, ...]:
        return tuple(Card.from_code(code) for code in self.cards)

    def to_step(self) -> PowerUse | Haggle | None:
        """The engine's step (``None`` for a declined haggle)."""
        cards = self.card_list
        if self.power == HAGGLE:
            return Haggle(self.seat, cards[1], cards[0]) if cards else None
        return PowerUse(self.seat, self.power, self.target,
                        Suit(self.suit) if self.suit else None, cards,
                        tuple(Card.from_code(code) for code in self.more))

    def to_input(self) -> tricks.PowerInput | tricks.StepInput | None:
        """The note as :func:`companion.scoring.rebel_princess.table_check.check_round` reads it."""
        if self.power == HAGGLE:
            if not self.cards:
                return None
            return tricks.StepInput(HAGGLE, seat=self.seat, give=self.cards[1],
                                    take=self.cards[0])
        return tricks.PowerInput(self.power, self.seat, self.target, self.suit, self.cards,
                                 self.more)

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
class Reason:
    """Why a trick's winner won: ``code`` (``highest``, ``trump``, ``second``, ...), ``low`` when
    the order was reversed, the suit concerned and the rules responsible (a Round card letter,
    ``cinderella``, both or neither)."""

    code: str
    suit: str | None
    low: bool = False
    card_rule: bool = False
    cinderella: bool = False


@dataclass(frozen=True)
class Play:
    position: int  # index in the round's plays
    seat: int
    card: Card
    wins: bool = False


@dataclass(frozen=True)
class TrickView:
    index: int  # 0-based
    leader: int
    plays: tuple[Play, ...]
    powers: tuple[PowerNote, ...]
    winner: int | None = None
    reason: Reason | None = None
    after: tuple[PowerNote, ...] = ()  # Mulan, Alice, classic Pocahontas, the haggle

    def note(self, power: str) -> PowerNote | None:
        """The after-trick note of ``power`` (a Princess slug or ``haggle``), if any."""
        return next((n for n in self.after if n.power == power), None)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The trick's cards as they ended (Mulan's swap included), in play order."""
        cards = [p.card for p in self.plays]
        mulan = self.note("mulan")
        if mulan is not None:
            old, new = mulan.card_list
            cards[cards.index(old)] = new
        return tuple(cards)


@dataclass(frozen=True)
class Issue:
    """A rule broken in trick ``trick`` (0-based), proven by what the table saw."""

    key: str
    trick: int
    code: str
    seat: int | None
    card: Card | None
    rule: str
    accepted: bool
    proven_in: int = 0
    message: str = ""


@dataclass
class Board:
    """Everything the trick screen shows about a round being entered."""

    players: int
    edition: Edition
    letter: str
    first_leader: int
    trick_size: int
    total_tricks: int
    version: int
    validate: bool
    plays: tuple[Card, ...]
    tricks: list[TrickView] = field(default_factory=list)  # complete tricks
    current: TrickView | None = None  # the trick being played (None when the round is over)
    issues: list[Issue] = field(default_factory=list)
    taken: tuple[frozenset[Card], ...] | None = None
    tricks_won: tuple[int, ...] | None = None
    last_winner: int | None = None
    round_leader: int = 0
    powers_used: frozenset[int] = frozenset()
    out: frozenset[Card] = frozenset()  # cards in no hand: played (and not back) or given away

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
    def played(self) -> frozenset[Card]:
        """Cards that cannot be played now: on the table, or played and not back in a hand
        (Alice deals a trick back, Mulan and the haggle take a card back into a hand)."""
        return self.out

    @property
    def haggle_round(self) -> bool:
        return self.letter == _HAGGLE[self.edition]

    @property
    def after_trick(self) -> TrickView | None:
        """The trick just finished while the next one has not started: Alice, Mulan and the
        haggle act now."""
        if self.current is None or self.current.plays or not self.tricks:
            return None
        return self.tricks[-1]

    def forced_card(self) -> Card | None:
        """The card the Ice Princess froze for the seat whose turn it is, if any: the cards show
        whether it was played, so another card is refused while the rule checks are on."""
        if self.current is None:
            return None
        for note in self.current.powers:
            if note.power == "ice-princess" and note.target == self.turn and note.cards:
                return note.card_list[0]
        return None

    def play_at(self, position: int) -> Play | None:
        """The play at ``position`` in the round's plays."""
        for trick in [*self.tricks, *([self.current] if self.current else [])]:
            for p in trick.plays:
                if p.position == position:
                    return p
        return None

    def last_trick_with(self, card: Card) -> int:
        """The 1-based number of the last trick where ``card`` was played."""
        positions = [i for i, c in enumerate(self.plays) if c == card]
        return positions[-1] // self.trick_size + 1 if positions else 0

    @property
    def open_issues(self) -> list[Issue]:
        return [i for i in self.issues if not i.accepted]

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

    def deck_by_suit(self) -> list[tuple[str, list[Card]]]:
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


# --- reading ---------------------------------------------------------------------------------

#: Haggle with the Hag (Deluxe p, classic T): after each trick its winner may swap a card from
#: their hand for one of the trick (entered with :func:`haggle`).
_HAGGLE = {Edition.DELUXE: "p", Edition.CLASSIC: "T"}


def is_supported(edition: Edition, letter: str) -> bool:
    """Whether the trick screen can score this Round card: kept cards and gift piles are never
    seen at the table."""
    return round_card(edition, letter).scoring not in _UNSEEN


def get_log(session: Session, game: Game, number: int) -> TrickLog | None:
    return session.exec(select(TrickLog).where(TrickLog.game_id == game.id,
                                               TrickLog.number == number)).first()


def _game_validates(session: Session, game: Game) -> bool:
    """The game's rule-check switch: as last set on any of its rounds (on by default)."""
    last = session.exec(select(TrickLog).where(TrickLog.game_id == game.id)
                        .order_by(col(TrickLog.updated_at).desc())).first()
    return True if last is None else last.checks


def _plays(log: TrickLog | None) -> list[Card]:
    return [Card.from_code(code) for code in log.plays.split()] if log else []


def _powers(log: TrickLog | None) -> list[PowerNote]:
    return [PowerNote(**item) for item in json.loads(log.powers)] if log else []


def _accepted(log: TrickLog | None) -> set[str]:
    return set(json.loads(log.accepted)) if log else set()


def trick_size(edition: Edition, letter: str, players: int) -> int:
    return players * round_card_class(edition, letter).plays_per_seat


def board_of(*, session: Session, view: play.GameView, number: int, letter: str,
             leader: int) -> Board:
    """The round as entered so far, replayed and judged."""
    log = get_log(session, view.game, number)
    validate = log.checks if log else _game_validates(session, view.game)
    return _replay(view, letter, leader, _plays(log), _powers(log), _accepted(log), validate,
                   log.version if log else 0)


def _acts_after(edition: Edition, note: PowerNote, size: int) -> bool:
    """Whether ``note`` acts right after the trick before it (Alice, Mulan, the haggle, classic
    Pocahontas) rather than before or during the trick it is in."""
    if note.power in _AFTER or note.power == HAGGLE:
        return True
    return (edition is Edition.CLASSIC and note.power == "pocahontas" and note.at > 0
            and note.at % size == 0)


def _trick_of(edition: Edition, note: PowerNote, size: int) -> int:
    """The trick ``note`` goes with (the trick it follows for the after-trick ones)."""
    return note.at // size - (1 if _acts_after(edition, note, size) else 0)


def _after_order(note: PowerNote) -> int:
    """After a trick, Mulan comes first (before the winner is settled), the haggle last."""
    return {"mulan": 0, HAGGLE: 2}.get(note.power, 1)


def _push_note(table: TableRound, note: PowerNote) -> None:
    step = note.to_step()
    if step is None:
        return
    try:
        table.push_step(step)
    except EngineError:
        raise TrickRejected("power-used", seat=note.seat) from None


def _replay(view: play.GameView, letter: str, leader: int, plays: Sequence[Card],
            powers: Sequence[PowerNote], accepted: set[str], validate: bool,
            version: int) -> Board:
    """Replay ``plays`` and ``powers`` through a :class:`TableRound`. Raises
    :class:`TrickRejected` when a power cannot be recorded."""
    edition, players = view.edition, len(view.players)
    princesses = [p.princess for p in view.players]
    table = TableRound(players, edition=edition, round_card=letter, leader=leader,
                       princesses=princesses)
    size = trick_size(edition, letter, players)
    alices = sum(1 for p in powers if p.power == "alice")
    total = hand_size(players) // round_card_class(edition, letter).plays_per_seat + alices
    board = Board(players, edition, letter, leader, size, total, version, validate, tuple(plays))
    before: dict[int, list[PowerNote]] = {}
    after: dict[int, list[PowerNote]] = {}
    for note in powers:
        group = after if _acts_after(edition, note, size) else before
        group.setdefault(_trick_of(edition, note, size), []).append(note)
    index = 0
    while True:
        start = index * size
        cards = tuple(plays[start:start + size])
        notes = tuple(before.get(index, ()))
        if table.is_over():
            if cards or notes or after.get(index):
                raise TrickRejected("round-over")
            break
        for note in notes:
            _push_note(table, note)
        lead = table.leader
        if index == 0:
            board.round_leader = lead
        trick_plays = [Play(start + i, (lead + i) % players, card) for i, card in
                       enumerate(cards)]
        if len(cards) < size:
            board.current = TrickView(index, lead, tuple(trick_plays), notes)
            break
        table.push(Trick(lead, cards))
        later = tuple(sorted(after.get(index, ()), key=_after_order))
        for note in later:
            _push_note(table, note)
        view_ = TrickView(index, lead, tuple(trick_plays), notes, None, None, later)
        winner = table._replay()[0][-1].winner
        reversed_ = any(n.power == "cinderella" for n in notes)
        final = Trick(lead, view_.cards)
        reason = win_reason(edition, letter, final, winner, players, reversed_)
        trick_plays = [Play(p.position, p.seat, p.card, p.seat == winner and
                            _wins(p, final.cards, winner, reason)) for p in trick_plays]
        board.tricks.append(TrickView(index, lead, tuple(trick_plays), notes, winner, reason,
                                      later))
        index += 1
    board.powers_used = frozenset(p.seat for p in powers if p.power != HAGGLE)
    out = table._in_play(table._replay()[0])
    board.out = cards_of(out) | frozenset(p.card for p in (board.current.plays
                                                           if board.current else ()))
    check = _judge(view, letter, leader, board, powers)
    if check is not None and validate:
        for v in check.violations:
            key = f"{v.trick}:{v.code}:{v.seat}:{v.card or ''}"
            board.issues.append(Issue(key, v.trick, v.code, v.seat,
                                      Card.from_code(v.card) if v.card else None, v.rule,
                                      key in accepted, v.proven_in, v.message))
    if board.current is None:
        if check is not None and check.complete:
            board.taken = tuple(frozenset(Card.from_code(c) for c in seat) for seat in check.taken)
            board.tricks_won = check.tricks_won
        else:  # the glue could not read the round: count the tricks as the engine pushed them
            outcome = table.outcome()
            assert outcome is not None
            board.taken, board.tricks_won = outcome.taken, outcome.tricks_won
        board.last_winner = board.tricks[-1].winner if board.tricks else None
    return board


def _judge(view: play.GameView, letter: str, leader: int, board: Board,
           powers: Sequence[PowerNote]) -> tricks.RoundCheck | None:
    """The round judged by :func:`companion.scoring.rebel_princess.table_check.check_round` (violations proven so far, the
    cards each seat took); ``None`` if it cannot read the entry."""
    try:
        return tricks.check_round(**_check_args(view, letter, leader, board, powers))
    except tricks.TrickEntryError:
        return None


def _check_args(view: play.GameView, letter: str, leader: int, board: Board,
                powers: Sequence[PowerNote]) -> dict[str, Any]:
    """The tricks as :func:`companion.scoring.rebel_princess.table_check.check_round` reads them: seats as the app decided,
    each power with the trick it changes (Alice, Mulan, classic Pocahontas and the haggle with
    the trick they follow)."""
    size = board.trick_size
    shown = [*board.tricks, *([board.current] if board.current else [])]
    inputs: list[tuple[Any, list[Any], list[Any]]] = [
        (tuple(tricks.Play(p.seat, p.card.code) for p in t.plays), [], []) for t in shown]
    ordered = sorted(powers, key=lambda n: (_acts_after(board.edition, n, size),
                                            _after_order(n)))
    for note in ordered:
        index = _trick_of(board.edition, note, size)
        item = note.to_input()
        if item is not None and 0 <= index < len(inputs):
            inputs[index][2 if isinstance(item, tricks.StepInput) else 1].append(item)
    number = len(view.records) + 1
    totals = (view.state.rounds[number - 2].totals_after if number > 1 else
              (0,) * board.players)
    return {"edition": board.edition, "round_card": letter, "players": board.players,
            "leader": leader,
            "princesses": {p.seat: p.princess for p in view.players if p.princess},
            "tricks": [tricks.TrickInput(plays, tuple(notes), tuple(steps))
                       for plays, notes, steps in inputs],
            "totals_before": tuple(totals)}


def _wins(play_: Play, cards: tuple[Card, ...], winner: int, reason: Reason) -> bool:
    """Whether ``play_`` is the winner's winning card (under u the winner plays twice: both
    count when the sum decides)."""
    if reason.code == "sum":
        return play_.card.suit.value == reason.suit
    return True


def win_reason(edition: Edition, letter: str, trick: Trick, winner: int, players: int,
               reversed_: bool) -> Reason:
    """Why ``winner`` won ``trick``, in words a player checks against the cards."""
    slug = round_card_class(edition, letter).slug
    plays = trick.plays(players)
    led = trick.cards[0].suit
    mine = [card for seat, card in plays if seat == winner]
    card = mine[-1] if mine else trick.cards[0]
    low = reversed_
    if slug == "upside-down":
        sixes = sum(1 for c in trick.cards if c.rank == 6)
        if sixes % 2:
            return Reason("highest", card.suit.value, not low, True, reversed_)
    if slug == "the-prince-always-rings-twice":
        return Reason("sum", led.value, low, True, reversed_)
    if slug == "royal-decree" and card.suit is Suit.QUEEN and led is not Suit.QUEEN:
        return Reason("trump", Suit.QUEEN.value, low, True, reversed_)
    if slug == "always-the-bridesmaid":
        followers = [c for c in trick.cards if c.suit is led]
        code = "alone" if len(followers) == 1 else "second"
        return Reason(code, led.value, low, True, reversed_)
    if slug == "sisterhood":
        return Reason("furthest", None, low, True, reversed_)
    if slug == "poisoned-apple" and card.suit is not led:
        return Reason("void", None, low, True, reversed_)
    if slug == "midnight-makeover" and card.suit is Suit.FAIRY and led is not Suit.FAIRY:
        return Reason("wild", led.value, low, True, reversed_)
    if slug == "pass-the-bouquet" and card.suit is not led:
        return Reason("bouquet", card.suit.value, low, True, reversed_)
    return Reason("highest", card.suit.value, low, False, reversed_)


# --- writing ---------------------------------------------------------------------------------

def _store(session: Session, game: Game, number: int, version: int, **values: Any) -> None:
    """Write ``values`` if the row is still at ``version`` (one conditional UPDATE, so two phones
    tapping at once cannot both win); raises ``TrickRejected("stale")`` otherwise."""
    assert game.id is not None
    values = {**values, "version": version + 1, "updated_at": datetime.now(UTC)}
    log = get_log(session, game, number)
    if log is None:
        if version != 0:
            raise TrickRejected("stale")
        row = TrickLog(game_id=game.id, number=number,
                       checks=_game_validates(session, game))
        for key, value in values.items():
            setattr(row, key, value)
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            raise TrickRejected("stale") from None
        return
    result = session.exec(update(TrickLog).where(  # type: ignore[call-overload]
        col(TrickLog.id) == log.id, col(TrickLog.version) == version).values(**values))
    if result.rowcount != 1:
        session.rollback()
        raise TrickRejected("stale")
    session.commit()
    session.expire_all()


def _check_version(board: Board, version: int) -> None:
    if version != board.version:
        raise TrickRejected("stale")


def _check_card(board: Board, card: Card) -> None:
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    if card in board.played:
        raise TrickRejected("card-already-played", card=card, trick=board.last_trick_with(card))


def _encode_plays(plays: Sequence[Card]) -> str:
    return " ".join(c.code for c in plays)


def _encode_powers(powers: Sequence[PowerNote]) -> str:
    return json.dumps([p.as_json() for p in powers])


def _rule_slug(board: Board, note: PowerNote) -> str:
    return round_card_class(board.edition, board.letter).slug if note.power == HAGGLE \
        else note.power


def _trial(view: play.GameView, letter: str, leader: int, board: Board,
           plays: Sequence[Card], powers: Sequence[PowerNote],
           new: PowerNote | None = None) -> None:
    """Check a change before storing it: the round with ``plays`` and ``powers`` must replay
    and read through :func:`companion.scoring.rebel_princess.table_check.check_round`; with the rule checks on, the ``new``
    power or haggle must break none of its own rules. Raises :class:`TrickRejected`."""
    trial = _replay(view, letter, leader, plays, powers, set(), False, board.version)
    try:
        check = tricks.check_round(**_check_args(view, letter, leader, trial, powers))
    except tricks.TrickEntryError as error:
        problem = error.problems[0]
        raise TrickRejected("power-refused" if new else "entry-refused", why=problem.code,
                            seat=problem.seat, card=_card_or_none(problem.card),
                            message=problem.message) from None
    if new is None or not board.validate:
        return
    known = {(i.trick, i.code, i.seat, i.card.code if i.card else None) for i in board.issues}
    slug = _rule_slug(board, new)
    for v in check.violations:
        if v.rule == slug and (v.trick, v.code, v.seat, v.card) not in known:
            raise TrickRejected("power-refused", why=v.code, seat=v.seat,
                                card=_card_or_none(v.card), message=v.message)


def _card_or_none(code: str | None) -> Card | None:
    try:
        return Card.from_code(code) if code else None
    except (ScoringEntryError, ValueError, KeyError):
        return None


def _store_powers(session: Session, view: play.GameView, number: int, letter: str, leader: int,
                  board: Board, log: TrickLog | None, note: PowerNote) -> None:
    powers = [*_powers(log), note]
    _trial(view, letter, leader, board, board.plays, powers, note)
    _store(session, view.game, number, board.version, powers=_encode_powers(powers))


def play_card(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
              version: int, card: Card, zero: bool = False) -> None:
    """Record ``card`` as played by the seat whose turn it is; ``zero``: Snow White plays it as
    a zero (her power, recorded with the card)."""
    if not is_supported(view.edition, letter):
        raise TrickRejected("round-card-not-supported")
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    if board.over:
        raise TrickRejected("round-over")
    _check_version(board, version)
    _check_card(board, card)
    forced = board.forced_card()
    if forced is not None and forced != card and board.validate:
        raise TrickRejected("ice-forced", seat=board.turn, card=forced)
    plays = [*board.plays, card]
    if not zero:
        _store(session, view.game, number, version, plays=_encode_plays(plays))
        return
    seat = board.turn
    assert seat is not None
    note = _zero_note(view, board, seat, card, len(board.plays), len(plays))
    powers = [*_powers(get_log(session, view.game, number)), note]
    _trial(view, letter, leader, board, plays, powers, note)
    _store(session, view.game, number, version, plays=_encode_plays(plays),
           powers=_encode_powers(powers))


def _zero_note(view: play.GameView, board: Board, seat: int, card: Card, at: int,
               entered: int) -> PowerNote:
    """Snow White's zero on ``card``, played at position ``at``."""
    if view.players[seat].princess != "snow-white":
        raise TrickRejected("zero-not-hers")
    if seat in board.powers_used:
        raise TrickRejected("power-used", seat=seat)
    if card.rank > 7:
        raise TrickRejected("zero-too-high", card=card)
    return PowerNote(at, seat, "snow-white", cards=(card.code,),
                     entered=entered if entered != at else None)


def fix_card(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
             version: int, position: int, card: Card) -> None:
    """Replace the card at ``position``; every later seat and winner is derived again (Snow
    White's zero follows her card while it is 7 or lower)."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    if not 0 <= position < len(board.plays):
        raise TrickRejected("bad-position")
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    plays = list(board.plays)
    old = plays[position]
    plays[position] = card
    powers = []
    for note in _powers(log):
        if note.power == "snow-white" and note.at == position:
            if card.rank > 7:
                continue
            note = PowerNote(note.at, note.seat, note.power, cards=(card.code,),
                             entered=note.entered)
        powers.append(note)
    if card != old:
        try:
            _trial(view, letter, leader, board, plays, powers)
        except TrickRejected as error:
            if error.params.get("why") in ("card-already-played", "duplicate-card") or \
                    card in board.plays:
                raise TrickRejected("card-already-played", card=card,
                                    trick=board.last_trick_with(card) or position //
                                    board.trick_size + 1) from None
            raise
    _store(session, view.game, number, version, plays=_encode_plays(plays),
           powers=_encode_powers(powers))


def undo(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
         version: int) -> None:
    """Take back the last thing entered: a power or haggle entered after the last card, else the
    card (with Snow White's zero on it)."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    plays, powers = list(board.plays), _powers(log)
    bound = len(plays) - 1  # the last card's position
    if powers and powers[-1].since >= len(plays) and not (
            powers[-1].power == "snow-white" and powers[-1].at == bound):
        powers.pop()
    elif plays:
        plays.pop()
        powers = [p for p in powers if p.at < len(plays) or
                  (p.at == len(plays) and not (p.power == "snow-white" or
                                               _acts_after(board.edition, p,
                                                           board.trick_size)))]
    else:
        raise TrickRejected("nothing-to-undo")
    _store(session, view.game, number, version, plays=_encode_plays(plays),
           powers=_encode_powers(powers))


def _seat_ok(board: Board, seat: int | None) -> bool:
    return seat is not None and 0 <= seat < board.players


def use_power(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
              version: int, seat: int, target: int | None = None, suit: str | None = None,
              cards: Sequence[Card] = ()) -> None:
    """Record the power of ``seat``'s Princess (see :data:`POWER_ARGS` for what each needs;
    ``cards`` are tapped on the grid). Judged by :func:`companion.scoring.rebel_princess.table_check.check_round`."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    if board.current is None:
        raise TrickRejected("round-over")
    slug = view.players[seat].princess if 0 <= seat < board.players else None
    if slug not in POWER_ARGS:
        raise TrickRejected("power-not-entered")
    if seat in board.powers_used:
        raise TrickRejected("power-used", seat=seat)
    needed = POWER_ARGS[slug]
    if slug in _LEAD_POWERS and board.current.plays:
        raise TrickRejected("power-before-lead")
    if slug == "ice-princess" and board.edition is Edition.CLASSIC:
        target = board.current.leader
    if needed in ("target", "cards") or slug == "scheherazade":
        if not _seat_ok(board, target) or (slug == "scheherazade" and target == seat):
            raise TrickRejected("power-needs-target")
    else:
        target = None
    if needed == "suit" and suit not in {s.value for s in SUITS}:
        raise TrickRejected("power-needs-suit")
    if needed != "suit":
        suit = None
    codes = tuple(c.code for c in cards)
    more: tuple[str, ...] = ()
    at, entered = len(board.plays), None
    if slug == "snow-white":
        last = board.play_at(len(board.plays) - 1)
        if last is None or last.seat != seat:
            raise TrickRejected("zero-not-hers")
        note = _zero_note(view, board, seat, last.card, last.position, len(board.plays))
        _store_powers(session, view, number, letter, leader, board, log, note)
        return
    if slug in _AFTER:
        trick = board.after_trick
        if trick is None:
            raise TrickRejected("power-after-trick")
        codes = _complete(board, slug, seat, trick, codes)
    elif slug == "ice-princess":
        if len(codes) != 1:
            raise TrickRejected("power-needs-cards")
    elif slug == "scheherazade":
        if len(codes) not in (0, 2):
            raise TrickRejected("power-needs-cards")
    elif slug == "sleeping-beauty":
        players = board.players
        if len(codes) == 2 * players - 1:
            codes = (*codes, *_left_over(codes[:players], codes[players:]))
        if len(codes) not in (0, 2 * players):
            raise TrickRejected("power-needs-cards")
        codes, more = codes[:players], codes[players:]
    elif codes:
        codes = ()
    note = PowerNote(at, seat, slug, target, suit, codes, more, entered)
    _store_powers(session, view, number, letter, leader, board, log, note)


def _left_over(cards: Sequence[str], picked: Sequence[str]) -> tuple[str, ...]:
    rest = list(cards)
    for code in picked:
        if code in rest:
            rest.remove(code)
    return tuple(rest[:1])


def _complete(board: Board, slug: str, seat: int, trick: TrickView,
              codes: tuple[str, ...]) -> tuple[str, ...]:
    """The cards of an after-trick power, with what the taps leave implied: Mulan's played card
    when she played one, the last card Alice deals back."""
    if slug == "mulan":
        mine = [p.card.code for p in trick.plays if p.seat == seat]
        if len(codes) == 1 and len(mine) == 1:
            codes = (mine[0], *codes)
        if len(codes) != 2:
            raise TrickRejected("power-needs-cards")
        return codes
    dealt = [c.code for c in trick.cards]
    if len(codes) == len(dealt) - 1:
        codes = (*codes, *_left_over(dealt, codes))
    if len(codes) != len(dealt):
        raise TrickRejected("power-needs-cards")
    return codes


def haggle(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
           version: int, cards: Sequence[Card] = ()) -> None:
    """Haggle with the Hag after the trick just finished: ``cards`` is (the card taken from the
    trick, the card given from the winner's hand), or empty when the winner does not haggle."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    if not board.haggle_round:
        raise TrickRejected("no-haggle-here")
    trick = board.after_trick
    if trick is None or trick.note("alice") is not None:
        raise TrickRejected("haggle-not-now")
    if trick.note(HAGGLE) is not None:
        raise TrickRejected("haggle-done")
    if len(cards) not in (0, 2):
        raise TrickRejected("power-needs-cards")
    assert trick.winner is not None
    note = PowerNote(len(board.plays), trick.winner, HAGGLE,
                     cards=tuple(c.code for c in cards))
    _store_powers(session, view, number, letter, leader, board, log, note)


# --- choosing cards on the grid ----------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """One card to tap: ``what`` it is (``mulan-old``, ``mulan-new``, ``alice``, ``ice``,
    ``taken``, ``given``, ``gives``, ``gets``, ``take``, ``give``) and whose card (a seat)."""

    what: str
    seat: int | None


@dataclass(frozen=True)
class Pick:
    """Cards being tapped for a power or a haggle: nothing is stored until the last tap."""

    kind: str  # a Princess slug or "haggle"
    seat: int
    target: int | None
    picked: tuple[Card, ...]
    slot: Slot
    candidates: frozenset[Card]
    final: bool  # the next tap stores the entry
    seats: tuple[int | None, ...] = ()  # whose card each tap is

    @property
    def action(self) -> str:
        return "haggle" if self.kind == HAGGLE else "power"

    @property
    def codes(self) -> str:
        return ".".join(c.code for c in self.picked)


def parse_cards(text: str | None) -> tuple[Card, ...]:
    """Card codes joined by dots or spaces (``Q3.F2``); raises ``TrickRejected``."""
    cards = []
    for code in (text or "").replace(".", " ").replace(",", " ").split():
        try:
            cards.append(Card.from_code(code.strip().upper()))
        except (ScoringEntryError, ValueError, KeyError):
            raise TrickRejected("unknown-card", code=code) from None
    return tuple(cards)


def pick_for(*, view: play.GameView, board: Board, kind: str, seat: int | None,
             target: int | None, picked: Sequence[Card]) -> Pick:
    """The next card to tap for ``kind`` (a power needing cards, or ``haggle``), given the cards
    ``picked`` so far. Raises :class:`TrickRejected` when it cannot be entered now."""
    if board.current is None:
        raise TrickRejected("round-over")
    players, hand = board.players, frozenset(deck(board.players)) - board.played
    slots: list[tuple[Slot, frozenset[Card]]] = []
    picked = tuple(picked)
    auto = 0  # cards the last taps leave implied
    trick = board.after_trick
    if kind == HAGGLE:
        if not board.haggle_round or trick is None or trick.note(HAGGLE) or trick.note("alice"):
            raise TrickRejected("haggle-not-now")
        seat = trick.winner
        own = {p.card for p in trick.plays if p.seat == seat}
        slots = [(Slot("take", seat), frozenset(trick.cards) - own), (Slot("give", seat), hand)]
    else:
        slug = view.players[seat].princess if _seat_ok(board, seat) else None  # type: ignore[index]
        if slug != kind or POWER_ARGS.get(slug) not in ("cards", "hidden", "after"):
            raise TrickRejected("power-not-entered")
        assert seat is not None
        if seat in board.powers_used:
            raise TrickRejected("power-used", seat=seat)
        if slug == "ice-princess":
            if board.current.plays:
                raise TrickRejected("power-before-lead")
            if board.edition is Edition.CLASSIC:
                target = board.current.leader
            if not _seat_ok(board, target):
                raise TrickRejected("power-needs-target")
            slots = [(Slot("ice", target), hand)]
        elif slug == "scheherazade":
            if not _seat_ok(board, target) or target == seat:
                raise TrickRejected("power-needs-target")
            slots = [(Slot("taken", target), hand), (Slot("given", target), hand)]
        elif slug == "sleeping-beauty":
            gives = picked[:players]
            slots = [(Slot("gives", s), hand - frozenset(gives)) for s in range(players)]
            slots += [(Slot("gets", s), frozenset(gives) - frozenset(picked[players:]))
                      for s in range(players)]
            auto = 1
        elif trick is None:
            raise TrickRejected("power-after-trick")
        elif slug == "mulan":
            mine = [p.card for p in trick.plays if p.seat == seat]
            if not mine:
                raise TrickRejected("power-after-trick")
            if len(mine) > 1:
                slots.append((Slot("mulan-old", seat), frozenset(mine)))
            old = picked[0] if len(mine) > 1 and picked else mine[0]
            slots.append((Slot("mulan-new", seat),
                          frozenset(c for c in hand if c.suit is old.suit and not c.is_frog)))
        else:  # alice
            dealt = list(trick.cards)
            slots = [(Slot("alice", i % players), frozenset(dealt) - frozenset(picked))
                     for i in range(len(dealt))]
            auto = 1
        target = target if slug in ("ice-princess", "scheherazade") else None
    if len(picked) >= len(slots) - auto:
        picked = ()  # a stale or replayed pick: start again
    slot, candidates = slots[len(picked)]
    assert seat is not None
    return Pick(kind, seat, target, picked, slot, candidates,
                len(picked) + 1 >= len(slots) - auto, tuple(s.seat for s, _ in slots))


def accept(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
           version: int, key: str) -> None:
    """The players saw the breach ``key`` and play on."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    if key not in {i.key for i in board.issues}:
        raise TrickRejected("stale")
    _store(session, view.game, number, version,
           accepted=json.dumps(sorted(_accepted(log) | {key})))


def set_validation(*, session: Session, view: play.GameView, number: int, letter: str,
                   leader: int, version: int, on: bool) -> None:
    """Switch the rule checks on or off for this game (new rounds start as the last one was)."""
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    _store(session, view.game, number, version, checks=on)


def confirm(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
            version: int) -> None:
    """Save the round to the score pad from the cards each seat took. Raises
    :class:`TrickRejected` (``round-not-over``, ``issues-open``, ``saved``: already stored with
    these very cards) or the errors of :func:`companion.play.save_round`."""
    if not is_supported(view.edition, letter):
        raise TrickRejected("round-card-not-supported")
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    played = board.played_round()
    record = view.record(number)
    if record is not None:
        if played is not None and play.played_from_record(record) == played:
            raise TrickRejected("saved")  # a double tap: the first one stored it
        raise TrickRejected("stale")
    _check_version(board, version)
    if played is None:
        raise TrickRejected("round-not-over")
    if board.open_issues:
        raise TrickRejected("issues-open", count=len(board.open_issues))
    play.save_round(session=session, game=view.game, number=number, played=played, mode="cards",
                    base_id=None)


def preview(*, session: Session, view: play.GameView, number: int, board: Board
            ) -> Any | None:
    """The round's result (scores, lines, totals after) as the pad would show it, or None."""
    played = board.played_round()
    if played is None:
        return None
    try:
        trial = play.view_game(session, view.game, extra=played)
    except (IncompleteEntryError, ScoringEntryError):
        return None
    return trial.state.rounds[number - 1] if len(trial.state.rounds) >= number else None
