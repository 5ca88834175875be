"""Pydantic models of the « Réveillez » JSON API: shape only (types, required fields); the rules
core judges the values (2–5 players, 12 princesses, numbers 1–10, known cards) as problems."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StrictInt, StrictStr

from ...web.api_schema import ApiRequest, ApiResponse

MAX_LIST = 20  # a small body; the core refuses what the game does not allow

CardValue = Annotated[StrictInt | StrictStr, Field(
    description="A number card 1–10, or a power card by its French name: `prince`, `chevalier`, "
                "`dragon`, `potion`, `baguette`, `bouffon`.", examples=[6, "chevalier"])]


class ReveillezStandingsRequest(ApiRequest):
    """The princesses in front of each seat and how many still sleep."""

    # The schema's title stays the API's name for it (Rebel Princess has a standings too).
    model_config = ConfigDict(title="StandingsRequest", json_schema_extra={"examples": [
        {"players": 3, "awake": [[20, 15, 15, 5], [5], []], "sleeping": 7}]})
    players: StrictInt = Field(description="Number of players, 2 to 5.", examples=[3])
    awake: list[Annotated[list[StrictInt], Field(max_length=MAX_LIST)]] = Field(
        max_length=MAX_LIST,
        description="Per seat (clockwise from 0), the values printed on the princesses awake in "
                    "front of that seat, each a whole number from 1 to 50.",
        examples=[[[20, 15, 15, 5], [5], []]])
    sleeping: StrictInt = Field(description="Princesses still asleep in the centre, 0 to 12; "
                                            "awake + sleeping = 12.", examples=[7])


class ToWin(ApiResponse):
    """The thresholds of this player count: either one wins."""

    princesses: int = Field(description="Princesses awake in front of one seat that win at "
                                        "once: 5 with 2 or 3 players, 4 with 4 or 5.")
    points: int = Field(description="Points in front of one seat that win at once: 50 with 2 "
                                    "or 3 players, 40 with 4 or 5.")


class ReveillezStandingsResponse(ApiResponse):
    """Points, princesses, thresholds and the winners once the game is over."""

    model_config = ConfigDict(title="StandingsResponse")

    points: list[int] = Field(description="Per seat, the sum of the values printed on its awake "
                                          "princesses.", examples=[[55, 5, 0]])
    princesses: list[int] = Field(description="Per seat, how many princesses are awake in front "
                                              "of it.", examples=[[4, 1, 0]])
    to_win: ToWin = Field(description="The thresholds for this number of players: either one "
                                      "wins at once.")
    game_over: bool = Field(description="Whether the game is over (then `winners` is not "
                                        "empty).")
    winners: list[int] = Field(description="The winning seats, ascending (several share the "
                                           "win); empty while the game goes on.")
    reason: Literal["princesses", "points", "all_awake"] | None = Field(
        description="Why the game is over: a threshold of princesses, of points, or every "
                    "princess awake (most points win, ties share); null while it goes on.")


class JesterRequest(ApiRequest):
    """A jester played at a table: its seat and the card turned over."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 4, "jester_seat": 0, "revealed": 6},
        {"players": 4, "jester_seat": 0, "revealed": "chevalier"}]})
    players: StrictInt = Field(description="Number of players, 2 to 5.", examples=[4])
    jester_seat: StrictInt = Field(description="The seat (0 to players-1) that played the "
                                               "jester.")
    revealed: CardValue = Field(
        description="The card turned over from the deck: a number 1–10, or a power card by its "
                    "French name (`prince`, `chevalier`, `dragon`, `potion`, `baguette`, "
                    "`bouffon`).")


class JesterResponse(ApiResponse):
    """Who wakes a princess (counting from the jester's seat as 1), or play again."""

    wakes: int | None = Field(description="The seat (0 to players-1) that wakes a princess; null "
                                          "for a power card.")
    play_again: bool = Field(description="Whether the jester's player takes the power card into "
                                         "their hand and plays again (true exactly when `wakes` "
                                         "is null).")


class DiscardRequest(ApiRequest):
    """The cards discarded together."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"cards": [1, 3, 4, 8]}, {"cards": [2, 3]}]})
    cards: list[CardValue] = Field(max_length=MAX_LIST,
                                   description="The cards discarded together, 1 to 5, each a "
                                               "number 1–10 or a power card's French name.",
                                   examples=[[1, 3, 4, 8]])


class DiscardResponse(ApiResponse):
    """Whether the discard is allowed, which kind it is and how many cards to draw."""

    valid: bool = Field(description="Whether the rules allow these cards as one discard.")
    kind: Literal["single", "pair", "addition"] | None = Field(
        description="`single` (one card), `pair` (two identical cards) or `addition` (three or "
                    "more numbers, one of them the sum of the others); null when not allowed.")
    draw: int = Field(description="Cards to draw: 1 for a single card, 2 for a pair, as many as "
                                  "discarded for an addition, 0 when not allowed.")
