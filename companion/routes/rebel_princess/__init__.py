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

from ...games import GamePages, RulingsAddresses
from ...history import GameSummary
from ...models import Game
from ...rulings import rebel_princess as rulings
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


PAGES = GamePages(bp=bp, api_bp=api_bp, operations=OPERATIONS, home_view=home_view,
                  old_addresses=OLD_ADDRESSES, rulings_addresses=rulings_addresses)
"""What the shell mounts and calls of this game (:class:`companion.games.GamePages`)."""
