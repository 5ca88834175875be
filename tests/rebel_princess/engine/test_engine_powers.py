"""Princess powers: who may use them and when, what each one changes, conflicts, undo."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.cards import Suit
from companion.scoring.rebel_princess.engine import (
    Edition,
    InvalidEntryError,
    PowerUse,
    RoundState,
    RoundTranscript,
    format_record,
    parse_card,
    parse_cards,
    parse_record,
    power_slugs,
)
from companion.scoring.rebel_princess.engine.steps import Reveal


def cards(text: str) -> frozenset:
    return frozenset(parse_cards(text))


def card(code: str):
    return parse_card(code)


def codes(violations) -> list[str]:
    return [v.code.value for v in violations]


def state(hands: list[str], princesses: list[str | None], edition: str = "deluxe",
          round_card: str | None = None, leader: int = 0, princes_in: bool = False) -> RoundState:
    return RoundState(hands, edition=edition, round_card=round_card, leader=leader,
                      princes_in=princes_in, princesses=princesses)


def use(s: RoundState, seat: int, power: str, **kwargs) -> None:
    s.play_step(PowerUse(seat, power, **kwargs))


def play(s: RoundState, entry: str) -> int:
    return s.play_trick(s.parse_trick(entry))


# -- who, when, how often ----------------------------------------------------------------------

@pytest.mark.parametrize("edition, count", [(Edition.DELUXE, 12), (Edition.CLASSIC, 10)])
def test_each_edition_has_its_princesses(edition, count):
    """Deluxe has 12 Princesses; the classic edition 10 (no Rapunzel, no Thumbelina)."""
    slugs = power_slugs(edition)
    assert len(slugs) == count
    assert ("rapunzel" in slugs) == ("thumbelina" in slugs) == (edition is Edition.DELUXE)


@pytest.mark.parametrize("edition, princesses", [
    ("classic", ["rapunzel", None, None]), ("deluxe", ["alice", "alice", None]),
    ("deluxe", ["frog-prince", None, None]), ("deluxe", ["alice", None]),
])
def test_bad_princesses_are_rejected(edition, princesses):
    """Unknown, duplicated or other-edition Princesses, or a wrong count, are refused."""
    with pytest.raises(InvalidEntryError):
        state(["Q2", "Q3", "Q4"], princesses, edition=edition)


def test_only_the_owner_may_use_a_power_once_per_round():
    """A seat uses its own Princess's power, once per round."""
    s = state(["Q2Q5", "Q3Q6", "Q4Q7"], [None, "cinderella", None])
    assert codes(s.check_step(PowerUse(0, "cinderella"))) == ["power-not-in-play"]
    use(s, 1, "cinderella")
    assert codes(s.check_step(PowerUse(1, "cinderella"))) == ["power-already-used"]
    play(s, "Q2 Q3 Q4")
    assert codes(s.check_step(PowerUse(1, "cinderella"))) == ["power-already-used"]


@pytest.mark.parametrize("power, kwargs", [
    ("cinderella", {}), ("pea-princess", {}), ("pocahontas", {"target": 2}),
])
def test_before_trick_powers_wait_for_the_next_trick(power, kwargs):
    """A before-trick power cannot be used once the trick has started."""
    s = state(["Q2Q5", "Q3Q6", "Q4Q7"], [None, power, None])
    s.push_card(card("Q2"))
    assert codes(s.check_step(PowerUse(1, power, **kwargs))) == ["power-not-now"]


def test_after_trick_powers_need_a_trick():
    """Alice and Mulan act right after a trick, so not before the first one."""
    s = state(["Q2Q5", "Q3Q6", "Q4Q7"], ["alice", "mulan", None])
    assert codes(s.check_step(PowerUse(0, "alice", cards=parse_cards("Q2 Q3 Q4")))) == [
        "power-not-now"]
    assert codes(s.check_step(PowerUse(1, "mulan", cards=parse_cards("Q3 Q6")))) == [
        "power-not-now"]


# -- Cinderella and Snow White: the order of the cards -----------------------------------------

@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_cinderella_lowest_card_wins(edition):
    """Cinderella: for the coming trick, the lowest card of the led suit wins."""
    s = state(["Q5Q2", "Q9Q3", "Q7Q4"], [None, "cinderella", None], edition=edition)
    use(s, 1, "cinderella")
    assert play(s, "Q5 Q9 Q7") == 0
    assert play(s, "0: Q2 Q3 Q4") == 2  # only that trick


@pytest.mark.parametrize("plays, winner", [("A5 A6 A9", 2), ("A5 A7 A9", 0), ("A6 Q6 A9", 0)])
def test_cinderella_with_upside_down(plays, winner):
    """Upside Down (x) with Cinderella: reversed from the start, each 6 reverses again."""
    hands = plays.split()
    s = state(hands, ["cinderella", None, None], round_card="x", princes_in=True)
    use(s, 0, "cinderella")
    assert play(s, plays) == winner


def test_cinderella_with_the_prince_always_rings_twice():
    """u with Cinderella: the lowest sum of led-suit cards wins (RULINGS.md)."""
    s = state(["A5A3", "A9A2", "A10Q2"], ["cinderella", None, None], round_card="u")
    use(s, 0, "cinderella")
    assert play(s, "A5 A9 A10 A3 A2 Q2") == 0  # sums 8, 11, 10: the lowest wins


def test_snow_white_zero_loses_and_wins_reversed():
    """Snow White plays a 7 or lower as a zero: it loses, unless Cinderella reversed the order."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", "cinderella", None])
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 Q6") == 2
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", "cinderella", None])
    use(s, 1, "cinderella")
    use(s, 0, "snow-white", cards=(card("Q5"),))
    assert play(s, "Q5 Q4 Q6") == 0


def test_snow_white_must_play_her_declared_card():
    """Once declared, Snow White's zero card is the one she plays if she may."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], [None, "snow-white", None])
    s.push_card(card("Q5"))
    use(s, 1, "snow-white", cards=(card("Q3"),))
    assert s.legal_plays() == cards("Q3")
    (found,) = s.check_play(card("Q4"))
    assert (found.code.value, found.params["rule"]) == ("power-restriction", "snow-white")


@pytest.mark.parametrize("chosen, expected", [("Q8", ["bad-power-argument"]),
                                              ("F2", ["not-in-hand"])])
def test_snow_white_needs_a_low_card_of_hers(chosen, expected):
    """Only a card of rank 7 or lower from her own hand can be a zero."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], [None, None, "snow-white"])
    assert codes(s.check_step(PowerUse(2, "snow-white", cards=(card(chosen),)))) == expected


# -- legality powers ---------------------------------------------------------------------------

@pytest.mark.parametrize("hand, allowed", [("Q2Q7", "Q7"), ("Q2Q4", "Q2 Q4"), ("A2F8", "F8")])
def test_pea_princess_others_play_above_five(hand, allowed):
    """The Pea Princess: the other players play above 5 among the cards they may play."""
    s = state(["Q5A9", hand, "Q9Q3"], ["pea-princess", None, None])
    use(s, 0, "pea-princess")
    s.push_card(card("Q5"))
    assert s.legal_plays() == cards(allowed)


def test_pea_princess_herself_is_free():
    """The Pea Princess's own plays are not restricted."""
    s = state(["Q5A9", "Q2Q7", "Q9Q3"], [None, None, "pea-princess"])
    use(s, 2, "pea-princess")
    s.push_card(card("Q5"))
    s.push_card(card("Q7"))
    assert s.legal_plays() == cards("Q9 Q3")


def test_classic_pea_princess_binds_only_later_players():
    """Classic: only the players after the Pea Princess in the trick must play above 5."""
    s = state(["Q5A9", "Q2Q7", "Q9Q3", "Q4Q8"], [None, "pea-princess", None, None],
              edition="classic")
    s.push_card(card("Q5"))
    use(s, 1, "pea-princess")
    s.push_card(card("Q2"))
    assert s.legal_plays() == cards("Q9")
    (found,) = s.check_play(card("Q3"))
    assert (found.code.value, found.params["rule"]) == ("power-restriction", "pea-princess")


@pytest.mark.parametrize("edition, suit, allowed", [
    ("deluxe", Suit.FAIRY, "F3"), ("classic", Suit.FAIRY, "F3"), ("classic", Suit.PET, "Q2 F3"),
])
def test_little_mermaid_names_the_lead_suit(edition, suit, allowed):
    """The Little Mermaid names the suit the leader must lead (classic: if they hold it)."""
    s = state(["Q2F3P4", "Q5", "Q6"], [None, "little-mermaid", None], edition=edition)
    use(s, 1, "little-mermaid", suit=suit)
    assert s.legal_plays() == cards(allowed)


@pytest.mark.parametrize("edition, suit, expected", [
    ("deluxe", Suit.PET, ["suit-not-held"]), ("deluxe", Suit.PRINCE, ["princes-not-invited"]),
    ("classic", Suit.PRINCE, ["princes-not-yet"]),
])
def test_little_mermaid_limits(edition, suit, expected):
    """Deluxe: name a suit the leader holds; never Princes before they snuck in (unless the
    leader holds only Princes). Classic: never Princes before one appeared, her own rule."""
    s = state(["Q2F3P4", "Q5", "Q6"], [None, "little-mermaid", None], edition=edition)
    found = s.check_step(PowerUse(1, "little-mermaid", suit=suit))
    assert codes(found) == expected
    if edition == "classic":
        assert found[0].seat == 1  # the Little Mermaid's seat: the leader broke nothing


@pytest.mark.parametrize("edition, expected", [("deluxe", []), ("classic", ["princes-not-yet"])])
def test_little_mermaid_princes_to_a_leader_holding_only_princes(edition, expected):
    """Deluxe: « unless the lead player only has cards of the Prince suit »; the classic text
    (« vous ne pouvez pas faire jouer la couleur des Princes s'ils ne sont pas encore apparus »)
    has no such exception."""
    s = state(["P2P4", "Q5Q3", "Q6Q7"], [None, "little-mermaid", None], edition=edition)
    assert codes(s.check_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))) == expected


def test_rapunzel_leader_leads_a_prince_without_sneaking_in():
    """Rapunzel: the leader must lead a Prince even before they snuck in; they stay out."""
    s = state(["Q2P4", "Q5P2", "Q6P3"], [None, None, "rapunzel"])
    use(s, 2, "rapunzel")
    assert s.legal_plays() == cards("P4")
    play(s, "P4 P2 P3")
    assert not s.princes_in and s.legal_plays() == cards("Q2")


def test_rapunzel_without_princes_leaves_the_lead_free():
    """A leader without Princes leads as usual; the power is still used."""
    s = state(["Q2A4", "Q5P2", "Q6P3"], [None, None, "rapunzel"])
    use(s, 2, "rapunzel")
    assert s.legal_plays() == cards("Q2 A4") and s.used[2]


def test_thumbelina_ignores_the_suit_but_not_princes_or_the_frog():
    """Thumbelina, not leading, may play any card except a Prince or the Frog."""
    s = state(["Q2Q5", "Q3A8P2F4", "Q4Q6"], [None, "thumbelina", None])
    assert codes(s.check_step(PowerUse(0, "thumbelina"))) == ["power-not-in-play"]
    s.push_card(card("Q2"))
    use(s, 1, "thumbelina")
    assert s.legal_plays() == cards("Q3 F4")


def test_thumbelina_not_while_leading():
    """Thumbelina cannot use her power to lead."""
    s = state(["Q2Q5", "Q3A8P2F4", "Q4Q6"], [None, "thumbelina", None], leader=1)
    assert codes(s.check_step(PowerUse(1, "thumbelina"))) == ["power-not-now"]


def test_ice_princess_forces_a_card_even_off_suit():
    """The Ice Princess: the target must play the chosen card, even against the suit rule; a
    chosen Prince brings the Princes in."""
    s = state(["Q2Q5", "Q3P2", "Q4Q6"], [None, None, "ice-princess"])
    use(s, 2, "ice-princess", target=1, cards=(card("P2"),))
    assert s.princes_in
    s.push_card(card("Q2"))
    assert s.legal_plays() == cards("P2")
    s.pop_card()
    s.pop()
    assert not s.princes_in


@pytest.mark.parametrize("target, chosen, expected", [
    (1, "Q3", ["not-the-leader"]), (0, "Q3", ["not-in-hand"]),
])
def test_classic_ice_princess_picks_the_lead(target, chosen, expected):
    """Classic: the Ice Princess draws the card the leader will lead."""
    s = state(["Q2Q5", "Q3P2", "Q4Q6"], [None, None, "ice-princess"], edition="classic")
    assert codes(s.check_step(PowerUse(2, "ice-princess", target=target,
                                       cards=(card(chosen),)))) == expected
    use(s, 2, "ice-princess", target=0, cards=(card("Q5"),))
    assert s.legal_plays() == cards("Q5")


def test_shown_cards_cannot_be_drawn_at_random():
    """Crystal Clear (h): the Ice Princess and Scheherazade cannot pick a shown card."""
    s = state(["Q2Q5", "Q3P2", "Q4Q6"], [None, "scheherazade", "ice-princess"], round_card="h")
    s.play_step(Reveal((Suit.QUEEN, Suit.PRINCE, Suit.QUEEN)))
    assert codes(s.check_step(PowerUse(2, "ice-princess", target=0, cards=(card("Q2"),)))) == [
        "card-shown"]
    assert codes(s.check_step(PowerUse(1, "scheherazade", target=0,
                                       cards=(card("Q2"), card("Q3"))))) == ["card-shown"]


# -- who leads, who holds what -----------------------------------------------------------------

def test_pocahontas_chooses_the_leader():
    """Deluxe Pocahontas: before a trick, any player may be chosen to lead it."""
    s = state(["Q2Q5", "Q3Q7", "Q4Q6"], [None, "pocahontas", None])
    use(s, 1, "pocahontas", target=2)
    assert s.leader == 2 and s.legal_plays(2) == cards("Q4 Q6")
    play(s, "2: Q4 Q2 Q3")
    assert s.outcome() is None and s.tricks[0].leader == 2


def test_classic_pocahontas_passes_the_lead_after_winning():
    """Classic Pocahontas: after winning a trick, she names another player to lead the next."""
    s = state(["Q2Q5", "Q9Q7", "Q4Q6"], [None, "pocahontas", None], edition="classic")
    assert codes(s.check_step(PowerUse(1, "pocahontas", target=2))) == ["power-not-now"]
    play(s, "Q2 Q9 Q4")
    assert codes(s.check_step(PowerUse(1, "pocahontas", target=1))) == ["bad-power-argument"]
    use(s, 1, "pocahontas", target=0)
    assert s.leader == 0


def test_scheherazade_swaps_or_gives_back():
    """Scheherazade takes a card from a player and gives one of hers, or the same one, back."""
    s = state(["Q2Q5", "Q3Q7", "Q4Q6"], [None, "scheherazade", None])
    use(s, 1, "scheherazade", target=2, cards=(card("Q4"), card("Q7")))
    assert s.hand(1) == cards("Q3 Q4") and s.hand(2) == cards("Q7 Q6")
    s.pop()
    use(s, 1, "scheherazade", target=2, cards=(card("Q4"), card("Q4")))
    assert s.hand(1) == cards("Q3 Q7") and s.hand(2) == cards("Q4 Q6")


def test_sleeping_beauty_redistributes_one_card_each():
    """Sleeping Beauty: every player contributes a card; she deals them out, one each."""
    s = state(["Q2Q5", "Q3Q7", "Q4Q6"], [None, None, "sleeping-beauty"])
    contributed = parse_cards("Q2 Q3 Q4")
    assert codes(s.check_step(PowerUse(2, "sleeping-beauty", cards=contributed,
                                       more=parse_cards("Q2 Q3 Q5")))) == ["bad-power-argument"]
    use(s, 2, "sleeping-beauty", cards=contributed, more=parse_cards("Q4 Q2 Q3"))
    assert [s.hand(seat) for seat in range(3)] == [cards("Q4 Q5"), cards("Q2 Q7"), cards("Q3 Q6")]


@pytest.mark.parametrize("first, second, edition, blocked", [
    (("rapunzel", {}), ("little-mermaid", {"suit": Suit.QUEEN}), "deluxe", True),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("rapunzel", {}), "deluxe", True),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("pocahontas", {"target": 1}), "deluxe", True),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("sleeping-beauty", {}), "deluxe", True),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("scheherazade", {"target": 0}), "deluxe", True),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("scheherazade", {"target": 2}), "deluxe", False),
    (("little-mermaid", {"suit": Suit.QUEEN}), ("sleeping-beauty", {}), "classic", True),
    (("cinderella", {}), ("little-mermaid", {"suit": Suit.QUEEN}), "deluxe", False),
])
def test_deluxe_power_conflicts(first, second, edition, blocked):
    """Some powers may not follow others in the same trick (Deluxe Princess Cards, p. 23); the
    classic edition applies the same conflicts (RULINGS.md)."""
    names = [first[0], second[0], None]
    if edition == "classic" and "rapunzel" in names:
        pytest.skip("no Rapunzel in the classic edition")
    s = state(["Q2P5", "Q3Q7", "Q4Q6"], names, edition=edition)
    use(s, 0, first[0], **first[1])
    kwargs = dict(second[1])
    if second[0] == "sleeping-beauty":
        kwargs = {"cards": parse_cards("Q2 Q3 Q4"), "more": parse_cards("Q3 Q4 Q2")}
    elif second[0] == "scheherazade":
        target = kwargs["target"]
        kwargs = {"target": target, "cards": (sorted(s.hand(target))[0], card("Q3"))}
    found = codes(s.check_step(PowerUse(1, second[0], **kwargs)))
    assert ("power-blocked" in found) == blocked


# -- after the trick ---------------------------------------------------------------------------

def test_mulan_swap_decides_the_trick_again():
    """Mulan swaps her played card for another of the same suit; the trick is decided again,
    and the record shows the trick as played, then the swap."""
    s = state(["Q5Q2", "Q4Q9", "Q6Q3"], [None, "mulan", None])
    assert play(s, "Q5 Q4 Q6") == 2
    use(s, 1, "mulan", cards=(card("Q4"), card("Q9")))
    assert s.tricks[0].winner == 1 and s.hand(1) == cards("Q4") and s.leader == 1
    record = RoundTranscript.from_state(s)
    text = format_record(record)
    assert "1. 0: Q5 Q4 Q6 > 2\npower 1 mulan Q4/Q9" in text
    assert parse_record(text).replay().notation() == s.notation()
    s.pop()
    assert s.tricks[0].winner == 2 and s.hand(1) == cards("Q9")


@pytest.mark.parametrize("swap, expected", [
    (("Q4", "A8"), ["must-follow-suit"]), (("Q5", "Q9"), ["not-in-trick"]),
    (("Q4", "Q7"), ["not-in-hand"]),
])
def test_mulan_limits(swap, expected):
    """Mulan swaps her own played card for one of the same suit from her hand."""
    s = state(["Q5Q2", "Q4Q9A8", "Q6Q3"], [None, "mulan", None])
    play(s, "Q5 Q4 Q6")
    assert codes(s.check_step(PowerUse(1, "mulan", cards=(card(swap[0]),
                                                           card(swap[1]))))) == expected


def test_mulan_never_swaps_the_frog():
    """The Frog cannot be swapped by Mulan."""
    s = state(["A5Q2", "A8A9", "A6Q3"], [None, "mulan", None])
    play(s, "A5 A8 A6")
    assert codes(s.check_step(PowerUse(1, "mulan", cards=(card("A8"), card("A9"))))) == [
        "power-frog"]


def test_alice_deals_her_trick_back():
    """Alice gives back a trick she just won, one card each; a Prince in it brings Princes in;
    the trick no longer counts as won by her."""
    s = state(["Q5Q2", "Q9Q7", "P3A3"], [None, "alice", None])
    assert play(s, "Q5 Q9 P3") == 1
    assert codes(s.check_step(PowerUse(1, "alice", cards=parse_cards("Q5 Q9")))) == [
        "wrong-card-count"]
    use(s, 1, "alice", cards=parse_cards("P3 Q5 Q9"))
    assert [s.hand(seat) for seat in range(3)] == [cards("Q2 P3"), cards("Q7 Q5"), cards("A3 Q9")]
    assert s.tricks_won == [0, 0, 0] and s.taken == [0, 0, 0] and s.princes_in
    assert s.leader == 1 and not s.is_over()
    assert play(s, "1: Q7 Q9 Q2") == 2
    assert play(s, "2: A3 P3 Q5") == 2
    assert s.is_over() and sum(s.tricks_won) == 2


def test_alice_only_after_winning_without_the_frog():
    """Only the winner, and never with the Frog in the trick."""
    s = state(["A5Q2", "A9Q7", "A8Q3"], ["alice", None, None])
    play(s, "A5 A9 A8")
    assert codes(s.check_step(PowerUse(0, "alice", cards=parse_cards("A5 A9 A8")))) == [
        "not-trick-winner"]
    s = state(["A5Q2", "A9Q7", "A8Q3"], [None, "alice", None])
    play(s, "A5 A9 A8")
    assert codes(s.check_step(PowerUse(1, "alice", cards=parse_cards("A5 A9 A8")))) == [
        "power-frog"]


# -- notation and undo -------------------------------------------------------------------------

def test_powers_in_effect_survive_the_notation():
    """Princesses, used powers and the powers in effect round-trip through the notation."""
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], ["snow-white", "cinderella", "pea-princess"])
    use(s, 1, "cinderella")
    use(s, 0, "snow-white", cards=(card("Q5"),))
    text = s.notation()
    assert "active=1:cinderella|0:snow-white:Q5" in text and "used=0,1" in text
    rebuilt = RoundState.from_notation(text)
    assert rebuilt.notation() == text
    assert rebuilt.play_trick(rebuilt.parse_trick("Q5 Q4 Q6")) == 0


@pytest.mark.parametrize("step", [
    PowerUse(2, "pea-princess"), PowerUse(0, "cinderella"), PowerUse(1, "pocahontas", target=2),
])
def test_pop_undoes_a_power(step):
    """pop() undoes a power use exactly; the power can then be used again."""
    names = [None, None, None]
    names[step.seat] = step.power
    s = state(["Q5Q2", "Q4Q3", "Q6Q8"], names)
    before = s.notation()
    s.play_step(step)
    assert s.pop() == step
    assert s.notation() == before and s.check_step(step) == []
