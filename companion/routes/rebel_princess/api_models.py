"""Pydantic models of the JSON API: they validate requests, shape responses and generate OpenAPI.

The models check shape only (types, required fields, list sizes); the rules (which cards are in
the deck, how many players, whether the tricks add up) stay in
:mod:`companion.scoring.rebel_princess`, which
reports them as problems with stable codes. Anything pydantic rejects is turned into the same
kind of problem (:func:`companion.web.api_schema.problems_from_validation`, with this game's own
reading of some fields: :class:`RebelRequest`), so a client never sees pydantic's wording.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    RootModel,
    StrictInt,
    StrictStr,
    Tag,
)
from pydantic.types import JsonValue
from pydantic_core import ErrorDetails, PydanticCustomError

from ...scoring.problems import Problem
from ...scoring.rebel_princess import Edition, Leader, RebelStandings, RoundScore
from ...scoring.rebel_princess.engine import POWER_SLUGS, Timing, power_class, power_slugs
from ...scoring.rebel_princess.problems import CATALOGUE
from ...scoring.rebel_princess.table_check import RoundCheck
from ...web.api_schema import ApiRequest, ApiResponse, WordsItsProblems, problem_from_error

MAX_SEATS = 6
MAX_CARDS_PER_SEAT = 48
MAX_ROUNDS = 5
MAX_PLAYOFFS = 10


# --- pydantic errors as problems ------------------------------------------------------------------

# Where the seat index sits in a field's location (``taken[seat][card]``, ``rounds[round][seat]``).
_SEAT_POSITION = {"taken": 1, "tricks_won": 1, "totals_before": 1, "totals": 1,
                  "rounds": 2, "playoffs": 2, "kept": 1}


def _problem(error: ErrorDetails) -> dict[str, Any]:
    """A pydantic error as a problem; the next-leader body's edition tag and an unknown edition
    are reported on the ``edition`` field."""
    loc = list(error["loc"])
    if loc and loc[0] in ("deluxe", "classic"):
        loc = loc[1:]  # the tag of the next-leader union, not a field
    kind, data = error["type"], error.get("input")
    if kind.startswith("union_tag_"):
        # The next-leader body picks its fields by edition: report the edition itself.
        loc, data = ["edition"], data.get("edition") if isinstance(data, dict) else None
        kind = "literal_error" if data is not None else "missing"
    if kind == "literal_error" and loc == ["edition"] and isinstance(data, str):
        return CATALOGUE.problem("unknown-edition", value=data, field="edition").as_dict()
    if kind == "card_not_ascii":  # the core's own problem, on the field that holds the card
        return problem_from_error(error, seat_positions=_SEAT_POSITION) | CATALOGUE.problem(
            "unknown-card", card=str(data)).as_dict()
    return problem_from_error({**error, "loc": tuple(loc), "type": kind, "input": data},
                              seat_positions=_SEAT_POSITION,
                              expected={"edition": "“deluxe” or “classic”"})

class RebelRequest(WordsItsProblems):
    """A Rebel Princess request body: pydantic's errors read as this game's problems (an
    unknown edition, a card that is not one, the seat of a field: :func:`_problem`)."""

    @classmethod
    def problem_of(cls, details: ErrorDetails) -> dict[str, Any]:
        return _problem(details)


# --- shared field types ---------------------------------------------------------------------------

def _normalise_edition(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


EditionName = Annotated[
    Literal["deluxe", "classic"],
    BeforeValidator(_normalise_edition),
    Field(description="`deluxe` (English Deluxe Edition, Round cards a-z) or `classic` (French "
                      "*Rebelles Princesses*, Round cards A-U). Case does not matter."),
]
SeatIndex = Annotated[StrictInt, Field(
    description="A seat, numbered 0 to players-1 clockwise in play order.",
    json_schema_extra={"minimum": 0, "maximum": MAX_SEATS - 1})]
def _ascii_card(value: str) -> str:
    """Refuse a card code with non-ASCII characters here: ``int()`` reads "P١" as P1 and fails on
    "P²", and a code is always plain ASCII. The core judges everything else about the code."""
    if not value.isascii():
        raise PydanticCustomError("card_not_ascii", "not a card code")
    return value


CardCode = Annotated[StrictStr, AfterValidator(_ascii_card), Field(
    description="A card code: suit letter P (Prince), Q (Queen), F (Fairy) or A (Pet) and a rank "
                "in ASCII digits, e.g. `P12`, `Q3`. `A8` is the Frog.",
    examples=["P12", "A8"])]
PerSeatInts = Annotated[list[StrictInt], Field(max_length=MAX_SEATS)]


# --- score-round ----------------------------------------------------------------------------------

class ScoreRoundRequest(RebelRequest, ApiRequest):
    """The cards each seat took in one round, and what the Round card needs besides."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"edition": "deluxe", "round_card": "a", "players": 4,
         "taken": [["P1", "P2", "P3"], ["P4", "P5", "A8"], ["P6", "P7", "P8"], ["P9", "P10"]]},
        {"edition": "deluxe", "round_card": "e", "players": 4,
         "taken": [[], ["P1", "P2", "P3", "P4", "A8"], ["P5", "P6", "P7"], ["P8", "P9", "P10"]],
         "tricks_won": [0, 4, 3, 3]},
        {"edition": "classic", "round_card": "O", "players": 3,
         "taken": [["P2", "P3", "P4"], ["P5", "P6", "A8"], ["P7", "P8", "P9", "P10"]],
         "totals_before": [4, 9, 9]},
    ]})

    edition: EditionName
    round_card: StrictStr = Field(
        description="The Round card's letter: a-z in Deluxe, A-U in classic (either case).",
        examples=["z", "O"])
    players: StrictInt = Field(description="Number of players, 3 to 6.",
                               json_schema_extra={"minimum": 3, "maximum": MAX_SEATS})
    taken: list[Annotated[list[CardCode], Field(max_length=MAX_CARDS_PER_SEAT)]] = Field(
        max_length=MAX_SEATS,
        description="One list per seat, in seat order: the cards that seat took (kept cards "
                    "under Deluxe n and gift piles under Wedding Gift included). Every Prince of "
                    "the deck and the Frog must be given to exactly one seat, and so must every "
                    "card the Round card scores (Queens under Dancing Queens, Pets under Pet's "
                    "Revenge, Fairies under Single Fairy, 3s under Three Times a Lady). Cards that "
                    "score nothing may be left out.")
    tricks_won: PerSeatInts | None = Field(
        default=None,
        description="Tricks won per seat. Required for Deluxe e (Arranged Marriage), ignored "
                    "otherwise. Must add up to the number of tricks in the round.")
    totals_before: PerSeatInts | None = Field(
        default=None,
        description="Each seat's total before this round. Required for Bathroom Break (Deluxe y, "
                    "classic O), ignored otherwise.")


class ScoreLineOut(ApiResponse):
    """One reason for points in a seat's round score."""

    rule: str = Field(description=(
        "Why: `prince`, `frog`, `pet`, `fairy`, `three`, `no-tricks`, `prince-doubled`, "
        "`prince-highest-total`, `same-rank-couple`, `mixed-couple`, `lone-queen` or "
        "`rebel-of-the-ball`."), examples=["prince"])
    points: int = Field(description="Points this line gives in all (may be negative).")
    count: int = Field(description="How many cards or events the line counts.")


class ScoreRoundResponse(ApiResponse):
    """The round score of every seat, with the lines that add up to it."""

    scores: list[int] = Field(description="Round score per seat, in seat order.",
                              examples=[[3, 8, 3, 2]])
    rebel_of_the_ball: list[int] = Field(
        description="Seats that took every Prince and the Frog (Deluxe only): they score -10.",
        examples=[[]])
    lines: list[list[ScoreLineOut]] = Field(
        description="Per seat, the lines whose points add up to its score.")

    @classmethod
    def from_score(cls, score: RoundScore) -> ScoreRoundResponse:
        return cls(
            scores=score.scores,
            rebel_of_the_ball=score.rebels,
            lines=[[ScoreLineOut(rule=line.rule, points=line.points, count=line.count)
                    for line in seat.lines] for seat in score.seats],
        )


# --- next-leader ----------------------------------------------------------------------------------

class NextLeaderDeluxe(ApiRequest):
    """Deluxe: the lowest total leads; ties go clockwise from the previous leader."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"edition": "deluxe", "totals": [5, 3, 3, 8], "last_leader": 0}]})

    edition: Annotated[Literal["deluxe"], BeforeValidator(_normalise_edition)]
    totals: PerSeatInts = Field(description="Each seat's total after the round just played.")
    last_leader: SeatIndex = Field(
        description="The seat that led the first trick of the round just played. Ties are broken "
                    "by the first tied seat clockwise after it; it comes last itself.")


class NextLeaderClassic(ApiRequest):
    """Classic: the winner of the last trick leads the next round."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"edition": "classic", "players": 4, "last_trick_winner": 2}]})

    edition: Annotated[Literal["classic"], BeforeValidator(_normalise_edition)]
    players: StrictInt = Field(description="Number of players, 3 to 6.",
                               json_schema_extra={"minimum": 3, "maximum": MAX_SEATS})
    last_trick_winner: SeatIndex = Field(
        description="The seat that won the last trick of the round just played.")


def _edition_tag(value: object) -> str | None:
    raw = value.get("edition") if isinstance(value, dict) else getattr(value, "edition", None)
    return str(_normalise_edition(raw)) if isinstance(raw, str) else None


class NextLeaderRequest(RebelRequest, RootModel[Annotated[
        Annotated[NextLeaderDeluxe, Tag("deluxe")] | Annotated[NextLeaderClassic, Tag("classic")],
        Discriminator(_edition_tag)]]):
    """Who leads the next round; the fields depend on the edition."""

    model_config = ConfigDict(json_schema_extra={
        "discriminator": {"propertyName": "edition", "mapping": {
            "deluxe": "#/components/schemas/NextLeaderDeluxe",
            "classic": "#/components/schemas/NextLeaderClassic"}},
        "examples": [
            {"edition": "deluxe", "totals": [5, 3, 3, 8], "last_leader": 0},
            {"edition": "deluxe", "totals": [2, 5, 2, 5], "last_leader": 2},
            {"edition": "classic", "players": 4, "last_trick_winner": 2},
        ]})


class NextLeaderResponse(ApiResponse):
    """The seat that leads the next round, and why."""

    leader: int = Field(description="The seat that leads the next round.", examples=[1])
    reason: Literal["lowest-total", "tie-broken", "last-trick"] = Field(
        description="`lowest-total` (Deluxe, one lowest total), `tie-broken` (Deluxe, several "
                    "lowest totals: see `tied`) or `last-trick` (classic).")
    tied: list[int] = Field(description="The seats tied on the lowest total, when there is a tie.",
                            examples=[[1, 2]])

    @classmethod
    def from_leader(cls, leader: Leader) -> NextLeaderResponse:
        # (validated as the constructor does: the core's reason is a str, this field a Literal)
        return cls.model_validate({"leader": leader.seat, "reason": leader.reason,
                                   "tied": list(leader.tied)})


# --- standings ------------------------------------------------------------------------------------

class RebelPrincessStandingsRequest(RebelRequest, ApiRequest):
    """Round scores so far; the answer ranks the seats and applies the edition's tie-breaks."""

    # The schema's title stays the API's name for it (Réveillez has a standings of its own).
    model_config = ConfigDict(title="StandingsRequest", json_schema_extra={"examples": [
        {"edition": "deluxe", "rounds": [[3, 5, 1, 2], [2, -1, 4, 4]]},
        {"edition": "deluxe", "rounds": [[2, 2, 3, 3]], "playoffs": [[1, 0, 2, 2]]},
        {"edition": "classic", "rounds": [[2, 4, 1, 3], [2, 0, 4, 4]]},
    ]})

    edition: EditionName
    rounds: list[Annotated[list[StrictInt], Field(max_length=MAX_SEATS)]] = Field(
        max_length=MAX_ROUNDS,
        description="One list per round played, each holding the round score of every seat in "
                    "seat order. At most 5 rounds.")
    playoffs: list[Annotated[list[StrictInt], Field(max_length=MAX_SEATS)]] = Field(
        default_factory=list, max_length=MAX_PLAYOFFS,
        description="Deluxe only: the play-off rounds played after a tie, same shape as `rounds`.")


class RebelPrincessStandingsResponse(ApiResponse):
    """Totals, ranking and winners, with how the winners were decided."""

    model_config = ConfigDict(title="StandingsResponse")

    totals: list[int] = Field(description="Total per seat, play-off rounds included.")
    ranking: list[int] = Field(description="Seats, best first.", examples=[[1, 0, 2, 3]])
    winners: list[int] = Field(
        description="The winning seats; empty when a Deluxe play-off round is needed, several "
                    "when a classic tie is shared.")
    decided_by: Literal["total", "rounds_at_or_below_zero", "rounds_at_zero", "shared",
                        "playoff"] = Field(
        description="`total`, `rounds_at_or_below_zero` (Deluxe tie-break), `rounds_at_zero` "
                    "(classic tie-break), `shared` (classic tie that stands) or `playoff` "
                    "(Deluxe tie that stands: play a play-off round).")
    playoff: list[int] = Field(description="The seats still tied when a play-off is needed.")
    tiebreak: list[int] = Field(
        description="Per seat, rounds scored at or below zero (Deluxe) or at exactly zero "
                    "(classic). Play-off rounds are not counted.")
    playoffs_played: int = Field(description="How many play-off rounds were given.")

    @classmethod
    def from_standings(cls, result: RebelStandings) -> RebelPrincessStandingsResponse:
        return cls(totals=list(result.totals), ranking=list(result.ranking),
                   winners=list(result.winners), decided_by=result.decided_by,  # type: ignore[arg-type]
                   playoff=list(result.playoff), tiebreak=list(result.tiebreak),
                   playoffs_played=result.playoffs_played)


# --- check-round ----------------------------------------------------------------------------------

MAX_TRICKS = 30  # 18 tricks at most (3 players), plus the tricks Alice has redone
MAX_PLAYS = 2 * MAX_SEATS  # The Prince Always Rings Twice: two laps


class PlayIn(ApiRequest):
    """One card played, in play order."""

    seat: SeatIndex = Field(description="The seat that played the card (0 to players-1).")
    card: CardCode = Field(description="The card played, e.g. `Q3`.")


def _powers_by_timing() -> str:
    """When each power is entered, from the powers' declarations."""
    after = {edition: [slug for slug in power_slugs(edition)
                       if power_class(slug)(edition).when() is Timing.AFTER]
             for edition in Edition}
    words = "; ".join(f"{edition.value}: {', '.join(slugs)}" for edition, slugs in after.items())
    return ("A Princess power used with a trick. A power used before or during a trick goes "
            "with the trick it changes, in the order declared; a power used right after a "
            f"trick ({words}) goes with the trick it follows. Fields a power does not use are "
            "ignored.")


def _power_needs() -> str:
    """What each power's use needs, from the powers' declarations."""
    return "The Princess slug, and what her use needs: " + ", ".join(
        f"`{slug}` ({power_class(slug).describe_use()})" for slug in POWER_SLUGS) + "."


class PowerIn(ApiRequest):
    """A Princess power used with a trick (the description is written from the powers'
    declarations)."""

    model_config = ConfigDict(json_schema_extra={"description": _powers_by_timing(), "examples": [
        {"power": "cinderella", "seat": 2},
        {"power": "ice-princess", "seat": 0, "target": 3, "cards": ["Q7"]},
        {"power": "little-mermaid", "seat": 1, "suit": "F"},
        {"power": "mulan", "seat": 4, "cards": ["Q7", "Q2"]},
        {"power": "snow-white", "seat": 5, "cards": ["A3"]},
    ]})

    power: StrictStr = Field(description=_power_needs(), examples=["cinderella"])
    seat: SeatIndex = Field(description="The seat whose Princess uses her power.")
    target: SeatIndex | None = Field(default=None,
                                     description="The seat the power aims at, if it needs one.")
    suit: StrictStr | None = Field(default=None,
                                   description="A suit letter, `P`, `Q`, `F` or `A` (Little "
                                               "Mermaid).", examples=["F"])
    cards: list[CardCode] = Field(default_factory=list, max_length=MAX_PLAYS,
                                  description="The cards the power names (see `power`).")
    more: list[CardCode] = Field(default_factory=list, max_length=MAX_SEATS,
                                 description="Sleeping Beauty: the card each seat receives.")


class StepIn(ApiRequest):
    """A Round-card step entered with a trick: `gift` (Wedding Gift, o / M: before the trick,
    `cards` one per seat in seat order, won with the trick), `haggle` (Haggle with the Hag,
    p / T: after the trick, the winner `seat` gives `give` from their hand and takes `take`) or
    `chairs` (Musical Chairs, k / E, optional: after the trick, `cards` the card each seat
    passed to its right, in seat order)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"step": "gift", "cards": ["P2", "A3", "F4", "Q9"]},
        {"step": "haggle", "seat": 1, "give": "F2", "take": "Q5"},
    ]})

    step: StrictStr = Field(description="`gift`, `haggle` or `chairs`.", examples=["haggle"])
    seat: SeatIndex | None = Field(default=None, description="Haggle: the trick winner.")
    give: CardCode | None = Field(default=None, description="Haggle: the card given.")
    take: CardCode | None = Field(default=None, description="Haggle: the card taken.")
    cards: list[CardCode] = Field(default_factory=list, max_length=MAX_SEATS,
                                  description="Gift: the card each seat adds; chairs: the card "
                                              "each seat passes; in seat order.")


class TrickIn(ApiRequest):
    """One trick: the cards in play order, and the powers and steps entered with it."""

    plays: list[PlayIn] = Field(
        max_length=MAX_PLAYS,
        description="The cards in play order, clockwise from the leader (two laps under The "
                    "Prince Always Rings Twice). Only the last trick may be unfinished, or empty.")
    powers: list[PowerIn] = Field(default_factory=list, max_length=MAX_SEATS,
                                  description="Princess powers used with this trick.")
    steps: list[StepIn] = Field(default_factory=list, max_length=2,
                                description="Round-card steps entered with this trick.")


def _plays(leader: int, players: int, cards: str) -> list[JsonValue]:
    """Example plays: ``cards`` played clockwise from ``leader``."""
    return [{"seat": (leader + index) % players, "card": card}
            for index, card in enumerate(cards.split())]


_RULEBOOK_TRICK = _plays(0, 6, "Q3 Q7 P12 F9 A8 Q4")


class CheckRoundRequest(RebelRequest, ApiRequest):
    """The tricks of a round as played at the table (the hands unknown), possibly unfinished."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"edition": "deluxe", "round_card": "a", "players": 6, "leader": 0,
         "tricks": [{"plays": _RULEBOOK_TRICK}]},
        {"edition": "deluxe", "round_card": "a", "players": 3, "leader": 0,
         "princesses": {"0": "cinderella", "1": "mulan"},
         "tricks": [{"plays": _plays(0, 3, "Q5 Q9 Q7"),
                     "powers": [{"power": "cinderella", "seat": 0}]},
                    {"plays": [{"seat": 0, "card": "F2"}, {"seat": 1, "card": "F7"}]}]},
        {"edition": "deluxe", "round_card": "a", "players": 3, "leader": 0,
         "tricks": [{"plays": _plays(0, 3, "Q3 F7 Q9")}, {"plays": _plays(2, 3, "A5 A2 A3")},
                    {"plays": _plays(2, 3, "F2 F4 Q5")}]},
        {"edition": "deluxe", "round_card": "p", "players": 3, "leader": 0,
         "tricks": [{"plays": _plays(0, 3, "Q5 Q9 Q7"),
                     "steps": [{"step": "haggle", "seat": 1, "give": "F2", "take": "Q5"}]}]},
        {"edition": "classic", "round_card": "H", "players": 3, "leader": 0,
         "tricks": [{"plays": _plays(0, 3, "Q5 F7 A7")}]},
    ]})

    edition: EditionName
    round_card: StrictStr = Field(
        description="The Round card's letter: a-z in Deluxe, A-U in classic (either case).",
        examples=["a"])
    players: StrictInt = Field(description="Number of players, 3 to 6.",
                               json_schema_extra={"minimum": 3, "maximum": MAX_SEATS})
    leader: SeatIndex = Field(description="The seat that leads the first trick.")
    princesses: dict[str, StrictStr] | None = Field(
        default=None,
        description="Each seat's Princess, seat number (as text) to slug, e.g. `{\"2\": "
                    "\"cinderella\"}`. Seats without one are left out.")
    tricks: list[TrickIn] = Field(max_length=MAX_TRICKS,
                                  description="The tricks so far, in order.")
    totals_before: PerSeatInts | None = Field(
        default=None,
        description="Each seat's total before this round: needed to score Bathroom Break "
                    "(Deluxe y, classic O).")
    kept: list[Annotated[list[CardCode], Field(max_length=3)]] | None = Field(
        default=None, max_length=MAX_SEATS,
        description="Late for a Very Important Date (Deluxe n): the 3 cards each seat kept, "
                    "in seat order; needed to score the round.")


class ViolationOut(ApiResponse):
    """A rule broken: where, by whom, and the trick whose cards proved it."""

    trick: int = Field(description="The trick (0-based) in which the rule was broken.")
    proven_in: int = Field(description="The trick (0-based) whose cards proved it: later than "
                                       "`trick` for a revoke shown by a later card.")
    seat: int | None = Field(description="The seat that broke the rule, if known.")
    card: str | None = Field(description="The card concerned, if any.")
    code: str = Field(description="The engine's stable code, e.g. `must-follow-suit`.",
                      examples=["must-follow-suit"])
    rule: str = Field(description="The rule's slug: `basic`, a Round card or a Princess.")
    message: str = Field(description="The breach in a sentence a player understands.")

    @classmethod
    def of(cls, violation: Problem) -> ViolationOut:
        """A violation of :class:`RoundCheck` (every one is about a trick: a problem of the
        round as a whole is not a violation)."""
        if violation.trick is None:
            raise ValueError(f"a violation without its trick: {violation.code}")
        return cls(trick=violation.trick, proven_in=violation.params["proven_in"],
                   seat=violation.seat, card=violation.card, code=violation.code,
                   rule=violation.params["rule"], message=violation.message)


class TrickOut(ApiResponse):
    """One trick as judged."""

    leader: int = Field(description="The seat that led it.")
    winner: int | None = Field(description="The seat that won it; null while unfinished.")
    princes_in: bool = Field(description="Whether the Princes have snuck in after it (so far, "
                                         "for an unfinished trick).")
    complete: bool = Field(description="Whether every card of the trick is in.")


class CheckRoundResponse(ApiResponse):
    """The round judged: legality, winners, cards taken, and the scores once complete."""

    complete: bool = Field(description="Whether every trick of the round is in.")
    legal: bool = Field(description="Whether no rule was broken (as far as the cards show).")
    violations: list[ViolationOut] = Field(description="Every rule broken, by trick.")
    tricks: list[TrickOut] = Field(description="One entry per trick sent.")
    next_seat: int | None = Field(description="The seat to play the next card; null once "
                                              "complete.")
    step_due: Literal["aside", "reveal", "gift", "chairs"] | None = Field(
        description="A Round-card step the table does before the next card: set-aside (b/G, m/N, "
                    "q/Q), reveal (h/I), gift pile (o/M) or musical chairs (k/E).")
    taken: list[list[str]] = Field(description="Per seat, the cards won in tricks so far.")
    gifts: list[list[str]] = Field(description="Per seat, the Wedding Gift cards won so far.")
    tricks_won: list[int] = Field(description="Per seat, the tricks won so far.")
    scores: list[int] | None = Field(description="Round score per seat once complete (null "
                                                 "before, or while `missing` is not empty).")
    lines: list[list[ScoreLineOut]] | None = Field(
        description="Per seat, the lines whose points add up to its score, once scored.")
    missing: list[Literal["totals_before", "kept", "gifts"]] = Field(
        description="What the round needs before it can be scored, once complete.")

    @classmethod
    def from_check(cls, check: RoundCheck) -> CheckRoundResponse:
        score = check.score
        return cls(
            complete=check.complete, legal=check.legal,
            violations=[ViolationOut.of(v) for v in check.violations],
            tricks=[TrickOut(leader=t.leader, winner=t.winner, princes_in=t.princes_in,
                             complete=t.complete) for t in check.tricks],
            next_seat=check.next_seat, step_due=check.step_due,  # type: ignore[arg-type]
            taken=[list(cards) for cards in check.taken],
            gifts=[list(cards) for cards in check.gifts],
            tricks_won=list(check.tricks_won),
            scores=score.scores if score is not None else None,
            lines=[[ScoreLineOut(rule=line.rule, points=line.points, count=line.count)
                    for line in seat.lines] for seat in score.seats] if score else None,
            missing=list(check.missing),  # type: ignore[arg-type]
        )


