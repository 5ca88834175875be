"""Glue for "Enter tricks": a round tapped in card by card, judged as it goes, then scored.

One :class:`~companion.models.TrickLog` row per game and round holds what was tapped: the cards in
the order they hit the table, the Princess powers announced (with the number of cards played
before), the rule breaches the players accepted, the game's rule-check switch and a version.
Seats are never stored: the app decides whose turn it is (the first leader, then clockwise; the
winner of a trick leads the next), so a card can never be entered for the wrong seat, and fixing
an earlier card re-derives every later seat and winner.

Rows never enter the engine, and a tap replays nothing: :func:`open_round` reads the row once and
brings the round's one judge, :class:`~companion.scoring.rebel_princess.engine.TableRound`, to it
(taken from a small per-process cache and moved only by the entries that differ: usually one
card), and the screen is drawn from that judge's queries (:class:`Board`). Every command checks
its change on the same judge before storing it (:meth:`TrickEntry.apply`), then stores it with
one conditional update. :func:`confirm` hands the cards each seat took to
:func:`companion.play.rebel_princess.save_round`, which checks the whole game again. Commands
raise :class:`TrickRejected` (with a stable ``code``) and store nothing then.

What each power needs, when it acts and what limits it are read from its declaration
(:class:`~companion.scoring.rebel_princess.engine.Power`).
"""

from .board import (
    CATALOGUE,
    CHAIRS,
    HAGGLE,
    SUITS,
    Board,
    PlayedCard,
    PowerNote,
    TrickRejected,
    TrickView,
)
from .card_picks import GridPick, Slot, parse_cards, pick_for
from .commands import (
    accept,
    chairs,
    confirm,
    fix_card,
    haggle,
    play_card,
    preview,
    set_validation,
    undo,
    use_power,
)
from .judges import (
    JUDGES,
    VIEWS,
    TrickEntry,
    acts_after,
    board_of,
    events_of,
    game_view,
    get_log,
    is_supported,
    open_round,
    trick_size,
)

__all__ = [
    "CATALOGUE", "CHAIRS", "HAGGLE", "JUDGES", "SUITS", "VIEWS", "Board", "GridPick", "PlayedCard",
    "PowerNote", "Slot", "TrickEntry", "TrickRejected", "TrickView", "accept", "acts_after",
    "board_of", "chairs", "confirm", "events_of", "fix_card", "game_view", "get_log", "haggle",
    "is_supported", "open_round", "parse_cards", "pick_for", "play_card", "preview",
    "set_validation", "trick_size", "undo", "use_power",
]
