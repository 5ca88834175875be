"""Glue between storage and the scoring core.

Rows never enter the scoring core: this module turns stored round records into
:class:`~companion.scoring.rebel_princess.PlayedRound` values, replays the game with
:func:`~companion.scoring.rebel_princess.play_through`, and turns accepted entries back into rows.
Every write is checked on the game replayed with it first (a new round: played on from the game
as read, :func:`~companion.scoring.rebel_princess.play_on`), so nothing invalid is ever stored."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from ..common.short_names import short_names
from ..db import rollback_save, saving_on
from ..games import GameGlue
from ..history import N_, Fact, GameSummary
from ..models import Game, Player, RoundRecord, made
from ..scoring.problems import EntryError
from ..scoring.rebel_princess import (
    TIEBREAKS,
    Edition,
    GameSetup,
    IncompleteEntryError,
    PlayedRound,
    Problem,
    RebelCard,
    RebelGameState,
    check_new_table,
    play_on,
    play_through,
    tiebreak_rounds,
)
from ..scoring.rebel_princess.problems import CATALOGUE
from . import page_reads, round_records, saved_games, store
from .entries import EntryShape
from .rebel_princess_rows import entry_columns, played_from_record

_T = TypeVar("_T")


class EntryRejected(EntryError):
    """A write that would break the game; ``problems`` says why. Nothing was stored.

    ``stored``: for a round saved already (``round-already-saved``, ``stale-edit``), that
    round's current record in the game the write was judged on, so the caller tells a double
    tap (:meth:`is_double_tap`) without reading or replaying the game again."""

    def __init__(self, problems: list[Problem], stored: RoundRecord | None = None) -> None:
        super().__init__(problems)
        self.stored = stored

    def is_double_tap(self, played: PlayedRound, mode: str) -> bool:
        """Was this very entry (the same round, entered the same way) stored already — by the
        first tap of a double tap, or a retry — so that the refusal is answered as a save?"""
        return (self.stored is not None and self.stored.mode == mode
                and played_from_record(self.stored) == played)


@dataclass(frozen=True)
class RebelGameView:
    """A stored game with its players, current round records and ``state``, the game those
    records replay to (:func:`replay_records`), on which a new round is played on."""

    game: Game
    players: list[Player]
    records: list[RoundRecord]
    state: RebelGameState
    seq: int = 0  # the number of the game's newest record: the version this view is of
    keys: Mapping[str, RoundRecord] = dataclasses.field(default_factory=dict)  # by form key
    # The last change replayed on this view and the game it gave (see :meth:`trial`).
    _tried: list[object] = dataclasses.field(default_factory=list, init=False, repr=False,
                                             compare=False)

    @property
    def edition(self) -> Edition:
        return edition_of(self.game)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    @property
    def short_names(self) -> list[str]:
        """Labels that fit one row of buttons on a 360-px phone: shorter with more players."""
        return short_names(self.names, {3: 9, 4: 7, 5: 4}.get(len(self.names), 3))

    def record(self, number: int) -> RoundRecord | None:
        return self.records[number - 1] if 0 < number <= len(self.records) else None

    def trial(self, number: int, played: PlayedRound) -> RebelGameState:
        """The game replayed with round ``number`` entered as ``played`` (a new round, played
        on from :attr:`state`, or an edit of the stored one, replayed from the first round),
        without storing it. Tried once per view: a by-numbers
        save's warnings (:func:`numbers_warnings`) and its check (:func:`save_round`) judge the
        same entry on the same view, and a replay of the same rounds is the same game."""
        change = (number, played)
        if self._tried[:1] == [change]:
            return cast(RebelGameState, self._tried[1])
        state = (replay(self, replace=change) if self.record(number) is not None
                 else replay(self, extra=played))
        self._tried[:] = [change, state]
        return state


# --- reading ---------------------------------------------------------------------------------

def _history(session: Session, game_id: int) -> list[RoundRecord]:
    if (saved := saved_games.known(session, game_id)) is not None and saved.view is None:
        return list(saved.entries)  # (a page drawn after an undo: the records it left)
    if (own := saving_on(session)) is not None:  # (a save's own connection: no ORM object)
        return round_records.rounds(own, game_id)
    if (found := page_reads.round_records(session, game_id)) is not None:  # (a PostgreSQL page)
        return found
    return list(session.exec(select(RoundRecord).where(RoundRecord.game_id == game_id)
                             .order_by(col(RoundRecord.id))))


def current_records(history: Sequence[RoundRecord]) -> list[RoundRecord]:
    """The current version of each round, in round order (deleted rounds left out)."""
    latest: dict[int, RoundRecord] = {}
    for record in history:
        latest[record.number] = record
    return _current(latest)


def _current(latest: dict[int, RoundRecord]) -> list[RoundRecord]:
    """The current rounds, given the newest record of each round number."""
    current = [latest[n] for n in sorted(latest) if not latest[n].deleted]
    # Rounds are always entered in order, so the current ones are 1..k without gaps.
    return [r for i, r in enumerate(current) if r.number == i + 1]


KIND = "rebel_princess"


ENTRY_SHAPES: Mapping[str, type[EntryShape]] = {}
"""A Rebel Princess game stores no entries (its rounds are round records, its tricks trick
logs): an entry in an import is one no table could have made (:mod:`companion.play.entries`)."""


def get_game(session: Session, code: str) -> Game | None:
    return store.get_game(session, code, KIND)


_PLAYERS = select(Player).where(Player.game_id == bindparam("game")).order_by(col(Player.seat))


def players_of(session: Session, game: Game) -> list[Player]:
    """The game's seats in play order; :class:`store.GameGone` if there are none (deleted with
    its group between reading the game and its seats: a page answers 410, not a 500)."""
    own = saving_on(session)
    players = round_records.seats(own, game.id) if own is not None \
        else list(session.exec(_PLAYERS, params={"game": game.id}))
    if not players:
        raise store.GameGone
    return players


def view_game(session: Session, game: Game, *,
              players: list[Player] | None = None) -> RebelGameView:
    """Load a game and replay it. ``players`` saves reading the seats again when the caller has
    them."""
    assert game.id is not None
    if (known := saved_games.known_view(session, game)) is not None:
        return cast(RebelGameView, known)  # (a page drawn after a save: the view it left)
    if players is None:
        players = players_of(session, game)
    history = _history(session, game.id)
    records = current_records(history)
    seq = history[-1].seq if history else 0
    keys = {r.key: r for r in history if r.key is not None}
    return RebelGameView(game, players, records, replay_records(game, players, records), seq,
                         keys)


def edition_of(game: Game) -> Edition:
    """A Rebel Princess game's edition (its column is empty for the other games only)."""
    if game.edition is None:
        raise ValueError(f"game {game.code} is not a Rebel Princess game")
    return Edition(game.edition)


def replay_records(game: Game, players: Sequence[Player], records: Sequence[RoundRecord],
                   *, replace: tuple[int, PlayedRound] | None = None,
                   extra: PlayedRound | None = None) -> RebelGameState:
    """Replay stored rounds through the scoring core, optionally with one round replaced or one
    added; touches no database."""
    played = [played_from_record(r) for r in records]
    if replace is not None:
        played[replace[0] - 1] = replace[1]
    if extra is not None:
        played.append(extra)
    if game.first_leader is None or game.round_cards is None:
        raise ValueError(f"game {game.code} is not set up as a Rebel Princess game")
    setup = GameSetup(edition_of(game), len(players), game.first_leader,
                      tuple(game.round_cards))
    return play_through(setup, played)


def replay(view: RebelGameView, *, replace: tuple[int, PlayedRound] | None = None,
           extra: PlayedRound | None = None) -> RebelGameState:
    """The game of ``view`` replayed with a proposed change, without loading it again. A new
    round alone is played on from the view's game (:func:`play_on`): its rounds, replayed when
    it was read, are not replayed again."""
    if extra is not None and replace is None:
        return play_on(view.state, extra)
    return replay_records(view.game, view.players, view.records, replace=replace, extra=extra)


def history_of(session: Session, game: Game) -> list[RoundRecord]:
    assert game.id is not None
    return _history(session, game.id)


# --- writing ---------------------------------------------------------------------------------

def create_game(*, session: Session, edition: Edition, names: Sequence[str], first_leader: int,
                round_cards: Sequence[str], princesses: Sequence[str | None] = (),
                group_id: int | None = None) -> Game:
    """Store a new game in group ``group_id`` (a new group if None). The caller's form has
    checked shapes; the setup is checked here too."""
    setup = GameSetup(edition, len(names), first_leader, tuple(round_cards))  # raises if bad
    check_new_table(setup, list(princesses))  # what the rulebooks make impossible at set-up
    game = Game(code=store.new_code(session), kind=KIND, edition=edition.value,
                group_id=store.group_for_new_game(session, group_id, names),
                round_cards="".join(round_cards),
                first_leader=first_leader)
    session.add(game)
    session.flush()
    assert game.id is not None
    for seat, name in enumerate(names):
        princess = princesses[seat] if seat < len(princesses) else None
        session.add(Player(game_id=game.id, seat=seat, name=name, princess=princess or None))
    store.add_links(session, game)
    session.commit()
    return game


def save_round(*, session: Session, game: Game, number: int, played: PlayedRound, mode: str,
               base_id: int | None, view: RebelGameView | None = None,
               key: str | None = None) -> RoundRecord:
    """Store a round entry: a new round (``base_id`` None) or an edit of the version ``base_id``.
    ``key``, the form's (:func:`~companion.play.store.keyed`), is stored with it: the form sent
    again gets the record it stored, changed it raises :class:`~companion.play.store.KeyConflict`.

    Raises :class:`EntryRejected` (``round-already-saved``, ``round-not-next``, ``stale-edit``,
    ``game-over``) or :class:`IncompleteEntryError` when the game would not replay; nothing is
    stored then. An edit that changes nothing stores nothing and returns the current version.
    The check and the write are one step: the record takes the number after the version that
    was checked, and the database refuses it if another write took that number first; then the
    game is read and judged again (a double tap then finds its own entry already there).

    ``view``, the game as this request already read it, spares reading and replaying it again
    for the first attempt: if anything was stored since, its record number is taken and the
    database refuses the write, which is then judged afresh on the game read again. A refusal
    judged on ``view`` is judged again on the game read afresh, too.
    """
    def write() -> RoundRecord:
        nonlocal view
        seen, view = view, None  # only the first attempt: a retry reads the game again
        if seen is not None:
            try:
                return _save_round(session, game, number, played, mode, base_id, seen, key)
            except (EntryRejected, IncompleteEntryError):
                pass
        return _save_round(session, game, number, played, mode, base_id,
                           view_game(session, game), key)

    return _atomically(session, write)


def enter_round(*, session: Session, game: Game, number: int, played: PlayedRound, mode: str,
                base_id: int | None, view: RebelGameView | None = None,
                shown: Sequence[RebelCard] | None = None, key: str | None = None
                ) -> RoundRecord:
    """:func:`save_round` as a page's form saves it. A form with a ``key`` is known by it; one
    without (drawn before keys) by what it says: a refusal that finds this very entry stored
    (the same round, entered the same way) is answered with that record, as a save. Any other
    refusal is raised (:class:`~companion.scoring.problems.EntryError`), nothing stored.

    ``shown``: the by-cards form's rows (the cards the round's card scores). An edit saved as
    that form showed the stored round is the stored entry, unchanged: a round confirmed from the
    trick screen also holds the cards that score nothing, which have no row."""
    if shown is not None:
        current = (view or view_game(session, game)).record(number)
        if current is not None:
            stored = played_from_record(current)
            if as_shown(stored, shown) == played:
                played = stored
    try:
        return save_round(session=session, game=game, number=number, played=played, mode=mode,
                          base_id=base_id, view=view, key=key)
    except EntryRejected as error:
        # Judged on the game as it now is (save_round reads it again when the request's view
        # refuses): the round it found stored tells a double tap, with nothing read again.
        if key is None and error.stored is not None and error.is_double_tap(played, mode):
            return error.stored
        raise


def as_shown(played: PlayedRound, cards: Sequence[RebelCard]) -> PlayedRound:
    """A stored entry as the by-cards form shows it: only the cards it has a row for."""
    if played.taken is None:
        return played
    rows = set(cards)
    return dataclasses.replace(played, taken=tuple(frozenset(c for c in t if c in rows)
                                                   for t in played.taken))


def shown_scores(view: RebelGameView, number: int, played: PlayedRound) -> tuple[int, ...]:
    """The scores a stored round shows in the by-numbers form: those typed, or those it came
    to (a round entered another way)."""
    if played.scores:
        return tuple(played.scores)
    return view.state.rounds[number - 1].scores if number <= len(view.state.rounds) else ()


def numbers_warnings(view: RebelGameView, number: int, played: PlayedRound) -> list[Problem]:
    """What a round typed as numbers would be warned of (scores the Round card cannot give),
    judged on the game replayed with it; stores nothing. The page asks to confirm them."""
    tried = view.trial(number, played)
    return list(tried.rounds[number - 1].warnings) if number <= len(tried.rounds) else []


def undo_entry(*, session: Session, game: Game, based_on: int | None,
               key: str | None = None) -> RoundRecord | None:
    """:func:`undo_last` as the pad's Undo sends it. A form without a ``key``: when the game
    moved on since ``based_on`` only by the undo this very version asked for, that undo's record
    is returned as if just made; any other move raises :class:`EntryRejected`, nothing undone."""
    try:
        return undo_last(session=session, game=game, based_on=based_on, key=key)
    except EntryRejected:
        history = _history(session, game.id) if game.id is not None else []
        latest = history[-1] if history else None
        if (key is None and based_on is not None and latest is not None
                and latest.action == "undone"
                and latest.seq == based_on + 1):
            return latest  # a double tap: the first tap undid it
        raise


def replayed_round(keys: Mapping[str, RoundRecord], key: str | None) -> RoundRecord | None:
    """The record the form with this key stored (``keys``: the game's, by key), or None;
    :class:`~companion.play.store.KeyConflict` when its key was stored with other content."""
    read = sorted(map(store.stored_round, keys.values()), key=lambda s: s.seq)
    found = store.replayed_in(read, key) if key else None
    return keys[found.key] if found is not None and found.key is not None else None


def _save_round(session: Session, game: Game, number: int, played: PlayedRound, mode: str,
                base_id: int | None, view: RebelGameView, key: str | None) -> RoundRecord:
    earlier = replayed_round(view.keys, key)
    if earlier is not None:
        return earlier
    current = view.record(number)
    if base_id is None:
        if current is not None:
            raise EntryRejected([CATALOGUE.problem("round-already-saved", number=number)],
                                stored=current)
        if number != len(view.records) + 1:
            raise EntryRejected([CATALOGUE.problem("round-not-next", number=number)])
        if view.state.finished:
            raise EntryRejected([CATALOGUE.problem("game-over")])
        tried = view.trial(number, played)  # (the new round: ``current`` is None)
        action = "entered"
    else:
        if current is None or current.id != base_id:
            raise EntryRejected([CATALOGUE.problem("stale-edit", number=number)],
                                stored=current)
        if played_from_record(current) == played and current.mode == mode:
            return current  # nothing changed: nothing to store, nothing to undo later
        tried = view.trial(number, played)  # (an edit of ``current``, stored)
        action = "edited"
    for bad_number, problems in tried.errors:
        if bad_number <= number:
            raise IncompleteEntryError(list(problems))
    if base_id is None and len(tried.rounds) < number:
        raise EntryRejected([CATALOGUE.problem("game-over")])
    assert game.id is not None
    record = made(RoundRecord, game_id=game.id, seq=view.seq + 1, number=number, action=action,
                  key=key, **entry_columns(played, mode))
    round_records.write(session, game, record, tried, view.players, lambda saved, *_: (
        RebelGameView(saved, view.players, current_records([*view.records, record]), tried,
                      record.seq, {**view.keys, key: record} if key else view.keys)))
    return record


def undo_last(*, session: Session, game: Game, based_on: int | None = None,
              key: str | None = None) -> RoundRecord | None:
    """Undo the last entry or edit not undone yet, by adding a record that restores the version
    before it. Returns the new record, or None when there is nothing to undo.

    ``based_on`` is the version (newest record number) the phone showed: if the game has moved
    on since, :class:`EntryRejected` (``stale-undo``) and nothing is undone, so a double tap on
    Undo never takes back two entries. ``key``: the form's, as :func:`save_round` keeps it.
    """
    return _atomically(session, lambda: _undo_last(session, game, based_on, key))


def _undo_last(session: Session, game: Game, based_on: int | None,
               key: str | None) -> RoundRecord | None:
    assert game.id is not None
    history = _history(session, game.id)
    earlier = replayed_round({r.key: r for r in history if r.key is not None}, key)
    if earlier is not None:
        return earlier
    seq = history[-1].seq if history else 0
    if based_on is not None and based_on != seq:
        raise EntryRejected([CATALOGUE.problem("stale-undo")])
    undone = {r.undoes for r in history if r.undoes is not None}
    for record in reversed(history):
        if record.action == "undone" or record.id in undone:
            continue
        previous = [r for r in history if r.number == record.number and r.id is not None
                    and record.id is not None and r.id < record.id]
        if record.action == "entered" or not previous:
            restored: dict[str, object] = {"deleted": True}
        else:
            before = previous[-1]
            restored = {**entry_columns(played_from_record(before), before.mode),
                        "deleted": before.deleted}
        restore = made(RoundRecord, game_id=game.id, seq=seq + 1, number=record.number,
                       action="undone", undoes=record.id, key=key, **restored)
        round_records.write(session, game, restore, None, history=[*history, restore])
        return restore
    return None


_ATTEMPTS = 5


def _atomically(session: Session, write: Callable[[], _T]) -> _T:
    """Run a checked write; when the database refuses it because another write was stored
    first (the unique record number), or broke a deadlock with another write (the group's
    deletion: :func:`store.lost_race`), read the game again and judge the write afresh."""
    for attempt in range(_ATTEMPTS):
        try:
            return write()
        except (IntegrityError, OperationalError) as error:
            if not store.lost_race(error):
                raise
            if saving_on(session) is not None:
                rollback_save(session)  # (its connection stays: the game is read again there)
            else:
                session.rollback()
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


# --- history: what a game came to (stored with every save, see companion.play.summaries) ----

TIEBREAK_NAMES = {"rounds_at_or_below_zero": N_("Rounds at zero or below"),
                  "rounds_at_zero": N_("Rounds at exactly 0")}
"""The name of each edition's tie-break count (:data:`TIEBREAKS`), in the words the end of a
game uses for a tie it broke ("won on rounds at zero or below")."""


def tiebreak_fact(state: RebelGameState) -> Fact:
    """Each seat's count of the rounds the edition's tie-break counts, as a statistic: the
    core's count (the one the end of the game reads), named and keyed by the edition's rule
    (``rounds-at-or-below-zero`` in Deluxe, ``rounds-at-zero`` in the classic)."""
    rule = TIEBREAKS[state.setup.edition]
    regular = [r.scores for r in state.rounds if not r.playoff]
    counts = tiebreak_rounds(state.setup.edition, regular) if regular else (0,) * len(state.totals)
    return Fact(rule.replace("_", "-"), TIEBREAK_NAMES[rule], counts)


def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: the totals (lowest wins), round by
    round, how often each player was Rebel of the Ball (rounds entered by cards only) and the
    rounds the edition's tie-break counts (:func:`tiebreak_fact`)."""
    return summary_from(game, view_game(session, game).state)


def summary_from(_game: Game, state: RebelGameState) -> GameSummary:
    """:func:`summary` of the game replayed as ``state`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    seats = len(state.totals)
    result = state.standings if state.finished else None
    return GameSummary(
        finished=state.finished, winners=tuple(result.winners) if result else (),
        scores=tuple(state.totals), lower_wins=True,
        progress=tuple(tuple(r.totals_after) for r in state.rounds),
        facts=(
            Fact("rebel-of-the-ball", N_("Rebel of the Ball"),
                 tuple(sum(seat in r.rebels for r in state.rounds) for seat in range(seats))),
            tiebreak_fact(state),
        ),
        first=state.setup.first_leader)


GLUE = GameGlue(RebelGameState, summary, summary_from, ENTRY_SHAPES)
"""This game in history and statistics (:class:`companion.games.GameGlue`)."""
