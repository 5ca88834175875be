"""Every one of the 64 card pairs, with and without a General's +2 on either side, against tables
derived by hand from the rules (KANAI_DUEL.md « Deciding a round » and « Holds and points »), never
from the code under test.

Row = player 0's card, column = player 1's card. Cells, from the row player's side:

- ``W`` the row wins 1, ``W2`` the row wins 2 (its Minister); ``L`` / ``L2`` the column wins 1 / 2;
- ``=`` on hold, worth 1 to each; ``=2.`` on hold, worth 2 to the row (its Minister) and 1 to the
  column; ``=.2`` the other way round; ``=22`` worth 2 to each (two Ministers);
- ``P`` the row's Princess wins the game; ``p`` the column's Princess wins the game.

Derivation notes for the less obvious cells (values: Prince 7, General 6, Wizard 5, Minister 4,
Assassin 3, Spy 2, Princess 1, Clown 0):

- Wizard against anything: the other ability is gone, values decide (Wizard 5 loses to Prince 7 and
  General 6, beats the rest; beats the Clown's plain 0).
- Assassin against General / Minister: the lower wins (3 < 6, 3 < 4); against Spy / Princess the
  Spy / Princess is lower. Prince beats it anyway; a Wizard switches it off.
- Minister wins only by value against Spy and Princess (2 wins each); it loses to the Assassin.
- With +2 (the General of last round): Assassin+2 = 5 against Wizard 5 is on hold (the Wizard does
  not remove the +2); Assassin+2 = 5 against Minister 4: the lower is the Minister, which wins 2;
  Minister+2 = 6 against General 6: on hold, worth 2 to the Minister's player; Spy+2 = 4 against
  Minister 4: on hold, worth 2 to the Minister's player; Princess+2 = 3 against Assassin 3: on hold;
  Wizard+2 = 7 against Prince (cancelled) 7: on hold; Prince+2 = 9 against Prince 7: the +2 wins.
"""

from __future__ import annotations

import pytest

from companion.scoring.kanai_duel import DuelCard, resolve_round

ORDER = ("prince", "general", "wizard", "minister", "assassin", "spy", "princess", "clown")

NO_BONUS = """
           prince  general wizard minister assassin spy  princess clown
prince     =       W       W      W        W        W    p        =
general    L       =       W      W        L        W    W        =
wizard     L       L       =      W        W        W    W        W
minister   L       L       L      =22      L        W2   W2       =
assassin   L       W       L      W        =        L    L        =
spy        L       L       L      L2       W        =    W        =
princess   P       L       L      L2       W        L    =        =
clown      =       =       L      =        =        =    =        =
"""

ROW_PLUS_TWO = """
           prince  general wizard minister assassin spy  princess clown
prince     W       W       W      W        W        W    p        =
general    L       W       W      W        L        W    W        =
wizard     =       W       W      W        W        W    W        W
minister   L       =2.     W      W2       L        W2   W2       =
assassin   L       W       =      L2       L        L    L        =
spy        L       L       L      =.2      L        W    W        =
princess   P       L       L      L2       =        W    W        =
clown      =       =       L      =        =        =    =        =
"""

COLUMN_PLUS_TWO = """
           prince  general wizard minister assassin spy  princess clown
prince     L       W       =      W        W        W    p        =
general    L       L       L      =.2      L        W    W        =
wizard     L       L       L      L        =        W    W        W
minister   L       L       L      L2       W2       =2.  W2       =
assassin   L       W       L      W        W        W    =        =
spy        L       L       L      L2       W        L    L        =
princess   P       L       L      L2       W        L    L        =
clown      =       =       L      =        =        =    =        =
"""

# What carries to the next round (independent of the +2 of this round): ``g`` the row's General
# gives the row +2, ``G`` the column's; ``s`` the row's Spy makes the column reveal first, ``S``
# the column's Spy makes the row reveal first; ``.`` nothing.
NEXT = """
           prince  general wizard minister assassin spy  princess clown
prince     .       G       .      .        .        S    .        .
general    g       gG      .      g        g        gS   g        .
wizard     .       .       .      .        .        .    .        .
minister   .       G       .      .        .        S    .        .
assassin   .       G       .      .        .        S    .        .
spy        s       sG      .      s        s        .    s        .
princess   .       G       .      .        .        S    .        .
clown      .       .       .      .        .        .    .        .
"""


def grid(text: str) -> dict[tuple[str, str], str]:
    """The cells of a hand-written table, by (row card, column card)."""
    lines = text.strip().splitlines()
    header = lines[0].split()
    assert tuple(header) == ORDER
    cells = {}
    for line in lines[1:]:
        row, *values = line.split()
        assert len(values) == 8, row
        cells.update({(row, col): value for col, value in zip(header, values, strict=True)})
    assert len(cells) == 64
    return cells


TABLES = {(0, 0): grid(NO_BONUS), (2, 0): grid(ROW_PLUS_TWO), (0, 2): grid(COLUMN_PLUS_TWO),
          # Both +2: every comparison shifts alike, so the outcomes are those without bonus.
          (2, 2): grid(NO_BONUS)}
NEXT_TABLE = grid(NEXT)


def expected(cell: str) -> dict[str, object]:
    """What a cell says: winner, points of this round (no held rounds), worth if held, game won."""
    if cell in ("P", "p"):
        return {"winner": 0 if cell == "P" else 1, "points": (0, 0), "game_won": True}
    if cell.startswith("="):
        worth = {"=": (1, 1), "=2.": (2, 1), "=.2": (1, 2), "=22": (2, 2)}[cell]
        return {"winner": None, "points": (0, 0), "worth": worth, "game_won": False}
    stake = 2 if cell.endswith("2") else 1
    winner = 0 if cell.startswith("W") else 1
    points = (stake, 0) if winner == 0 else (0, stake)
    return {"winner": winner, "points": points, "game_won": False}


def flip(cell: str) -> str:
    """The same cell read from the column player's side."""
    swap = {"W": "L", "L": "W", "W2": "L2", "L2": "W2", "P": "p", "p": "P", "=": "=",
            "=2.": "=.2", "=.2": "=2.", "=22": "=22"}
    return swap[cell]


CASES = [pytest.param(DuelCard(row), DuelCard(col), bonus, cell,
                      id=f"{row}-{col}-{bonus[0]}{bonus[1]}")
         for bonus, table in TABLES.items() for (row, col), cell in table.items()]


@pytest.mark.parametrize(("row", "col", "bonus", "cell"), CASES)
def test_every_pair_decides_as_the_hand_table_says(row, col, bonus, cell):
    """Each ordered pair of cards, with each +2 combination, gives the hand-derived result."""
    result = resolve_round((row, col), bonus=bonus)
    want = expected(cell)
    assert result.winner == want["winner"]
    assert result.points == want["points"]
    assert result.game_won is want["game_won"]
    if "worth" in want:
        assert result.held and result.worth == want["worth"]
    assert result.values == (row.strength + bonus[0], col.strength + bonus[1])


@pytest.mark.parametrize(("row", "col", "cell"), [
    pytest.param(DuelCard(r), DuelCard(c), cell, id=f"{r}-{c}")
    for (r, c), cell in NEXT_TABLE.items()])
@pytest.mark.parametrize("bonus", [(0, 0), (2, 0), (0, 2)])
def test_every_pair_carries_to_the_next_round_as_the_hand_table_says(row, col, cell, bonus):
    """A standing General gives its player +2 next round and a standing Spy (not met by a Spy) makes
    the opponent reveal first, whatever the +2 of this round."""
    result = resolve_round((row, col), bonus=bonus)
    assert result.next_bonus == (2 if "g" in cell else 0, 2 if "G" in cell else 0)
    assert result.reveals_first == (1 if "s" in cell else 0 if "S" in cell else None)


@pytest.mark.parametrize(("plus", "mirror"), [((0, 0), (0, 0)), ((2, 0), (0, 2)),
                                              ((2, 2), (2, 2))])
def test_hand_tables_agree_with_themselves_when_the_players_swap_seats(plus, mirror):
    """A check on the hand tables (not the code): swapping the players flips every cell."""
    for (row, col), cell in TABLES[plus].items():
        assert TABLES[mirror][(col, row)] == flip(cell), (plus, row, col)
    for (row, col), cell in NEXT_TABLE.items():
        assert sorted(NEXT_TABLE[(col, row)]) == sorted(cell.swapcase()), (row, col)


@pytest.mark.parametrize(("row", "col"), [(DuelCard(r), DuelCard(c)) for r in ORDER for c in ORDER])
def test_swapping_seats_mirrors_every_result_in_the_code(row, col):
    """The resolver favours no seat: swapping the cards (and bonuses) swaps the result."""
    for bonus in ((0, 0), (2, 0), (0, 2), (2, 2)):
        a = resolve_round((row, col), bonus=bonus)
        b = resolve_round((col, row), bonus=(bonus[1], bonus[0]))
        assert (a.winner, b.winner) in ((None, None), (0, 1), (1, 0))
        assert a.points == b.points[::-1] and a.worth == b.worth[::-1]
        assert a.next_bonus == b.next_bonus[::-1]
        assert a.reveals_first == (None if b.reveals_first is None else 1 - b.reveals_first)
