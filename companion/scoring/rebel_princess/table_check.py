"""Glue between tricks entered at the table and the rules engine: :func:`check_round`.

Pure Python (no Flask, no database), shared by the JSON API (``POST
/api/v1/rebel-princess/check-round``) and the web app's "enter tricks" screen. The hands are
unknown, so the round is judged with :class:`companion.scoring.rebel_princess.engine.TableRound`: what the cards show at
once (leader, deck, duplicates, the winner from the cards, the Round card and the powers) and the
rules proven broken by later plays (a revoke, Princes led before they snuck in).

Two kinds of trouble, kept apart (HOUSE_STYLE.md section 2):

- **Malformed entries raise** :class:`TrickEntryError`, whose ``problems`` carry stable codes (the
  engine's :class:`~companion.scoring.rebel_princess.engine.ViolationCode` values where one exists): a card that is not a
  card (``unknown-card``) or not in this deck (``card-not-in-deck``), a card named twice in a trick
  (``duplicate-card``) or played again (``card-already-played``), a play out of turn
  (``wrong-leader`` for the first card, ``not-your-turn`` after it), an unknown seat
  (``unknown-seat``), an unknown Princess (``unknown-power``), a power of a Princess the seat does
  not have (``power-not-in-play``) or used twice (``power-already-used``), a power without the
  arguments it needs (``bad-power-argument``), too many cards in a trick (``wrong-card-count``), an
  unfinished trick before the last (``trick-not-finished``), a trick after the last
  (``round-over``), and the setup codes of the scoring core (``unknown-edition``,
  ``bad-player-count``, ``unknown-round-card``, ``bad-leader``, ``wrong-seat-count``). Problems
  are collected for the setup, then trick by trick; checking stops at the first trick that has
  any (later tricks cannot be read without it).
- **Rule breaches are data**: :attr:`RoundCheck.violations`, each naming the trick where the rule
  was broken (``trick``) and the trick whose cards proved it (``proven_in``; later for a revoke).

Input schema
============

A trick (:class:`TrickInput`) lists its ``plays`` in play order, each ``(seat, card code)``
(:class:`Play`); under *The Prince Always Rings Twice* (u / L) every seat appears twice, in two
laps. Only the last trick may be unfinished (a round in progress), and it may have no plays yet
(to carry the powers or gift announced before its first card).

``powers`` (:class:`PowerInput`) are the Princess powers used *with* the trick, fields:

- ``power``: the Princess slug (``cinderella``, ``ice-princess``, ...); ``seat``: her owner.
- ``target``: a seat; ``suit``: ``P``, ``Q``, ``F`` or ``A``; ``cards`` and ``more``: card codes.

Powers that act before a trick or during it (Deluxe: every power but Alice and Mulan; classic:
every power but Alice, Mulan and Pocahontas) are listed with the trick they change, in the order
they were declared; Alice, Mulan and classic Pocahontas, which act right after a trick, are
listed with the trick they follow. What each power needs:

======================  ==============================================================
``alice``               ``cards``: the trick's cards as dealt back, one per seat from
                        seat 0 (two laps under u). The trick is played again.
``cinderella``          nothing (the order of the numbers is reversed in the trick).
``ice-princess``        ``target`` and ``cards``: ``[the card the target must play]``.
``little-mermaid``      ``suit``: the suit the leader must lead.
``mulan``               ``cards``: ``[the card she played, the card she swaps in]``.
``pea-princess``        nothing.
``pocahontas``          ``target``: the seat that leads (classic: after she won a trick).
``rapunzel``            nothing (Deluxe).
``scheherazade``        ``target``; ``cards`` ``[taken, given back]`` optional (unseen).
``sleeping-beauty``     ``cards`` (each seat's card) and ``more`` (each seat's new card),
                        both optional (unseen).
``snow-white``          ``cards``: ``[her card of rank 7 or lower, played as a zero]``.
``thumbelina``          nothing (Deluxe; not when leading).
======================  ==============================================================

Unused fields are ignored. Example: ``PowerInput("cinderella", seat=2)``,
``PowerInput("ice-princess", seat=0, target=3, cards=("Q7",))``.

``steps`` (:class:`StepInput`) are the Round-card steps entered with a trick:

- ``StepInput("gift", cards=(one card per seat, seat order))`` - *Wedding Gift* (o / M): the gift
  pile placed before the trick, won by its winner (with the trick Alice has redone, by the winner
  of the redone trick).
- ``StepInput("haggle", seat=winner, give=card from hand, take=card of the trick)`` - *Haggle with
  the Hag* (p / T), after the trick.

The cards each seat keeps under *Late for a Very Important Date* (n) are given once, as ``kept``
(one list of 3 cards per seat); ``totals_before`` serves *Bathroom Break* (y / O).

Not supported yet (the engine's table mode does not see them): the opening pass, the set-aside
cards (b / G, m / N, q / Q), the Crystal Clear reveal (h / I) and the Musical Chairs passes (k / E)
are not entered; :attr:`RoundCheck.step_due` only reminds the table of them, and findings stop
where such cards may have moved unseen. Power rules that need the hands (conflicts between
powers, the Little Mermaid's suit held, a Snow White card held) are not judged; of the powers'
own rules only those the cards show are (Alice and classic Pocahontas must have won the trick,
Alice and Mulan never move the Frog, Mulan swaps within a suit, the classic Ice Princess targets
the leader). Messages are English only.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import cache
from importlib import resources
from typing import Any

from .engine import (
    POWER_SLUGS,
    Card,
    Edition,
    Haggle,
    PowerUse,
    Suit,
    TableRound,
    Trick,
    Violation,
    ViolationCode,
    parse_card,
    parse_edition,
    power_slugs,
)
from .engine.cards import card_id, cards_of, deck_mask, mask_of
from .engine.errors import EngineError
from .engine.modifiers import Modifier, round_card_class
from .engine.powers import power_class
from .engine.steps import StepKind

# TableRound's replay and knowledge internals: a finished trick is judged by TableRound.findings;
# an unfinished one (which TableRound does not take) is judged here the same way.
from .engine.table import _TRICK_POWERS, RULE_CODES, _Played, tally
from . import FROG, RoundScore, ScoringError, message_for, needs_totals_before, score_entry
from . import round_card as scoring_round_card

__all__ = [
    "Play", "PowerInput", "RoundCheck", "StepInput", "TrickEntryError", "TrickInput",
    "TrickProblem", "TrickResult", "TrickViolation", "check_round", "problem_message",
    "rule_name", "violation_message",
]

V = ViolationCode


# --- input ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Play:
    """One card played: ``seat`` (0-based, clockwise) and the card ``card`` (a code like ``Q3``)."""

    seat: int
    card: str


@dataclass(frozen=True)
class PowerInput:
    """A Princess power used with a trick (see the module docstring for what each power needs)."""

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

    plays: tuple[Play, ...]
    powers: tuple[PowerInput, ...] = ()
    steps: tuple[StepInput, ...] = ()


# --- output ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrickProblem:
    """Why an entry cannot be read: a stable ``code``, the trick (0-based) and seat and card
    concerned, the request ``field`` when known, and the message parameters."""

    code: str
    trick: int | None = None
    seat: int | None = None
    card: str | None = None
    field: str | None = None
    params: dict[str, Any] = dataclass_field(default_factory=dict, compare=False, hash=False)

    @property
    def message(self) -> str:
        """The problem in a sentence a player understands."""
        return problem_message(self.code, seat=self.seat, card=self.card, **self.params)

    def as_dict(self) -> dict[str, Any]:
        """The problem as the JSON API reports it (``None`` fields left out)."""
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        for name in ("trick", "seat", "card", "field"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data


class TrickEntryError(ValueError):
    """The entry is malformed (see the module docstring); ``problems`` lists what was found."""

    def __init__(self, problems: Sequence[TrickProblem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{p.code} (trick {p.trick}, seat {p.seat}, card {p.card})"
                                   for p in self.problems))


@dataclass(frozen=True)
class TrickViolation:
    """A rule broken in trick ``trick`` (0-based) by ``seat`` with ``card``, proven by the cards
    entered up to trick ``proven_in``. ``code`` is the engine's stable code, ``rule`` the slug of
    the rule (``basic``, a Round card or a Princess) and ``message`` a sentence for the players."""

    trick: int
    proven_in: int
    code: str
    seat: int | None
    card: str | None
    rule: str
    message: str


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
    - ``violations``: every rule broken, at once or proven later (:class:`TrickViolation`).
    - ``tricks``: one :class:`TrickResult` per trick entered.
    - ``next_seat``: the seat to play the next card (``None`` once complete); ``step_due``: the
      Round-card step the table does before that card (``aside``, ``reveal``, ``gift`` or
      ``chairs``, the engine's :class:`~companion.scoring.rebel_princess.engine.StepKind` values) or ``None``.
    - ``taken`` (card codes per seat, cards won in tricks after haggles), ``gifts`` (Wedding Gift
      piles won), ``tricks_won`` per seat.
    - ``score``: the scoring core's :class:`~companion.scoring.rebel_princess.RoundScore` (scores and lines) once
      complete and nothing is ``missing`` (``totals_before``, ``kept`` or ``gifts``).
    """

    complete: bool
    legal: bool
    violations: tuple[TrickViolation, ...]
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


# --- messages -------------------------------------------------------------------------------------

@cache
def _messages() -> dict[str, dict[str, str]]:
    text = resources.files(__package__).joinpath("engine_messages.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def _fill(template: str, params: Mapping[str, Any]) -> str:
    shown = {key: value for key, value in params.items() if value is not None}
    if isinstance(shown.get("seat"), int):
        shown["player"] = f"player {shown['seat'] + 1}"
    shown.setdefault("player", "a player")
    shown.setdefault("card", "a card")
    shown.setdefault("rule", "this rule")
    try:
        text = template.format(**shown)
    except (KeyError, IndexError):
        text = template
    return text[:1].upper() + text[1:]


def violation_message(code: str, **params: Any) -> str:
    """The sentence for a violation code (``seat``, ``card`` and ``rule``, a rule *name*, fill
    it in)."""
    template = _messages()["violations"].get(code)
    if template is None:
        return message_for(code, **params)
    return _fill(template, params)


def problem_message(code: str, **params: Any) -> str:
    """The sentence for a table-entry problem code: the violation sentences, then the
    table-entry ones, then the scoring core's."""
    for table in ("violations", "entry"):
        template = _messages()[table].get(code)
        if template is not None:
            return _fill(template, params)
    return message_for(code, **params)


def rule_name(edition: Edition, round_card: str, slug: str) -> str:
    """A player-facing name for a rule slug: a Princess, the Round card, or the basic rules."""
    if slug in POWER_SLUGS:
        return power_class(slug).name
    try:
        card_cls = round_card_class(edition, round_card)
        if card_cls.slug == slug:
            return scoring_round_card(edition, round_card).name_en
    except (EngineError, ScoringError):
        pass
    return "the basic rules" if slug == "basic" else slug.replace("-", " ")


# --- the check ------------------------------------------------------------------------------------

class _Round:
    """The state of one :func:`check_round` call: the table, the cards seen outside the tricks
    and what has been found."""

    def __init__(self, edition: Edition, letter: str, players: int, leader: int,
                 princesses: list[str | None]) -> None:
        self.edition, self.letter, self.players = edition, letter, players
        self.table = TableRound(players, edition=edition, round_card=letter, leader=leader,
                                princesses=princesses)
        self.shape: Modifier = round_card_class(edition, letter)(edition)
        self.size = players * self.shape.plays_per_seat
        self.deck = deck_mask(players)
        self.princesses = princesses
        self.used_powers: set[int] = set()
        self.gifts: dict[int, tuple[Card, ...]] = {}  # gift pile placed before trick i
        self.redone: set[int] = set()  # tricks Alice dealt back
        self.proven_in: dict[tuple[int, Violation], int] = {}

    # -- cards -------------------------------------------------------------------------------

    def in_play(self) -> int:
        """Cards no longer in any hand: played (and not back in a hand) or given as gifts."""
        mask = self.table._in_play(self.table._replay()[0])
        for pile in self.gifts.values():
            mask |= mask_of(pile)
        return mask

    def card(self, code: object, problems: list[TrickProblem], trick: int | None,
             seat: int | None, where: str, used: int | None = None) -> Card | None:
        """Parse one card code; record a problem and return ``None`` when it cannot be used."""
        try:
            card = parse_card(code)  # type: ignore[arg-type]
        except EngineError:
            problems.append(TrickProblem(V.UNKNOWN_CARD.value, trick, seat, str(code), where))
            return None
        if not self.deck >> card_id(card) & 1:
            problems.append(TrickProblem(V.CARD_NOT_IN_DECK.value, trick, seat, str(card), where))
            return None
        if used is not None and used >> card_id(card) & 1:
            problems.append(TrickProblem(V.CARD_ALREADY_PLAYED.value, trick, seat, str(card),
                                         where))
            return None
        return card

    def seat_ok(self, seat: object, problems: list[TrickProblem], trick: int | None,
                where: str) -> bool:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.players:
            return True
        problems.append(TrickProblem("unknown-seat", trick, None, None, where,
                                     {"value": seat}))
        return False

    # -- powers ------------------------------------------------------------------------------

    def timing(self, slug: str) -> str:
        return power_class(slug)(self.edition).when()

    def power_use(self, power: PowerInput, trick: int, where: str,
                  problems: list[TrickProblem]) -> PowerUse | None:
        """Check the shape of a power entry and build the engine's :class:`PowerUse`."""
        name = power.power
        start = len(problems)
        if name not in power_slugs(self.edition):
            problems.append(TrickProblem("unknown-power", trick, None, None, f"{where}.power",
                                         {"value": name}))
            return None
        rule = rule_name(self.edition, self.letter, name)
        if not self.seat_ok(power.seat, problems, trick, f"{where}.seat"):
            return None
        seat = power.seat
        if self.princesses[seat] != name:
            problems.append(TrickProblem(V.POWER_NOT_IN_PLAY.value, trick, seat, None,
                                         f"{where}.power", {"rule": rule}))
            return None
        if seat in self.used_powers:
            problems.append(TrickProblem(V.POWER_ALREADY_USED.value, trick, seat, None,
                                         f"{where}.power", {"rule": rule}))
            return None
        if power.target is not None:
            self.seat_ok(power.target, problems, trick, f"{where}.target")
        suit = None
        if power.suit is not None:
            try:
                suit = Suit(str(power.suit).strip().upper())
            except ValueError:
                problems.append(TrickProblem(V.BAD_POWER_ARGUMENT.value, trick, seat, None,
                                             f"{where}.suit", {"rule": rule}))
        cards = [self.card(code, problems, trick, seat, f"{where}.cards[{i}]")
                 for i, code in enumerate(power.cards)]
        more = [self.card(code, problems, trick, seat, f"{where}.more[{i}]")
                for i, code in enumerate(power.more)]
        if len(problems) > start:
            return None
        bad = not self._has_arguments(name, power, suit, cards, more)
        if name == "snow-white" and not bad and cards[0] is not None and cards[0].rank > 7:
            bad = True
        if bad:
            problems.append(TrickProblem(V.BAD_POWER_ARGUMENT.value, trick, seat, None, where,
                                         {"rule": rule}))
            return None
        return PowerUse(seat, name, power.target, suit,
                        tuple(c for c in cards if c is not None),
                        tuple(c for c in more if c is not None))

    def _has_arguments(self, name: str, power: PowerInput, suit: Suit | None,
                       cards: list[Card | None], more: list[Card | None]) -> bool:
        players = self.players
        if name == "ice-princess":
            return power.target is not None and len(cards) == 1
        if name == "little-mermaid":
            return suit is not None
        if name == "mulan":
            return len(cards) == 2 and cards[0] != cards[1]
        if name == "pocahontas":
            return power.target is not None
        if name == "scheherazade":
            return power.target is not None and power.target != power.seat and \
                len(cards) in (0, 2)
        if name == "sleeping-beauty":
            return (len(cards), len(more)) in ((0, 0), (players, players))
        if name == "snow-white":
            return len(cards) == 1
        if name == "alice":
            return len(cards) == self.size
        return True

    def push_power(self, use: PowerUse, trick: int, where: str,
                   problems: list[TrickProblem]) -> None:
        try:
            self.table.push_step(use)
        except EngineError:
            problems.append(TrickProblem(V.POWER_NOT_IN_PLAY.value, trick, use.seat, None, where,
                                         {"rule": rule_name(self.edition, self.letter,
                                                            use.power)}))
            return
        self.used_powers.add(use.seat)

    def after_power(self, use: PowerUse, trick: int, where: str,
                    problems: list[TrickProblem]) -> None:
        """Check and push a power used right after trick ``trick`` (Alice, Mulan, classic
        Pocahontas): its shape against the trick is a problem, its rules are violations."""
        played = self.table._replay()[0]
        entry = played[-1]
        cards = list(entry.trick.cards)
        if entry.mulan is not None:
            old, new = entry.mulan.cards
            cards[cards.index(old)] = new
        mine = [card for index, card in enumerate(cards)
                if entry.trick.seat_of(index, self.players) == use.seat]
        start = len(problems)
        found: list[Violation] = []
        if use.power == "alice":
            if sorted(use.cards, key=card_id) != sorted(cards, key=card_id):
                problems.append(TrickProblem(V.BAD_POWER_ARGUMENT.value, trick, use.seat, None,
                                             f"{where}.cards", {"rule": "Alice"}))
            elif self.table.is_over():
                problems.append(TrickProblem(V.POWER_NOT_NOW.value, trick, use.seat, None,
                                             where, {"rule": "Alice"}))
            if entry.winner != use.seat:
                found.append(Violation(V.NOT_TRICK_WINNER, use.seat, rule="alice"))
            if FROG in cards:
                found.append(Violation(V.POWER_FROG, use.seat, rule="alice"))
        elif use.power == "mulan":
            old, new = use.cards
            if old not in mine:
                problems.append(TrickProblem(V.NOT_IN_TRICK.value, trick, use.seat, str(old),
                                             f"{where}.cards[0]"))
            elif self.in_play() >> card_id(new) & 1:
                problems.append(TrickProblem(V.CARD_ALREADY_PLAYED.value, trick, use.seat,
                                             str(new), f"{where}.cards[1]"))
            elif old.suit is not new.suit:
                found.append(Violation(V.MUST_FOLLOW_SUIT, use.seat, new, "mulan"))
            if FROG in (old, new):
                found.append(Violation(V.POWER_FROG, use.seat, rule="mulan"))
        elif use.power == "pocahontas":
            if use.target == use.seat:
                problems.append(TrickProblem(V.BAD_POWER_ARGUMENT.value, trick, use.seat, None,
                                             f"{where}.target", {"rule": "Pocahontas"}))
            if entry.winner != use.seat:
                found.append(Violation(V.NOT_TRICK_WINNER, use.seat, rule="pocahontas"))
        if len(problems) > start:
            return
        self.note([(trick, violation) for violation in found], trick)
        self.push_power(use, trick, where, problems)
        if use.power == "alice" and not problems:
            self.redone.add(trick)

    # -- steps -------------------------------------------------------------------------------

    def gift(self, step: StepInput, trick: int, where: str,
             problems: list[TrickProblem]) -> None:
        if not self.shape.gift_before_trick or trick in self.gifts or trick - 1 in self.redone:
            problems.append(TrickProblem(V.STEP_NOT_DUE.value, trick, None, None, where,
                                         {"rule": self._card_name}))
            return
        if len(step.cards) != self.players:
            problems.append(TrickProblem(V.WRONG_CARD_COUNT.value, trick, None, None,
                                         f"{where}.cards"))
            return
        used = self.in_play()
        pile: list[Card] = []
        start = len(problems)
        for seat, code in enumerate(step.cards):
            card = self.card(code, problems, trick, seat, f"{where}.cards[{seat}]", used)
            if card is not None and card in pile:
                problems.append(TrickProblem(V.DUPLICATE_CARD.value, trick, seat, str(card),
                                             f"{where}.cards[{seat}]"))
            elif card is not None:
                pile.append(card)
        if len(problems) == start:
            self.gifts[trick] = tuple(pile)

    def haggle(self, step: StepInput, trick: int, where: str, done: bool,
               problems: list[TrickProblem]) -> None:
        if not self.shape.haggle_after_trick or done:
            problems.append(TrickProblem(V.STEP_NOT_DUE.value, trick, step.seat, None, where,
                                         {"rule": self._card_name}))
            return
        if not self.seat_ok(step.seat, problems, trick, f"{where}.seat"):
            return
        entry = self.table._replay()[0][-1]
        seat = step.seat
        assert seat is not None
        if entry.winner != seat:
            problems.append(TrickProblem(V.NOT_TRICK_WINNER.value, trick, seat, None,
                                         f"{where}.seat", {"rule": self._card_name}))
            return
        start = len(problems)
        give = self.card(step.give, problems, trick, seat, f"{where}.give", self.in_play())
        take = self.card(step.take, problems, trick, seat, f"{where}.take")
        if len(problems) > start or give is None or take is None:
            return
        cards = list(entry.trick.cards)
        if entry.mulan is not None:
            old, new = entry.mulan.cards
            cards[cards.index(old)] = new
        owners = {card: entry.trick.seat_of(index, self.players)
                  for index, card in enumerate(cards)}
        if take not in owners:
            problems.append(TrickProblem(V.NOT_IN_TRICK.value, trick, seat, str(take),
                                         f"{where}.take"))
        elif owners[take] == seat:
            problems.append(TrickProblem(V.HAGGLE_OWN_CARD.value, trick, seat, str(take),
                                         f"{where}.take"))
        else:
            self.table.push_step(Haggle(seat, give, take))

    @property
    def _card_name(self) -> str:
        return scoring_round_card(self.edition, self.letter).name_en

    # -- findings ----------------------------------------------------------------------------

    def findings(self, partial: _Played | None) -> list[tuple[int, Violation]]:
        """Rules proven broken in the complete tricks, with an unfinished trick's cards as
        evidence too."""
        table = self.table
        played = table._replay()[0]
        rows = played + [partial] if partial is not None else played
        return [(number, violation) for number in range(len(played))
                for violation in table._proven(rows, number)]

    def note(self, found: list[tuple[int, Violation]], evidence: int) -> None:
        for key in found:
            self.proven_in.setdefault(key, evidence)


def _setup_problems(edition: object, round_card: object, players: object, leader: object,
                    princesses: Mapping[int, str] | None,
                    totals_before: Sequence[int] | None) -> tuple[Edition, str, int, int,
                                                                  list[str | None]]:
    try:
        ed = parse_edition(edition)
    except EngineError:
        raise TrickEntryError([TrickProblem("unknown-edition", field="edition",
                                            params={"value": edition})]) from None
    if not (isinstance(players, int) and not isinstance(players, bool) and 3 <= players <= 6):
        raise TrickEntryError([TrickProblem("bad-player-count", field="players",
                                            params={"value": players})])
    problems: list[TrickProblem] = []
    letter = ""
    try:
        letter = round_card_class(ed, str(round_card)).letters[ed]
    except EngineError:
        problems.append(TrickProblem("unknown-round-card", field="round_card",
                                     params={"value": round_card}))
    if not (isinstance(leader, int) and not isinstance(leader, bool) and
            0 <= leader < players):
        problems.append(TrickProblem("bad-leader", field="leader"))
    names: list[str | None] = [None] * players
    for seat, slug in (princesses or {}).items():
        where = f"princesses.{seat}"
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players):
            problems.append(TrickProblem("unknown-seat", field=where, params={"value": seat}))
        elif slug not in power_slugs(ed):
            problems.append(TrickProblem("unknown-power", seat=seat, field=where,
                                         params={"value": slug}))
        elif slug in names:
            problems.append(TrickProblem("duplicate-princess", seat=seat, field=where,
                                         params={"value": power_class(slug).name}))
        else:
            names[seat] = slug
    if totals_before is not None and len(totals_before) != players:
        problems.append(TrickProblem("wrong-seat-count", field="totals_before",
                                     params={"expected": players, "got": len(totals_before)}))
    if problems:
        raise TrickEntryError(problems)
    return ed, letter, players, leader, names  # type: ignore[return-value]


def check_round(*, edition: str | Edition, round_card: str, players: int, leader: int,
                princesses: Mapping[int, str] | None = None, tricks: Sequence[TrickInput],
                totals_before: Sequence[int] | None = None,
                kept: Sequence[Sequence[str]] | None = None) -> RoundCheck:
    """Judge a round entered at the table, trick by trick (the last one may be unfinished).

    ``princesses`` maps seats to Princess slugs; ``tricks`` holds the tricks in order with the
    powers and Round-card steps entered with them (schema in the module docstring);
    ``totals_before`` (each seat's total before the round) serves Bathroom Break and ``kept`` (3
    cards per seat) Late for a Very Important Date. Rule breaches come back as
    :attr:`RoundCheck.violations`; a malformed entry raises :class:`TrickEntryError` with every
    problem found in the setup or in the first trick that has any.
    """
    ed, letter, players, leader, names = _setup_problems(
        edition, round_card, players, leader, princesses, totals_before)
    state = _Round(ed, letter, players, leader, names)
    table = state.table
    partial: _Played | None = None
    partial_result: TrickResult | None = None
    for number, entry in enumerate(tricks):
        where = f"tricks[{number}]"
        problems: list[TrickProblem] = []
        last = number == len(tricks) - 1
        if table.is_over():
            raise TrickEntryError([TrickProblem(V.ROUND_OVER.value, number, field=where)])
        complete = len(entry.plays) >= state.size
        after: list[tuple[int, PowerUse]] = []
        for index, power in enumerate(entry.powers):
            use = state.power_use(power, number, f"{where}.powers[{index}]", problems)
            if use is None:
                continue
            if state.timing(use.power) == "after":
                if not complete:
                    problems.append(TrickProblem(
                        V.POWER_NOT_NOW.value, number, use.seat, None,
                        f"{where}.powers[{index}]",
                        {"rule": rule_name(ed, letter, use.power)}))
                after.append((index, use))
            else:
                state.push_power(use, number, f"{where}.powers[{index}]", problems)
        haggles = []
        for index, step in enumerate(entry.steps):
            kind = str(step.step).strip().lower()
            if kind == "gift":
                state.gift(step, number, f"{where}.steps[{index}]", problems)
            elif kind == "haggle":
                haggles.append((index, step))
                if not complete:
                    problems.append(TrickProblem(V.STEP_NOT_DUE.value, number, step.seat, None,
                                                 f"{where}.steps[{index}]",
                                                 {"rule": state._card_name}))
            else:
                problems.append(TrickProblem("no-such-step", number, None, None,
                                             f"{where}.steps[{index}].step",
                                             {"value": step.step}))
        cards = _plays(state, entry, number, where, problems)
        if len(entry.plays) > state.size:
            problems.append(TrickProblem(V.WRONG_CARD_COUNT.value, number, field=f"{where}.plays",
                                         params={"expected": state.size}))
        elif not complete and not last:
            problems.append(TrickProblem("trick-not-finished", number, field=f"{where}.plays",
                                         params={"trick_number": number + 1}))
        if problems:
            raise TrickEntryError(problems)
        lead = table.leader
        if complete:
            trick = Trick(lead, tuple(cards))
            shape = [v for v in table.check_trick(trick) if v.code not in RULE_CODES]
            if shape:
                raise TrickEntryError([TrickProblem(v.code.value, number, v.seat,
                                                    str(v.card) if v.card else None,
                                                    f"{where}.plays") for v in shape])
            table.push(trick)
            for index, use in after:
                state.after_power(use, number, f"{where}.powers[{index}]", problems)
            done = False
            for index, step in haggles:
                state.haggle(step, number, f"{where}.steps[{index}]", done, problems)
                done = True
            if problems:
                raise TrickEntryError(problems)
            state.note(state.findings(None), number)
        else:
            partial, partial_result, found = _judge_partial(state, lead, cards, number)
            state.note(state.findings(partial), number)
            state.note(found, number)
    return _result(state, partial, partial_result, totals_before, kept)


def _plays(state: _Round, entry: TrickInput, number: int, where: str,
           problems: list[TrickProblem]) -> list[Card]:
    """The cards of a trick, checked for seats, turn order, the deck and cards seen before."""
    lead = state.table.leader
    used = state.in_play()
    cards: list[Card] = []
    for index, play in enumerate(entry.plays[:state.size]):
        here = f"{where}.plays[{index}]"
        if not state.seat_ok(play.seat, problems, number, f"{here}.seat"):
            continue
        # Each seat follows the one before it; the first card is the leader's.
        previous = entry.plays[index - 1].seat if index else lead - 1
        expected = (previous + 1) % state.players if isinstance(previous, int) else play.seat
        if play.seat != expected:
            code = V.WRONG_LEADER if index == 0 else V.NOT_YOUR_TURN
            problems.append(TrickProblem(code.value, number, play.seat, None, f"{here}.seat",
                                         {"expected": expected}))
        card = state.card(play.card, problems, number, play.seat, f"{here}.card", used)
        if card is None:
            continue
        if card in cards:
            problems.append(TrickProblem(V.DUPLICATE_CARD.value, number, play.seat, str(card),
                                         f"{here}.card"))
        cards.append(card)
    return cards


def _judge_partial(state: _Round, lead: int, cards: list[Card],
                   number: int) -> tuple[_Played, TrickResult, list[tuple[int, Violation]]]:
    """An unfinished trick: its cards judged one by one against the smallest hands known
    (the same judgement :meth:`TableRound.findings` gives a complete trick)."""
    table = state.table
    played, _, princes, uses = table._replay()
    partial = _Played(Trick(lead, tuple(cards)), princes, uses, lead)
    hands = table._known(played + [partial], len(played))
    for index, card in enumerate(cards):
        hands[(lead + index) % state.players] |= 1 << card_id(card)
    judge = table._judge_state(hands, lead, princes)
    for use in uses:
        if use.power in _TRICK_POWERS:
            judge.push_step(use)
    judge.leader = lead
    found = []
    for card in cards:
        found += [(number, v) for v in judge.check_play(card) if v.code in RULE_CODES]
        judge.push_card(card)
    return partial, TrickResult(lead, None, judge.princes_in, False), found


def _step_due(state: _Round, played: list[_Played], started: bool) -> str | None:
    """The Round-card step the table does before the next card, if any."""
    shape = state.shape
    if started:
        return None
    number = len(played)
    if number == 0 and shape.aside_cards:
        return StepKind.SET_ASIDE.value
    if number == 0 and shape.reveals:
        return StepKind.REVEAL.value
    if number and shape.chairs_after_trick:
        return StepKind.CHAIRS.value
    if shape.gift_before_trick and number not in state.gifts and number - 1 not in state.redone:
        return StepKind.GIFT.value
    return None


def _result(state: _Round, partial: _Played | None, partial_result: TrickResult | None,
            totals_before: Sequence[int] | None,
            kept: Sequence[Sequence[str]] | None) -> RoundCheck:
    table = state.table
    players = state.players
    played, _, princes, _ = table._replay()
    results = []
    for number, entry in enumerate(played):
        after = played[number + 1].princes_before if number + 1 < len(played) else princes
        results.append(TrickResult(entry.trick.leader, entry.winner, after, True))
    if partial_result is not None:
        results.append(partial_result)
    taken, won, gifts = _taken(state, played)
    complete = table.is_over()
    keys = sorted(state.proven_in, key=lambda key: (key[0], state.proven_in[key]))
    violations = tuple(_violation(state, number, violation, state.proven_in[(number, violation)])
                       for number, violation in keys)
    kept_cards = _kept(state, kept)
    score = None
    missing: list[str] = []
    if complete:
        if needs_totals_before(state.edition, state.letter) and totals_before is None:
            missing.append("totals_before")
        if state.shape.kept_cards and kept_cards is None:
            missing.append("kept")
        if state.shape.gift_before_trick and len(state.gifts) < len(played) - len(state.redone):
            missing.append("gifts")
        outcome = table.outcome()
        if not missing and outcome is not None:
            outcome = replace(outcome, gifts=tuple(frozenset(g) for g in gifts),
                              kept=kept_cards or outcome.kept)
            try:
                score = score_entry(outcome.to_entry(totals_before))
            except ScoringError as error:
                raise TrickEntryError([TrickProblem(p.code, None, p.seat, p.card,
                                                    params=p.params)
                                       for p in getattr(error, "problems", [])]) from None
    next_seat = None
    if not complete:
        next_seat = (partial.trick.leader + len(partial.trick.cards)) % players \
            if partial is not None else table.leader
    started = partial is not None and bool(partial.trick.cards)
    return RoundCheck(
        complete=complete, legal=not violations, violations=violations,
        tricks=tuple(results), next_seat=next_seat,
        step_due=None if complete else _step_due(state, played, started),
        taken=tuple(_codes(cards) for cards in taken),
        gifts=tuple(_codes(cards) for cards in gifts),
        tricks_won=tuple(won), score=score, missing=tuple(missing))


def _taken(state: _Round, played: list[_Played]) -> tuple[list[set[Card]], list[int],
                                                          list[set[Card]]]:
    """Cards won in tricks (the engine's tally: Mulan, haggles, Alice), tricks won, and the gift
    piles won, which only the glue sees: a pile goes to the winner of the trick it was laid for,
    or of the replay when Alice dealt that trick back."""
    masks, won = tally(played, state.players)
    taken = [set(cards_of(mask)) for mask in masks]
    gifts: list[set[Card]] = [set() for _ in range(state.players)]
    pile: set[Card] = set()
    for number, entry in enumerate(played):
        pile |= set(state.gifts.get(number, ()))
        if number not in state.redone:
            gifts[entry.winner] |= pile
            pile = set()
    return taken, won, gifts


def _kept(state: _Round,
          kept: Sequence[Sequence[str]] | None) -> tuple[frozenset[Card], ...] | None:
    """The kept cards (n), checked; ``None`` when not given."""
    if kept is None:
        return None
    size = state.shape.kept_cards
    if not size:
        raise TrickEntryError([TrickProblem("no-kept-cards", field="kept")])
    if len(kept) != state.players:
        raise TrickEntryError([TrickProblem("wrong-seat-count", field="kept", params={
            "expected": state.players, "got": len(kept)})])
    problems: list[TrickProblem] = []
    used = state.in_play()
    seen: set[Card] = set()
    hands = []
    for seat, codes in enumerate(kept):
        if len(codes) != size:
            problems.append(TrickProblem("wrong-kept-count", None, seat, None, f"kept[{seat}]",
                                         {"expected": size}))
        hand = set()
        for index, code in enumerate(codes):
            card = state.card(code, problems, None, seat, f"kept[{seat}][{index}]", used)
            if card is not None and card in seen:
                problems.append(TrickProblem(V.DUPLICATE_CARD.value, None, seat, str(card),
                                             f"kept[{seat}][{index}]"))
            elif card is not None:
                seen.add(card)
                hand.add(card)
        hands.append(frozenset(hand))
    if problems:
        raise TrickEntryError(problems)
    return tuple(hands)


def _violation(state: _Round, number: int, violation: Violation,
               proven_in: int) -> TrickViolation:
    rule = violation.rule
    card = str(violation.card) if violation.card is not None else None
    message = violation_message(violation.code.value, seat=violation.seat, card=card,
                                rule=rule_name(state.edition, state.letter, rule))
    return TrickViolation(number, max(proven_in, number), violation.code.value, violation.seat,
                          card, rule, message)


def _codes(cards: set[Card] | frozenset[Card]) -> tuple[str, ...]:
    return tuple(str(card) for card in sorted(cards, key=lambda c: ("PQFA".index(c.suit.value),
                                                                     c.rank)))
