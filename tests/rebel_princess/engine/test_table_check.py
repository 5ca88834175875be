"""companion.scoring.rebel_princess.table_check: tricks entered at the table, judged by the
engine's TableRound and scored by the core."""

from __future__ import annotations

import random

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.rebel_princess import parse_edition, score_entry
from companion.scoring.rebel_princess.engine import (
    Edition,
    Gift,
    Haggle,
    PowerUse,
    RoundState,
    Trick,
    ViolationCode,
    power_slugs,
)
from companion.scoring.rebel_princess.engine.errors import CATALOGUES
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random_round
from companion.scoring.rebel_princess.table_check import (
    PlayInput,
    PowerInput,
    StepInput,
    TrickInput,
    check_round,
)


def trick(leader, codes, players, powers=(), steps=()):
    """A trick led by ``leader`` with the cards in ``codes`` (space separated), clockwise."""
    plays = tuple(PlayInput((leader + i) % players, code) for i, code in enumerate(codes.split()))
    return TrickInput(plays, tuple(powers), tuple(steps))


def check(players, *tricks, edition="deluxe", round_card="a", leader=0, **extra):
    return check_round(edition=edition, round_card=round_card, players=players, leader=leader,
                       tricks=list(tricks), **extra)


def refused(players, *tricks, **extra):
    with pytest.raises(EntryError) as info:
        check(players, *tricks, **extra)
    return [problem.code for problem in info.value.problems]


def found(result):
    return [(v.trick, v.params["proven_in"], v.code, v.seat) for v in result.violations]


def legal_round(players, round_card, seed):
    """A random legal round (full information) and its tricks as entered at the table."""
    rng = random.Random(seed)
    state = RoundState.deal(players, round_card=round_card, rng=rng)
    while not state.is_over():
        state.push_card(rng.choice(sorted(state.legal_plays(), key=str)))
    tricks = [TrickInput(tuple(PlayInput(seat, str(card)) for seat, card in t.plays(players)))
              for t in state.tricks]
    return state, tricks


def test_rulebook_six_player_trick():
    """Deluxe p. 10: Q3 Q7 P12 F9 A8 Q4 - Jay (seat 1) wins and the Princes snuck in."""
    result = check(6, trick(0, "Q3 Q7 P12 F9 A8 Q4", 6))
    assert (result.tricks[0].winner, result.tricks[0].princes_in) == (1, True)
    assert result.legal and not result.complete and result.next_seat == 1
    assert result.taken[1] == ("P12", "Q3", "Q4", "Q7", "F9", "A8")
    assert result.tricks_won == (0, 1, 0, 0, 0, 0)


@pytest.mark.parametrize("seed", range(4))
def test_whole_legal_round_scores_like_the_core(seed):
    """A legal 4-player round of Once Upon a Time: complete, legal, the core's scores."""
    state, tricks = legal_round(4, "a", seed)
    result = check(4, *tricks)
    assert result.complete and result.legal and result.next_seat is None
    assert result.scores == score_entry(state.outcome().to_entry()).scores
    assert result.tricks_won == state.outcome().tricks_won


def test_revoke_is_proven_by_a_later_trick():
    """Seat 1 showed void in Queens, then plays a Queen: the breach is in trick 0, proven in 2."""
    result = check(3, trick(0, "Q3 F7 Q9", 3), trick(2, "A5 A2 A3", 3),
                   trick(2, "F2 F4 Q5", 3))
    assert found(result) == [(0, 2, "must-follow-suit", 1)]
    assert not result.legal
    assert result.violations[0].message.startswith("Player 2 played the 7 of Fairies")


def test_revoke_proven_by_an_unfinished_trick():
    """The evidence may be a card of the trick in progress."""
    result = check(3, trick(0, "Q3 F7 Q9", 3), trick(2, "A5 A2 A3", 3), trick(2, "F2", 3),
                   )
    assert result.legal
    result = check(3, trick(0, "Q3 F7 Q9", 3), trick(2, "A5 A2 A3", 3),
                   TrickInput((PlayInput(2, "F2"), PlayInput(0, "F4"), PlayInput(1, "Q5"))))
    assert found(result) == [(0, 2, "must-follow-suit", 1)]


def test_prince_led_early_by_a_leader_who_later_shows_another_suit():
    """Princes led before they snuck in, by a leader who held other cards."""
    result = check(3, trick(0, "P5 P3 P9", 3), trick(2, "Q4 Q2 Q3", 3),
                   trick(2, "A2 A3 A4", 3))
    assert ("princes-not-invited", 0) in [(v.code, v.seat) for v in result.violations]


def test_unfinished_round_says_who_plays_next():
    result = check(4, trick(0, "Q3 Q7 Q9 Q1", 4), trick(2, "F2 F4", 4))
    assert [t.winner for t in result.tricks] == [2, None]
    assert not result.complete and result.next_seat == 0 and result.scores is None


def test_no_plays_yet_in_the_next_trick():
    result = check(4, trick(0, "Q3 Q7 Q9 Q1", 4), TrickInput(()))
    assert result.next_seat == 2 and [t.winner for t in result.tricks] == [2, None]


@pytest.mark.parametrize(("tricks", "code"), [
    ([trick(1, "Q3 Q7 Q9", 3)], "wrong-leader"),
    ([TrickInput((PlayInput(0, "Q3"), PlayInput(2, "Q7"), PlayInput(1, "Q9")))], "not-your-turn"),
    ([trick(0, "Q3 Q7 Q9", 3), trick(2, "Q3 A2 A3", 3)], "card-already-played"),
    ([trick(0, "Q3 Q7 Q3", 3)], "duplicate-card"),
    ([trick(0, "Q3 Q7 Q12", 3)], "card-not-in-deck"),
    ([trick(0, "Q3 Q7 X9", 3)], "unknown-card"),
    ([TrickInput((PlayInput(0, "Q3"), PlayInput(7, "Q7")))], "unknown-seat"),
    ([trick(0, "Q3 Q7 Q9 Q4", 3)], "wrong-card-count"),
    ([trick(0, "Q3 Q7", 3), trick(1, "A2 A3 A4", 3)], "trick-not-finished"),
    ([trick(0, "Q3 Q7 Q9", 3, [PowerInput("frog-prince", 0)])], "unknown-power"),
    ([trick(0, "Q3 Q7 Q9", 3, [PowerInput("mulan", 0)])], "power-not-in-play"),
    ([trick(0, "Q3 Q7 Q9", 3, [PowerInput("cinderella", 1)])], "power-not-in-play"),
    ([trick(0, "Q3 Q7 Q9", 3, [PowerInput("cinderella", 0)]),
      trick(2, "A2 A3 A4", 3, [PowerInput("cinderella", 0)])], "power-already-used"),
    ([trick(0, "Q3 Q7 Q9", 3, [PowerInput("ice-princess", 2)])], "bad-power-argument"),
])
def test_malformed_entries_raise_with_codes(tricks, code):
    princesses = {0: "cinderella", 2: "ice-princess"}
    assert code in refused(3, *tricks, princesses=princesses)


@pytest.mark.parametrize(("changes", "code"), [
    ({"players": 7}, "bad-player-count"),
    ({"edition": "base"}, "unknown-edition"),
    ({"round_card": "7"}, "unknown-round-card"),
    ({"leader": 3}, "bad-leader"),
    ({"princesses": {5: "alice"}}, "unknown-seat"),
    ({"princesses": {0: "alice", 1: "alice"}}, "duplicate-princess"),
    ({"princesses": {0: "rapunzel"}, "edition": "classic", "round_card": "A"}, "unknown-power"),
    ({"totals_before": [1, 2]}, "wrong-seat-count"),
])
def test_setup_problems(changes, code):
    body = {"edition": "deluxe", "round_card": "a", "players": 3, "leader": 0,
            "tricks": [], **changes}
    with pytest.raises(EntryError) as info:
        check_round(**body)
    assert code in [p.code for p in info.value.problems]


def test_every_problem_of_the_trick_is_listed():
    codes = refused(3, trick(0, "Q3 Q7 Q9", 3), trick(2, "Q3 X2 P11", 3))
    assert codes == ["card-already-played", "unknown-card", "card-not-in-deck"]


def test_royal_decree_winner_is_decided_at_once():
    """Royal Decree (f): Queens are trump."""
    assert check(3, trick(0, "F5 Q2 F9", 3), round_card="f").tricks[0].winner == 1


def test_magic_beans_breach_is_proven_later():
    """Magic Beans (c): seat 0 led Q5 while holding Q3 and Q7, seen later."""
    result = check(3, trick(0, "Q5 Q2 Q4", 3), trick(0, "Q3 A2 A3", 3),
                   trick(0, "Q7 A4 A5", 3), round_card="c")
    assert (0, "must-play-highest-or-lowest", 0) in [(v.trick, v.code, v.seat)
                                                     for v in result.violations]


@pytest.mark.parametrize(("edition", "round_card", "winner"), [("classic", "H", 2),
                                                                ("deluxe", "r", 1)])
def test_poisoned_apple_ties(edition, round_card, winner):
    """Poisoned Apple: two void 7s - the last played wins in classic, the first in Deluxe."""
    result = check(3, trick(0, "Q5 F7 A7", 3), edition=edition, round_card=round_card)
    assert result.tricks[0].winner == winner


def test_cinderella_reverses_the_trick():
    power = PowerInput("cinderella", seat=0)
    result = check(3, trick(0, "Q5 Q9 Q7", 3, [power]), princesses={0: "cinderella"})
    assert result.tricks[0].winner == 0


def test_mulan_swap_decides_the_trick_again():
    result = check(3, trick(0, "Q5 Q9 Q7", 3, [PowerInput("mulan", 1, cards=("Q9", "Q2"))]),
                   princesses={1: "mulan"})
    assert result.tricks[0].winner == 2
    assert result.taken[2] == ("Q2", "Q5", "Q7")


def test_mulan_only_swaps_a_card_she_played():
    with pytest.raises(EntryError) as info:
        check(3, trick(0, "Q5 Q9 Q7", 3, [PowerInput("mulan", 1, cards=("Q5", "Q2"))]),
              princesses={1: "mulan"})
    assert [p.code for p in info.value.problems] == ["not-in-trick"]


def test_pocahontas_chooses_the_leader():
    power = PowerInput("pocahontas", seat=1, target=2)
    result = check(3, trick(2, "Q5 Q9 Q7", 3, [power]), princesses={1: "pocahontas"})
    assert result.tricks[0].leader == 2


def test_wedding_gift_piles_go_to_the_winner():
    """Wedding Gift (o): the pile placed before a trick goes to its winner."""
    gift = StepInput("gift", cards=("P2", "A8", "F2"))
    result = check(3, trick(0, "Q5 Q9 Q7", 3, steps=[gift]), round_card="o")
    assert result.gifts[1] == ("P2", "F2", "A8")
    assert result.step_due == "gift"
    assert "card-already-played" in refused(3, trick(0, "Q5 Q9 Q7", 3, steps=[gift]),
                                             trick(1, "A8 A2 A3", 3), round_card="o")


def test_haggle_moves_cards_between_hand_and_taken():
    haggle = StepInput("haggle", seat=1, give="F2", take="Q5")
    result = check(3, trick(0, "Q5 Q9 Q7", 3, steps=[haggle]), round_card="p")
    assert result.taken[1] == ("Q7", "Q9", "F2")
    assert refused(3, trick(0, "Q5 Q9 Q7", 3, steps=[haggle])) == ["step-not-due"]


def test_musical_chairs_reminds_the_table():
    result = check(3, trick(0, "Q5 Q9 Q7", 3), round_card="k")
    assert result.step_due == "chairs"


def test_late_for_a_date_needs_the_kept_cards():
    """Under n the kept cards are entered for the scoring."""
    rng = random.Random(5)
    state = RoundState.deal(4, round_card="n", rng=rng)
    while not state.is_over():
        state.push_card(rng.choice(sorted(state.legal_plays(), key=str)))
    tricks = [TrickInput(tuple(PlayInput(s, str(c)) for s, c in t.plays(4))) for t in state.tricks]
    result = check(4, *tricks, round_card="n")
    assert result.complete and result.missing == ("kept",) and result.scores is None
    kept = [[str(card) for card in state.hand(seat)] for seat in range(4)]
    result = check(4, *tricks, round_card="n", kept=kept)
    assert result.scores == score_entry(state.outcome().to_entry()).scores


def test_bathroom_break_uses_totals_before():
    state, tricks = legal_round(4, "y", 2)
    assert check(4, *tricks, round_card="y").missing == ("totals_before",)
    result = check(4, *tricks, round_card="y", totals_before=[0, 5, 5, 1])
    assert result.scores == score_entry(state.outcome().to_entry([0, 5, 5, 1])).scores


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_violation_code_has_a_message(lang):
    """Every engine code has its sentence in English and in French, the rule named as printed."""
    catalogue = CATALOGUES[Edition.DELUXE]
    assert {code.value for code in ViolationCode} <= catalogue.codes(lang)
    assert catalogue.codes("en") == catalogue.codes("fr")
    for code in ViolationCode:
        text = catalogue.text(code, lang, seat=1, card="Q3", rule="cinderella")
        assert "{" not in text and code.value not in text
        if "{rule}" in catalogue.text(code, lang, rule="{rule}"):
            assert ("Cinderella" if lang == "en" else "Cendrillon") in text


def _power_input(use):
    return PowerInput(use.power, use.seat, use.target, use.suit.value if use.suit else None,
                      tuple(map(str, use.cards)), tuple(map(str, use.more)))


def _as_entry(state):
    """The events of a full-information round as the table enters them."""
    tricks, before, steps_before = [], [], []
    for event in state.events():
        if isinstance(event, Trick):
            plays = tuple(PlayInput(seat, str(card)) for seat, card in event.plays(state.players))
            tricks.append(TrickInput(plays, tuple(before), tuple(steps_before)))
            before, steps_before = [], []
        elif isinstance(event, PowerUse) and state.powers[event.seat].when() == "after":
            last = tricks[-1]
            tricks[-1] = TrickInput(last.plays, last.powers + (_power_input(event),), last.steps)
        elif isinstance(event, PowerUse):
            before.append(_power_input(event))
        elif isinstance(event, Haggle):
            last = tricks[-1]
            step = StepInput("haggle", event.seat, str(event.give), str(event.take))
            tricks[-1] = TrickInput(last.plays, last.powers, last.steps + (step,))
        elif isinstance(event, Gift):
            steps_before.append(StepInput("gift", cards=tuple(map(str, event.cards))))
    return tricks


def _random_round(edition, letter, seed):
    rng = random.Random(seed)
    players = 3 + seed % 4
    state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                            princesses=rng.sample(list(power_slugs(parse_edition(edition))),
                                                  players))
    return play_random_round(state, rng, power_chance=0.2)


def _letters():
    return [(edition.value, letter) for edition in Edition
            for letter in round_card_letters(edition)]


@pytest.mark.parametrize(("edition", "letter"), _letters())
def test_legal_rounds_with_powers_are_legal_and_scored(edition, letter):
    """Soundness: random legal rounds (steps, powers, haggles) of every Round card come back
    complete, legal and scored like the full-information outcome."""
    for seed in range(4):
        state = _random_round(edition, letter, seed)
        outcome = state.outcome()
        princesses = {seat: name for seat, name in enumerate(state.princesses) if name}
        kept = ([[str(c) for c in cards] for cards in outcome.kept]
                if any(outcome.kept) else None)
        totals = [0] * state.players
        result = check_round(edition=edition, round_card=letter, players=state.players,
                             leader=state.first_leader, princesses=princesses,
                             tricks=_as_entry(state), kept=kept, totals_before=totals)
        assert result.complete and result.legal, (seed, result.violations)
        assert result.scores == score_entry(outcome.to_entry(totals)).scores, seed
        assert result.tricks_won == outcome.tricks_won
