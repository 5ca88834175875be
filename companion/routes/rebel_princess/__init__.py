"""Rebel Princess's blueprints: the phone pages under ``/rebel-princess/`` (set-up, score pad,
round entry, trick entry, rulings) and the JSON API under ``/api/v1/rebel-princess/``, both
mounted there by the shell from the registry.

Before the game shell, a game's pages lived at the root (``/g/<code>…``): those addresses
(:data:`OLD_ADDRESSES`) redirect to the same pages under ``/rebel-princess/``, so stored links,
QR codes and pages left open keep working.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import url_for
from sqlmodel import Session

from ...history import N_, Fact, GameSummary
from ...models import Game
from ...play import rebel_princess as play
from ...rulings import rebel_princess as rulings
from ...scoring.rebel_princess import RebelGameState
from ..shell import RulingsAddresses
from . import api, pages, rounds, trick_pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS
OLD_ADDRESSES = ("/g/",)
"""A game's pages were at ``/g/<code>…`` before the shell; they redirect (see the docstring)."""


@dataclass(frozen=True)
class RebelHome:
    """What the home page shows of a game: ``status`` (finished, playoff: a play-off round is
    due, playing), the winners, the rounds played and planned."""

    status: str
    winners: tuple[int, ...]
    rounds: int
    planned: int


def home_view(game: Game, summary: GameSummary) -> RebelHome:
    """What the home page shows of a game, from its stored summary (no replay): a game not
    finished after its planned rounds awaits a play-off round (a tie for the win)."""
    planned, played = len(game.round_cards or ""), len(summary.progress)
    status = "finished" if summary.finished else "playoff" if played >= planned else "playing"
    return RebelHome(status, summary.winners, played, planned)


def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: the totals (lowest wins), round by
    round, and how often each player was Rebel of the Ball (rounds entered by cards only) or
    scored exactly zero in a round."""
    return summary_from(game, play.view_game(session, game).state)


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
            Fact("rounds-at-zero", N_("Rounds at zero"),
                 tuple(sum(r.scores[seat] == 0 for r in state.rounds) for seat in range(seats))),
        ),
        first=state.setup.first_leader)
EDITION_NOTES = {"deluxe": "Deluxe", "classic": "Rebelles"}


def rulings_addresses(lang: str = "en") -> RulingsAddresses:
    """This game's own rulings pages, for a phone's offline copy, with their search index in
    ``lang``; a Round card's "How this card works" link redirects to its entry."""
    entries = rulings.entries()
    index = url_for("rebel_princess.rules_index")
    addresses = (index, *(url_for("rebel_princess.rule", slug=e.slug) for e in entries))
    aliases = {url_for("rebel_princess.round_card_help", edition=e.edition, letter=e.letter):
               url_for("rebel_princess.rule", slug=e.slug)
               for e in entries if e.kind == "round-card" and e.edition and e.letter}
    rows = tuple(
        (url_for("rebel_princess.rule", slug=e.slug),
         (f"{e.letter} · " if e.letter else "") + e.name(lang),
         EDITION_NOTES.get(e.edition or "", ""), e.summary(lang), e.edition or "",
         *rulings.search_terms(e.slug).as_row()) for e in entries)
    return RulingsAddresses(addresses, aliases, {index: rows}, weigh_summary=(index,))
