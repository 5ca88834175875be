"""Request and response models of the JSON API (they make the OpenAPI document).

The models check JSON types only; every value the game refuses (a player count outside 2–6, a
card outside 0–9, a list of the wrong length, too many copies …) is judged by the rules core, so
the API and the forms give the same problem codes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class RoundEndRequest(BaseModel):
    """The cards on the table at the end of a round, and the tokens before it."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 3, "held": [7, 8, None], "discards": [[1], [4, 0], [2, 9]],
         "tokens_before": [0, 2, 1]}]})
    players: int = Field(description="Number of players, 2 to 6.")
    held: list[int | None] = Field(description="Per seat: the card value (0–9) held at the end "
                                               "of the round; null for a player out of it.")
    discards: list[list[int]] = Field(description="Per seat: the values of every card in front "
                                                  "of that seat, played or discarded (the hand "
                                                  "discarded on leaving included).")
    tokens_before: list[int] = Field(description="Per seat: favour tokens before the round.")


class BonusOut(BaseModel):
    seat: int
    kind: Literal["spy", "princesses"]


class RoundEndResponse(BaseModel):
    """Who won the round, the bonuses, the tokens, and what follows (seat lists ascending)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"round_winners": [1], "bonuses": [{"seat": 1, "kind": "spy"}],
         "tokens_gained": [0, 2, 0], "tokens_after": [0, 4, 1], "threshold": 5,
         "game_over": False, "game_winners": [], "next_first_candidates": [1]}]})
    round_winners: list[int]
    bonuses: list[BonusOut]
    tokens_gained: list[int]
    tokens_after: list[int]
    threshold: int = Field(description="Tokens needed to win with this many players.")
    game_over: bool
    game_winners: list[int]
    next_first_candidates: list[int] = Field(
        description="Who may start the next round: the round's winner, or the tied winners to "
                    "draw one from at random; empty once the game is over.")


class TurnIn(BaseModel):
    """One turn as the table saw it, with the table's answers."""

    model_config = ConfigDict(strict=True, extra="forbid")
    seat: int
    card: int = Field(description="The value played, 0–9.")
    target: int | None = Field(default=None, description="The seat targeted, if any.")
    named: int | None = Field(default=None, description="Garde: the character named.")
    hit: bool | None = Field(default=None, description="Garde: was the guess right?")
    loser: int | None = Field(default=None,
                              description="Bibliothécaire: the seat with the lower card.")
    tie: bool = Field(default=False, description="Bibliothécaire: the cards were equal.")
    revealed: int | None = Field(
        default=None, description="The card laid face up by the effect: Vladric's target's "
                                  "hand, the Ogre player's other card, the Bibliothécaire "
                                  "loser's card.")


class TurnLogRequest(BaseModel):
    """A round's turns, to judge; ``final`` (optional) the cards shown at its end."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 3, "first": 0, "face_up": [],
         "turns": [{"seat": 0, "card": 4}, {"seat": 1, "card": 1, "target": 0, "named": 5,
                                             "hit": False}]}]})
    players: int
    first: int = Field(description="The seat that started the round.")
    face_up: list[int] = Field(default_factory=list,
                               description="At two players, the three cards set aside face up.")
    turns: list[TurnIn]
    final: list[int | None] | None = Field(
        default=None, description="Per seat, the card shown when the round ended (null for "
                                  "a player out, or for the last player in).")


class ProblemOut(BaseModel):
    code: str
    message: str
    seat: int | None = None
    card: str | None = None


class FaultOut(ProblemOut):
    turn: int


class EndingOut(BaseModel):
    reason: Literal["last-in", "deck-empty"]
    still_in: list[int]
    spies: list[int]
    princesses: list[int]


class TurnLogResponse(BaseModel):
    """The judgement of a turn log and the table after its accepted turns."""

    valid: bool
    accepted: int = Field(description="How many turns were accepted.")
    refused_turn: int | None = Field(description="0-based index of the first refused turn.")
    problems: list[ProblemOut]
    current_seat: int | None
    still_in: list[int]
    protected: list[int]
    deck_count: int
    unseen: list[int] = Field(description="By value 0–9: cards nobody has seen face up yet.")
    round_over: bool
    ending: EndingOut | None
    faults: list[FaultOut] = Field(description="Mistakes proven by later reveals (no penalty).")
    discards: list[list[int]] = Field(description="Per seat, the cards in front of it.")
    held: list[int | None] | None = Field(
        description="With ``final`` on a finished round: the ``held`` of a round-end call.")
