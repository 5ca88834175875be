"""Why a round entry cannot be scored: problems are codes, every one is listed, and each code has a
sentence in ``messages.toml``."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    Edition,
    IncompleteEntryError,
    InvalidValueError,
    RebelCard,
    RoundEntry,
    check_entry,
    message_for,
    princes,
    required_cards,
    score_entry,
    score_round,
)
from companion.scoring.rebel_princess.problems import CATALOGUE

D, C = Edition.DELUXE, Edition.CLASSIC


def codes_of(problems) -> list[str]:
    return [problem.code for problem in problems]


def round_codes(**kwargs) -> list[str]:
    """The problem codes ``score_round`` raises for an entry."""
    kwargs.setdefault("edition", "deluxe")
    kwargs.setdefault("round_card", "a")
    kwargs.setdefault("players", 4)
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(**kwargs)
    return codes_of(caught.value.problems)


def plain_hands(players: int = 4) -> list[list[str]]:
    """Every Prince to seat 0 and the Frog to seat 1: the least a plain round needs."""
    return [[c.code for c in princes(players)], ["A8"]] + [[] for _ in range(players - 2)]


@pytest.mark.parametrize(("edition", "letter", "players", "extra"), [
    (D, "a", 4, set()),
    (D, "d", 4, {"Q3", "F3", "A3"}),
    (D, "j", 3, {f"A{r}" for r in range(2, 11)}),
    (D, "t", 6, {f"F{r}" for r in range(1, 13)}),
    (D, "z", 5, {f"Q{r}" for r in range(1, 11)}),
    (C, "F", 4, {f"A{r}" for r in range(1, 11)}),
    (C, "K", 6, {f"Q{r}" for r in range(1, 13)}),
    (C, "P", 3, {f"F{r}" for r in range(2, 11)}),
    (D, "y", 4, set()), (D, "e", 4, set()), (D, "o", 4, set()), (C, "M", 4, set()),
])
def test_required_cards_are_princes_frog_and_what_the_round_card_counts(
        edition, letter, players, extra):
    """Every Prince and the Frog must be given out, plus every 3 under Three Times a Lady, every
    Pet under Pet's Revenge, every Fairy under Single Fairy and every Queen under Dancing Queens."""
    wanted = {c.code for c in required_cards(edition, letter, players)}
    assert wanted == {c.code for c in princes(players)} | {"A8"} | extra


@pytest.mark.parametrize(("letter", "missing"), [
    ("a", "P7"), ("a", "A8"), ("z", "Q4"), ("j", "A1"), ("t", "F9"), ("d", "Q3"), ("d", "P3"),
])
def test_missing_required_card(letter, missing):
    """A required card nobody took is ``missing-card``, naming the card."""
    hands = [[c.code for c in required_cards(D, letter, 4) if c.code != missing], [], [], []]
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card=letter, players=4, taken=hands, no_tricks=[],
                    totals_before=[0, 0, 0, 0])
    assert [(p.code, p.card) for p in caught.value.problems] == [("missing-card", missing)]


def test_only_required_cards_are_needed():
    """A plain round can be scored from the Princes and the Frog alone."""
    assert score_round(edition="deluxe", round_card="a", players=4,
                       taken=plain_hands()).scores == [10, 5, 0, 0]


def test_card_taken_by_two_seats_is_duplicate():
    """A card given to two seats is ``duplicate-card``, reported on the second seat."""
    hands = plain_hands()
    hands[2] = ["P3"]
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="a", players=4, taken=hands)
    assert [(p.code, p.seat, p.card) for p in caught.value.problems] == [
        ("duplicate-card", 2, "P3")]


def test_card_entered_twice_by_one_seat_is_duplicate():
    """The same code twice in one seat is ``duplicate-card`` too."""
    hands = plain_hands()
    hands[1] = ["A8", "a8"]
    assert round_codes(taken=hands) == ["duplicate-card"]


def test_duplicate_across_seats_in_a_round_entry():
    """``check_entry`` finds a card held by two seats of a built entry."""
    taken = [frozenset(princes(4)) | {RebelCard.from_code("A8")},
             frozenset({RebelCard.from_code("P1")}), frozenset(), frozenset()]
    problems = check_entry(RoundEntry(D, "a", 4, tuple(taken)))
    assert [(p.code, p.seat, p.card) for p in problems] == [("duplicate-card", 1, "P1")]


@pytest.mark.parametrize(("players", "card"), [(4, "P11"), (5, "Q12"), (3, "P1"), (3, "A11")])
def test_card_outside_the_player_counts_deck(players, card):
    """A card removed for this player count (11s and 12s below 6, 1s with 3) is
    ``card-not-in-deck``."""
    hands = plain_hands(players)
    hands[2].append(card)
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="a", players=players, taken=hands)
    assert [(p.code, p.card) for p in caught.value.problems] == [("card-not-in-deck", card)]


def test_card_outside_the_deck_in_a_round_entry():
    """``check_entry`` also reports a card outside the deck."""
    taken = (frozenset(princes(4)) | {RebelCard.from_code("A8"), RebelCard.from_code("P11")},
             frozenset(), frozenset(), frozenset())
    assert codes_of(check_entry(RoundEntry(D, "a", 4, taken))) == ["card-not-in-deck"]


@pytest.mark.parametrize("code", ["X9", "P0", "P13", "", "Frog"])
def test_unknown_card_code(code):
    """A code that is no card at all is ``unknown-card``, with the seat and the text entered."""
    hands = plain_hands()
    hands[3].append(code)
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="a", players=4, taken=hands)
    assert [(p.code, p.seat, p.card) for p in caught.value.problems] == [("unknown-card", 3, code)]


@pytest.mark.parametrize("seats", [3, 5])
def test_wrong_seat_count(seats):
    """Entries for more or fewer seats than players are ``wrong-seat-count``."""
    hands = plain_hands()[:3] + [[] for _ in range(seats - 3)]
    assert "wrong-seat-count" in round_codes(taken=hands)
    entry = RoundEntry(D, "a", 4, tuple(frozenset() for _ in range(seats)))
    assert codes_of(check_entry(entry)) == ["wrong-seat-count"]


def test_arranged_marriage_needs_tricks_won():
    """Arranged Marriage cannot be scored without tricks won or the seats that won none."""
    assert round_codes(round_card="e", taken=plain_hands()) == ["missing-tricks-won"]


def test_arranged_marriage_seat_with_cards_cannot_have_won_no_trick():
    """A seat marked as winning no trick but holding cards is ``cards-without-trick``."""
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="e", players=4, taken=plain_hands(),
                    no_tricks=[1, 2])
    problems = caught.value.problems
    assert [(p.code, p.seat) for p in problems] == [("cards-without-trick", 1)]


def test_arranged_marriage_zero_tricks_won_with_cards():
    """A tricks-won count of 0 for a seat holding cards is ``cards-without-trick``."""
    assert round_codes(round_card="e", taken=plain_hands(),
                       tricks_won=[5, 0, 3, 2]) == ["cards-without-trick"]


@pytest.mark.parametrize("tricks_won", [[5, 5, 0, 1], [3, 1, 0, 0], [10, 1, 0, 0]])
def test_tricks_won_must_add_up_to_the_hand_size(tricks_won):
    """Tricks won add up to the number of tricks in the round (the hand size)."""
    assert round_codes(round_card="e", taken=plain_hands(),
                       tricks_won=tricks_won) == ["tricks-won-total"]


@pytest.mark.parametrize("tricks_won", [[-1, 5, 3, 3], [5.0, 5, 0, 0], [True, 9, 0, 0],
                                        ["5", 5, 0, 0]])
def test_tricks_won_must_be_whole_numbers(tricks_won):
    """Each tricks-won count is a whole number of 0 or more (``bad-tricks-won``)."""
    assert round_codes(round_card="e", taken=plain_hands(),
                       tricks_won=tricks_won) == ["bad-tricks-won"]


def test_tricks_won_for_wrong_number_of_seats():
    """One tricks-won count per seat."""
    assert round_codes(round_card="e", taken=plain_hands(),
                       tricks_won=[5, 5]) == ["wrong-seat-count"]


def test_more_cards_than_tricks_won_can_hold():
    """A seat cannot hold more cards than its tricks won times the player count."""
    assert round_codes(round_card="e", taken=plain_hands(),
                       tricks_won=[2, 1, 4, 3]) == ["too-many-cards"]


def test_bathroom_break_needs_totals_before():
    """Bathroom Break cannot be scored without each seat's total before the round."""
    assert round_codes(round_card="y", taken=plain_hands()) == ["missing-totals-before"]
    assert round_codes(edition="classic", round_card="O",
                       taken=plain_hands()) == ["missing-totals-before"]


def test_bathroom_break_totals_before_for_every_seat():
    """Bathroom Break needs one total per seat."""
    assert round_codes(round_card="y", taken=plain_hands(),
                       totals_before=[1, 2]) == ["wrong-seat-count"]


def test_bathroom_break_totals_before_must_be_whole_numbers():
    """Totals before the round are whole numbers."""
    assert round_codes(round_card="y", taken=plain_hands(),
                       totals_before=[1, 2, "x", 0]) == ["missing-totals-before"]


def test_every_problem_is_listed_not_just_the_first():
    """An entry with several problems lists them all."""
    entry = RoundEntry(D, "e", 4, (frozenset(princes(4)), frozenset({RebelCard.from_code("P1")}),
                                   frozenset(), frozenset()))
    assert codes_of(check_entry(entry)) == ["duplicate-card", "missing-card", "missing-tricks-won"]
    with pytest.raises(IncompleteEntryError) as caught:
        score_entry(entry)
    assert codes_of(caught.value.problems) == codes_of(check_entry(entry))


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"edition": "french"}, "unknown-edition"),
    ({"round_card": "V", "edition": "classic"}, "unknown-round-card"),
    ({"players": 7}, "bad-player-count"),
])
def test_bad_edition_round_card_or_player_count(kwargs, code):
    """A bad edition, Round card or player count raises ``InvalidValueError`` with its code."""
    args = {"edition": "deluxe", "round_card": "a", "players": 4, "taken": plain_hands()} | kwargs
    with pytest.raises(InvalidValueError) as caught:
        score_round(**args)
    assert caught.value.problem.code == code


@pytest.mark.parametrize("code", sorted(CATALOGUE.codes()))
def test_every_problem_code_has_a_sentence(code):
    """Every problem code has its own sentence, filled without leftover braces."""
    text = message_for(code, seat=0, card="P1", value="x", expected=5, got=4, tricks=1, players=4,
                       number=2)
    assert "{" not in text and "(" + code + ")" not in text


def test_problem_codes_raised_here_all_have_sentences():
    """Every code the scoring core raises is listed in messages.toml."""
    raised = {"unknown-card", "card-not-in-deck", "duplicate-card", "missing-card",
              "bad-player-count", "unknown-edition", "unknown-round-card", "wrong-seat-count",
              "missing-tricks-won", "bad-tricks-won", "tricks-won-total", "cards-without-trick",
              "too-many-cards", "missing-totals-before", "bad-score", "impossible-round-total",
              "too-many-rounds", "wrong-round-count", "no-rounds", "playoffs-classic",
              "bad-leader", "counts-not-enough", "bad-counts", "missing-prince-count",
              "bad-prince-count", "princes-total"}
    assert raised <= set(CATALOGUE.codes())


def test_a_mistyped_card_also_reports_the_card_left_missing():
    """A code that is not a card (P1O typed for P10) is reported, and so is the missing P10."""
    taken = [["P1", "P2", "P3", "A8"], ["P4", "P5", "P6"], ["P7", "P8"], ["P9", "P1O"]]
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="a", players=4, taken=taken)
    found = {(p.code, p.card) for p in caught.value.problems}
    assert found == {("unknown-card", "P1O"), ("missing-card", "P10")}


def test_a_bad_card_and_missing_tricks_won_are_reported_together():
    """Under Arranged Marriage an unknown card and the missing tricks won are both reported."""
    taken = [["P1", "P2", "P3", "A8", "X9"], ["P4", "P5", "P6"], ["P7", "P8"], ["P9", "P10"]]
    with pytest.raises(IncompleteEntryError) as caught:
        score_round(edition="deluxe", round_card="e", players=4, taken=taken)
    assert {p.code for p in caught.value.problems} == {"unknown-card", "missing-tricks-won"}
