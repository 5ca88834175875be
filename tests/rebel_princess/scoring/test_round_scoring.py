"""Scoring one round: every Round card, with exact numbers.

Deluxe "Scoring Marriage Proposals", "Rebel of the Ball" and Round cards d, e, j, n, o, t, y, z;
French "Demandes en mariage" and cards F, K, M, O, P; RULINGS.md "Scoring a round".
"""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    Edition,
    RebelCard,
    RoundEntry,
    RoundScore,
    deck,
    princes,
    required_cards,
    round_card,
    round_cards,
    score_entry,
    score_round,
    score_so_far,
)

D, C = Edition.DELUXE, Edition.CLASSIC
ALL_CARDS = [(edition, card.letter) for edition in Edition for card in round_cards(edition)]


def cards(text: str) -> frozenset[RebelCard]:
    return frozenset(RebelCard.from_code(code) for code in text.split())


def make_entry(edition: Edition, letter: str, players: int, seats: list[str], *,
               dump: int | None = None, no_tricks: set[int] | None = None,
               totals_before: tuple[int, ...] | None = None) -> RoundEntry:
    """An entry from card codes per seat; required cards nobody has go to seat ``dump``."""
    taken = [set(cards(text)) for text in seats] + [set() for _ in range(players - len(seats))]
    if dump is not None:
        given = set().union(*taken)
        for card in required_cards(edition, letter, players):
            if card not in given:
                taken[dump].add(card)
    return RoundEntry(edition, letter, players, tuple(frozenset(t) for t in taken),
                      frozenset(no_tricks) if no_tricks is not None else None, totals_before)


def scored(entry: RoundEntry) -> RoundScore:
    """Score an entry and check the invariant: every seat's points are the sum of its lines."""
    result = score_entry(entry)
    assert [s.seat for s in result.seats] == list(range(entry.players))
    for seat in result.seats:
        assert seat.points == sum(line.points for line in seat.lines)
    return result


# The whole 4-player deck, dealt once and scored under every Round card of both editions.
FULL_DEAL = [
    "P1 P2 P3 P4 P5 A8 Q3 F2 A2 Q1",
    "P6 P7 P8 P9 P10 Q6 F6 A6 Q7 F3",
    "Q2 Q4 Q5 Q8 Q9 Q10 F1 F4 F5 A1",
    "F7 F8 F9 F10 A3 A4 A5 A7 A9 A10",
]
FULL_DEAL_TOTALS_BEFORE = (10, 4, 10, 0)  # seats 0 and 2 share the highest total
PLAIN = [10, 5, 0, 0]
FULL_DEAL_SCORES = {
    (D, "d"): [4, 2, 0, -3],  # 3s: P3 and Q3 (-6), F3 (-3), A3 (-3)
    (D, "j"): [12, 6, 1, 6], (C, "F"): [12, 6, 1, 6],  # every Pet +1, the Frog 6
    (D, "t"): [9, 3, -3, -4], (C, "P"): [9, 3, -3, -4],  # every Fairy -1
    (D, "y"): [10, 10, 0, 0], (C, "O"): [10, 10, 0, 0],  # seat 1 doubled, 0 and 2 exempt
    (D, "z"): [14, 9, 0, 0], (C, "K"): [14, 9, 0, 0],  # two same-rank couples each
}


def test_full_deal_uses_the_whole_deck():
    """The shared deal gives every card of the 4-player deck to exactly one seat."""
    dealt = [card for text in FULL_DEAL for card in cards(text)]
    assert sorted(dealt) == sorted(deck(4))


@pytest.mark.parametrize(("edition", "letter"), ALL_CARDS)
def test_only_scoring_round_cards_change_the_count(edition, letter):
    """Princes 1 and the Frog 5 under every Round card except those that change scoring."""
    entry = make_entry(edition, letter, 4, FULL_DEAL, no_tricks=set(),
                       totals_before=FULL_DEAL_TOTALS_BEFORE)
    assert scored(entry).scores == FULL_DEAL_SCORES.get((edition, letter), PLAIN)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_prince_scores_one_and_frog_five(players):
    """Each Prince taken scores 1 and the Frog 5; other cards score nothing."""
    ps = [c.code for c in princes(players)]
    entry = make_entry(D, "a", players, [" ".join(ps[:2]), " ".join(ps[2:]), "A8 Q5 F5 A5"])
    assert scored(entry).scores[:3] == [2, len(ps) - 2, 5]
    assert sum(scored(entry).scores) == len(ps) + 5


# --- Three Times a Lady (Deluxe d) ------------------------------------------------------------

@pytest.mark.parametrize(("taken", "points"), [
    ("P3", -2), ("Q3", -3), ("F3", -3), ("A3", -3), ("P3 Q3 F3 A3", -11), ("P3 P4 A8", 4),
    ("Q3 F3", -6), ("Q4", 0),
])
def test_three_times_a_lady_every_three_is_minus_three(taken, points):
    """Under Three Times a Lady every 3 scores -3, so the Prince 3 nets -2; scores may be
    negative."""
    entry = make_entry(D, "d", 4, [taken], dump=1)
    assert scored(entry).scores[0] == points


def test_three_times_a_lady_rebel_of_the_ball_stays_minus_ten_with_threes():
    """The Rebel of the Ball scores -10 even when also holding 3s under Three Times a Lady."""
    everything = " ".join(c.code for c in princes(4)) + " A8 Q3 F3 A3"
    result = scored(make_entry(D, "d", 4, [everything], dump=1))
    assert result.scores == [-10, 0, 0, 0]
    assert result.rebels == [0]
    assert [line.rule for line in result.seats[0].lines] == ["rebel-of-the-ball"]


# --- Arranged Marriage (Deluxe e) -------------------------------------------------------------

def test_arranged_marriage_adds_five_per_seat_without_a_trick_via_no_tricks():
    """Under Arranged Marriage each player who won no trick scores +5."""
    entry = make_entry(D, "e", 4, ["P1 P2 P3 A8", "P4 P5 P6 P7 P8 P9 P10"], no_tricks={2, 3})
    assert scored(entry).scores == [8, 7, 5, 5]


def test_arranged_marriage_via_tricks_won():
    """Tricks won per seat give the seats with none, each of which scores +5."""
    result = score_round(edition="deluxe", round_card="e", players=4,
                         taken=[["P1", "P2", "A8"], ["P3", "P4", "P5", "P6", "P7", "P8", "P9",
                                                     "P10"], [], []],
                         tricks_won=[4, 6, 0, 0])
    assert result.scores == [7, 8, 5, 5]


def test_arranged_marriage_adds_nothing_when_every_seat_won_a_trick():
    """With every seat winning a trick, Arranged Marriage adds nothing."""
    result = score_round(edition="deluxe", round_card="e", players=3,
                         taken=[["P2", "A8"], ["P3", "P4"], ["P5", "P6", "P7", "P8", "P9", "P10"]],
                         tricks_won=[4, 4, 4])
    assert result.scores == [6, 2, 6]


def test_arranged_marriage_bonus_adds_to_the_rebel_others_only():
    """A Rebel of the Ball scores -10 while each player without a trick still gets +5."""
    everything = " ".join(c.code for c in princes(5)) + " A8"
    entry = make_entry(D, "e", 5, [everything, "Q1"], no_tricks={2, 3, 4})
    assert scored(entry).scores == [-10, 0, 5, 5, 5]


@pytest.mark.parametrize("letter", ["a", "d", "j", "y", "z"])
def test_no_trick_bonus_only_under_arranged_marriage(letter):
    """Winning no trick scores nothing extra under any other Round card."""
    entry = make_entry(D, letter, 4, ["Q1"], dump=1, no_tricks={2, 3},
                       totals_before=(0, 0, 0, 0))
    assert scored(entry).scores[2:] == [0, 0]


# --- Pet's Revenge (Deluxe j, classic F) ------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [(D, "j"), (C, "F")])
@pytest.mark.parametrize(("taken", "points"), [
    ("A8", 6), ("A1", 1), ("A2 A10", 2), ("P1 A8 A9", 8), ("Q1 F1", 0),
])
def test_pets_revenge_every_pet_scores_one_and_the_frog_six(edition, letter, taken, points):
    """Under Pet's Revenge every Pet scores 1 more, so the Frog is worth 6."""
    entry = make_entry(edition, letter, 4, [taken], dump=1)
    assert scored(entry).scores[0] == points


# --- Single Fairy (Deluxe t, classic P) -------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [(D, "t"), (C, "P")])
@pytest.mark.parametrize(("taken", "points"), [
    ("F1", -1), ("F1 F2 F3", -3), ("P1 F1", 0), ("P1 P2 F1", 1), ("A8 F1 F2 F3 F4 F5 F6", -1),
])
def test_single_fairy_every_fairy_scores_minus_one(edition, letter, taken, points):
    """Under Single Fairy every Fairy taken scores -1; a round score may be negative."""
    entry = make_entry(edition, letter, 4, [taken], dump=1)
    assert scored(entry).scores[0] == points


# --- Bathroom Break (Deluxe y, classic O) -----------------------------------------------------

@pytest.mark.parametrize("edition, letter", [(D, "y"), (C, "O")])
@pytest.mark.parametrize(("totals_before", "expected"), [
    ((12, 7, 12, 3), [3, 6, 3, 7]),  # seats 0 and 2 share the highest total: not doubled
    ((7, 12, 3, 0), [6, 3, 6, 7]),  # seat 1 alone has the highest
    ((0, 0, 0, 0), [3, 3, 3, 6]),  # first round: everyone tied, nothing doubled
    ((5, 5, 5, 5), [3, 3, 3, 6]),  # everyone tied later on: nothing doubled
    ((-10, -10, -20, -15), [3, 3, 6, 7]),  # the highest may be negative
])
def test_bathroom_break_doubles_princes_except_for_the_highest_total(
        edition, letter, totals_before, expected):
    """Under Bathroom Break Princes score 2, except for every seat tied at the highest total before
    the round; the Frog stays 5."""
    entry = make_entry(edition, letter, 4, ["P1 P2 P3", "P4 P5 P6", "P7 P8 P9", "P10 A8"],
                       totals_before=totals_before)
    assert scored(entry).scores == expected


def test_bathroom_break_frog_stays_five():
    """Bathroom Break doubles Princes only: a doubled seat's Frog still scores 5."""
    entry = make_entry(D, "y", 3, ["A8", "", ""], dump=2, totals_before=(0, 0, 1))
    assert scored(entry).scores[0] == 5


def test_bathroom_break_lines_name_the_doubling():
    """Doubled and exempt Princes are told apart in the score lines."""
    entry = make_entry(D, "y", 4, ["P1 P2", "P3"], dump=2, totals_before=(9, 1, 1, 1))
    result = scored(entry)
    assert [(line.rule, line.count, line.points) for line in result.seats[0].lines] == [
        ("prince-highest-total", 2, 2)]
    assert [(line.rule, line.count, line.points) for line in result.seats[1].lines] == [
        ("prince-doubled", 1, 2)]


# --- Dancing Queens (Deluxe z, classic K) -----------------------------------------------------

@pytest.mark.parametrize("edition, letter", [(D, "z"), (C, "K")])
@pytest.mark.parametrize(("taken", "points"), [
    ("P2 P7 P9 Q2 Q5", 6),  # RULINGS.md example: 3 + 2 + 1
    ("P2 P3 Q3 Q9", 5),  # same-rank couple first: 3 + 2, not 2 + 2
    ("P3 Q3", 3),
    ("P3 Q4", 2),
    ("P1 P2", 2),
    ("Q1 Q2 Q3", 0),  # lone Queens score nothing
    ("P1 Q2 Q3", 2),
    ("P1 P2 P3 Q1 Q2 Q4 Q5", 8),  # 3 + 3 + 2
    ("P1 Q1 A8", 8),  # the Frog is added as usual
    ("A8 Q5", 5),
    ("F1 A1", 0),
])
def test_dancing_queens_couples(edition, letter, taken, points):
    """Same-rank Prince-Queen couples form first (3), then other couples (2); a lone Prince scores
    1, a lone Queen 0, and the Frog 5."""
    entry = make_entry(edition, letter, 4, [taken], dump=1)
    assert scored(entry).scores[0] == points


def test_dancing_queens_lines():
    """Dancing Queens lines count same-rank couples, other couples, lone Princes and lone Queens."""
    entry = make_entry(D, "z", 4, ["P2 P7 P9 Q2 Q5 Q8 Q10"], dump=1)
    lines = [(line.rule, line.count, line.points) for line in scored(entry).seats[0].lines]
    assert lines == [("same-rank-couple", 1, 3), ("mixed-couple", 2, 4), ("lone-queen", 1, 0)]


# --- Wedding Gift (Deluxe o, classic M) and kept cards (Deluxe n) -----------------------------

@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_wedding_gift_has_no_rebel_of_the_ball(players):
    """Under Wedding Gift a player with every Prince and the Frog scores them normally."""
    everything = " ".join(c.code for c in princes(players)) + " A8 Q2"
    result = scored(make_entry(D, "o", players, [everything]))
    assert result.scores[0] == len(princes(players)) + 5
    assert result.rebels == []


def test_kept_cards_score_as_taken():
    """Under Late for a Very Important Date the kept cards are entered as taken and count
    plainly."""
    entry = make_entry(D, "n", 4, ["P1 P2 A8 Q3", "P3"], dump=2)
    assert scored(entry).scores[:2] == [7, 1]


def test_kept_cards_can_make_a_rebel_of_the_ball():
    """Kept cards count as taken, so they can complete a Rebel of the Ball."""
    everything = " ".join(c.code for c in princes(4)) + " A8"
    assert scored(make_entry(D, "n", 4, [everything])).scores == [-10, 0, 0, 0]


# --- Rebel of the Ball (Deluxe only) ----------------------------------------------------------

@pytest.mark.parametrize("letter", [c.letter for c in round_cards(D) if c.letter != "o"])
@pytest.mark.parametrize("players", [3, 6])
def test_rebel_of_the_ball_scores_minus_ten_under_every_deluxe_card(letter, players):
    """A player who took every Prince and the Frog scores exactly -10, whatever the Round card and
    whatever else they took (Wedding Gift excepted); the others score normally."""
    everything = [c.code for c in princes(players)] + ["A8", "Q3", "F3", "A3", "Q4", "F4"]
    entry = make_entry(D, letter, players, [" ".join(everything), "Q5 F5 A5"], dump=2,
                       no_tricks=set(), totals_before=tuple(range(players)))
    result = scored(entry)
    assert result.scores[0] == -10
    assert result.seats[0].rebel and result.rebels == [0]
    expected_seat_1 = {"j": 1, "t": -1}.get(letter, 0)
    assert result.scores[1] == expected_seat_1


def test_rebel_of_the_ball_needs_the_frog():
    """Every Prince without the Frog is no Rebel of the Ball: the Princes count normally."""
    everything = " ".join(c.code for c in princes(4))
    assert scored(make_entry(D, "a", 4, [everything, "A8"])).scores == [10, 5, 0, 0]


@pytest.mark.parametrize("letter", [c.letter for c in round_cards(C)])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_classic_has_no_rebel_of_the_ball(letter, players):
    """The classic edition has no Rebel of the Ball: every Prince and the Frog never make -10."""
    everything = " ".join(c.code for c in princes(players)) + " A8"
    entry = make_entry(C, letter, players, [everything], dump=1,
                       totals_before=tuple([0] * players))
    result = scored(entry)
    assert result.rebels == []
    assert not result.seats[0].rebel
    if round_card(C, letter).scoring.value == "plain":
        assert result.scores[0] == len(princes(players)) + 5


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_classic_once_upon_a_time_all_princes_and_frog_score_p_plus_five(players):
    """Classic A: the player holding every Prince and the Frog scores P + 5."""
    everything = " ".join(c.code for c in princes(players)) + " A8"
    assert scored(make_entry(C, "A", players, [everything])).scores[0] == len(princes(players)) + 5


def test_score_round_accepts_codes_and_edition_names():
    """``score_round`` takes the edition by name, the letter in any case and card codes."""
    result = score_round(edition="Deluxe", round_card="A", players=3,
                         taken=[["p2", " a8 "], ["P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10"],
                                []])
    assert result.scores == [6, 8, 0]


def test_score_so_far_scores_a_partial_entry_like_a_full_one():
    """The live tally scores the cards given out so far with the same rules, without requiring
    every card; on a complete entry it equals the final score."""
    partial = make_entry(D, "z", 4, ["P2 P7 P9 Q2 Q5", "A8"])
    assert score_so_far(partial).scores == [6, 5, 0, 0]
    full = make_entry(D, "z", 4, FULL_DEAL)
    assert score_so_far(full) == scored(full)
