"""The web tests use Rebel Princess's factories (a game made through its set-up page, rounds
entered through its forms) for what every game shares: CSRF, languages, links, bad input."""

from __future__ import annotations

from ..rebel_princess.conftest import (  # noqa: F401  (fixtures, found by pytest here too)
    NAMES,
    attr,
    by_numbers,
    cards_data,
    code_of,
    count,
    enter_round_by_cards,
    history,
    make_game,
    numbers_data,
    pad_leader,
    record_ids,
    rows_of,
    setup_form,
    totals,
)
