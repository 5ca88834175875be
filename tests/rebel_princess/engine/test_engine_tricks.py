"""Golden trick examples from the rulebooks, replayed through the engine."""

from __future__ import annotations

from companion.scoring.rebel_princess.engine import RoundState, Trick, parse_card, parse_cards


def test_rulebook_example_trick_deluxe():
    """Deluxe p. 10: Kevin Q3, Jay Q7, Renée P12 (void), Antonia F9, Ted A8, Ryan Q4: Jay wins the
    trick, the Princes have snuck in, and Jay then leads the 10 of Pets."""
    # Seats 0-5: Kevin, Jay, Renée, Antonia, Ted, Ryan. Each holds the card played and one more.
    state = RoundState(["Q3F1", "Q7A10", "P12F2", "F9A3", "A8P1", "Q4Q5"], edition="deluxe",
                       round_card="a", leader=0)
    trick = state.parse_trick("Q3 Q7 P12 F9 A8 Q4")
    assert state.check_trick(trick) == []
    assert state.play_trick(trick) == 1
    assert state.princes_in
    assert {str(c) for c in state.taken_cards(1)} == {
        "Q3", "Q7", "P12", "F9", "A8", "Q4"}
    assert state.is_legal_play(1, parse_card("A10"))
    assert state.tricks == [Trick(0, parse_cards("Q3 Q7 P12 F9 A8 Q4"), 1)]


def test_rulebook_example_trick_classic():
    """French p. 8 (told for 6 players): Nelly leads Q4, Philippe Q7, Lionel P12, Caroline F9 and
    Anthony A8, all three void: Philippe wins with the highest red card (the example names five
    players; a sixth, void, seat plays F5)."""
    state = RoundState(["Q4F1", "Q7A10", "P12F2", "F9A3", "A8P1", "F5A5"], edition="classic",
                       round_card="A", leader=0)
    assert state.play_trick(state.parse_trick("Q4 Q7 P12 F9 A8 F5")) == 1
    assert state.princes_in
