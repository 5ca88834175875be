"""The engine, the scoring core and the rulings shown to players agree on every app decision.

One test per row of docs/rulings-decisions.md: each pins what the engine (or the scoring core)
does where the rulebooks are silent or ambiguous, and checks that the rulings entry which shows
that decision to players exists, in both languages, with an ``app_reading`` or note saying so.
"""

from __future__ import annotations

import pytest

from companion.rulings import rebel_princess as rulings
from companion.scoring.rebel_princess import (
    Edition,
    GameSetup,
    PlayedRound,
    RoundEntry,
    next_leader_deluxe,
    play_through,
    score_entry,
    score_so_far,
    standings,
)
from companion.scoring.rebel_princess.cards import Suit, princes
from companion.scoring.rebel_princess.engine import (
    IllegalTrickError,
    PowerUse,
    RoundState,
    parse_card,
    parse_cards,
)
from companion.scoring.rebel_princess.engine.steps import Gift, Haggle, Pass, SetAside


def card(code: str):
    return parse_card(code)


def cards(text: str) -> frozenset:
    return frozenset() if text == "-" else frozenset(parse_cards(text))


def codes(violations) -> list[str]:
    return [v.code.value for v in violations]


def state(hands: list[str], princesses: list[str | None] | None = None, *,
          edition: str = "deluxe", round_card: str | None = None, leader: int = 0,
          princes_in: bool = False) -> RoundState:
    return RoundState(hands, edition=edition, round_card=round_card, leader=leader,
                      princes_in=princes_in, princesses=princesses or [None] * len(hands))


def use(s: RoundState, seat: int, power: str, **kwargs) -> None:
    s.play_step(PowerUse(seat, power, **kwargs))


def play(s: RoundState, entry: str) -> int:
    return s.play_trick(s.parse_trick(entry))


def shown(slug: str, *words: str) -> None:
    """The entry ``slug`` tells players the decision: its English text holds every word of
    ``words`` (case-insensitive), and both languages have text."""
    entry = rulings.entry(slug)
    english = " ".join(entry.in_language("en").paragraphs()).casefold()
    for word in words:
        assert word.casefold() in english, f"{slug} does not mention {word!r}"
    assert entry.in_language("fr").app_reading or entry.in_language("fr").notes or \
        entry.in_language("fr").summary


# -- Upside Down and Snow White ------------------------------------------------------------------


@pytest.mark.parametrize("edition, letter", [("deluxe", "x"), ("classic", "J")])
def test_snow_white_zero_wins_while_upside_down_reverses(edition, letter):
    """Upside Down: with an odd number of 6s, Snow White's zero (led suit) is the strongest."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", None, None], edition=edition,
              round_card=letter)
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 Q6") == 0  # one 6: reversed, the zero ranks above the 4
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", None, None], edition=edition,
              round_card=letter)
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 Q8") == 2  # no 6: the zero is the weakest
    shown(f"{edition}-{letter}", "zero", "above the 1")
    shown(f"{edition}-snow-white", "above the 1")
    shown("interaction-snow-white-reversed-order", "zero", "strongest")


def test_snow_white_zero_loses_when_cinderella_and_a_six_cancel_out():
    """Cinderella plus one 6 is two reversals: the normal order, so the zero is the weakest."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", "cinderella", None], round_card="x")
    use(s, 1, "cinderella")
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 Q6") == 2
    shown("interaction-snow-white-reversed-order", "each 6", "cinderella", "final order")


@pytest.mark.parametrize("edition, letter", [("deluxe", "x"), ("classic", "J")])
def test_a_six_played_as_a_zero_still_flips_the_order(edition, letter):
    """Upside Down: a printed 6 that Snow White plays as a zero still reverses the trick."""
    s = state(["Q6Q2", "Q4Q3", "Q5Q8"], ["snow-white", None, None], edition=edition,
              round_card=letter)
    use(s, 0, "snow-white", cards=(card("Q6"),))
    assert play(s, "Q6 Q4 Q5") == 0  # reversed by her 6, so her zero is the strongest
    shown(f"{edition}-{letter}", "6 that snow white")
    shown(f"{edition}-snow-white", "still flips")


def test_mulan_swapping_a_six_counts_the_sixes_again():
    """Upside Down: Mulan swapping a 6 out restores the order; the trick is decided again."""
    s = state(["A5Q2", "A6A9", "A7Q3"], [None, "mulan", None], round_card="x")
    assert play(s, "A5 A6 A7") == 0  # one 6: lowest wins
    use(s, 1, "mulan", cards=(card("A6"), card("A9")))
    assert s.tricks[0].winner == 1
    shown("deluxe-x", "mulan", "count the 6s again")


# -- Cinderella reverses every comparison --------------------------------------------------------


@pytest.mark.parametrize("edition, letter", [("deluxe", "f"), ("classic", "D")])
def test_cinderella_with_royal_decree_lowest_queen_wins(edition, letter):
    """Royal Decree with Cinderella: Queens stay trump, and the lowest Queen wins."""
    s = state(["A9A2", "Q3F3", "Q8F4"], [None, "cinderella", None], edition=edition,
              round_card=letter)
    use(s, 1, "cinderella")
    assert play(s, "A9 Q3 Q8") == 1
    shown(f"{edition}-cinderella", "lowest queen")
    shown(f"{edition}-{letter}", "cinderella", "lowest queen")


def test_cinderella_with_always_the_bridesmaid_second_lowest_wins():
    """Always the Bridesmaid with Cinderella: the second-lowest card of the led suit wins."""
    s = state(["Q5Q2", "Q9Q3", "Q7Q4"], [None, "cinderella", None], round_card="g")
    use(s, 1, "cinderella")
    assert play(s, "Q5 Q9 Q7") == 2  # order 5 < 7 < 9: the 7 is second lowest
    shown("deluxe-g", "second-lowest")
    shown("deluxe-cinderella", "second-lowest")


@pytest.mark.parametrize("edition, letter", [("deluxe", "r"), ("classic", "H")])
def test_cinderella_with_poisoned_apple_lowest_void_card_wins(edition, letter):
    """Poisoned Apple with Cinderella: among the void players, the lowest number wins."""
    s = state(["Q5Q2", "A9A3", "F4F3"], [None, "cinderella", None], edition=edition,
              round_card=letter)
    use(s, 1, "cinderella")
    assert play(s, "Q5 A9 F4") == 2
    shown(f"{edition}-cinderella", "lowest", "void")
    shown(f"{edition}-{letter}", "cinderella")


@pytest.mark.parametrize("edition, letter", [("deluxe", "v"), ("classic", "R")])
def test_cinderella_with_midnight_makeover_lowest_led_card_or_fairy_wins(edition, letter):
    """Midnight Makeover with Cinderella: the lowest led-suit card or Fairy wins."""
    s = state(["A5Q2", "F2A3", "A4Q3"], [None, "cinderella", None], edition=edition,
              round_card=letter)
    use(s, 1, "cinderella")
    assert play(s, "A5 F2 A4") == 1
    shown(f"{edition}-cinderella", "midnight makeover" if edition == "deluxe"
          else "métamorphose de minuit", "fairy")
    shown(f"{edition}-{letter}", "cinderella")


def test_cinderella_with_sisterhood_equal_distance_goes_to_the_lower():
    """Sisterhood: an equal distance goes to the higher number, with Cinderella to the lower."""
    s = state(["Q6A2", "Q2A3", "Q10A4"], round_card="l")
    assert play(s, "Q6 Q2 Q10") == 2  # 4 away each: the higher number
    s = state(["Q6A2", "Q2A3", "Q10A4"], [None, "cinderella", None], round_card="l")
    use(s, 1, "cinderella")
    assert play(s, "Q6 Q2 Q10") == 1  # 4 away each: the lower number
    shown("deluxe-l", "cinderella", "lower")
    shown("interaction-sisterhood-lead-never-wins", "cinderella")


def test_cinderella_with_rings_twice_lowest_sum_wins_tie_lowest_card():
    """The Prince Always Rings Twice with Cinderella: lowest sum; tie by the lowest card."""
    s = state(["A5A3", "A2A6", "A10Q2"], ["cinderella", None, None], round_card="u")
    use(s, 0, "cinderella")
    assert play(s, "A5 A2 A10 A3 A6 Q2") == 1  # 8 and 8 tie; seat 1 has the 2
    shown("deluxe-u", "cinderella", "lowest total")
    shown("interaction-cinderella-rings-twice", "no led-suit card")


# -- conflicts between powers ----------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
@pytest.mark.parametrize("first, second", [
    (("ice-princess", {"target": 0, "cards": (parse_card("Q2"),)}),
     ("little-mermaid", {"suit": Suit.PET})),
    (("little-mermaid", {"suit": Suit.PET}),
     ("ice-princess", {"target": 0, "cards": (parse_card("Q2"),)})),
])
def test_the_first_power_on_the_lead_stands_in_both_editions(edition, first, second):
    """The Ice Princess (on the leader) and the Little Mermaid exclude each other in a trick, in
    the classic edition too (RULINGS.md: the Deluxe conflicts block the later power)."""
    s = state(["Q2A5", "Q3Q7", "Q4Q6"], [first[0], second[0], None], edition=edition)
    use(s, 0, first[0], **first[1])
    assert codes(s.check_step(PowerUse(1, second[0], **second[1]))) == ["power-blocked"]
    slug = "interaction-lead-powers-conflict" + ("-classic" if edition == "classic" else "")
    shown(slug, "little mermaid", "ice princess")
    shown(f"basics-powers-timing-{edition}")


def test_classic_ice_princess_card_is_not_undone_by_the_little_mermaid():
    """Classic: once the Ice Princess drew the lead card, it is the lead, whatever is named."""
    s = state(["Q2A5", "Q3Q7", "Q4Q6"], ["ice-princess", "little-mermaid", None],
              edition="classic")
    use(s, 0, "ice-princess", target=0, cards=(card("Q2"),))
    with pytest.raises(IllegalTrickError):
        use(s, 1, "little-mermaid", suit=Suit.PET)
    assert s.legal_plays() == cards("Q2")
    shown("classic-little-mermaid", "ice princess")
    shown("classic-ice-princess", "little mermaid")


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_sleeping_beauty_blocked_after_a_power_on_the_lead(edition):
    """Sleeping Beauty may not act after the Little Mermaid or the Ice Princess in that trick."""
    s = state(["Q2P5", "Q3Q7", "Q4Q6"], ["little-mermaid", "sleeping-beauty", None],
              edition=edition)
    use(s, 0, "little-mermaid", suit=Suit.QUEEN)
    found = codes(s.check_step(PowerUse(1, "sleeping-beauty", cards=parse_cards("Q2 Q3 Q4"),
                                        more=parse_cards("Q3 Q4 Q2"))))
    assert found == ["power-blocked"]
    slug = "interaction-lead-powers-conflict" + ("-classic" if edition == "classic" else "")
    shown(slug, "sleeping beauty")


# -- trick rules of the Round cards --------------------------------------------------------------


@pytest.mark.parametrize("edition, letter", [("deluxe", "w"), ("classic", "S")])
def test_pass_the_bouquet_a_suit_seen_earlier_takes_over_again(edition, letter):
    """Pass the Bouquet: any off-suit card takes over, even a suit already followed; every card
    of the final suit competes, the lead included."""
    s = state(["Q10F2", "A3F3", "Q9F4", "Q2F5"], edition=edition, round_card=letter)
    assert play(s, "Q10 A3 Q9 Q2") == 0  # Queens, Pets, Queens again: the Q10 wins
    shown(f"{edition}-{letter}", "even a suit seen earlier", "every card of the final suit")


def test_pass_the_bouquet_prince_sneaks_in():
    """Pass the Bouquet: a Prince from a void player sneaks the Princes in as usual."""
    s = state(["Q5A2", "P3A3", "P4A4"], round_card="w")
    play(s, "Q5 P3 P4")
    assert s.princes_in
    shown("deluxe-w", "sneaks princes in")


def test_thumbelina_card_counts_as_void_for_poisoned_apple():
    """Poisoned Apple: a card Thumbelina plays off suit wins like a void player's card."""
    s = state(["Q5Q2", "Q3A9", "Q4Q6"], [None, "thumbelina", None], round_card="r")
    s.push_card(card("Q5"))
    use(s, 1, "thumbelina")
    s.play(card("A9"))
    s.play(card("Q4"))
    assert s.tricks[0].winner == 1
    shown("deluxe-r", "thumbelina", "void player's card")
    shown("deluxe-thumbelina", "poisoned apple", "pass the bouquet")


def test_ice_princess_card_counts_as_void_for_pass_the_bouquet():
    """Pass the Bouquet: a frozen card played off suit changes the suit to follow."""
    s = state(["Q5Q2", "Q3A9", "A4Q6"], [None, None, "ice-princess"], round_card="w")
    use(s, 2, "ice-princess", target=1, cards=(card("A9"),))
    assert play(s, "Q5 A9 A4") == 1  # Pets took over; seat 2 had to follow them
    shown("deluxe-w", "ice princess")
    shown("deluxe-ice-princess", "poisoned apple", "pass the bouquet")


def test_thumbelina_cannot_escape_the_ice_princess_card():
    """Thumbelina's power does not free her from a card the Ice Princess froze for her."""
    s = state(["Q5Q2", "Q3A9", "A4Q6"], [None, "thumbelina", "ice-princess"])
    use(s, 2, "ice-princess", target=1, cards=(card("Q3"),))
    s.push_card(card("Q5"))
    use(s, 1, "thumbelina")
    assert s.legal_plays() == cards("Q3")
    shown("deluxe-thumbelina", "ice princess froze")
    shown("deluxe-ice-princess", "thumbelina")


def test_snow_white_must_play_her_declared_card():
    """Once Snow White declares a card, it is the card she must play when it is legal."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], [None, "snow-white", None])
    s.push_card(card("Q5"))
    use(s, 1, "snow-white", cards=(card("Q3"),))
    assert s.legal_plays() == cards("Q3")
    shown("deluxe-snow-white", "must be played")
    shown("classic-snow-white", "must be played")


def test_snow_white_zero_counts_in_sums_and_distances():
    """Her zero counts as 0 in the sums of The Prince Always Rings Twice and in Sisterhood's
    distances."""
    s = state(["Q5Q7", "Q4Q6", "A2A3"], ["snow-white", None, None], round_card="u")
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 A2 Q7 Q6 A3") == 1  # 0 + 7 = 7 against 4 + 6 = 10
    s = state(["Q6A2", "Q2A3", "Q10A4"], [None, "snow-white", None], round_card="l")
    use(s, 1, "snow-white", cards=(card("Q2"),))
    assert play(s, "Q6 Q2 Q10") == 1  # 6 away against 4 away
    shown("deluxe-snow-white", "prince always rings twice", "sisterhood")
    shown("classic-snow-white", "deux demandes")


def test_rings_twice_a_seat_without_led_cards_never_wins():
    """The Prince Always Rings Twice with Cinderella: no led-suit card is not a total of 0."""
    s = state(["A5A3", "A9A2", "Q2Q3"], ["cinderella", None, None], round_card="u")
    use(s, 0, "cinderella")
    assert play(s, "A5 A9 Q2 A3 A2 Q3") == 0  # 8 against 11; seat 2 has no Pet
    shown("deluxe-u", "at least one card of the led suit")
    shown("classic-L", "at least one led-suit card")


def test_magic_beans_leader_picks_among_legal_cards():
    """Magic Beans: the leader too plays a highest or lowest card, among the cards they may
    legally play (no Prince before Princes have snuck in)."""
    s = state(["Q2Q5Q9A4P3", "Q3Q6Q10A5P4", "Q4Q7F9A6P5", "Q8F2F3A7P6"], round_card="c")
    assert s.legal_plays() == cards("Q2 Q9 A4")
    shown("deluxe-c", "leader", "may legally play")
    shown("interaction-magic-beans-leader")


def test_always_the_bridesmaid_lead_alone_wins():
    """Always the Bridesmaid: when the lead is the only card of its suit, the leader wins."""
    s = state(["Q5Q2", "A9A3", "F4F3"], round_card="g")
    assert play(s, "Q5 A9 F4") == 0
    shown("deluxe-g", "leader takes it")


@pytest.mark.parametrize("hands, plays, winner", [
    (["Q6A2", "Q5A3", "Q7A4"], "Q6 Q5 Q7", 2),  # both 1 away: the higher number
    (["Q6A2", "A6A3", "F6A4"], "Q6 A6 F6", 1),  # both on the lead's number: the second player
])
def test_sisterhood_lead_never_wins_same_number_second_player(hands, plays, winner):
    """Sisterhood: the lead never wins; equal distance, the higher number; every card on the
    lead's number, the second player."""
    s = state(hands, round_card="l")
    assert play(s, plays) == winner
    shown("deluxe-l", "never win", "second player")


@pytest.mark.parametrize("edition, letter, winner", [("deluxe", "r", 1), ("classic", "H", 2)])
def test_poisoned_apple_equal_numbers_first_or_last_by_edition(edition, letter, winner):
    """Poisoned Apple: equal void numbers go to the first played (Deluxe), the last (classic)."""
    s = state(["Q9Q2", "A7A3", "F7F3"], edition=edition, round_card=letter)
    assert play(s, "Q9 A7 F7") == winner
    shown(f"{edition}-{letter}", "the other way")


@pytest.mark.parametrize("edition, letter, winner", [("deluxe", "v", 1), ("classic", "R", 2)])
def test_midnight_makeover_equal_numbers_first_or_last_by_edition(edition, letter, winner):
    """Midnight Makeover: equal numbers go to the first played (Deluxe), the last (classic)."""
    s = state(["A7Q2", "F9Q3", "A9Q4"], edition=edition, round_card=letter)
    assert play(s, "A7 F9 A9") == winner
    shown(f"{edition}-{letter}", "the other way")


@pytest.mark.parametrize("edition, letter", [("deluxe", "s"), ("classic", "U")])
def test_odds_and_evens_parity_before_the_pea_princess(edition, letter):
    """Odds and Evens with the Pea Princess: suit, then parity, then above 5 among those."""
    s = state(["Q5A2A3", "Q3Q8Q10", "Q4Q6Q7"], ["pea-princess", None, None], edition=edition,
              round_card=letter)
    use(s, 0, "pea-princess")  # (classic: as she plays her card; Deluxe: before the trick)
    s.push_card(card("Q5"))
    assert s.legal_plays() == cards("Q3")
    shown(f"{edition}-{letter}", "parity", "above 5")
    shown("interaction-odds-and-evens-powers", "then parity")


def test_late_to_the_ball_tucked_prince_may_be_led_last():
    """Late to the Ball: the tucked card is always playable in the last trick, even a Prince led
    before Princes have snuck in."""
    s = state(["Q2A3", "Q4F3", "Q5P3"], round_card="b")
    s.play_step(SetAside((cards("A3"), cards("F3"), cards("P3"))))
    assert play(s, "Q2 Q4 Q5") == 2 and not s.princes_in
    assert codes(s.check_trick(s.parse_trick("2: P3 A3 F3"))) == []
    shown("deluxe-b", "even a prince led")


# -- when Princes sneak in -----------------------------------------------------------------------


def test_haggled_prince_does_not_sneak_in():
    """Haggle with the Hag: a Prince traded into a trick does not bring the Princes in."""
    s = state(["Q2F4", "Q4F3", "Q5P3"], round_card="p")
    play(s, "Q2 Q4 Q5")
    s.play_step(Haggle(2, card("P3"), card("Q4")))
    assert not s.princes_in and card("P3") in s.taken_cards(2)
    shown("deluxe-p", "doesn't count as princes sneaking in")
    shown("classic-T", "doesn't count as princes sneaking in")
    shown("interaction-haggle-prince-no-sneak")


def test_rapunzel_lead_does_not_sneak_in_but_the_ice_princess_does():
    """A Prince led through Rapunzel keeps Princes out; one chosen by the Ice Princess lets them
    in."""
    s = state(["P5Q2", "Q3Q7", "Q4Q6"], [None, "rapunzel", None])
    use(s, 1, "rapunzel")
    play(s, "P5 Q3 Q4")
    assert not s.princes_in
    s = state(["P5Q2", "Q3Q7", "Q4Q6"], [None, "ice-princess", None])
    use(s, 1, "ice-princess", target=0, cards=(card("P5"),))
    assert s.princes_in
    shown("basics-princes-sneak-in", "ice princess", "rapunzel")


def test_alice_redistributed_prince_sneaks_in():
    """A Prince dealt back into a hand by Alice counts as having snuck in."""
    s = state(["Q5Q2", "Q9Q7", "P3A3"], [None, "alice", None])
    play(s, "Q5 Q9 P3")
    use(s, 1, "alice", cards=parse_cards("P3 Q5 Q9"))
    assert s.princes_in
    shown("deluxe-alice", "counts as having snuck in")
    shown("classic-alice", "counts as having snuck in")


def test_wedding_gift_prince_does_not_sneak_in():
    """Wedding Gift: a Prince laid in the gift pile never enters the trick, so Princes stay out."""
    s = state(["Q2Q3P2A3", "Q4Q5A4A5", "Q6Q7A6A8"], round_card="o")
    s.play_step(Gift(tuple(parse_cards("P2 A4 A8"))))
    play(s, "Q2 Q4 Q6")
    assert not s.princes_in
    shown("deluxe-o", "doesn't sneak princes in")
    shown("classic-M", "doesn't sneak princes in")


# -- after-trick powers --------------------------------------------------------------------------


def test_alice_undone_trick_is_not_won():
    """Alice: the trick she deals back no longer counts as won (Arranged Marriage +5 stays)."""
    s = state(["Q5Q2", "Q9Q7", "Q3A3"], [None, "alice", None], round_card="e")
    play(s, "Q5 Q9 Q3")
    use(s, 1, "alice", cards=parse_cards("Q3 Q5 Q9"))
    assert s.tricks_won == [0, 0, 0]
    shown("deluxe-e", "alice", "doesn't count as won")
    shown("deluxe-alice", "arranged marriage")


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_alice_may_act_after_the_last_trick(edition):
    """Alice: neither rulebook limits her on the last trick, and the cards she deals back are
    dealt « pour les rejouer » / back into the hands: the round gets one trick more, the replay,
    which she leads. Her seat won no trick then (the trick dealt back is not won)."""
    s = state(["Q5", "Q9", "Q7"], [None, "alice", None], edition=edition)
    play(s, "Q5 Q9 Q7")
    assert s.is_over()
    dealt = PowerUse(1, "alice", cards=parse_cards("Q7 Q5 Q9"))  # seat 0 gets Q7, 1 Q5, 2 Q9
    assert codes(s.check_step(dealt)) == []
    use(s, 1, "alice", cards=dealt.cards)
    assert not s.is_over() and s.leader == 1
    assert s.hand(0) == frozenset(parse_cards("Q7")) and s.hand(1) == frozenset(
        parse_cards("Q5"))
    assert play(s, "1: Q5 Q9 Q7") == 2  # the replay: seat 2's 9 wins
    assert s.is_over() and s.outcome().tricks_won == (0, 0, 1)
    shown(f"{edition}-alice", "after the last trick", "one trick more")


def test_alice_under_wedding_gift_no_new_gift_before_the_replay():
    """Wedding Gift: after Alice deals a trick back, the replay keeps the pile; no new gift."""
    s = state(["Q2Q3A2A3", "Q9Q5A4A5", "Q6Q7A6A8"], [None, "alice", None], round_card="o")
    s.play_step(Gift(tuple(parse_cards("A2 A4 A8"))))
    assert play(s, "Q2 Q9 Q6") == 1
    use(s, 1, "alice", cards=parse_cards("Q6 Q2 Q9"))
    assert s.step_due is None and "pile=A2A4A8" in s.notation()
    shown("interaction-alice-wedding-gift", "no new gift")


def test_mulan_swaps_only_with_her_hand_as_the_trick_ended():
    """Mulan: set-aside cards that came back because the hands ran out can't be swapped in."""
    s = state(["Q2Q3A2A3", "Q4Q5Q9A5", "Q6Q7A6A7"], [None, "mulan", None], round_card="m")
    s.play_step(SetAside((cards("A2 A3"), cards("Q9 A5"), cards("A6 A7"))))
    play(s, "Q2 Q4 Q6")
    play(s, "2: Q7 Q3 Q5")
    assert card("Q9") in s.hand(1)
    assert codes(s.check_step(PowerUse(1, "mulan", cards=(card("Q5"), card("Q9"))))) == [
        "not-in-hand"]
    shown("deluxe-mulan", "hand as it was when the trick ended")
    shown("classic-mulan", "hand as it was when the trick ended")


def test_mulan_may_swap_either_card_under_rings_twice():
    """The Prince Always Rings Twice: Mulan may swap her first or her second card."""
    for old in ("Q4", "Q3"):
        s = state(["Q5Q2Q8", "Q4Q3Q9", "Q6Q7Q10"], [None, "mulan", None], round_card="u")
        play(s, "Q5 Q4 Q6 Q2 Q3 Q7")
        assert codes(s.check_step(PowerUse(1, "mulan", cards=(card(old), card("Q9"))))) == []
    shown("deluxe-mulan", "either of your two cards")
    shown("classic-mulan", "either of your two cards")


def test_haggle_chance_ends_with_anything_but_mulan():
    """Haggle with the Hag: Mulan's swap may come first and the haggle still follows; any other
    action closes the chance."""
    s = state(["Q5Q2Q3", "Q4Q9A2", "Q6Q7A3"], [None, "mulan", None], round_card="p")
    assert play(s, "Q5 Q4 Q6") == 2
    use(s, 1, "mulan", cards=(card("Q4"), card("Q9")))
    assert s.tricks[0].winner == 1
    assert codes(s.check_step(Haggle(1, card("A2"), card("Q5")))) == []
    s = state(["Q5Q2Q3", "Q4Q9A2", "Q6Q7A3"], round_card="p")
    play(s, "Q5 Q4 Q6")
    s.push_card(card("Q7"))
    assert codes(s.check_step(Haggle(2, card("A3"), card("Q5")))) == ["step-not-due"]
    shown("deluxe-p", "except mulan's swap")
    shown("classic-T", "except mulan's swap")
    shown("interaction-mulan-haggle", "two swaps")


# -- before-trick powers and Round-card steps ----------------------------------------------------


def test_scheherazade_cannot_target_herself():
    """Scheherazade takes her card from another player's hand, never her own."""
    s = state(["Q5Q2", "Q9Q7", "Q3A3"], [None, "scheherazade", None])
    assert codes(s.check_step(PowerUse(1, "scheherazade", target=1,
                                       cards=(card("Q9"), card("Q7"))))) == ["bad-power-argument"]
    assert codes(s.check_step(PowerUse(1, "scheherazade", target=0,
                                       cards=(card("Q2"), card("Q7"))))) == []
    shown("deluxe-scheherazade", "can't pick yourself")
    shown("classic-scheherazade", "another player's hand")


def test_classic_sleeping_beauty_deal_is_entered_as_it_fell():
    """Classic Sleeping Beauty deals at random: the app accepts whichever arrangement fell."""
    for more in ("Q4 Q2 Q3", "Q3 Q4 Q2"):
        s = state(["Q2Q5", "Q3Q7", "Q4Q6"], [None, None, "sleeping-beauty"], edition="classic")
        assert codes(s.check_step(PowerUse(2, "sleeping-beauty", cards=parse_cards("Q2 Q3 Q4"),
                                           more=parse_cards(more)))) == []
    shown("classic-sleeping-beauty", "as it happened")


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_passes_are_checked_only_for_equal_numbers(edition):
    """The pass icons are not in the rulebook text: every seat passes the same numbers each way,
    from its own hand, before anything else."""
    s = state(["Q2Q3Q4", "F2F3F4", "A2A3A4"], edition=edition)
    two_right = Pass((frozenset(),) * 3, (cards("Q2 Q3"), cards("F2 F3"), cards("A2 A3")))
    assert codes(s.check_step(two_right)) == []
    uneven = Pass((cards("Q2"), cards("F2"), cards("A2 A3")), (frozenset(),) * 3)
    assert codes(s.check_step(uneven)) == ["wrong-card-count"]
    shown("basics-passing", "symbol printed on your card")


@pytest.mark.parametrize("edition, letter", [("deluxe", "k"), ("classic", "E")])
def test_musical_chairs_no_pass_after_the_last_trick(edition, letter):
    """Musical Chairs: nothing is passed once the last trick is played."""
    s = state(["Q2", "Q4", "Q5"], edition=edition, round_card=letter)
    play(s, "Q2 Q4 Q5")
    assert s.is_over() and s.step_due is None
    shown(f"{edition}-{letter}", "nothing to pass")


@pytest.mark.parametrize("edition, letter", [("deluxe", "m"), ("classic", "N"),
                                             ("deluxe", "q"), ("classic", "Q")])
def test_split_hands_after_the_pass_halves_back_when_hands_empty(edition, letter):
    """After Party and Blind Man's Bluff: the hand is split after the opening pass; the set-aside
    halves come into play only once every hand is empty."""
    s = state(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A7"], edition=edition, round_card=letter)
    s.play_step(Pass((cards("A3"), cards("A5"), cards("A7")), (frozenset(),) * 3))
    assert s.set_aside_size() == 2
    s.play_step(SetAside((cards("A2 A7"), cards("A4 A3"), cards("A6 A5"))))
    play(s, "Q2 Q4 Q6")
    assert all(len(s.hand(seat)) == 1 for seat in range(3))  # the halves are still aside
    play(s, "2: Q7 Q3 Q5")
    assert all(len(s.hand(seat)) == 2 for seat in range(3))
    shown(f"{edition}-{letter}", "after the opening pass", "every hand is empty")


@pytest.mark.parametrize("target, expected", [(0, []), (1, ["not-the-leader"])])
def test_classic_ice_princess_draws_the_leaders_card(target, expected):
    """Classic Ice Princess: she draws the card the leader opens with; nobody else."""
    s = state(["Q2A5", "Q3Q7", "Q4Q6"], [None, None, "ice-princess"], edition="classic")
    held = sorted(s.hand(target))[0]
    assert codes(s.check_step(PowerUse(2, "ice-princess", target=target, cards=(held,)))) == \
        expected
    shown("classic-ice-princess", "only the leader")


def test_classic_little_mermaid_unheld_suit_leaves_the_lead_free():
    """Classic Little Mermaid: a suit the leader lacks leaves the lead free (Deluxe: name
    another)."""
    s = state(["Q2A5", "Q3Q7", "Q4Q6"], [None, "little-mermaid", None], edition="classic")
    use(s, 1, "little-mermaid", suit=Suit.FAIRY)
    assert s.legal_plays() == cards("Q2 A5")
    s = state(["Q2A5", "Q3Q7", "Q4Q6"], [None, "little-mermaid", None])
    assert codes(s.check_step(PowerUse(1, "little-mermaid", suit=Suit.FAIRY))) == [
        "suit-not-held"]
    shown("classic-little-mermaid", "any suit she likes")


def test_classic_pea_princess_binds_only_later_players():
    """Classic Pea Princess: only the players after her in the trick must play above 5."""
    s = state(["Q2Q8", "Q5Q6", "Q3Q9"], [None, "pea-princess", None], edition="classic")
    s.push_card(card("Q2"))
    use(s, 1, "pea-princess")
    s.play(card("Q5"))  # she herself is free
    assert s.legal_plays() == cards("Q9")
    shown("classic-pea-princess", "still to play")


def test_classic_pocahontas_names_another_leader_after_winning():
    """Classic Pocahontas: after winning a trick she names someone else to lead the next."""
    s = state(["Q2Q8", "Q5Q6", "Q9Q3"], [None, None, "pocahontas"], edition="classic")
    assert play(s, "Q2 Q5 Q9") == 2
    assert codes(s.check_step(PowerUse(2, "pocahontas", target=2))) == ["bad-power-argument"]
    use(s, 2, "pocahontas", target=0)
    assert s.leader == 0
    shown("classic-pocahontas", "not yourself")


# -- scoring -------------------------------------------------------------------------------------


def test_three_times_a_lady_scores_the_printed_three():
    """Three Times a Lady: a 3 Snow White played as a zero still scores -3 (Bezier FAQ)."""
    s = state(["Q3", "Q4", "Q5"], ["snow-white", None, None], round_card="d")
    use(s, 0, "snow-white", cards=(card("Q3"),))
    assert play(s, "Q3 Q4 Q5") == 2
    assert score_so_far(s.outcome().to_entry()).scores == [0, 0, -3]
    shown("deluxe-d", "counted as a 3")
    shown("interaction-snow-white-three-times-a-lady")


def test_arranged_marriage_counts_tricks_whose_cards_stay_won():
    """Arranged Marriage: +5 for a seat whose pile is empty, Alice after dealing a trick back."""
    s = state(["Q5Q2", "Q9Q7", "Q3Q4"], [None, "alice", None], round_card="e")
    play(s, "Q5 Q9 Q3")
    use(s, 1, "alice", cards=parse_cards("Q3 Q5 Q9"))
    assert play(s, "1: Q7 Q4 Q2") == 1  # Alice dealt Q3, Q5, Q9 to seats 0, 1, 2
    assert play(s, "1: Q5 Q9 Q3") == 2
    outcome = s.outcome()
    assert outcome.seats_without_trick == {0}
    assert score_so_far(outcome.to_entry()).scores == [5, 0, 0]
    shown("deluxe-e", "end up in your pile")


@pytest.mark.parametrize("edition, letter", [("deluxe", "y"), ("classic", "O")])
def test_bathroom_break_every_tied_leader_is_exempt(edition, letter):
    """Bathroom Break: every player tied on the highest total before the round is exempt; in a
    first round everyone is tied at 0, so nobody doubles."""
    taken = (cards("P2 P3"), cards("P4"), cards("P5 A8"))
    before_tied = RoundEntry(Edition(edition), letter, 3, taken, None, (7, 7, 2))
    assert score_so_far(before_tied).scores == [2, 1, 7]  # seats 0 and 1 exempt; Frog stays 5
    first_round = RoundEntry(Edition(edition), letter, 3, taken, None, (0, 0, 0))
    assert score_so_far(first_round).scores == [2, 1, 6]
    shown(f"{edition}-{letter}", "first round", "nobody doubles")


@pytest.mark.parametrize("edition, letter", [("deluxe", "z"), ("classic", "K")])
def test_dancing_queens_same_number_couples_form_first(edition, letter):
    """Dancing Queens: same-number couples first, then the other pairs: P2 P7 P9 Q2 Q5 = 6."""
    taken = (cards("P2 P7 P9 Q2 Q5"), frozenset(), frozenset())
    assert score_so_far(RoundEntry(Edition(edition), letter, 3, taken)).scores[0] == 6
    shown(f"{edition}-{letter}", "same-number couples first")


def test_rebel_of_the_ball_counts_kept_cards():
    """Late for a Very Important Date: kept cards count as taken, Rebel of the Ball included."""
    everything = frozenset(princes(3)) | {card("A8")}
    taken = (everything, frozenset(), frozenset())
    assert score_entry(RoundEntry(Edition.DELUXE, "n", 3, taken)).scores == [-10, 0, 0]
    assert score_entry(RoundEntry(Edition.DELUXE, "o", 3, taken)).scores[0] == 14
    shown("deluxe-n", "rebel of the ball")
    shown("basics-rebel-of-the-ball", "late for a very important date")


def test_deluxe_next_leader_scan_starts_after_the_first_trick_leader():
    """Deluxe: on a tie for the lowest total, scan clockwise from the seat after whoever led the
    first trick of the round just played; that seat comes last."""
    assert next_leader_deluxe([3, 5, 3, 7], last_leader=1).seat == 2
    assert next_leader_deluxe([3, 5, 3, 7], last_leader=2).seat == 0
    assert next_leader_deluxe([3, 3, 5, 7], last_leader=1).seat == 0
    shown("basics-next-leader-deluxe", "first trick", "come last")


def test_classic_last_round_needs_no_last_trick_winner():
    """Classic: nobody leads after the fifth round, so its last trick winner is not needed."""
    setup = GameSetup(Edition.CLASSIC, 3, 0, ("A", "C", "B", "D", "M"))
    rounds = [PlayedRound(scores=(5, 4, 0), last_trick_winner=1) for _ in range(4)]
    game = play_through(setup, [*rounds, PlayedRound(scores=(0, 5, 4))])
    assert not game.errors and game.finished
    game = play_through(setup, [PlayedRound(scores=(5, 4, 0)), *rounds[:3]])
    assert game.errors  # an earlier round does need it
    shown("basics-next-leader-classic", "doesn't ask who won the last trick")


def test_deluxe_playoff_only_totals_count():
    """Deluxe: after a play-off round only the totals count; a tie calls another play-off."""
    rounds = [(0, 3, 9)] * 2 + [(3, 0, 0)] * 3  # 9 each for seats 0 and 1; 0-rounds 2 and 3
    assert standings(Edition.DELUXE, rounds).winners == (1,)
    tied = [(0, 3, 9)] + [(3, 0, 9)] + [(3, 3, 0)] * 3  # both 15, one round at 0 each
    assert standings(Edition.DELUXE, tied).decided_by == "playoff"
    after = standings(Edition.DELUXE, tied, [(2, 2, 9)])
    assert after.decided_by == "playoff" and after.playoff == (0, 1)
    assert standings(Edition.DELUXE, tied, [(2, 2, 9), (1, 0, 0)]).winners == (1,)
    shown("basics-tie-breaks-deluxe", "only the totals count", "another play-off")


@pytest.mark.parametrize("edition, letter", [("deluxe", "o"), ("classic", "M")])
def test_sleeping_beauty_acts_before_the_gift_pile(edition, letter):
    """Wedding Gift: Sleeping Beauty uses her power before the gift cards are laid down, not
    after (Deluxe o; the app reads the classic card alike)."""
    s = state(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A8"], [None, None, "sleeping-beauty"],
              edition=edition, round_card=letter)
    beauty = PowerUse(2, "sleeping-beauty", cards=parse_cards("Q2 Q4 Q6"),
                      more=parse_cards("Q4 Q6 Q2"))
    assert codes(s.check_step(beauty)) == []
    s.play_step(Gift(tuple(parse_cards("A2 A4 A8"))))
    assert codes(s.check_step(beauty)) == ["power-not-now"]
    shown(f"{edition}-sleeping-beauty", "before the gifts are laid down")
    shown("deluxe-o", "sleeping beauty", "before the gifts")


def test_classic_pocahontas_blocked_after_the_little_mermaid():
    """Classic: once the Little Mermaid named the lead suit, Pocahontas can't hand the lead over
    (the Deluxe conflict, applied to the classic edition)."""
    s = state(["Q2Q8", "Q5Q6", "Q9Q3"], [None, "little-mermaid", "pocahontas"], edition="classic")
    assert play(s, "Q2 Q5 Q9") == 2
    use(s, 1, "little-mermaid", suit=Suit.QUEEN)
    assert codes(s.check_step(PowerUse(2, "pocahontas", target=0))) == ["power-blocked"]
    shown("interaction-lead-powers-conflict-classic", "pocahontas")


def test_deluxe_pocahontas_may_choose_herself():
    """Deluxe Pocahontas chooses any player to lead the coming trick, herself included."""
    s = state(["Q2Q8", "Q5Q6", "Q9Q3"], [None, None, "pocahontas"])
    use(s, 2, "pocahontas", target=2)
    assert s.leader == 2
    shown("deluxe-pocahontas", "pick yourself")


def test_sleeping_beauty_blocked_after_any_ice_princess_use():
    """Deluxe: Sleeping Beauty may not act once the Ice Princess has acted this trick, whoever
    she froze (Princess Cards: no 'on the lead player' for Sleeping Beauty)."""
    s = state(["Q2P5", "Q3Q7", "Q4Q6"], ["ice-princess", "sleeping-beauty", None])
    use(s, 0, "ice-princess", target=2, cards=(card("Q6"),))
    found = codes(s.check_step(PowerUse(1, "sleeping-beauty", cards=parse_cards("Q2 Q3 Q4"),
                                        more=parse_cards("Q3 Q4 Q2"))))
    assert found == ["power-blocked"]
    shown("deluxe-sleeping-beauty", "the ice princess has acted")
    shown("deluxe-ice-princess", "whoever she froze")
    shown("interaction-lead-powers-conflict", "whoever she froze")


def test_scheherazade_cannot_draw_the_frozen_card():
    """The card the Ice Princess froze lies in front of its owner, out of the hand: Scheherazade
    can't draw it."""
    s = state(["Q2P5", "Q3Q7", "Q4Q6"], ["ice-princess", "scheherazade", None])
    use(s, 0, "ice-princess", target=2, cards=(card("Q6"),))
    assert codes(s.check_step(PowerUse(1, "scheherazade", target=2,
                                       cards=(card("Q6"), card("Q3"))))) == ["not-in-hand"]
    assert codes(s.check_step(PowerUse(1, "scheherazade", target=2,
                                       cards=(card("Q4"), card("Q3"))))) == []
    shown("deluxe-scheherazade", "froze")


@pytest.mark.parametrize(("hands", "princes_first"), [(["P2P4", "Q5Q3", "Q6Q7"], False),
                                                       (["P2Q4", "Q5Q3", "A6P7"], True)])
def test_classic_little_mermaid_names_princes_only_once_they_snuck_in(hands, princes_first):
    """Classic: « vous ne pouvez pas faire jouer la couleur des Princes s'ils ne sont pas encore
    apparus dans la manche », no exception: refused on her seat even to a leader holding only
    Princes; once a Prince snuck in (seat 2, void in Queens, plays P7), Princes may be named."""
    s = state(hands, [None, "little-mermaid", None], edition="classic")
    if princes_first:
        play(s, "Q4 Q5 P7")  # seat 1's Q5 wins; the Princes snuck in
        assert s.princes_in
        assert codes(s.check_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))) == []
    else:
        found = s.check_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))
        assert codes(found) == ["princes-not-yet"] and found[0].seat == 1
    shown("classic-little-mermaid", "snuck in", "no exception")
