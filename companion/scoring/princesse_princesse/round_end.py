"""The end of a round: who wins it, the two bonuses, favour tokens, the end of the game.

Rules (rulebook, seed 002, « Fin de la manche », « Remporter la partie », « Claire l'espionne »,
« Princesses Amira & Sadie »; decisions from ``shared/rules/PRINCESSE_PRINCESSE.md``):

- If only one player is still in, that player wins the round, whatever the cards (« Dernier-ère
  joueur-euse en lice »). Otherwise (the deck ran out) the players still in compare their cards and
  the highest value wins; **every** player tied on the highest value wins the round (no tie-break on
  the discards). Each round winner gains one favour token.
- Spy bonus: if exactly one of the players still in has played or discarded at least one Claire
  l'espionne (0), that player gains one more token; one at most, even with both Spies. Spies in
  front of players who left the round neither count nor block it. A round winner with the bonus
  gains 2.
- Princesses bonus: if two different players still in have each played or discarded a Princesses
  card (6), each gains one token. One player with both copies gains nothing; a player who left the
  round breaks the pair.
- « Discarded » includes the hand discarded on leaving the round or when hit by Vladric.
- The game ends when a player reaches the tokens needed for the number of players (2: 6, 3: 5, 4: 4,
  5 and 6: 3). Every player at or above it wins, after the bonuses are given.
- The next round is started by the round's winner; with several winners, by one of them drawn at
  random (:func:`draw_first_player`, the caller passes its :class:`random.Random`). App decision:
  once the game is over there is no next round, so no candidates are given.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .cards import (
    OGRE,
    PRINCESSES,
    SPY,
    card_params,
    copy_problems,
    is_value,
    player_count_problem,
    tokens_needed,
)
from .problems import CATALOGUE


class BonusKind(StrEnum):
    """The two end-of-round bonuses (cards with the small yellow heart)."""

    SPY = "spy"
    PRINCESSES = "princesses"


class AwardReason(StrEnum):
    """Why a favour token is given: the reason the app shows next to a token."""

    LAST_IN = "last-in"  # the only player still in
    HIGHEST = "highest-card"  # alone with the highest card when the deck ran out
    TIED = "tied-highest"  # tied on the highest card: every tied player wins
    SPY = "spy"
    PRINCESSES = "princesses"


@dataclass(frozen=True)
class Award:
    """One favour token given at the end of a round, with its reason (and the winning card)."""

    seat: int
    reason: AwardReason
    card: int | None = None


@dataclass(frozen=True)
class Bonus:
    """One bonus token of the JSON answer: ``{"seat": 1, "kind": "spy"}``."""

    seat: int
    kind: BonusKind


@dataclass(frozen=True)
class RoundReveal:
    """What the table reveals when a round ends.

    ``cards`` has one entry per seat: the card value shown at the end, or ``None`` for a player out
    of the round (and for the only player still in, who need not show a card). ``spies`` and
    ``princesses`` are the seats *still in* that played or discarded a Spy / a Princesses card.
    """

    still_in: frozenset[int]
    cards: tuple[int | None, ...]
    spies: frozenset[int] = frozenset()
    princesses: frozenset[int] = frozenset()

    @property
    def players(self) -> int:
        return len(self.cards)

    @classmethod
    def of(cls, cards: Sequence[int | None], *, still_in: Iterable[int] | None = None,
           spies: Iterable[int] = (), princesses: Iterable[int] = ()) -> RoundReveal:
        """A reveal from plain values; ``still_in`` defaults to the seats with a card."""
        seats_in = (frozenset(still_in) if still_in is not None
                    else frozenset(seat for seat, card in enumerate(cards) if card is not None))
        return cls(seats_in, tuple(cards), frozenset(spies), frozenset(princesses))

    def bonus_questions(self) -> tuple[BonusKind, ...]:
        """The bonus questions worth asking the table for this reveal (fast path).

        The Spy question matters whenever someone is still in (a sole survivor can earn it too);
        the Princesses question only when at least two players are still in (it needs a pair).
        """
        return bonus_questions(len(self.still_in))


def bonus_questions(players_in: int) -> tuple[BonusKind, ...]:
    """The bonus questions that can change tokens when ``players_in`` players are still in."""
    if players_in <= 0:
        return ()
    if players_in == 1:
        return (BonusKind.SPY,)
    return (BonusKind.SPY, BonusKind.PRINCESSES)


@dataclass(frozen=True)
class RoundSettlement:
    """The tokens a round gives and what follows: the answer of ``POST …/round-end``."""

    round_winners: tuple[int, ...]
    bonuses: tuple[Bonus, ...]
    tokens_gained: tuple[int, ...]
    tokens_after: tuple[int, ...]
    threshold: int
    game_over: bool
    game_winners: tuple[int, ...]
    next_first_candidates: tuple[int, ...]
    awards: tuple[Award, ...]

    def as_dict(self) -> dict[str, Any]:
        """Exactly the JSON API's answer (seat lists ascending; ``awards`` is for the screens)."""
        return {
            "round_winners": list(self.round_winners),
            "bonuses": [{"seat": b.seat, "kind": str(b.kind)} for b in self.bonuses],
            "tokens_gained": list(self.tokens_gained),
            "tokens_after": list(self.tokens_after),
            "threshold": self.threshold,
            "game_over": self.game_over,
            "game_winners": list(self.game_winners),
            "next_first_candidates": list(self.next_first_candidates),
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_tokens(tokens: Sequence[int], players: int) -> list[Problem]:
    """``wrong-length`` and ``negative-tokens`` problems for a per-seat tokens list."""
    if len(tokens) != players:
        return [CATALOGUE.problem("wrong-length", field="tokens_before", expected=players,
                                  got=len(tokens))]
    return [CATALOGUE.problem("negative-tokens", seat=seat, value=value)
            for seat, value in enumerate(tokens) if not _is_int(value) or value < 0]


def check_reveal(reveal: RoundReveal) -> list[Problem]:
    """Every problem of a reveal: player count, seats, cards, bonus seats, copies; never raises."""
    problem = player_count_problem(reveal.players)
    if problem is not None:
        return [problem]
    players = reveal.players
    problems: list[Problem] = []
    for seat in sorted(reveal.still_in | reveal.spies | reveal.princesses):
        if not _is_int(seat) or not 0 <= seat < players:
            problems.append(CATALOGUE.problem("unknown-seat", value=seat, players=players))
    if not reveal.still_in:
        problems.append(CATALOGUE.problem("nobody-in"))
    several = len(reveal.still_in) > 1
    for seat, card in enumerate(reveal.cards):
        if card is None:
            if several and seat in reveal.still_in:
                problems.append(CATALOGUE.problem("card-missing", seat=seat))
        elif not is_value(card):
            problems.append(CATALOGUE.problem("value-out-of-range", seat=seat, value=card,
                                              field="held"))
        elif seat not in reveal.still_in:
            problems.append(CATALOGUE.problem("card-for-player-out", seat=seat,
                                              **card_params(card)))
    for code, seats in (("spy-seat-out", reveal.spies), ("princesses-seat-out", reveal.princesses)):
        for seat in sorted(seats - reveal.still_in):
            problems.append(CATALOGUE.problem(code, seat=seat))
    # A seat in ``spies`` / ``princesses`` holds at least one copy in its discards.
    problems += copy_problems((c for c in reveal.cards if c is not None),
                              extra={SPY: len(reveal.spies), PRINCESSES: len(reveal.princesses)})
    return problems


def settle_round(reveal: RoundReveal, tokens_before: Sequence[int]) -> RoundSettlement:
    """Winners, bonuses and tokens of one round (rules in the module docstring).

    Checks the reveal (:func:`check_reveal`) and the tokens (length, none negative) and raises
    :class:`EntryError` listing every problem found.
    """
    problems = check_reveal(reveal)
    if not problems:
        problems = check_tokens(tokens_before, reveal.players)
    if problems:
        raise EntryError(problems)
    awards = _round_awards(reveal)
    threshold = tokens_needed(reveal.players)
    gained = [0] * reveal.players
    for award in awards:
        gained[award.seat] += 1
    after = tuple(before + gain for before, gain in zip(tokens_before, gained, strict=True))
    game_winners = tuple(seat for seat, tokens in enumerate(after) if tokens >= threshold)
    round_winners = tuple(sorted(a.seat for a in awards if a.reason in _WINS))
    bonuses = tuple(sorted((Bonus(a.seat, _BONUS_OF[a.reason]) for a in awards
                            if a.reason not in _WINS),
                           key=lambda b: (b.seat, _BONUS_ORDER[b.kind])))
    return RoundSettlement(
        round_winners=round_winners, bonuses=bonuses, tokens_gained=tuple(gained),
        tokens_after=after, threshold=threshold, game_over=bool(game_winners),
        game_winners=game_winners,
        # App decision: a finished game has no next round, hence no candidates.
        next_first_candidates=() if game_winners else round_winners,
        awards=tuple(sorted(awards, key=lambda a: (a.seat, _AWARD_ORDER[a.reason]))))


_WINS = frozenset({AwardReason.LAST_IN, AwardReason.HIGHEST, AwardReason.TIED})
#: The order of the bonuses and of the reasons for a token, as their enums list them (a seat's
#: tokens are listed in it): their places looked up once, not in every round replayed.
_BONUS_ORDER = {kind: place for place, kind in enumerate(BonusKind)}
_AWARD_ORDER = {reason: place for place, reason in enumerate(AwardReason)}
#: The bonus each reason that is not a win gives (its kind of the same name).
_BONUS_OF = {reason: BonusKind(reason) for reason in AwardReason if reason not in _WINS}


def round_winners(reveal: RoundReveal) -> tuple[int, ...]:
    """The seats that win the round (ascending); the reveal is assumed checked."""
    if len(reveal.still_in) == 1:  # « Dernier-ère joueur-euse en lice »
        return tuple(reveal.still_in)
    cards = {seat: reveal.cards[seat] for seat in reveal.still_in}
    top = max(card for card in cards.values() if card is not None)
    # « En cas d'égalité, les joueurs-euses concerné(e)s remportent la manche »: no tie-break.
    return tuple(sorted(seat for seat, card in cards.items() if card == top))


def _round_awards(reveal: RoundReveal) -> list[Award]:
    winners = round_winners(reveal)
    awards: list[Award]
    if len(reveal.still_in) == 1:
        awards = [Award(winners[0], AwardReason.LAST_IN)]
    else:
        reason = AwardReason.HIGHEST if len(winners) == 1 else AwardReason.TIED
        awards = [Award(seat, reason, reveal.cards[seat]) for seat in winners]
    # Spy bonus: exactly one player still in played or discarded a Spy (one token at most).
    if len(reveal.spies) == 1:
        awards.append(Award(next(iter(reveal.spies)), AwardReason.SPY))
    # Princesses bonus: two different players still in, each with a Princesses card in front.
    if len(reveal.princesses) == 2:
        awards += [Award(seat, AwardReason.PRINCESSES) for seat in sorted(reveal.princesses)]
    return awards


def draw_first_player(candidates: Iterable[int], rng: random.Random) -> int:
    """Who starts the next round: the only candidate, or one drawn with ``rng`` among several.

    « En cas d'égalité lors de la manche précédente, déterminez au hasard le-a premier-ère
    joueur-euse parmi les concerné(e)s. » Raises :class:`EntryError` ``no-candidates`` if empty.
    """
    ordered = sorted(set(candidates))
    if not ordered:
        raise EntryError(CATALOGUE.problem("no-candidates"))
    return ordered[0] if len(ordered) == 1 else rng.choice(ordered)


def round_end(players: int, held: Sequence[int | None], discards: Sequence[Sequence[int]],
              tokens_before: Sequence[int]) -> RoundSettlement:
    """``POST /api/v1/princesse-princesse/round-end``: settle a round from the cards on the table.

    ``held``: per seat, the card value held at the end (``None``: out of the round). ``discards``:
    per seat, every card in front of that seat (played or discarded, the hand discarded on leaving
    included). Raises :class:`EntryError` with every problem: ``players-out-of-range``,
    ``wrong-length``, ``value-out-of-range``, ``too-many-copies``, ``nobody-in``,
    ``ogre-but-still-in`` (the Ogre in front of a player who holds a card), ``negative-tokens``.
    """
    problems = check_round_end(players, held, discards, tokens_before)
    if problems:
        raise EntryError(problems)
    still_in = frozenset(seat for seat, card in enumerate(held) if card is not None)
    reveal = RoundReveal(
        still_in=still_in, cards=tuple(held),
        spies=frozenset(seat for seat in still_in if SPY in discards[seat]),
        princesses=frozenset(seat for seat in still_in if PRINCESSES in discards[seat]))
    return settle_round(reveal, tokens_before)


def check_round_end(players: int, held: Sequence[int | None], discards: Sequence[Sequence[int]],
                    tokens_before: Sequence[int]) -> list[Problem]:
    """Every problem of a ``round-end`` request (the 422 cases of the API); never raises."""
    problem = player_count_problem(players)
    if problem is not None:
        return [problem]
    problems: list[Problem] = []
    for field, values in (("held", held), ("discards", discards),
                          ("tokens_before", tokens_before)):
        if len(values) != players:
            problems.append(CATALOGUE.problem("wrong-length", field=field, expected=players,
                                              got=len(values)))
    for seat, card in enumerate(held):
        if card is not None and not is_value(card):
            problems.append(CATALOGUE.problem("value-out-of-range", seat=seat, value=card,
                                              field="held"))
    for seat, pile in enumerate(discards):
        for card in pile:
            if not is_value(card):
                problems.append(CATALOGUE.problem("value-out-of-range", seat=seat, value=card,
                                                  field="discards"))
    problems += copy_problems([c for c in held if c is not None]
                              + [c for pile in discards for c in pile])
    if all(card is None for card in held):
        problems.append(CATALOGUE.problem("nobody-in"))
    for seat, (card, pile) in enumerate(zip(held, discards, strict=False)):
        # Playing or discarding the Ogre puts its holder out at once (« Ogre »): a player still
        # in cannot have it in front of them.
        if card is not None and OGRE in pile:
            problems.append(CATALOGUE.problem("ogre-but-still-in", seat=seat,
                                              field=f"discards[{seat}]", **card_params(OGRE)))
    for seat, value in enumerate(tokens_before):
        if not _is_int(value) or value < 0:
            problems.append(CATALOGUE.problem("negative-tokens", seat=seat, value=value))
    return problems


def awards_by_seat(settlement: RoundSettlement) -> Mapping[int, tuple[Award, ...]]:
    """The awards of a settlement grouped by seat (for the tokens board)."""
    grouped: dict[int, list[Award]] = {}
    for award in settlement.awards:
        grouped.setdefault(award.seat, []).append(award)
    return {seat: tuple(items) for seat, items in grouped.items()}

