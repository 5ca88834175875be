"""Pydantic models of ``POST /api/v1/kanai-duel/resolve``: shape only, for the OpenAPI document.

The rules (which cards exist, two cards a round, a card once per player, 8 rounds, the end of the
game, the wins needed, the ability setting) are checked by the rules core, which reports them as
problems with stable codes; the models therefore accept any text where a card or a setting goes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from ...scoring.kanai_duel import DuelCard

CARD_NAMES = [card.value for card in DuelCard]

CardName = Annotated[StrictStr, Field(
    description="A character in lowercase English.", json_schema_extra={"enum": CARD_NAMES})]
RoundCards = Annotated[list[CardName], Field(
    description="[player 0's card, player 1's card].",
    json_schema_extra={"minItems": 2, "maxItems": 2})]


class ResolveRequest(BaseModel):
    """A game's rounds so far, in order, and the rules it is played with."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"rounds": [["spy", "general"], ["minister", "spy"]], "wins_needed": 4,
         "abilities": "all"}]})
    rounds: list[RoundCards] = Field(
        description="Every round played, in order: at most 8, each card once per player.",
        max_length=64)
    wins_needed: StrictInt = Field(4, description="Wins that crown a player: 4, or 3 in "
                                   "variant G (1 to 8).")
    abilities: StrictStr = Field("all", description="`all`; `none` or `clown_minister` are the "
                                 "two forms of variant H.",
                                 json_schema_extra={"enum": ["all", "none", "clown_minister"]})


class RoundOut(BaseModel):
    """One round: who took it, the wins it brought each player (held rounds taken included),
    whether it went on hold, and the reasoning."""

    winner: int | None = Field(description="The player who took the round, 0 or 1; null when "
                                           "the round went on hold.")
    points: list[int] = Field(description="Per player (0, then 1), the wins scored with this "
                              "round, the rounds on hold it took included.", examples=[[0, 1]])
    held: bool = Field(description="Whether the round went on hold (nobody took it yet).")
    steps: list[str] = Field(description="The steps of the reasoning, in English.")


class NextOut(BaseModel):
    """What carries over to the next round."""

    bonus: list[int] = Field(description="Per player (0, then 1), the bonus on their next card: "
                                         "2 after their General, else 0.", examples=[[2, 0]])
    reveals_first: int | None = Field(description="The player (0 or 1) who must reveal first "
                                      "next round because the other played a Spy; null when "
                                      "nobody must.")


class ResolveResponse(BaseModel):
    """Each round decided, the score, the rounds on hold, what carries over, and the end."""

    rounds: list[RoundOut] = Field(description="One entry per round sent, in order: how it was "
                                               "decided.")
    score: list[int] = Field(description="Wins of player 0 and player 1.", examples=[[1, 0]])
    held: int = Field(description="Rounds waiting on hold now (0 once the game is over).")
    next: NextOut = Field(description="What carries over to the next round: the General's "
                                      "bonus and who reveals first.")
    game_over: bool = Field(description="Whether the game has ended (see `result` and "
                                        "`winner`).")
    winner: int | None = Field(description="The winner (player 0 or 1) once the game is over; "
                               "null for a draw or a game in progress.")
    result: Literal["win", "princess", "draw"] | None = Field(
        description="`win` (4 wins, or the most wins in variant Q), `princess` (the Princess "
                    "against the Prince) or `draw`; null while the game goes on.")
