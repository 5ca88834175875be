"""Tricks entered at the table, judged and scored: :func:`check_round`.

Pure Python (no Flask, no database), for the JSON API (``POST
/api/v1/rebel-princess/check-round``). The hands are unknown, so the round is judged by the same
incremental judge the trick screen uses, :class:`~.engine.TableRound`: each card, power use and
step of the request is entered into it once, in order, and the answer is read from it.

Two kinds of trouble, kept apart (HOUSE_STYLE.md section 2), both as the app's one problem type
(:class:`companion.scoring.problems.Problem`, with ``trick`` and the request ``field``):

- **Malformed entries raise** :class:`~companion.scoring.problems.EntryError`, whose ``problems``
  carry stable codes (the engine's :class:`~.engine.ViolationCode` values where one exists): a
  card that is not a card (``unknown-card``) or not in this deck (``card-not-in-deck``), a card
  named twice in a trick (``duplicate-card``) or played again (``card-already-played``), a play
  out of turn (``wrong-leader`` for the first card, ``not-your-turn`` after it), an unknown seat
  (``unknown-seat``), an unknown Princess (``unknown-power``), a power of a Princess the seat does
  not have (``power-not-in-play``) or used twice (``power-already-used``), a power without what it
  needs (``bad-power-argument``) or at a moment it cannot act (``power-not-now``), too many cards
  in a trick (``wrong-card-count``), an unfinished trick before the last
  (``trick-not-finished``), a trick after the last (``round-over``), and the setup codes of the
  scoring core (``unknown-edition``, ``bad-player-count``, ``unknown-round-card``,
  ``bad-leader``, ``wrong-seat-count``). Problems are collected for the setup, then trick by
  trick; checking stops at the first trick that has any (later tricks cannot be read without
  it).
- **Rule breaches are data**: :attr:`RoundCheck.violations`, the judge's findings, each naming the
  trick where the rule was broken (``trick``) and the trick whose cards proved it
  (``params["proven_in"]``; later for a revoke).

Input schema
============

A trick (:class:`TrickInput`) lists its ``plays`` in play order, each ``(seat, card code)``
(:class:`PlayInput`); under *The Prince Always Rings Twice* (u / L) every seat appears twice, in two
laps. Only the last trick may be unfinished (a round in progress), and it may have no plays yet
(to carry the powers or gift announced before its first card).

``powers`` (:class:`PowerInput`) are the Princess powers used *with* the trick: ``power`` (the
Princess slug), ``seat`` (her owner), and as the power needs, ``target`` (a seat), ``suit``
(``P``, ``Q``, ``F`` or ``A``), ``cards`` and ``more`` (card codes). A power used before or
during a trick is listed with the trick it changes, in the order declared; a power used right
after a trick is listed with the trick it follows. When each power is used and what it needs are
declared once, on its class in :mod:`.engine.powers` (``timing``, ``needs_target``,
``needs_suit``, ``card_slots`` ...); the OpenAPI description of the endpoint is written from those
declarations. Unused fields are ignored. Example: ``PowerInput("cinderella", seat=2)``,
``PowerInput("ice-princess", seat=0, target=3, cards=("Q7",))``.

``steps`` (:class:`StepInput`) are the Round-card steps entered with a trick:

- ``StepInput("gift", cards=(one card per seat, seat order))`` - *Wedding Gift* (o / M): the gift
  pile placed before the trick, won by its winner (with the trick Alice has redone, by the winner
  of the redone trick).
- ``StepInput("haggle", seat=winner, give=card from hand, take=card of the trick)`` - *Haggle with
  the Hag* (p / T), after the trick.

The cards each seat keeps under *Late for a Very Important Date* (n) are given once, as ``kept``
(one list of 3 cards per seat); ``totals_before`` serves *Bathroom Break* (y / O).

Not entered (the table does not see them): the opening pass, the set-aside cards (b / G, m / N,
q / Q), the Crystal Clear reveal (h / I) and the Musical Chairs passes (k / E);
:attr:`RoundCheck.step_due` only reminds the table of them, and findings stop where such cards may
have moved unseen. A power another one blocked this trick (see :mod:`.engine.powers`) is refused
like any entry the judge refuses (``power-blocked``, naming its seat and the power that acted
first). Power rules that need the whole hands (the Little Mermaid's suit held, a Snow White card
held) are not judged; of the powers' own rules those the cards show are (see
:mod:`.engine.table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from companion.scoring.problems import EntryError, Problem

from . import RoundScore, ScoringError, needs_totals_before, parse_edition, score_entry
from .cards import Edition, RebelCard, Suit
from .engine import (
    Chairs,
    Gift,
    Haggle,
    Kept,
    PowerUse,
    TableRound,
    Timing,
    ViolationCode,
    parse_card,
    power_class,
    power_slugs,
    round_card_class,
)
from .engine.cards import CARDS, ids_of
from .engine.errors import CATALOGUES, EngineError
from .errors import CATALOGUE as SCORING

__all__ = ["PlayInput", "PowerInput", "RoundCheck", "StepInput", "TrickInput", "TrickResult",
           "check_round"]

V = ViolationCode


# --- input ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayInput:
    """One card played: ``seat`` (0-based, clockwise) and the card ``card`` (a code like ``Q3``)."""

    seat: int
    card: str


@dataclass(frozen=True)
class PowerInput:
    """A Princess power used with a trick (see the module docstring)."""

    power: str
    seat: int
    target: int | None = None
    suit: str | None = None
    cards: tuple[str, ...] = ()
    more: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepInput:
    """A Round-card step entered with a trick: ``gift`` (o / M, ``cards``) or ``haggle`` (p / T,
    ``seat``, ``give``, ``take``)."""

    step: str
    seat: int | None = None
    give: str | None = None
    take: str | None = None
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrickInput:
    """One trick as entered: its plays in order, the powers and the Round-card steps with it."""

    plays: tuple[PlayInput, ...]
    powers: tuple[PowerInput, ...] = ()
    steps: tuple[StepInput, ...] = ()


# --- output ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrickResult:
    """One trick as judged: its leader, its ``winner`` (``None`` while unfinished), whether the
    Princes are in after it (so far, for an unfinished trick) and whether it is complete."""

    leader: int
    winner: int | None
    princes_in: bool
    complete: bool


@dataclass(frozen=True)
class RoundCheck:
    """The judged round.

    - ``complete``: every trick of the round is in; ``legal``: no violation so far.
    - ``violations``: every rule broken, at once or proven later (problems with ``trick``,
      ``params["proven_in"]`` and ``params["rule"]``).
    - ``tricks``: one :class:`TrickResult` per trick entered.
    - ``next_seat``: the seat to play the next card (``None`` once complete); ``step_due``: the
      Round-card step the table does before that card (``aside``, ``reveal``, ``gift`` or
      ``chairs``, the engine's :class:`~.engine.StepKind` values) or ``None``.
    - ``taken`` (card codes per seat, cards won in tricks after haggles), ``gifts`` (Wedding Gift
      piles won), ``tricks_won`` per seat.
    - ``score``: the scoring core's :class:`~companion.scoring.rebel_princess.RoundScore` (scores
      and lines) once complete and nothing is ``missing`` (``totals_before``, ``kept`` or
      ``gifts``).
    """

    complete: bool
    legal: bool
    violations: tuple[Problem, ...]
    tricks: tuple[TrickResult, ...]
    next_seat: int | None
    step_due: str | None
    taken: tuple[tuple[str, ...], ...]
    gifts: tuple[tuple[str, ...], ...]
    tricks_won: tuple[int, ...]
    score: RoundScore | None
    missing: tuple[str, ...] = ()

    @property
    def scores(self) -> list[int] | None:
        """The round score per seat, or ``None`` before the round can be scored."""
        return self.score.scores if self.score is not None else None


# --- reading the request into the judge -----------------------------------------------------------

class _Reader:
    """One :func:`check_round` call: the judge, and the problems of the entry being read."""

    def __init__(self, table: TableRound) -> None:
        self.table = table
        self.catalogue = CATALOGUES[table.edition]
        self.problems: list[Problem] = []

    def problem(self, code: str, trick: int | None = None, seat: int | None = None,
                card: str | None = None, field: str | None = None, **params: object) -> None:
        self.problems.append(self.catalogue.problem(code, seat=seat, card=card, trick=trick,
                                                    field=field, **params))

    def refused(self, found: Sequence[Problem], trick: int | None, field: str) -> None:
        """Problems the judge found, placed in the request (a problem may name the argument of a
        power use it is about: ``target``, ``cards[1]``)."""
        self.problems += [replace(p, trick=trick, field=f"{field}.{p.field}" if p.field else field)
                          for p in found]

    def seat_ok(self, seat: object, trick: int | None, field: str) -> bool:
        if isinstance(seat, int) and not isinstance(seat, bool) and \
                0 <= seat < self.table.players:
            return True
        self.problem("unknown-seat", trick, field=field, value=seat)
        return False

    def card(self, code: object, trick: int | None, seat: int | None, field: str,
             unused: bool = False) -> RebelCard | None:
        """Parse one card code (and with ``unused``, it must be in a hand); record a problem and
        return ``None`` when it cannot be used."""
        try:
            card = parse_card(code)  # type: ignore[arg-type]
        except EngineError:
            self.problem(V.UNKNOWN_CARD, trick, seat, str(code), field)
            return None
        if not self.table.in_deck(card):
            self.problem(V.CARD_NOT_IN_DECK, trick, seat, str(card), field)
            return None
        if unused and self.table.is_out(card):
            self.problem(V.CARD_ALREADY_PLAYED, trick, seat, str(card), field)
            return None
        return card

    def power_use(self, power: PowerInput, trick: int, where: str) -> PowerUse | None:
        """The shape of a power entry, as the engine's :class:`PowerUse` (what it needs is
        checked against the power's declaration by the judge)."""
        table = self.table
        name = power.power
        start = len(self.problems)
        if name not in power_slugs(table.edition):
            self.problem("unknown-power", trick, field=f"{where}.power", value=name)
            return None
        if not self.seat_ok(power.seat, trick, f"{where}.seat"):
            return None
        seat = power.seat
        if table.princesses[seat] != name:
            self.problem(V.POWER_NOT_IN_PLAY, trick, seat, field=f"{where}.power", rule=name)
            return None
        if seat in table.used_seats:
            self.problem(V.POWER_ALREADY_USED, trick, seat, field=f"{where}.power", rule=name)
            return None
        if power.target is not None:
            self.seat_ok(power.target, trick, f"{where}.target")
        suit = None
        if power.suit is not None:
            try:
                suit = Suit(str(power.suit).strip().upper())
            except ValueError:
                self.problem(V.BAD_POWER_ARGUMENT, trick, seat, field=f"{where}.suit", rule=name)
        cards = [self.card(code, trick, seat, f"{where}.cards[{i}]")
                 for i, code in enumerate(power.cards)]
        more = [self.card(code, trick, seat, f"{where}.more[{i}]")
                for i, code in enumerate(power.more)]
        if len(self.problems) > start:
            return None
        return PowerUse(seat, name, power.target, suit,
                        tuple(c for c in cards if c is not None),
                        tuple(c for c in more if c is not None))

    def push_power(self, use: PowerUse, trick: int, where: str) -> None:
        found = self.table.check_power(use)
        if found:
            self.refused(found, trick, where)
        else:
            self.table.push_power(use)

    def gift(self, step: StepInput, trick: int, where: str) -> None:
        table = self.table
        due = table.check_gift(Gift(()))
        if due and due[0].code == V.STEP_NOT_DUE:
            self.refused(due[:1], trick, where)
            return
        if len(step.cards) != table.players:
            self.problem(V.WRONG_CARD_COUNT, trick, field=f"{where}.cards")
            return
        start = len(self.problems)
        cards = [self.card(code, trick, seat, f"{where}.cards[{seat}]")
                 for seat, code in enumerate(step.cards)]
        if len(self.problems) > start:
            return
        pile = Gift(tuple(c for c in cards if c is not None))
        found = table.check_gift(pile)
        for problem in found:
            self.refused([problem], trick, f"{where}.cards[{problem.seat}]")
        if not found:
            table.push_gift(pile)

    def chairs(self, step: StepInput, trick: int, where: str) -> None:
        """The card each seat passed to its right after the trick (Musical Chairs, k / E)."""
        table = self.table
        if not table.card_rule.chairs_after_trick or table.is_over() or \
                table.tricks[-1].note("chairs") is not None:
            self.problem(V.STEP_NOT_DUE, trick, field=where, rule=table.card_rule.slug)
            return
        if len(step.cards) != table.players:
            self.problem(V.WRONG_CARD_COUNT, trick, field=f"{where}.cards")
            return
        start = len(self.problems)
        cards = [self.card(code, trick, seat, f"{where}.cards[{seat}]", unused=True)
                 for seat, code in enumerate(step.cards)]
        if len(self.problems) == start and len(set(cards)) == len(cards):
            table.push_chairs(Chairs(tuple(c for c in cards if c is not None)))
        elif len(self.problems) == start:
            self.problem(V.DUPLICATE_CARD, trick, field=f"{where}.cards")

    def haggle(self, step: StepInput, trick: int, where: str, done: bool) -> None:
        table = self.table
        rule = table.card_rule.slug
        if not table.card_rule.haggle_after_trick or done:
            self.problem(V.STEP_NOT_DUE, trick, step.seat, field=where, rule=rule)
            return
        if not self.seat_ok(step.seat, trick, f"{where}.seat"):
            return
        seat = step.seat
        assert seat is not None
        last = table.tricks[-1]
        if last.winner != seat:
            self.problem(V.NOT_TRICK_WINNER, trick, seat, field=f"{where}.seat", rule=rule)
            return
        start = len(self.problems)
        give = self.card(step.give, trick, seat, f"{where}.give", unused=True)
        take = self.card(step.take, trick, seat, f"{where}.take")
        if len(self.problems) > start or give is None or take is None:
            return
        haggle = Haggle(seat, give, take)
        found = table.check_haggle(haggle)
        if found:
            self.refused(found, trick, f"{where}.take")
        else:
            table.push_haggle(haggle)

    def plays(self, entry: TrickInput, trick: int, where: str) -> None:
        """Enter the cards of a trick, checked for seats, turn order and the cards seen
        before."""
        table = self.table
        lead = table.leader
        for index, play in enumerate(entry.plays[:table.trick_size]):
            here = f"{where}.plays[{index}]"
            if not self.seat_ok(play.seat, trick, f"{here}.seat"):
                continue
            # Each seat follows the one before it; the first card is the leader's.
            previous = entry.plays[index - 1].seat if index else lead - 1
            expected = (previous + 1) % table.players if isinstance(previous, int) else play.seat
            if play.seat != expected:
                code = V.WRONG_LEADER if index == 0 else V.NOT_YOUR_TURN
                self.problem(code, trick, play.seat, field=f"{here}.seat", expected=expected)
            card = self.card(play.card, trick, play.seat, f"{here}.card")
            if card is None:
                continue
            found = table.check_card(card)
            if found:
                self.refused([replace(p, seat=play.seat) for p in found], trick, f"{here}.card")
            elif not self.problems:
                table.push_card(card)


def _setup(edition: object, round_card: object, players: object, leader: object,
           princesses: Mapping[int, str] | None,
           totals_before: Sequence[int] | None) -> TableRound:
    """The judge for the round's setup; raises :class:`EntryError` with every setup problem."""
    try:
        ed = parse_edition(edition)
    except ScoringError:
        raise EntryError([SCORING.problem("unknown-edition", field="edition",
                                          value=edition)]) from None
    if not (isinstance(players, int) and not isinstance(players, bool) and 3 <= players <= 6):
        raise EntryError([SCORING.problem("bad-player-count", field="players", value=players)])
    engine = CATALOGUES[ed]
    problems: list[Problem] = []
    letter = ""
    try:
        letter = round_card_class(ed, str(round_card)).letters[ed]
    except EngineError:
        problems.append(SCORING.problem("unknown-round-card", field="round_card",
                                        value=round_card))
    if not (isinstance(leader, int) and not isinstance(leader, bool) and 0 <= leader < players):
        problems.append(SCORING.problem("bad-leader", field="leader"))
    names: list[str | None] = [None] * players
    for seat, slug in (princesses or {}).items():
        where = f"princesses.{seat}"
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players):
            problems.append(engine.problem("unknown-seat", field=where, value=seat))
        elif slug not in power_slugs(ed):
            problems.append(engine.problem("unknown-power", seat=seat, field=where, value=slug))
        elif slug in names:
            problems.append(engine.problem("duplicate-princess", seat=seat, field=where,
                                           value=power_class(slug).names["en"]))
        else:
            names[seat] = slug
    if totals_before is not None and len(totals_before) != players:
        problems.append(SCORING.problem("wrong-seat-count", field="totals_before",
                                        expected=players, got=len(totals_before)))
    if problems:
        raise EntryError(problems)
    return TableRound(players, edition=ed, round_card=letter, leader=leader,  # type: ignore[arg-type]
                      princesses=names)


def check_round(*, edition: str | Edition, round_card: str, players: int, leader: int,
                princesses: Mapping[int, str] | None = None, tricks: Sequence[TrickInput],
                totals_before: Sequence[int] | None = None,
                kept: Sequence[Sequence[str]] | None = None) -> RoundCheck:
    """Judge a round entered at the table, trick by trick (the last one may be unfinished).

    ``princesses`` maps seats to Princess slugs; ``tricks`` holds the tricks in order with the
    powers and Round-card steps entered with them (schema in the module docstring);
    ``totals_before`` (each seat's total before the round) serves Bathroom Break and ``kept`` (3
    cards per seat) Late for a Very Important Date. Rule breaches come back as
    :attr:`RoundCheck.violations`; a malformed entry raises :class:`EntryError` with every
    problem found in the setup or in the first trick that has any.
    """
    table = _setup(edition, round_card, players, leader, princesses, totals_before)
    reader = _Reader(table)
    for number, entry in enumerate(tricks):
        where = f"tricks[{number}]"
        if table.is_over():
            reader.problem(V.ROUND_OVER, number, field=where)
            raise EntryError(reader.problems)
        complete = len(entry.plays) >= table.trick_size
        after: list[tuple[int, PowerUse]] = []
        for index, power in enumerate(entry.powers):
            here = f"{where}.powers[{index}]"
            use = reader.power_use(power, number, here)
            if use is None:
                continue
            if power_class(use.power)(table.edition).when() is Timing.AFTER:
                if not complete:
                    reader.problem(V.POWER_NOT_NOW, number, use.seat, field=here,
                                   rule=use.power)
                after.append((index, use))
            else:
                reader.push_power(use, number, here)
        haggles = []
        for index, step in enumerate(entry.steps):
            here = f"{where}.steps[{index}]"
            kind = str(step.step).strip().lower()
            if kind == "gift":
                reader.gift(step, number, here)
            elif kind == "chairs":
                haggles.append((index, step))  # after the trick, with the haggles
                if not complete:
                    reader.problem(V.STEP_NOT_DUE, number, field=here,
                                   rule=table.card_rule.slug)
            elif kind == "haggle":
                haggles.append((index, step))
                if not complete:
                    reader.problem(V.STEP_NOT_DUE, number, step.seat, field=here,
                                   rule=table.card_rule.slug)
            else:
                reader.problem("no-such-step", number, field=f"{here}.step", value=step.step)
        reader.plays(entry, number, where)
        if len(entry.plays) > table.trick_size:
            reader.problem(V.WRONG_CARD_COUNT, number, field=f"{where}.plays",
                           expected=table.trick_size)
        elif not complete and number != len(tricks) - 1:
            reader.problem("trick-not-finished", number, field=f"{where}.plays",
                           trick_number=number + 1)
        if reader.problems:
            raise EntryError(reader.problems)
        if complete:
            for index, use in after:
                reader.push_power(use, number, f"{where}.powers[{index}]")
            done = 0
            for index, step in haggles:
                if str(step.step).strip().lower() == "chairs":
                    reader.chairs(step, number, f"{where}.steps[{index}]")
                    continue
                reader.haggle(step, number, f"{where}.steps[{index}]", bool(done))
                done += 1
            if reader.problems:
                raise EntryError(reader.problems)
    shown = _kept(reader, kept)
    if shown is not None and table.is_over():  # shown at the end: evidence about every hand
        table.push_kept(Kept(tuple(tuple(hand) for hand in shown)))
    return _result(table, len(tricks), totals_before, shown)


def _result(table: TableRound, sent: int, totals_before: Sequence[int] | None,
            kept: tuple[frozenset[RebelCard], ...] | None) -> RoundCheck:
    done = table.tricks
    results = [TrickResult(trick.leader, trick.winner,
                           done[i + 1].princes_before if i + 1 < len(done) else table.princes_in,
                           True) for i, trick in enumerate(done)]
    if len(results) < sent:  # the last trick sent is unfinished
        results.append(TrickResult(table.leader, None, table.princes_now(), False))
    taken, won = table.tally()
    gifts = table.gifts_won
    complete = table.is_over()
    violations = tuple(table.findings())
    score = None
    missing: list[str] = []
    if complete:
        if needs_totals_before(table.edition, table.round_card) and totals_before is None:
            missing.append("totals_before")
        if table.card_rule.kept_cards and kept is None:
            missing.append("kept")
        if table.gifts_missing:
            missing.append("gifts")
        outcome = table.outcome()
        if not missing and outcome is not None:
            outcome = replace(outcome, gifts=gifts, kept=kept or outcome.kept)
            try:
                score = score_entry(outcome.to_entry(totals_before))
            except ScoringError as error:
                raise EntryError(error.problems) from None
    step_due = table.step_due
    return RoundCheck(
        complete=complete, legal=not violations, violations=violations,
        tricks=tuple(results), next_seat=table.turn,
        step_due=step_due.value if step_due is not None else None,
        taken=tuple(_mask_codes(mask) for mask in taken),
        gifts=tuple(_codes(cards) for cards in gifts),
        tricks_won=tuple(won), score=score, missing=tuple(missing))


def _kept(reader: _Reader, kept: Sequence[Sequence[str]] | None
          ) -> tuple[frozenset[RebelCard], ...] | None:
    """The kept cards (n), checked; ``None`` when not given."""
    if kept is None:
        return None
    table = reader.table
    size = table.card_rule.kept_cards
    if not size:
        reader.problem("no-kept-cards", field="kept")
        raise EntryError(reader.problems)
    if len(kept) != table.players:
        raise EntryError([SCORING.problem("wrong-seat-count", field="kept",
                                          expected=table.players, got=len(kept))])
    seen: set[RebelCard] = set()
    hands = []
    for seat, codes in enumerate(kept):
        if len(codes) != size:
            reader.problem("wrong-kept-count", None, seat, field=f"kept[{seat}]", expected=size)
        hand = set()
        for index, code in enumerate(codes):
            here = f"kept[{seat}][{index}]"
            card = reader.card(code, None, seat, here, unused=True)
            if card is not None and card in seen:
                reader.problem(V.DUPLICATE_CARD, None, seat, str(card), here)
            elif card is not None:
                seen.add(card)
                hand.add(card)
        hands.append(frozenset(hand))
    if reader.problems:
        raise EntryError(reader.problems)
    return tuple(hands)


def _mask_codes(mask: int) -> tuple[str, ...]:
    """The codes of the cards of a mask in the order of :func:`_codes`: the order of their ids
    (suits Princes, Queens, Fairies, Pets, then rank; see :mod:`.engine.cards`)."""
    return tuple(str(CARDS[cid]) for cid in ids_of(mask))


def _codes(cards: frozenset[RebelCard]) -> tuple[str, ...]:
    return tuple(str(card) for card in sorted(cards, key=lambda c: ("PQFA".index(c.suit.value),
                                                                     c.rank)))
