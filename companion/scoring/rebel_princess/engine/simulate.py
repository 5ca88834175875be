"""Random games through the engine, checking invariants.

``python -m companion.scoring.rebel_princess.engine.simulate``

Each game picks an edition, a player count (3-6), a first leader and five Round cards at random,
then plays every round with uniformly random legal cards (full information), a random opening pass
(none, 1 left, 2 right or 1 each way), random required Round-card steps, under Haggle with the
Hag a random haggle after half the tricks, and a random Princess for every seat whose power is tried
now and then (only uses the engine accepts are played). Leaders after the first
round come from the scoring core's :func:`~companion.scoring.rebel_princess.game.play_through`,
so the engine and
the scoring core are exercised together. After every round the simulation checks:

- every card of the deck was played exactly once, kept (Round card n) or given (o / M); Wedding
  Gift plays half as many tricks;
- at the start of every trick all hands hold the same number of cards;
- every trick has one winner, whose taken cards include the trick; the tricks won add up to the
  number of tricks and each seat's taken cards are exactly the tricks it won (after haggles);
- the round's text record round-trips, and replaying it through the *checked* path
  (:meth:`~.state.RoundState.play_trick`) accepts every trick and winner;
- the scoring core's round scores agree with an independent count from the cards taken, and the game
  totals are the sums of the round scores.

``--games N --seed S`` makes a run reproducible; the exit status is 1 when any invariant fails.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from companion.scoring.rebel_princess.cards import (
    FROG,
    Edition,
    RebelCard,
    Suit,
    deck,
    hand_size,
    princes,
)
from companion.scoring.rebel_princess.game import GameSetup, PlayedRound, play_through
from companion.scoring.rebel_princess.round_cards import round_card
from companion.scoring.rebel_princess.round_score import bathroom_exempt, score_entry

from .cards import card_id, cards_in_order, cards_of
from .modifiers import round_card_letters
from .powers import power_slugs
from .record import RoundTranscript, format_record, parse_record
from .state import RoundState
from .steps import Chairs, Gift, Haggle, Pass, PowerUse, Reveal, SetAside, Step, StepKind
from .values import Trick

__all__ = ["SimulationReport", "expected_scores", "main", "play_random", "simulate"]


def random_step(state: RoundState, rng: random.Random) -> Step:
    """A random legal step of the kind due (set-aside, reveal, gift or musical chairs)."""
    kind = state.step_due
    # Each hand lowest card first (ids order cards by suit, then rank), straight from the masks.
    hands = [cards_in_order(mask) for mask in state.hands]
    if kind is StepKind.SET_ASIDE:
        size = state.set_aside_size()
        return SetAside(tuple(frozenset(rng.sample(hand, size)) for hand in hands))
    if kind is StepKind.REVEAL:
        return Reveal(tuple(rng.choice(hand).suit for hand in hands))
    cards = tuple(rng.choice(hand) for hand in hands)
    if kind is StepKind.GIFT:
        return Gift(cards)
    if kind is StepKind.CHAIRS:
        return Chairs(cards)
    raise ValueError(f"no step is due in {state.notation()}")


def random_pass(state: RoundState, rng: random.Random, left: int, right: int) -> Pass:
    """A random opening pass: each seat gives ``left`` cards to its left, ``right`` to its right."""
    lefts, rights = [], []
    for seat in range(state.players):
        given = rng.sample(sorted(state.hand(seat), key=card_id), left + right)
        lefts.append(frozenset(given[:left]))
        rights.append(frozenset(given[left:]))
    return Pass(tuple(lefts), tuple(rights))


def random_haggle(state: RoundState, rng: random.Random) -> Haggle | None:
    """A random haggle for the last trick's winner, if one is open (p / T)."""
    option = state.haggle_option()
    if option is None:
        return None
    winner, takeable = option
    give = rng.choice(sorted(state.hand(winner), key=card_id))
    take = rng.choice(sorted(cards_of(takeable), key=card_id))
    return Haggle(winner, give, take)


#: Opening passes tried by the simulation: none, 1 left, 2 right, 1 each way.
PASSES = ((0, 0), (1, 0), (0, 2), (1, 1))


def random_power(state: RoundState, seat: int, rng: random.Random) -> PowerUse | None:
    """A plausible random use of ``seat``'s unused power now, or ``None`` (it may still break a
    rule: callers check it)."""
    power = state.powers[seat]
    if power is None or state.used[seat] or state.is_over() or not all(state.hands):
        return None
    return power.random_use(state, seat, rng)


def try_powers(state: RoundState, rng: random.Random, chance: float) -> int:
    """Each unused power, with probability ``chance``, tries a random use; legal ones are played.
    Returns how many were used."""
    done = 0
    for seat in range(state.players):
        if state.used[seat] or rng.random() >= chance:
            continue
        use = random_power(state, seat, rng)
        if use is not None and not state.check_step(use):
            state.push_step(use)
            done += 1
    return done


def play_random_round(state: RoundState, rng: random.Random, *, power_chance: float,
                      haggle_chance: float = 0.5,
                      each: Callable[[RoundState], None] | None = None) -> RoundState:
    """Play a round to its end the way a table might: random required steps, random Princess
    powers (each unused one tries with probability ``power_chance`` before every card), random
    legal cards, and after a trick a random haggle with probability ``haggle_chance``. ``each``
    is called with the state before every step or card, for checks along the way."""
    while not state.is_over():
        if each is not None:
            each(state)
        if state.step_due is not None:
            state.play_step(random_step(state, rng))
            continue
        try_powers(state, rng, power_chance)
        if state.step_due is not None or state.is_over():
            continue
        state.push_card(rng.choice(sorted(state.legal_plays())))
        haggle = random_haggle(state, rng)
        if haggle is not None and rng.random() < haggle_chance:
            state.play_step(haggle)
    return state


def play_random(state: RoundState, rng: random.Random) -> int:
    """Play uniformly random legal cards (and random required steps) until the round is over;
    returns the cards played."""
    legal_mask, push_id, rand = state.legal_mask, state.push_id, rng.random
    played = 0
    while state.cards_left:
        mask = legal_mask()
        if not mask:  # a step is due before the next card
            state.push_step(random_step(state, rng))
            continue
        skip = int(rand() * mask.bit_count())
        while skip:  # drop the lowest cards until the chosen one is the lowest left
            mask &= mask - 1
            skip -= 1
        push_id((mask & -mask).bit_length() - 1)
        played += 1
    return played


@dataclass
class SimulationReport:
    """Counts of a simulation run and every invariant failure found."""

    games: int = 0
    rounds: int = 0
    tricks: int = 0
    cards: int = 0
    failures: list[str] = field(default_factory=list)


def expected_scores(edition: Edition, letter: str, players: int,
                    cards: Sequence[frozenset[RebelCard]], tricks_won: Sequence[int],
                    totals_before: Sequence[int]) -> list[int]:
    """Each seat's round score counted directly from RULINGS.md "Scoring a round" (an oracle for
    the scoring core, written independently of it)."""
    # The card's rule (its slug, from the Round card catalogue), counted here independently.
    kind = {
        "three-times-a-lady": "threes", "arranged-marriage": "no-tricks", "pets-revenge": "pets",
        "single-fairy": "fairies", "bathroom-break": "bathroom", "dancing-queens": "dancing",
        "wedding-gift": "gifts",
    }.get(round_card(edition, letter).rule, "plain")
    exempt = bathroom_exempt(totals_before)
    all_princes = frozenset(princes(players))
    scores = []
    for seat, taken in enumerate(cards):
        if edition is Edition.DELUXE and kind != "gifts" and all_princes | {FROG} <= taken:
            scores.append(-10)  # Rebel of the Ball
            continue
        prince_ranks = sorted(c.rank for c in taken if c.suit is Suit.PRINCE)
        queen_ranks = sorted(c.rank for c in taken if c.suit is Suit.QUEEN)
        points = 5 if FROG in taken else 0
        if kind == "dancing":
            same = len(set(prince_ranks) & set(queen_ranks))
            mixed = min(len(prince_ranks) - same, len(queen_ranks) - same)
            points += 3 * same + 2 * mixed + (len(prince_ranks) - same - mixed)
        elif kind == "bathroom" and seat not in exempt:
            points += 2 * len(prince_ranks)
        else:
            points += len(prince_ranks)
        if kind == "threes":
            points -= 3 * sum(1 for c in taken if c.rank == 3)
        elif kind == "pets":
            points += sum(1 for c in taken if c.suit is Suit.PET)
        elif kind == "fairies":
            points -= sum(1 for c in taken if c.suit is Suit.FAIRY)
        elif kind == "no-tricks" and tricks_won[seat] == 0:
            points += 5
        scores.append(points)
    return scores


def _deals_back(state: RoundState, use: PowerUse) -> bool:
    power = state.powers[use.seat]
    return power is not None and power.deals_trick_back


def _decided(state: RoundState) -> list[Trick | Haggle | PowerUse]:
    """Tricks as finally decided (after any Mulan swap), haggles and Alice's uses, in order."""
    tricks = state.tricks
    events: list[Trick | Haggle | PowerUse] = []
    index = 0
    for event in state.events():
        if isinstance(event, Trick):
            events.append(tricks[index])
            index += 1
        elif isinstance(event, Haggle) or (isinstance(event, PowerUse) and
                                           _deals_back(state, event)):
            events.append(event)
    return events


def _check_round(state: RoundState, dealt: list[int], sizes: list[list[int]],
                 totals_before: Sequence[int], princesses: tuple[str, ...]) -> list[str]:
    """Every invariant failure of a finished round (see the module docstring)."""
    where = f"[{state.edition.value} {state.round_card} {state.players}p]"
    failures = []
    outcome = state.outcome()
    if outcome is None:
        return [f"{where} round not over after the playout"]
    tricks = state.tricks
    played = [card for trick in tricks for card in trick.cards]
    kept = [card for hand in outcome.kept for card in hand]
    gifts = [card for pile in outcome.gifts for card in pile]
    events = state.events()
    alices = [e for e in events if isinstance(e, PowerUse) and _deals_back(state, e)]
    for event in events:
        if isinstance(event, Haggle):  # the card taken back is played again; the one given is not
            played.remove(event.take)
            played.append(event.give)
    for alice in alices:  # Alice's trick is dealt back and played again
        for card in alice.cards:
            played.remove(card)
    if sorted(played + kept + gifts, key=str) != sorted(deck(state.players), key=str):
        failures.append(f"{where} cards played, kept or given are not the deck, each once")
    for number, counts in enumerate(sizes, start=1):
        if len(set(counts)) != 1:
            failures.append(f"{where} trick {number}: unequal hands {counts}")
    expected_tricks = (len(deck(state.players)) - len(kept) - len(gifts)) // state.trick_size
    if len(tricks) != expected_tricks + len(alices) or sum(outcome.tricks_won) != expected_tricks:
        failures.append(f"{where} {len(tricks)} tricks, {sum(outcome.tricks_won)} won, "
                        f"{expected_tricks} expected")
    if state.modifiers[0].gift_before_trick and expected_tricks * 2 != hand_size(state.players):
        failures.append(f"{where} Wedding Gift played {len(tricks)} tricks, not half the hand")
    won_by: list[set[RebelCard]] = [set() for _ in range(state.players)]
    for event in _decided(state):
        if isinstance(event, Haggle):  # the winner swapped a hand card for a trick card
            won_by[event.seat].discard(event.take)
            won_by[event.seat].add(event.give)
        elif isinstance(event, PowerUse):  # Alice gave her trick back
            won_by[event.seat].difference_update(event.cards)
        else:
            if event.winner is None or not 0 <= event.winner < state.players:
                failures.append(f"{where} trick {event} has no winner")
                continue
            won_by[event.winner].update(event.cards)
    if [frozenset(w) for w in won_by] != list(outcome.taken):
        failures.append(f"{where} taken cards differ from the tricks won")
    record = RoundTranscript.from_state(state, princesses)
    if parse_record(format_record(record)) != record:
        failures.append(f"{where} record does not round-trip")
    if record.hands != tuple(frozenset(RoundState(dealt).hand(s)) for s in range(state.players)):
        failures.append(f"{where} record hands differ from the deal")
    try:
        replayed = record.replay(check=True)
    except ValueError as error:
        failures.append(f"{where} checked replay refused a trick: {error}")
    else:
        if replayed.outcome() != outcome:
            failures.append(f"{where} checked replay ends differently")
    entry = outcome.to_entry(totals_before)
    scores = score_entry(entry).scores
    expected = expected_scores(state.edition, state.round_card, state.players, entry.taken,
                               outcome.tricks_won, totals_before)
    if scores != expected:
        failures.append(f"{where} scores {scores} but the cards give {expected}")
    return failures


def simulate(games: int, seed: int, players: int | None = None,
             edition: Edition | None = None) -> SimulationReport:
    """Play ``games`` random games from ``seed``; see the module docstring for what is checked."""
    rng = random.Random(seed)
    report = SimulationReport()
    for _ in range(games):
        game_edition = edition or rng.choice(list(Edition))
        count = players or rng.randint(3, 6)
        letters = rng.sample(round_card_letters(game_edition), 5)
        slugs = rng.sample(power_slugs(game_edition), count)
        setup = GameSetup(game_edition, count, rng.randrange(count), tuple(letters))
        played_rounds: list[PlayedRound] = []
        round_scores: list[tuple[int, ...]] = []
        totals = [0] * count
        for letter in letters:
            game = play_through(setup, played_rounds)
            leader = game.next_leader.seat if game.next_leader else setup.first_leader
            state = RoundState.deal(count, edition=game_edition, round_card=letter, rng=rng,
                                    leader=leader, princesses=slugs)
            dealt = list(state.hands)
            sizes: list[list[int]] = []
            left, right = rng.choice(PASSES)
            if left or right:
                state.play_step(random_pass(state, rng, left, right))
            while not state.is_over():
                if state.step_due is not None:
                    state.play_step(random_step(state, rng))
                    continue
                if not state.current_trick:
                    sizes.append([hand.bit_count() for hand in state.hands])
                if try_powers(state, rng, 0.1) and state.step_due is not None:
                    continue
                mask = state.legal_mask()
                choice = rng.choice([cid for cid in range(64) if mask >> cid & 1])
                state.push_id(choice)
                report.cards += 1
                if not state.current_trick and not state.is_over():
                    try_powers(state, rng, 0.2)  # after-trick powers (and early before-trick)
                haggle = random_haggle(state, rng) if rng.random() < 0.5 else None
                if haggle is not None:
                    state.play_step(haggle)
            report.failures.extend(_check_round(state, dealt, sizes, totals, tuple(slugs)))
            outcome = state.outcome()
            assert outcome is not None
            entry = outcome.to_entry(totals)
            scores = tuple(score_entry(entry).scores)
            round_scores.append(scores)
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
            played_rounds.append(PlayedRound(
                taken=entry.taken, no_tricks=entry.no_tricks, leader=leader,
                last_trick_winner=outcome.last_winner))
            report.rounds += 1
            report.tricks += len(state.tricks)
        final = play_through(setup, played_rounds)
        if list(final.totals) != [sum(column) for column in zip(*round_scores, strict=True)]:
            report.failures.append(f"game {report.games}: totals {final.totals} are not the sums")
        report.games += 1
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m companion.scoring.rebel_princess.engine.simulate --games N
    --seed S``."""
    parser = argparse.ArgumentParser(
        prog="python -m companion.scoring.rebel_princess.engine.simulate",
        description="Random games checking the engine's invariants.")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--players", type=int, choices=range(3, 7), help="fix the player count")
    parser.add_argument("--edition", choices=[e.value for e in Edition], help="fix the edition")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    report = simulate(args.games, args.seed, args.players,
                      Edition(args.edition) if args.edition else None)
    elapsed = time.perf_counter() - start
    for failure in report.failures:
        print(f"FAIL {failure}")
    print(f"{report.games} games, {report.rounds} rounds, {report.tricks} tricks, "
          f"{report.cards} cards in {elapsed:.2f} s (seed {args.seed}): "
          f"{len(report.failures)} invariant failure(s)")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
