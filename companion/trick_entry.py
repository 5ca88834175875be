"""Glue for "Enter tricks": a round tapped in card by card, judged as it goes, then scored.

One :class:`~companion.models.TrickLog` row per game and round holds what was tapped: the cards in
the order they hit the table, the Princess powers announced (with the number of cards played
before), the rule breaches the players accepted, the game's rule-check switch and a version.
Seats are never stored: the app decides whose turn it is (the first leader, then clockwise; the
winner of a trick leads the next), so a card can never be entered for the wrong seat, and fixing
an earlier card re-derives every later seat and winner.

Rows never enter the engine: :func:`board_of` replays the log through
:class:`~companion.engine.TableRound` (trusted ``push``; the judging comes from ``findings``), and
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

from . import play, tricks
from .engine import EngineError, PowerUse, TableRound, Trick, round_card_class
from .models import Game, TrickLog
from .scoring import (
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
from .scoring import InvalidEntryError as ScoringEntryError

#: Powers entered on the trick screen, with the one argument each needs (None: no argument).
POWER_ARGS: dict[str, str | None] = {
    "cinderella": None, "pea-princess": None, "rapunzel": None, "thumbelina": None,
    "pocahontas": "target", "little-mermaid": "suit",
}
#: Powers that change who leads: only announced before the first card of a trick.
_LEAD_POWERS = frozenset({"pocahontas"})
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
    """A Princess power announced after ``at`` cards of the round had been played."""

    at: int
    seat: int
    power: str
    target: int | None = None
    suit: str | None = None

    def to_use(self) -> PowerUse:
        return PowerUse(self.seat, self.power, self.target,
                        Suit(self.suit) if self.suit else None)


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
        return frozenset(self.plays)

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

#: Round cards with a step the trick screen cannot enter yet: the haggle of Haggle with the Hag
#: (Deluxe p, classic T) moves cards between a hand and a trick, which changes what is taken.
_HAGGLE = {Edition.DELUXE: "p", Edition.CLASSIC: "T"}


def is_supported(edition: Edition, letter: str) -> bool:
    """Whether the trick screen can score this Round card: kept cards and gift piles are never
    seen at the table, and a haggle cannot be entered here yet."""
    card = round_card(edition, letter)
    return card.scoring not in _UNSEEN and card.letter != _HAGGLE[edition]


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
    total = hand_size(players) // round_card_class(edition, letter).plays_per_seat
    board = Board(players, edition, letter, leader, size, total, version, validate, tuple(plays))
    complete = len(plays) // size
    for index in range(complete + 1):
        notes = tuple(p for p in powers if p.at // size == index)
        if index == complete and (complete == total):
            if notes:
                raise TrickRejected("round-over")
            break
        for note in notes:
            try:
                table.push_step(note.to_use())
            except EngineError:
                raise TrickRejected("power-used", seat=note.seat) from None
        lead = table.leader
        if index == 0:
            board.round_leader = lead
        start = index * size
        cards = tuple(plays[start:start + size])
        trick_plays = [Play(start + i, (lead + i) % players, card) for i, card in
                       enumerate(cards)]
        if index < complete:
            winner = table.push(Trick(lead, cards))
            reversed_ = any(n.power == "cinderella" for n in notes)
            reason = win_reason(edition, letter, Trick(lead, cards), winner, players, reversed_)
            trick_plays = [Play(p.position, p.seat, p.card, p.seat == winner and
                                _wins(p, cards, winner, reason)) for p in trick_plays]
            board.tricks.append(TrickView(index, lead, tuple(trick_plays), notes, winner, reason))
        else:
            board.current = TrickView(index, lead, tuple(trick_plays), notes)
    board.powers_used = frozenset(p.seat for p in powers)
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
    """The round judged by :func:`companion.tricks.check_round` (violations proven so far, the
    cards each seat took); ``None`` if it cannot read the entry."""
    try:
        return tricks.check_round(**_check_args(view, letter, leader, board, powers))
    except tricks.TrickEntryError:
        return None


def _check_args(view: play.GameView, letter: str, leader: int, board: Board,
                powers: Sequence[PowerNote]) -> dict[str, Any]:
    """The tricks as :func:`companion.tricks.check_round` reads them: seats as the app decided,
    each power with the trick it changes (classic Pocahontas with the trick before, as she acts
    after it)."""
    size = board.trick_size
    shown = [*board.tricks, *([board.current] if board.current else [])]
    inputs: list[list[Any]] = [[tuple(tricks.Play(p.seat, p.card.code) for p in t.plays), []]
                               for t in shown]
    for note in powers:
        index = note.at // size
        if (board.edition is Edition.CLASSIC and note.power == "pocahontas" and index > 0
                and note.at % size == 0):
            index -= 1
        if index < len(inputs):
            inputs[index][1].append(tricks.PowerInput(note.power, note.seat, note.target,
                                                      note.suit))
    number = len(view.records) + 1
    totals = (view.state.rounds[number - 2].totals_after if number > 1 else
              (0,) * board.players)
    return {"edition": board.edition, "round_card": letter, "players": board.players,
            "leader": leader,
            "princesses": {p.seat: p.princess for p in view.players if p.princess},
            "tricks": [tricks.TrickInput(plays, tuple(notes)) for plays, notes in inputs],
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


def _check_card(board: Board, card: Card, position: int | None = None) -> None:
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    if card in board.plays and board.plays.index(card) != position:
        raise TrickRejected("card-already-played", card=card,
                            trick=board.plays.index(card) // board.trick_size + 1)


def _encode_plays(plays: Sequence[Card]) -> str:
    return " ".join(c.code for c in plays)


def play_card(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
              version: int, card: Card) -> None:
    """Record ``card`` as played by the seat whose turn it is."""
    if not is_supported(view.edition, letter):
        raise TrickRejected("round-card-not-supported")
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    if board.over:
        raise TrickRejected("round-over")
    _check_version(board, version)
    _check_card(board, card)
    _store(session, view.game, number, version, plays=_encode_plays([*board.plays, card]))


def fix_card(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
             version: int, position: int, card: Card) -> None:
    """Replace the card at ``position``; every later seat and winner is derived again."""
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    if not 0 <= position < len(board.plays):
        raise TrickRejected("bad-position")
    _check_card(board, card, position)
    plays = list(board.plays)
    plays[position] = card
    _store(session, view.game, number, version, plays=_encode_plays(plays))


def undo(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
         version: int) -> None:
    """Take back the last thing entered: a power announced after the last card, else the card."""
    log = get_log(session, view.game, number)
    board = board_of(session=session, view=view, number=number, letter=letter, leader=leader)
    _check_version(board, version)
    plays, powers = list(board.plays), _powers(log)
    if powers and powers[-1].at >= len(plays):
        powers.pop()
    elif plays:
        plays.pop()
        powers = [p for p in powers if p.at <= len(plays)]
    else:
        raise TrickRejected("nothing-to-undo")
    _store(session, view.game, number, version, plays=_encode_plays(plays),
           powers=json.dumps([p.__dict__ for p in powers]))


def use_power(*, session: Session, view: play.GameView, number: int, letter: str, leader: int,
              version: int, seat: int, target: int | None = None, suit: str | None = None
              ) -> None:
    """Record the power of ``seat``'s Princess as used in the current trick."""
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
    if needed == "target" and (target is None or not 0 <= target < board.players):
        raise TrickRejected("power-needs-target")
    if needed == "suit" and suit not in {s.value for s in SUITS}:
        raise TrickRejected("power-needs-suit")
    if slug in _LEAD_POWERS and board.current.plays:
        raise TrickRejected("power-before-lead")
    note = PowerNote(len(board.plays), seat, slug, target if needed == "target" else None,
                     suit if needed == "suit" else None)
    powers = [*_powers(log), note]
    trial = _replay(view, letter, leader, board.plays, powers, set(), False, version)
    try:
        tricks.check_round(**_check_args(view, letter, leader, trial, powers))
    except tricks.TrickEntryError as error:
        raise TrickRejected("power-refused", message=error.problems[0].message) from None
    _store(session, view.game, number, version, powers=json.dumps([p.__dict__ for p in powers]))


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
