"""Pydantic models of the « Réveillez » JSON API: shape only (types, required fields); the rules
core judges the values (2–5 players, 12 princesses, numbers 1–10, known cards) as problems."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

MAX_LIST = 20  # a small body; the core refuses what the game does not allow

CardValue = Annotated[StrictInt | StrictStr, Field(
    description="A number card 1–10, or a power card by its French name: `prince`, `chevalier`, "
                "`dragon`, `potion`, `baguette`, `bouffon`.", examples=[6, "chevalier"])]


class _Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StandingsRequest(_Request):
    """The princesses in front of each seat and how many still sleep."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 3, "awake": [[20, 15, 15, 5], [5], []], "sleeping": 7}]})
    players: StrictInt = Field(description="2 to 5 players.")
    awake: list[Annotated[list[StrictInt], Field(max_length=MAX_LIST)]] = Field(
        max_length=MAX_LIST,
        description="Per seat (clockwise from 0), the values printed on the princesses awake in "
                    "front of that seat.")
    sleeping: StrictInt = Field(description="Princesses still asleep in the centre; awake + "
                                            "sleeping = 12.")


class ToWin(_Response):
    """The thresholds of this player count: either one wins."""

    princesses: int
    points: int


class StandingsResponse(_Response):
    """Points, princesses, thresholds and the winners once the game is over."""

    points: list[int]
    princesses: list[int]
    to_win: ToWin
    game_over: bool
    winners: list[int] = Field(description="Seats, ascending; empty while the game goes on.")
    reason: Literal["princesses", "points", "all_awake"] | None = Field(
        description="Why the game is over: a threshold of princesses, of points, or every "
                    "princess awake (most points win, ties share).")


class JesterRequest(_Request):
    """A jester played at a table: its seat and the card turned over."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 4, "jester_seat": 0, "revealed": 6},
        {"players": 4, "jester_seat": 0, "revealed": "chevalier"}]})
    players: StrictInt = Field(description="2 to 5 players.")
    jester_seat: StrictInt = Field(description="The seat that played the jester (0-based).")
    revealed: CardValue


class JesterResponse(_Response):
    """Who wakes a princess (counting from the jester's seat as 1), or play again."""

    wakes: int | None = Field(description="The seat that wakes a princess; null for a power card.")
    play_again: bool


class DiscardRequest(_Request):
    """The cards discarded together."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"cards": [1, 3, 4, 8]}, {"cards": [2, 3]}]})
    cards: list[CardValue] = Field(max_length=MAX_LIST, description="1 to 5 cards.")


class DiscardResponse(_Response):
    """Whether the discard is allowed, which kind it is and how many cards to draw."""

    valid: bool
    kind: Literal["single", "pair", "addition"] | None
    draw: int
