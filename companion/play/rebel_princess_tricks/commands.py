"""The taps of the trick screen, each checked on the round's judge then stored with one
conditional update: a card played, fixed or undone, a power used, a haggle, a breach accepted,
the rule checks switched, the scores confirmed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from ...models import TrickLog
from ...scoring.problems import Problem
from ...scoring.rebel_princess import (
    IncompleteEntryError,
    InvalidValueError,
    RebelCard,
    RebelRoundResult,
    deck,
)
from ...scoring.rebel_princess.engine import (
    Power,
    Timing,
    round_card_class,
)
from .. import rebel_princess as play
from ..rebel_princess_rows import played_from_record
from .board import CHAIRS, HAGGLE, SUITS, Board, PowerNote, TrickRejected, TrickView
from .judges import VIEWS, TrickEntry, _write, acts_after, is_supported

# --- writing ---------------------------------------------------------------------------------

def _store(entry: TrickEntry, **values: Any) -> None:
    """Write ``values`` if the row is still at the version read (one conditional UPDATE, so two
    phones tapping at once cannot both win); raises ``TrickRejected("stale")`` otherwise."""
    session, game = entry.session, entry.view.game
    assert game.id is not None
    version = entry.version
    values = {**values, "version": version + 1, "updated_at": datetime.now(UTC)}
    if entry.log is None:
        row = TrickLog(game_id=game.id, number=entry.number, checks=entry.validate)
        for key, value in values.items():
            setattr(row, key, value)
        session.add(row)
        try:
            _commit(session)
        except IntegrityError:
            session.rollback()
            VIEWS.forget(game.code)
            raise TrickRejected("stale") from None
        entry.log = row
    else:
        # An UPDATE's result is a CursorResult (SQLAlchemy types execute() as the wider Result)
        result = cast("CursorResult[Any]", session.execute(_write(tuple(sorted(values))), {
            "row": entry.log.id, "seen": version,
            **{f"new_{name}": value for name, value in values.items()}}))
        if result.rowcount != 1:
            session.rollback()
            VIEWS.forget(game.code)
            raise TrickRejected("stale")
        _commit(session)
    entry.version = version + 1
    if "checks" in values:
        entry.validate = values["checks"]
    if "accepted" in values:
        entry.accepted = set(json.loads(values["accepted"]))
    entry.invalidate()


def _commit(session: Session) -> None:
    """Commit the one row written, keeping the game, its players and records loaded: the page
    drawn next shows them, and reloading each (one query per object, as an expiring commit
    would) would cost more than the whole judgement of a tap."""
    expire = session.expire_on_commit
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = expire


def _save(entry: TrickEntry, plays: Sequence[RebelCard], notes: Sequence[PowerNote]) -> None:
    """Store ``plays`` and ``notes`` (already on the judge)."""
    _store(entry, plays=" ".join(c.code for c in plays),
           powers=json.dumps([n.as_json() for n in notes]))


def _check_version(entry: TrickEntry, version: int) -> None:
    if version != entry.version:
        raise TrickRejected("stale")


def _check_card(board: Board, card: RebelCard) -> None:
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    if card in board.played:
        raise TrickRejected("card-already-played", card=card, trick=board.last_trick_with(card))


def _rule_slug(board: Board, note: PowerNote) -> str:
    return round_card_class(board.edition, board.letter).slug if note.is_step else note.power


def _card_or_none(code: str | None) -> RebelCard | None:
    try:
        return RebelCard.from_code(code) if code else None
    except (InvalidValueError, ValueError, KeyError):
        return None


def _trial(entry: TrickEntry, plays: Sequence[RebelCard], notes: Sequence[PowerNote],
           new: PowerNote | None = None) -> None:
    """Check a change on the judge before storing it: every entry must be one the judge takes;
    with the rule checks on, the ``new`` power or haggle must break none of its own rules.
    Raises :class:`TrickRejected` (the judge is back as it was)."""
    known = {Board.issue_key(p) for p in entry.judge.findings()}
    stored = (entry.plays, entry.notes)
    refused = entry.apply(plays, notes)
    if refused is not None:
        if new is not None:
            raise _refused(refused)
        raise TrickRejected("entry-refused", why=refused.code, seat=refused.seat,
                            card=_card_or_none(refused.card), message=refused.message,
                            problem=refused)
    if new is None or not entry.validate:
        return
    slug = _rule_slug(entry.board, new)
    for problem in entry.judge.findings():
        if problem.params.get("rule") == slug and Board.issue_key(problem) not in known:
            entry.plays, entry.notes = stored
            entry.reconcile()
            raise _refused(problem)


def play_card(entry: TrickEntry, *, version: int, card: RebelCard, zero: bool = False) -> None:
    """Record ``card`` as played by the seat whose turn it is; ``zero``: Snow White plays it as
    a zero (her power, recorded with the card)."""
    if not is_supported(entry.edition, entry.letter):
        raise TrickRejected("round-card-not-supported")
    if _replayed_play(entry, version, card, zero):
        return
    board = entry.board
    if board.over:
        raise TrickRejected("round-over")
    _check_version(entry, version)
    _check_card(board, card)
    forced = board.forced_card()
    if forced is not None and forced != card and board.validate:
        raise TrickRejected("ice-forced", seat=board.turn, card=forced)
    plays = [*entry.plays, card]
    notes = list(entry.notes)
    new = None
    if zero:
        seat = board.turn
        assert seat is not None
        new = _zero_note(entry, seat, card, len(entry.plays), len(plays))
        notes.append(new)
    _trial(entry, plays, notes, new)
    _save(entry, plays, notes)


def _replayed_play(entry: TrickEntry, version: int, card: RebelCard, zero: bool) -> bool:
    """Is this tap the one stored last, sent again (a phone that never heard the answer, or
    that kept the tap while offline and sent it twice)? Its version and card are its key: the
    change from ``version`` to the next was playing ``card`` (a card is played once a round),
    as a zero or not as this tap says. It is then answered like the first sending, and stored
    once."""
    if version != entry.version - 1 or not entry.plays or entry.plays[-1] != card:
        return False
    at = len(entry.plays) - 1
    was_zero = any(n.at == at and n.cards == (card.code,) for n in entry.notes)
    return was_zero == zero


def _zero_note(entry: TrickEntry, seat: int, card: RebelCard, at: int, entered: int) -> PowerNote:
    """Snow White's zero on ``card``, played at position ``at``: her power's declaration says
    which cards may be."""
    power = entry.judge.power_of(seat)
    if power is None or power.when() is not Timing.TURN or not power.card_slots:
        raise TrickRejected("zero-not-hers")
    return PowerNote(at, seat, power.slug, cards=(card.code,),
                     entered=entered if entered != at else None)


def fix_card(entry: TrickEntry, *, version: int, position: int, card: RebelCard) -> None:
    """Replace the card at ``position``; every later seat and winner is derived again (a zero
    follows its card while the card is within the power's rank)."""
    board = entry.board
    _check_version(entry, version)
    if not 0 <= position < len(entry.plays):
        raise TrickRejected("bad-position")
    if card not in deck(board.players):
        raise TrickRejected("card-not-in-deck", card=card)
    plays = list(entry.plays)
    old = plays[position]
    plays[position] = card
    notes = []
    for note in entry.notes:
        power = entry.judge.power_of(note.seat) if not note.is_step else None
        if power is not None and power.when() is Timing.TURN and power.card_slots and \
                note.at == position:
            if not power.allows_rank(card):
                continue
            note = PowerNote(note.at, note.seat, note.power, cards=(card.code,),
                             entered=note.entered)
        notes.append(note)
    if card != old:
        try:
            _trial(entry, plays, notes)
        except TrickRejected as error:
            if error.params.get("why") in ("card-already-played", "duplicate-card") or \
                    card in board.plays:
                raise TrickRejected("card-already-played", card=card,
                                    trick=board.last_trick_with(card) or position //
                                    board.trick_size + 1) from None
            raise
    else:
        entry.apply(plays, notes)
    _save(entry, plays, notes)


def undo(entry: TrickEntry, *, version: int) -> None:
    """Take back the last thing entered: a power or haggle entered after the last card, else the
    card (with a zero on it)."""
    _check_version(entry, version)
    plays, notes = list(entry.plays), list(entry.notes)
    bound = len(plays) - 1  # the last card's position

    def is_zero(note: PowerNote) -> bool:
        power = entry.judge.power_of(note.seat) if not note.is_step else None
        return power is not None and power.when() is Timing.TURN and bool(power.card_slots)

    if notes and notes[-1].since >= len(plays) and not (is_zero(notes[-1]) and
                                                        notes[-1].at == bound):
        notes.pop()
    elif plays:
        plays.pop()
        notes = [n for n in notes if n.at < len(plays) or
                 (n.at == len(plays) and not (is_zero(n) or acts_after(entry.edition, n)))]
    else:
        raise TrickRejected("nothing-to-undo")
    entry.apply(plays, notes)
    _save(entry, plays, notes)


def _seat_ok(board: Board, seat: int | None) -> bool:
    return seat is not None and 0 <= seat < board.players


def _refused(problem: Problem) -> TrickRejected:
    """The judge's refusal, as the trick screen reports it."""
    return TrickRejected("power-refused", why=problem.code, seat=problem.seat,
                         card=_card_or_none(problem.card), message=problem.message,
                         problem=problem)


def use_power(entry: TrickEntry, *, version: int, seat: int, target: int | None = None,
              suit: str | None = None, cards: Sequence[RebelCard] = (),
              part: str | None = None) -> None:
    """Record the power of ``seat``'s Princess with what was tapped (``cards`` on the grid,
    completed with what the taps leave implied); the judge alone says whether it may act now
    and with these arguments (its refusal stores nothing). Sleeping Beauty's cards may be one
    part alone: each seat's card only (no more taps than seats), or with ``part="more"`` the
    card each seat got only."""
    board = entry.board
    _check_version(entry, version)
    power = entry.judge.power_of(seat)
    if power is not None and power.entry == "zero":  # on her card just played: judged with it
        last = board.play_at(len(entry.plays) - 1)
        if last is None or last.seat != seat:
            raise TrickRejected("zero-not-hers")
        _store_note(entry, _zero_note(entry, seat, last.card, last.position, len(entry.plays)))
        return
    refused = entry.judge.power_refusal(seat, target)
    if power is None or refused is not None:
        assert refused is not None
        raise _refused(refused)
    if power.needs_target and entry.edition in power.target_leader:
        target = board.current.leader if board.current else target  # the leader's hand
    codes = tuple(c.code for c in cards)
    slots, more_slots = power.slots(board.players, board.trick_size)
    more: tuple[str, ...] = ()
    trick = board.after_trick
    if power.entry == "after" and trick is not None:
        codes = _complete(power, seat, trick, codes)
    elif slots and more_slots and part == "more":  # (Sleeping Beauty: the new cards alone)
        codes, more = (), codes
    elif slots and more_slots:  # (Sleeping Beauty: each seat's card, then each seat's new one)
        players = board.players
        if len(codes) == len(slots) + len(more_slots) - 1:
            codes = (*codes, *_left_over(codes[:players], codes[players:]))
        codes, more = codes[:len(slots)], codes[len(slots):]
    elif not slots:
        codes = ()
    note = PowerNote(len(entry.plays), seat, power.slug,
                     target if power.needs_target else None,
                     suit if power.needs_suit and suit in {s.value for s in SUITS} else None,
                     codes, more)
    _store_note(entry, note)


def _left_over(cards: Sequence[str], picked: Sequence[str]) -> tuple[str, ...]:
    rest = list(cards)
    for code in picked:
        if code in rest:
            rest.remove(code)
    return tuple(rest[:1])


def _complete(power: Power, seat: int, trick: TrickView,
              codes: tuple[str, ...]) -> tuple[str, ...]:
    """The cards of an after-trick power, with what the taps leave implied: Mulan's played card
    when she played one, the last card Alice deals back."""
    if power.redecides_trick:  # Mulan: her card in the trick, then the card she swaps in
        mine = [p.card.code for p in trick.plays if p.seat == seat]
        if len(codes) == 1 and len(mine) == 1:
            codes = (mine[0], *codes)
        return codes
    dealt = [c.code for c in trick.cards]
    if len(codes) == len(dealt) - 1:
        codes = (*codes, *_left_over(dealt, codes))
    return codes


def haggle(entry: TrickEntry, *, version: int, cards: Sequence[RebelCard] = ()) -> None:
    """Haggle with the Hag after the trick just finished: ``cards`` is (the card taken from the
    trick, the card given from the winner's hand), or empty when the winner does not haggle."""
    board = entry.board
    _check_version(entry, version)
    if not board.haggle_round:
        raise TrickRejected("no-haggle-here")
    trick = board.after_trick
    if trick is None or trick.redone:
        raise TrickRejected("haggle-not-now")
    if trick.note(HAGGLE) is not None:
        raise TrickRejected("haggle-done")
    if len(cards) not in (0, 2):
        raise TrickRejected("power-needs-cards")
    assert trick.winner is not None
    note = PowerNote(len(entry.plays), trick.winner, HAGGLE, cards=tuple(c.code for c in cards))
    _store_note(entry, note)


def chairs(entry: TrickEntry, *, version: int, cards: Sequence[RebelCard] = ()) -> None:
    """The Musical Chairs passes after the trick just finished (k / E): ``cards`` the card each
    seat passed to its right, in seat order, or empty when the table did not see them (nothing
    is then known of the hands: the judge forgets what it knew, never guesses)."""
    board = entry.board
    _check_version(entry, version)
    if not board.chairs_round:
        raise TrickRejected("no-chairs-here")
    trick = board.after_trick
    if trick is not None and trick.note(CHAIRS) is not None:
        raise TrickRejected("chairs-done")
    if trick is None or not board.chairs_due:
        raise TrickRejected("chairs-not-now")
    if len(cards) not in (0, board.players):
        raise TrickRejected("chairs-one-each", count=board.players)
    assert trick.winner is not None
    _store_note(entry, PowerNote(len(entry.plays), trick.winner, CHAIRS,
                                 cards=tuple(c.code for c in cards)))


def _store_note(entry: TrickEntry, note: PowerNote) -> None:
    notes = [*entry.notes, note]
    _trial(entry, entry.plays, notes, note)
    _save(entry, entry.plays, notes)



def accept(entry: TrickEntry, *, version: int, key: str) -> None:
    """The players saw the breach ``key`` and play on."""
    _check_version(entry, version)
    if key not in {Board.issue_key(i) for i in entry.board.issues}:
        raise TrickRejected("stale")
    _store(entry, accepted=json.dumps(sorted(entry.accepted | {key})))


def set_validation(entry: TrickEntry, *, version: int, on: bool) -> None:
    """Switch the rule checks on or off for this game (new rounds start as the last one was)."""
    _check_version(entry, version)
    _store(entry, checks=on)


def confirm(entry: TrickEntry, *, version: int, key: str | None = None) -> None:
    """Save the round to the score pad from the cards each seat took. Raises
    :class:`TrickRejected` (``round-not-over``, ``issues-open``, ``saved``: already stored by
    this very form, known by its idempotency ``key``, or — a form without one — with these very
    cards), :class:`~companion.play.store.KeyConflict` (the form's key stored with other
    content) or the errors of :func:`companion.play.rebel_princess.save_round`."""
    if not is_supported(entry.edition, entry.letter):
        raise TrickRejected("round-card-not-supported")
    board = entry.board
    played = board.played_round()
    record = entry.view.record(entry.number)
    if record is not None:
        if key is not None:
            if play.replayed_round(entry.view.keys, key) is not None:
                raise TrickRejected("saved")  # a double tap: the first one stored it
        elif played is not None and played_from_record(record) == played:
            raise TrickRejected("saved")  # (a form without a key: told by its cards)
        raise TrickRejected("stale")
    _check_version(entry, version)
    if played is None:
        raise TrickRejected("round-not-over")
    if board.open_issues:
        raise TrickRejected("issues-open", count=len(board.open_issues))
    VIEWS.forget(entry.view.game.code)
    game = play.get_game(entry.session, entry.view.game.code)  # (loaded afresh: it is written)
    assert game is not None
    play.save_round(session=entry.session, game=game, number=entry.number, played=played,
                    mode="cards", base_id=None, key=key)


def preview(entry: TrickEntry) -> RebelRoundResult | None:
    """The round's result (scores, lines, totals after) as the pad would show it, or None."""
    played = entry.board.played_round()
    if played is None:
        return None
    try:
        state = play.replay(entry.view, extra=played)
    except (IncompleteEntryError, InvalidValueError):
        return None
    number = entry.number
    return state.rounds[number - 1] if len(state.rounds) >= number else None
