"""Request and response models of the JSON API (they make the OpenAPI document).

The models check JSON types only; every value the game refuses (a player count outside 2–6, a
card outside 0–9, a list of the wrong length, too many copies …) is judged by the rules core, so
the API and the forms give the same problem codes.

Seats are numbered from 0, clockwise in turn order; a card is its value, 0 (Claire the Spy) to 9
(the Ogre).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class RoundEndRequest(BaseModel):
    """The cards on the table at the end of a round, and the tokens before it."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 3, "held": [7, 8, None], "discards": [[1], [4, 0], [2, 9]],
         "tokens_before": [0, 2, 1]}]})
    players: int = Field(description="Number of players, 2 to 6.", examples=[3])
    held: list[int | None] = Field(description="Per seat: the card value (0–9) held at the end "
                                               "of the round; null for a player out of it.",
                                   examples=[[7, 8, None]])
    discards: list[list[int]] = Field(description="Per seat: the values of every card in front "
                                                  "of that seat, played or discarded (the hand "
                                                  "discarded on leaving included).")
    tokens_before: list[int] = Field(description="Per seat: favour tokens before the round (0 or "
                                                 "more).", examples=[[0, 2, 1]])


class BonusOut(BaseModel):
    """One bonus favour token given at the end of the round."""

    seat: int = Field(description="The seat (0 to players-1) that gains the bonus token.")
    kind: Literal["spy", "princesses"] = Field(
        description="`spy`: the Spy bonus; `princesses`: the Princesses bonus.")


class RoundEndResponse(BaseModel):
    """Who won the round, the bonuses, the tokens, and what follows (seat lists ascending)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"round_winners": [1], "bonuses": [{"seat": 1, "kind": "spy"}],
         "tokens_gained": [0, 2, 0], "tokens_after": [0, 4, 1], "threshold": 5,
         "game_over": False, "game_winners": [], "next_first_candidates": [1]}]})
    round_winners: list[int] = Field(
        description="The seats that won the round, ascending: the last player in, or every "
                    "player tied on the highest card; each gains one token.", examples=[[1]])
    bonuses: list[BonusOut] = Field(description="The bonus tokens given this round (Spy and "
                                                "Princesses bonuses); empty when there are none.")
    tokens_gained: list[int] = Field(description="Per seat: favour tokens gained this round, "
                                                 "win and bonuses together.",
                                     examples=[[0, 2, 0]])
    tokens_after: list[int] = Field(description="Per seat: favour tokens after the round.",
                                    examples=[[0, 4, 1]])
    threshold: int = Field(description="Tokens needed to win with this many players.")
    game_over: bool = Field(description="Whether a seat has reached `threshold`, which ends the "
                                        "game.")
    game_winners: list[int] = Field(description="The seats at or above `threshold`, ascending; "
                                                "empty while the game goes on.")
    next_first_candidates: list[int] = Field(
        description="Who may start the next round: the round's winner, or the tied winners to "
                    "draw one from at random; empty once the game is over.")


class TurnIn(BaseModel):
    """One turn as the table saw it, with the table's answers."""

    model_config = ConfigDict(strict=True, extra="forbid")
    seat: int = Field(description="The seat (0 to players-1) that played the card; it must be "
                                  "that seat's turn.")
    card: int = Field(description="The value played, 0–9.")
    target: int | None = Field(default=None,
                               description="The seat targeted (0 to players-1), if the card "
                                           "takes a target; null otherwise.")
    named: int | None = Field(default=None,
                              description="Garde: the character named, a value 0–9 other than 1; "
                                          "null for any other card.")
    hit: bool | None = Field(default=None,
                             description="Garde: whether the guess was right (the target then "
                                         "leaves the round); null for any other card.")
    loser: int | None = Field(default=None,
                              description="Bibliothécaire: the seat with the lower card, who "
                                          "leaves the round; null on a tie or for any other "
                                          "card.")
    tie: bool = Field(default=False,
                      description="Bibliothécaire: true when the cards were equal and nobody "
                                  "leaves; false otherwise.")
    revealed: int | None = Field(
        default=None, description="The card value (0–9) laid face up by the effect: Vladric's "
                                  "target's hand, the Ogre player's other card, the "
                                  "Bibliothécaire loser's card; null when nothing is revealed.")


class TurnLogRequest(BaseModel):
    """A round's turns, to judge; ``final`` (optional) the cards shown at its end."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra={"examples": [
        {"players": 3, "first": 0, "face_up": [],
         "turns": [{"seat": 0, "card": 4}, {"seat": 1, "card": 1, "target": 0, "named": 5,
                                             "hit": False}]}]})
    players: int = Field(description="Number of players, 2 to 6.", examples=[3])
    first: int = Field(description="The seat (0 to players-1) that started the round.")
    face_up: list[int] = Field(default_factory=list,
                               description="At two players, the values (0–9) of the three cards "
                                           "set aside face up; empty otherwise.")
    turns: list[TurnIn] = Field(description="The round's turns in the order played; judging "
                                            "stops at the first turn the rules refuse.")
    final: list[int | None] | None = Field(
        default=None, description="Per seat, the card value (0–9) shown when the round ended "
                                  "(null for a player out, or for the last player in); omit it "
                                  "or send null while the round goes on.")


class TurnLogProblemOut(BaseModel):
    """Why a turn, or a card shown at the end, is refused."""

    code: str = Field(description="A stable kebab-case code, e.g. `not-your-turn`, "
                                  "`target-protected`.", examples=["target-protected"])
    message: str = Field(description="The problem in an English sentence a player understands.")
    seat: int | None = Field(default=None, description="The seat concerned (0 to players-1); "
                                                        "null when no seat is concerned.")
    card: str | None = Field(default=None, description="The card concerned, its value 0–9 as "
                                                       "text; null when no card is concerned.",
                             examples=["4"])


class FaultOut(TurnLogProblemOut):
    """A mistake a later reveal has proven: it changes nothing in the round (no penalty)."""

    code: str = Field(description="`celeste-not-played` (Céleste kept with a 7 or a 5), "
                                  "`garde-lie` (denied a Garde's right guess), "
                                  "`librarian-wrong` (stayed in with the lower card), "
                                  "`librarian-tie-wrong` (a tie recorded, the cards differed).",
                      examples=["garde-lie"])
    seat: int | None = Field(default=None, description="The seat (0 to players-1) that made the "
                                                       "mistake.")
    turn: int = Field(description="The number of the turn, counted from 1, in which the mistake "
                                  "was made.", examples=[2])


class EndingOut(BaseModel):
    """How the round ended, and who is still in."""

    reason: Literal["last-in", "deck-empty"] = Field(
        description="`last-in` (only one player is still in) or `deck-empty` (the deck ran out: "
                    "the players still in compare their cards).")
    still_in: list[int] = Field(description="The seats still in when the round ended, ascending.")
    spies: list[int] = Field(description="The seats still in with a Claire the Spy (0) in front "
                                         "of them, ascending.")
    princesses: list[int] = Field(description="The seats still in with a Princesses card (6) in "
                                              "front of them, ascending.")


class TurnLogResponse(BaseModel):
    """The judgement of a turn log and the table after its accepted turns."""

    valid: bool = Field(description="Whether every turn was accepted and nothing was refused "
                                    "(the `final` cards included).")
    accepted: int = Field(description="How many turns were accepted.")
    refused_turn: int | None = Field(description="0-based index in `turns` of the first refused "
                                                 "turn; null when no turn was refused.")
    problems: list[TurnLogProblemOut] = Field(
        description="Why the refused turn, or the `final` cards, were refused; empty when "
                    "`valid`.")
    current_seat: int | None = Field(description="The seat whose turn comes next; null once the "
                                                 "round is over.")
    still_in: list[int] = Field(description="The seats still in the round, ascending.")
    protected: list[int] = Field(description="The seats Oliver the Dragon (4) protects now, "
                                             "ascending.")
    deck_count: int = Field(description="Cards left in the draw pile, before the next player "
                                        "draws.")
    unseen: list[int] = Field(description="Ten counts, indexed by card value 0–9: the copies "
                                          "nobody has seen face up yet.")
    round_over: bool = Field(description="Whether the round has ended (see `ending`).")
    ending: EndingOut | None = Field(description="How the round ended and who is still in; null "
                                                 "while it goes on.")
    faults: list[FaultOut] = Field(description="Mistakes proven by later reveals (no penalty).")
    discards: list[list[int]] = Field(description="Per seat, the card values in front of it, in "
                                                  "the order laid down.")
    held: list[int | None] | None = Field(
        description="With `final` on a finished round, per seat the card shown at the end (null "
                    "for a player out), ready to send as `held` to round-end; null without "
                    "`final`, before the round is over, or when a player still in showed no card.")
