"""The one-line state notation and the round text record: both round-trip exactly."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.scoring.rebel_princess.engine import (
    Edition,
    IllegalTrickError,
    InvalidEntryError,
    RoundState,
    RoundTranscript,
    ViolationCode,
    format_record,
    parse_card,
    parse_record,
    power_slugs,
)
from companion.scoring.rebel_princess.engine import record as record_module
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random_round, random_step


def random_round(players: int, letter: str, seed: int, edition: Edition = Edition.DELUXE,
                 stop: int | None = None, princesses: tuple | None = None) -> RoundState:
    """Deal and play random legal cards (all of them, or ``stop`` cards)."""
    rng = random.Random(seed)
    state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                            leader=rng.randrange(players), princesses=princesses)
    played = 0
    while not state.is_over() and (stop is None or played < stop):
        if state.step_due is not None:
            state.play_step(random_step(state, rng))
            continue
        state.push_card(rng.choice(sorted(state.legal_plays())))
        played += 1
    return state


def test_state_notation_fields():
    """The notation lists edition, card, leader, Princes flag, hands, taken, tricks won, trick."""
    state = RoundState(["Q3F4", "Q7A10", "P2F2"], edition="classic", round_card="h")
    assert state.notation() == "classic H 0 - Q3F4/Q7A10/P2F2 -/-/- 0/0/0 -"
    state.push_card(parse_card("Q3"))
    assert state.notation() == "classic H 0 - F4/Q7A10/P2F2 -/-/- 0/0/0 Q3"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_state_notation_round_trips_at_every_card(players):
    """from_notation(s.notation()) rebuilds the same state after every card of a round."""
    letters = round_card_letters(Edition.DELUXE)
    for seed in range(4):
        letter = letters[(players * 7 + seed * 5) % len(letters)]
        state = random_round(players, letter, seed, stop=0)
        rng = random.Random(seed)
        while not state.is_over():
            rebuilt = RoundState.from_notation(state.notation())
            assert rebuilt.notation() == state.notation()
            assert rebuilt.legal_plays() == state.legal_plays()
            assert rebuilt.step_due == state.step_due
            if state.step_due is not None:
                state.play_step(random_step(state, rng))
            else:
                state.push_card(rng.choice(sorted(state.legal_plays())))


def test_notation_keeps_princes_sneaking_in_during_the_trick():
    """A Prince that snuck in during the trick in progress is undone by pop_card after a rebuild."""
    state = RoundState.from_notation("deluxe a 0 + -/A2/F3 -/-/- 0/0/0 Q5P4")
    assert state.princes_in
    state.pop_card()
    assert not state.princes_in


@pytest.mark.parametrize("text", [
    "deluxe a 0 - Q3/Q7/F9 -/-/- 0/0/0",  # 7 fields
    "deluxe a 0 ? Q3/Q7/F9 -/-/- 0/0/0 -",  # bad Princes flag
    "deluxe a x - Q3/Q7/F9 -/-/- 0/0/0 -",  # bad leader
    "deluxe a 0 - Q3/Q7/X9 -/-/- 0/0/0 -",  # unknown card
    "deluxe a 0 - Q3/Q7/F9 -/-/- 0/0/x -",  # bad tricks won
    "deluxe a 0 - Q3/Q7/F9 -/-/- 0/0/0 Q4Q5Q6",  # a complete trick in progress
    "deluxe a 0 - Q3/Q7/F9 -/-/- 0/0/0 Q4P5",  # Princes snuck in but flagged out
    "german a 0 - Q3/Q7/F9 -/-/- 0/0/0 -",  # unknown edition
    "deluxe a 0 - Q3/Q7/F9/F2/F4/F5/F6 -/-/-/-/-/-/- 0/0/0/0/0/0/0 -",  # 7 seats
])
def test_bad_state_notation_is_rejected(text):
    """Malformed notation raises InvalidEntryError, never a bare exception."""
    with pytest.raises(InvalidEntryError):
        RoundState.from_notation(text)


def test_record_docstring_example_replays():
    """The record module's own example parses, replays legally and names the right winners."""
    text = record_module.__doc__.split("::")[1].split("Headers:")[0]
    record = parse_record("\n".join(line.strip() for line in text.splitlines()))
    state = record.replay()
    assert [t.winner for t in state.tricks] == [1, 1]
    assert record.princesses == ("alice", None, "snow-white", None, None, "mulan")


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("edition", list(Edition))
def test_record_round_trips_and_replays(players, edition):
    """parse_record(format_record(r)) == r, and replaying r gives the same outcome."""
    letters = round_card_letters(edition)
    slugs = power_slugs(edition)
    for seed in range(3):
        letter = letters[(players + seed * 3) % len(letters)]
        princesses = tuple(slugs[(seed + seat) % len(slugs)] for seat in range(players))
        state = random_round(players, letter, seed, edition, princesses=princesses)
        record = RoundTranscript.from_state(state)
        assert record.princesses == princesses
        assert parse_record(format_record(record)) == record
        assert record.replay().outcome() == state.outcome()
        assert record.replay(check=False).notation() == state.notation()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(3, 6), stop=st.integers(0, 48))
def test_record_round_trip_property(seed, players, stop):
    """Any partly played round prints and parses back to an equal record."""
    letters = round_card_letters(Edition.CLASSIC)
    state = random_round(players, letters[seed % len(letters)], seed, Edition.CLASSIC, stop)
    while state.current_trick:
        state.pop_card()
    assert len(state.tricks) <= 48
    record = RoundTranscript.from_state(state)
    assert parse_record(format_record(record)) == record


def test_record_without_hands_round_trips_but_cannot_replay():
    """A table record may omit the hands; it still round-trips, but replaying needs them."""
    text = ('[Edition "classic"]\n[Players "3"]\n[RoundCard "D"]\n[Leader "2"]\n\n'
            '1. 2: Q3 Q9 A4 > 1\n')
    record = parse_record(text.replace('"D"', '"d"'))
    assert record.round_card == "D" and record.hands is None
    assert format_record(record) == text
    with pytest.raises(InvalidEntryError):
        record.replay()


def test_record_replay_reports_a_wrong_winner():
    """A stated winner that the rules contradict makes the checked replay fail."""
    text = '[Edition "deluxe"]\n[Players "3"]\n[RoundCard "a"]\n[Leader "0"]\n' \
           '[Hands "Q3/Q7/F9"]\n1. 0: Q3 Q7 F9 > 0\n'
    with pytest.raises(IllegalTrickError) as info:
        parse_record(text).replay()
    assert [v.code for v in info.value.violations] == [ViolationCode.WRONG_WINNER]
    assert parse_record(text).replay(check=False).tricks[0].winner == 1


HEAD = '[Edition "deluxe"]\n[Players "3"]\n[RoundCard "a"]\n[Leader "0"]\n'


@pytest.mark.parametrize("text", [
    '[Edition "deluxe"]\n[Players "3"]\n[RoundCard "a"]\n',  # no Leader
    HEAD + '[Colour "blue"]\n',  # unknown header
    HEAD + '[Leader "1"]\n',  # repeated header
    HEAD + "2. 0: Q3 Q7 F9\n",  # out of sequence
    HEAD + "1. 0: Q3 Q7 F9\n[Hands \"-/-/-\"]\n",  # header after tricks
    HEAD + "1. 5: Q3 Q7 F9\n",  # seat outside the table
    HEAD + "1. 0: Q3 Q7 X9\n",  # unknown card
    HEAD + "hello\n",  # not a line of a record
    HEAD + '[Princesses "alice mulan"]\n',  # too few
    HEAD.replace("deluxe", "classic").replace('"a"', '"A"') + '[Princesses "alice - rapunzel"]\n',
    HEAD + '[Hands "Q3/Q7"]\n',
    HEAD.replace('"3"', '"7"'),
    HEAD.replace('"a"', '"aa"'),
])
def test_bad_record_is_rejected(text):
    """Malformed records raise InvalidEntryError (Rapunzel is not a classic Princess)."""
    with pytest.raises(InvalidEntryError):
        parse_record(text)


@pytest.mark.parametrize("edition", list(Edition))
def test_notation_round_trips_with_steps_and_powers(edition):
    """With Round-card steps, haggles and random Princess powers, every intermediate state
    rebuilds from its notation with the same legal plays and the same step due."""
    def rebuilds(state: RoundState) -> None:
        rebuilt = RoundState.from_notation(state.notation())
        assert rebuilt.notation() == state.notation()
        assert rebuilt.legal_plays() == state.legal_plays()
        assert rebuilt.step_due == state.step_due

    for letter in round_card_letters(edition):
        rng = random.Random(letter)
        players = 3 + ord(letter) % 4
        state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                                princesses=rng.sample(power_slugs(edition), players))
        play_random_round(state, rng, power_chance=0.2, each=rebuilds)
