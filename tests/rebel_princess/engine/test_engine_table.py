"""Table entry: tricks judged with the hands unknown, at once and later."""

from __future__ import annotations

import random

import pytest

from companion.scoring.rebel_princess.engine import (
    Edition,
    Haggle,
    IllegalTrickError,
    InvalidEntryError,
    PowerUse,
    RoundState,
    Suit,
    Trick,
    ViolationCode,
    parse_card,
    parse_cards,
    power_slugs,
    violation,
)
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random_round
from companion.scoring.rebel_princess.engine.table import TableRound


def trick(text: str) -> Trick:
    leader, _, rest = text.partition(":")
    winner = None
    if ">" in rest:
        rest, _, won = rest.partition(">")
        winner = int(won)
    return Trick(int(leader), parse_cards(rest), winner)


def codes(violations) -> list[str]:
    return [v.code.value for v in violations]


def found(table: TableRound) -> list[tuple[int, str, int | None]]:
    return [(f.trick, f.code.value, f.seat) for f in table.findings()]


def test_rulebook_example_at_the_table():
    """Deluxe p. 10 at the table: the winner comes from the cards alone; Princes snuck in."""
    table = TableRound(6, edition="deluxe", round_card="a")
    assert table.play_trick(trick("0: Q3 Q7 P12 F9 A8 Q4")) == 1
    assert table.princes_in and table.leader == 1


@pytest.mark.parametrize("entry, expected", [
    ("1: Q3 Q7 Q9", ["wrong-leader"]),
    ("0: Q3 Q7", ["wrong-card-count"]),
    ("0: Q3 Q7 Q12", ["card-not-in-deck"]),
    ("0: Q3 Q7 Q3", ["duplicate-card"]),
    ("0: Q3 Q7 Q9 > 1", ["wrong-winner"]),
])
def test_what_is_judged_at_once(entry, expected):
    """Leader, card count, deck, duplicates and the stated winner are judged at once."""
    table = TableRound(3, round_card="a")
    assert codes(table.check_trick(trick(entry))) == expected


def test_a_card_cannot_be_played_twice():
    """A card already played is refused at once."""
    table = TableRound(3, round_card="a")
    table.play_trick(trick("0: Q3 Q7 Q9"))
    with pytest.raises(IllegalTrickError) as info:
        table.play_trick(trick("2: Q3 A2 A4"))
    assert codes(info.value.violations) == ["card-already-played"]


def test_revoke_is_found_when_the_suit_shows_later():
    """A player who did not follow suit and later plays that suit revoked."""
    table = TableRound(3, round_card="a")
    table.play_trick(trick("0: Q3 F7 Q9"))
    assert table.findings() == []
    table.play_trick(trick("2: A5 A2 A3"))
    table.play_trick(trick("2: F2 F4 Q5"))  # seats 2, 0, 1: seat 1 shows a Queen
    assert found(table) == [(0, "must-follow-suit", 1)]
    assert parse_card("Q5") in table.known_hands(0)[1]


def test_musical_chairs_hides_where_a_card_came_from():
    """Under Musical Chairs (k) the later Queen may have been passed in: no finding."""
    table = TableRound(3, round_card="k")
    table.play_trick(trick("0: Q3 F7 Q9"))
    table.play_trick(trick("2: A5 A2 A3"))
    table.play_trick(trick("2: F2 F4 Q5"))
    assert table.findings() == []


def test_a_haggled_card_is_not_a_revoke():
    """Under Haggle with the Hag (p) the winner's taken card arrived in sight: no finding."""
    table = TableRound(3, round_card="p")
    table.play_trick(trick("0: Q3 Q4 A9"))  # seat 2 is void in Queens
    table.play_trick(trick("1: A2 A10 Q5"))  # seats 1, 2, 0: seat 2 wins
    table.push_step(Haggle(2, parse_card("F2"), parse_card("Q5")))
    table.play_trick(trick("2: Q5 Q6 Q7"))  # seat 2 plays the Queen it took
    assert table.findings() == []
    assert parse_card("Q5") not in table.known_hands(0)[2]


def test_prince_led_before_sneaking_in_by_a_leader_with_other_cards():
    """A leader who led a Prince before they snuck in, and later shows other cards, broke the
    rule; a leader who shows only Princes did not."""
    table = TableRound(3, round_card="a")
    table.play_trick(trick("0: P5 P3 P9"))
    table.play_trick(trick("2: P2 P4 P6"))  # seats 2, 0, 1
    assert table.findings() == []
    table.play_trick(trick("1: Q4 Q2 Q3"))  # seats 1, 2, 0
    assert found(table) == [(0, "princes-not-invited", 0), (1, "princes-not-invited", 2)]


def test_revoke_within_a_double_trick_is_found_at_once():
    """The Prince Always Rings Twice (u): a void first card and a led-suit second card."""
    table = TableRound(3, round_card="u")
    assert codes(table.check_trick(trick("0: Q3 F7 Q9 Q4 Q5 Q6"))) == ["must-follow-suit"]


def test_powers_at_the_table_decide_the_winner():
    """Cinderella announced at the table reverses the trick; Mulan's swap decides it again."""
    table = TableRound(3, round_card="a", princesses=["cinderella", "mulan", None])
    table.push_step(PowerUse(0, "cinderella"))
    assert table.play_trick(trick("0: Q5 Q9 Q7")) == 0
    table.push_step(PowerUse(1, "mulan", cards=parse_cards("Q9 Q2")))
    assert table.leader == 1
    with pytest.raises(InvalidEntryError):
        table.push_step(PowerUse(1, "mulan", cards=parse_cards("Q2 Q9")))


def test_table_outcome_counts_the_tricks():
    """At the end the taken cards and tricks won per seat feed the scoring core."""
    table = TableRound(3, round_card="e")
    rng = random.Random(3)
    state = RoundState.deal(3, round_card="e", rng=rng)
    while not state.is_over():
        state.push_card(rng.choice(sorted(state.legal_plays())))
    for played in state.tricks:
        table.play_trick(played)
    assert table.is_over() and table.findings() == []
    assert table.outcome() == state.outcome()
    assert table.outcome().to_entry().no_tricks == state.outcome().seats_without_trick


def _random_round(edition: Edition, letter: str, seed: int) -> RoundState:
    rng = random.Random(seed)
    players = 3 + seed % 4
    state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                            princesses=rng.sample(list(power_slugs(edition)), players))
    return play_random_round(state, rng, power_chance=0.15)


@pytest.mark.parametrize("edition, letter", [(e, letter) for e in Edition
                                             for letter in round_card_letters(e)])
def test_legal_rounds_are_never_accused(edition, letter):
    """Soundness: a legal full-information round entered at the table gives no finding, the
    same winners and the same taken cards."""
    for seed in range(6):
        state = _random_round(edition, letter, seed)
        table = TableRound(state.players, edition=edition, round_card=letter,
                           leader=state.first_leader, princesses=state.princesses)
        for event in state.events():
            if isinstance(event, Trick):
                assert table.check_trick(event) == [], (seed, event)
                table.push(event)
            elif isinstance(event, (Haggle, PowerUse)):
                table.push_step(event)
        assert table.findings() == [], seed
        outcome, expected = table.outcome(), state.outcome()
        assert outcome is not None and expected is not None
        assert outcome.taken == expected.taken and outcome.tricks_won == expected.tricks_won


def test_findings_are_data():
    """A finding is an ordinary problem: its code, seat, card and trick, the rule and the trick
    that proved it."""
    table = TableRound(3, round_card="a")
    for entry in ("0: Q3 F7 Q9", "2: A5 A2 A3", "2: F2 F4 Q5"):
        table.play_trick(trick(entry))
    (finding,) = table.findings()
    assert finding == violation(ViolationCode.MUST_FOLLOW_SUIT, 1, parse_card("F7"), trick=0)
    assert (finding.params["rule"], finding.params["proven_in"]) == ("basic", 2)


def _rules(table: TableRound) -> list[tuple[int, str, int | None, str]]:
    return [(f.trick, f.code.value, f.seat, f.params["rule"]) for f in table.findings()]


@pytest.mark.parametrize("edition, letter, expected", [
    ("classic", "A", [(0, "not-the-leader", 2, "ice-princess"),
                      (0, "must-follow-suit", 1, "basic")]),
    ("deluxe", "a", []),
])
def test_classic_ice_princess_draws_from_the_leaders_hand(edition, letter, expected):
    """Classic Ice Princess: she draws the card from the hand of the player who leads, so a use
    on another seat is refused at entry, on her seat (the table knows who leads); entered all
    the same (a stored round), it is her rule broken and it excuses nothing (that seat's
    off-suit card is a revoke once it shows the suit); in Deluxe she may freeze any player's
    card."""
    table = TableRound(3, edition=edition, round_card=letter,
                       princesses=[None, None, "ice-princess"])
    refused = table.check_power(PowerUse(2, "ice-princess", target=1, cards=parse_cards("Q3")))
    assert [(p.code.value, p.seat) for p in refused] == [
        (code, seat) for _, code, seat, rule in expected if rule == "ice-princess"]
    assert table.check_power(PowerUse(2, "ice-princess", target=0, cards=parse_cards("F5"))) \
        == []
    table.push_step(PowerUse(2, "ice-princess", target=1, cards=parse_cards("Q3")))
    table.push(trick("0: F5 Q3 F7"))  # seat 1 plays the frozen Queen on a Fairy lead
    table.push(trick("2: F9 F3 F4"))  # seat 1 shows it held a Fairy
    assert _rules(table) == expected


def test_little_mermaid_naming_princes_before_they_snuck_in_excuses_no_prince_lead():
    """Deluxe Little Mermaid: she may not make the leader lead Princes before they snuck in
    unless Princes are all the leader holds, and then the basic rules already allow the lead. A
    Prince lead by a leader later seen holding a Queen is the basic rule broken."""
    table = TableRound(3, round_card="a", princesses=[None, "little-mermaid", None])
    table.push_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))
    table.push(trick("0: P5 P3 P9"))
    assert table.findings() == []  # nothing proven yet: Ana may hold only Princes
    table.push(trick("2: Q4 Q2 Q3"))  # seat 0 shows a Queen
    (finding,) = table.findings()
    assert (finding.trick, finding.code, finding.seat, finding.params["rule"],
            finding.params["proven_in"]) == (0, "princes-not-invited", 0, "basic", 1)


def test_little_mermaid_princes_for_a_leader_holding_only_princes_are_fine():
    """A leader who shows only Princes may be asked for Princes before they snuck in."""
    table = TableRound(3, round_card="a", princesses=[None, "little-mermaid", None])
    table.push_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))
    table.push(trick("0: P5 P3 P9"))
    table.push(trick("2: Q4 P2 Q3"))  # seat 0 plays a Prince again (void in Queens)
    assert table.findings() == []


@pytest.mark.parametrize("edition, letter", [("deluxe", "a"), ("classic", "A")])
def test_classic_little_mermaid_princes_before_they_appeared_change_nothing(edition, letter):
    """Classic Little Mermaid: Princes cannot be named before they appeared; the lead is judged
    by the basic rules alone, once the leader's hand is known."""
    table = TableRound(3, edition=edition, round_card=letter,
                       princesses=[None, "little-mermaid", None])
    table.push_step(PowerUse(1, "little-mermaid", suit=Suit.PRINCE))
    table.push_card(parse_card("P5"))
    assert table.findings() == []
    for code in ("P3", "P9", "Q4", "Q2", "Q3"):  # seat 0 later shows a Queen
        table.push_card(parse_card(code))
    assert [(f.trick, f.code.value, f.params["rule"]) for f in table.findings()] == [
        (0, "princes-not-invited", "basic")]


def test_push_and_pop_are_exact():
    """Every entry undone with pop leaves the judge as it was before it: winners, findings, the
    leader and turn, the cards out of every hand."""
    state = _random_round(Edition.DELUXE, "c", 4)
    table = TableRound(state.players, edition=Edition.DELUXE, round_card="c",
                       leader=state.first_leader, princesses=state.princesses)

    def seen():
        return (table.leader, table.turn, table.cards_out, table.findings(),
                [t.winner for t in table.tricks])

    before = []
    for event in state.events():
        for entry in (event.cards if isinstance(event, Trick) else (event,)):
            before.append(seen())
            if isinstance(event, Trick):
                table.push_card(entry)
            else:
                table.push_step(entry)
    assert table.is_over()
    while before:
        table.pop()
        assert seen() == before.pop()


@pytest.mark.parametrize("letter", ["a", "b", "e", "k"])
def test_a_finished_tricks_watch_never_changes_a_verdict(letter):
    """The judge re-judges a finished trick only when a card that could change its verdict shows
    (its *watch*). Entered card by card, rounds full of broken rules must get exactly the findings
    of a judge that re-judges every trick at every card, after every card and after undoing."""
    for seed in range(40):
        rng = random.Random(seed)
        players = 3 + seed % 4
        state = RoundState.deal(players, round_card=letter, rng=rng)
        hands = [set(state.hand(seat)) for seat in range(players)]
        fast = TableRound(players, round_card=letter, leader=state.first_leader)
        slow = TableRound(players, round_card=letter, leader=state.first_leader)
        slow._watch = lambda trick, undo: None  # re-judge always
        entered = 0
        while not fast.is_over() and fast.turn is not None:
            seat = fast.turn
            current = fast.current
            led = current.cards[0].suit if current is not None and current.cards else None
            follow = [c for c in hands[seat] if c.suit == led]
            pool = follow if follow and rng.random() < 0.6 else sorted(hands[seat])
            card = rng.choice(sorted(pool))
            hands[seat].discard(card)
            fast.push_card(card)
            slow.push_card(card)
            entered += 1
            assert found(fast) == found(slow), (seed, entered)
        assert entered > players, (seed, letter)
        for _ in range(entered // 2):
            fast.pop()
            slow.pop()
            assert found(fast) == found(slow), seed


@pytest.mark.parametrize("letter", ["k", "E"])
def test_musical_chairs_passes_are_checked_at_entry(letter):
    """The passes (one card per seat, passed to the right, after each trick but the last) are
    refused when not due, short, naming a card twice or a card already played."""
    from companion.scoring.rebel_princess.engine import Chairs

    edition = Edition.DELUXE if letter == "k" else Edition.CLASSIC
    table = TableRound(4, edition=edition, round_card=letter)
    passes = Chairs(parse_cards("F2 F3 F4 F5"))
    assert codes(table.check_chairs(passes)) == ["step-not-due"]  # no trick yet
    table.play_trick(trick("0: Q3 Q7 Q9 Q5"))
    assert codes(table.check_chairs(Chairs(parse_cards("F2 F3 F4")))) == ["wrong-card-count"]
    assert codes(table.check_chairs(Chairs(parse_cards("F2 F2 F4 F5")))) == ["duplicate-card"]
    assert codes(table.check_chairs(Chairs(parse_cards("F2 Q3 F4 F5")))) == ["card-already-played"]
    assert table.check_chairs(passes) == []
    table.push_chairs(passes)
    assert codes(table.check_chairs(passes)) == ["step-not-due"]  # entered already
    table.pop()
    table.push_card(parse_card("A2"))
    assert codes(table.check_chairs(passes)) == ["step-not-due"]  # the next trick has begun
    table = TableRound(4, edition=edition, round_card="a" if letter == "k" else "A")
    table.play_trick(trick("0: Q3 Q7 Q9 Q5"))
    assert codes(table.check_chairs(passes)) == ["step-not-due"]  # no passes here


@pytest.mark.parametrize("edition", [Edition.DELUXE, Edition.CLASSIC])
def test_a_power_before_a_trick_takes_no_card_already_played(edition):
    """Sleeping Beauty's cards (either part) and Scheherazade's come from hands: a card already
    played is refused at entry."""
    table = TableRound(4, edition=edition, round_card="a" if edition is Edition.DELUXE else "A",
                       princesses=["sleeping-beauty", "scheherazade", None, None])
    table.play_trick(trick("0: Q3 Q7 Q9 Q5"))
    for cards, more in ((parse_cards("F2 Q3 F4 F5"), ()), ((), parse_cards("F2 F3 F4 Q9"))):
        found = table.check_power(PowerUse(0, "sleeping-beauty", cards=cards, more=more))
        assert codes(found) == ["card-already-played"]
    assert table.check_power(PowerUse(0, "sleeping-beauty", more=parse_cards("F2 F3 F4 F5"))) == []
    found = table.check_power(PowerUse(1, "scheherazade", target=2, cards=parse_cards("Q7 F2")))
    assert codes(found) == ["card-already-played"]
