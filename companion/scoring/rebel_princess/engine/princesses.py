"""The twelve Princess powers, one small class each (see :mod:`.powers` for what a class declares).

The powers (Deluxe "Princess Cards" p. 23; French "Cartes Pouvoirs de Princesses" p. 14):

- **Alice**: after winning a trick without the Frog, its cards are dealt back one per seat (seat
  order, two laps under u) and played again. A Prince in that trick brings the Princes in
  (RULINGS.md). Under Wedding Gift the gift pile waits for the redone trick. *Engine decision:*
  the trick no longer counts as won by Alice.
- **Cinderella**: the trick's order is reversed, lower numbers win (with Upside Down each 6
  reverses again; Sisterhood ties go to the lower number; u: lowest sum).
- **The Ice Princess**: the target must play the chosen card in the coming trick, whatever the
  rules (Deluxe); a Prince chosen this way brings the Princes in. Classic: she draws the card from
  the hand of the player who leads, and it is the lead.
- **The Little Mermaid**: the leader must lead the named suit. Deluxe: the named suit must be one
  the leader holds, and not Princes before they snuck in unless the leader holds only Princes.
  Classic: if the leader lacks the suit they lead freely; Princes cannot be named before they
  appeared.
- **Mulan**: swap a card she played in the trick just finished for another of the same suit from
  her hand, never the Frog; the trick is decided again.
- **The Pea Princess**: the other players (classic: those who play after her in the trick) must
  play a card above 5 among the cards they may play, if they have one.
- **Pocahontas**: choose who leads the coming trick (classic: after winning a trick, another
  player leads the next).
- **Rapunzel** (Deluxe): the leader must lead a Prince if held; that brings no Princes in.
- **Scheherazade**: take a random card from another player and give them one of yours, or the
  same card back.
- **Sleeping Beauty**: every player contributes a card; she keeps one, deals one to each other.
- **Snow White**: she plays a low card as a zero (it must be her card in this trick if she may
  play it). Scoring keeps the printed rank (RULINGS.md).
- **Thumbelina** (Deluxe, not leading): she may play any card but a Prince or the Frog, ignoring
  the suit to follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard, Suit

from .cards import FROG_ID, PRINCE_MASK, SUIT_INDEX, SUIT_MASKS, SUIT_OF, card_at, card_id, mask_of
from .evidence import Evidence, Moment, Seen, arrived, held
from .modifiers import NotOn, TrickTime, register
from .powers import (
    ABOVE_FIVE,
    BOTH_EDITIONS,
    CLASSIC_ONLY,
    DELUXE_ONLY,
    FROG_BIT,
    PER_CARD,
    PER_SEAT,
    A,
    B,
    Block,
    C,
    D,
    Power,
    RoundForPowers,
    T,
    V,
)
from .steps import PowerUse

if TYPE_CHECKING:
    import random


def _hand(state: RoundForPowers, seat: int) -> list[RebelCard]:
    return sorted(state.hand(seat), key=card_id)


def _held(state: RoundForPowers, seat: int, card_: Any) -> bool:
    return bool(state.hands[seat] >> card_id(card_) & 1)


@register
class Alice(Power):
    """Alice: after winning a trick without the Frog, deal its cards back to be played again."""

    slug = "alice"
    names = {"en": "Alice", "fr": "Alice"}
    timing = {D: A, C: A}
    card_slots = ("dealt" + PER_CARD,)
    slot_words = {"dealt": "the trick's cards as dealt back, one per seat from seat 0 (two laps "
                           "under u)"}
    winner_only = BOTH_EDITIONS
    never_frog = True
    deals_trick_back = True

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        if not state.history:
            return None
        cards = [card_at(c) for c in state.history[-1][1]]
        rng.shuffle(cards)
        return PowerUse(seat, self.slug, cards=tuple(cards))

    def evidence(self, use: PowerUse, players: int) -> tuple[Evidence, ...]:
        """The cards dealt back arrive, one per seat in seat order (two laps under u)."""
        return tuple(arrived(Seen.DEALT, index % players, card_)
                     for index, card_ in enumerate(use.cards))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        leader, ids, winner, _ = state.history[-1]
        if self.edition in self.winner_only and winner != use.seat:
            return self.bad(use, V.NOT_TRICK_WINNER)
        if self.never_frog and FROG_ID in ids:
            return self.bad(use, V.POWER_FROG)
        if len(use.cards) != len(ids) or sorted(map(card_id, use.cards)) != sorted(ids):
            return self.bad(use, V.WRONG_CARD_COUNT)
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        players = state.players
        ids = state.history[-1][1]
        mask = mask_of(use.cards)
        state.taken[use.seat] &= ~mask
        state.tricks_won[use.seat] -= 1
        for index, card_ in enumerate(use.cards):
            state.hands[index % players] |= 1 << card_id(card_)
        state.cards_left += len(ids)
        snuck = not state.princes_in and bool(mask & PRINCE_MASK)
        state.princes_in = state.princes_in or snuck
        pile = state.hold_gift_pile(use.seat)  # Wedding Gift: the pile waits for the redone trick
        return (mask, snuck, pile)

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        mask, snuck, pile = data
        players = state.players
        for index, card_ in enumerate(use.cards):
            state.hands[index % players] &= ~(1 << card_id(card_))
        state.taken[use.seat] |= mask
        state.tricks_won[use.seat] += 1
        state.cards_left -= len(use.cards)
        if snuck:
            state.princes_in = False
        state.release_gift_pile(use.seat, pile)


@register
class Cinderella(Power):
    """Cinderella: before a trick, reverse the order of the numbers for that trick."""

    slug = "cinderella"
    names = {"en": "Cinderella", "fr": "Cendrillon"}
    changes_trick = True
    reverses_order = True

    def activate(self, state: RoundForPowers, use: PowerUse) -> None:
        state.reversed_order = True


@register
class IcePrincess(Power):
    """The Ice Princess: before a trick, choose the card a player must play in it."""

    slug = "ice-princess"
    names = {"en": "The Ice Princess", "fr": "La Princesse des glaces"}
    needs_target = True
    card_slots = ("ice",)
    slot_words = {"ice": "the card the target must play"}
    target_leader = CLASSIC_ONLY
    on_lead = True
    changes_trick = True
    forces_card = True
    # Her card would undo their suit on the leader (Deluxe p. 10: a power that would undo
    # another's may not be used that trick; RULINGS.md: Little Mermaid vs Ice Princess vs
    # Rapunzel).
    blocked_by = (Block("little-mermaid"), Block("rapunzel"))
    blocked_on_leader_only = True

    def acts_on_leader(self, use: PowerUse, leader: int) -> bool:
        # Classic: she always draws from the leader's hand (a use on another seat is refused).
        return self.edition in self.target_leader or use.target == leader

    def forced_card(self, use: PowerUse, seat: int) -> RebelCard | None:
        return use.cards[0] if use.target == seat and use.cards else None

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        target = state.leader if self.edition in self.target_leader else \
            rng.randrange(state.players)
        return PowerUse(seat, self.slug, target=target, cards=(rng.choice(_hand(state, target)),))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if use.target is None or not 0 <= use.target < state.players or len(use.cards) != 1:
            return self.bad(use)
        if self.edition in self.target_leader and use.target != state.leader:
            return self.bad(use, V.NOT_THE_LEADER)  # her rule, broken by her seat
        (card_,) = use.cards
        if not _held(state, use.target, card_):
            return self.bad(use, V.NOT_IN_HAND, use.target, card_)
        if state.revealed[use.target] >> card_id(card_) & 1:
            return self.bad(use, V.CARD_SHOWN, use.target, card_)
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        # A Prince chosen by the Ice Princess brings the Princes in (Deluxe p. 23, RULINGS.md).
        snuck = use.cards[0].suit is Suit.PRINCE and not state.princes_in
        if snuck:
            state.princes_in = True
        return snuck

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        if data:
            state.princes_in = False

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.target:
            return legal
        forced = 1 << card_id(use.cards[0])
        return forced if state.hands[seat] & forced else legal


@register
class LittleMermaid(Power):
    """The Little Mermaid: before a trick, name the suit the leader must lead."""

    slug = "little-mermaid"
    names = {"en": "The Little Mermaid", "fr": "La petite Sirène"}
    needs_suit = True
    no_early_princes = CLASSIC_ONLY  # « s'ils ne sont pas encore apparus », no exception
    blocked_by = (Block("ice-princess", on_leader=True), Block("rapunzel"))
    changes_trick = True

    def acts_on_leader(self, use: PowerUse, leader: int) -> bool:
        return True

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        return PowerUse(seat, self.slug, suit=rng.choice(_hand(state, state.leader)).suit)

    def requested_suit(self, state: RoundForPowers, use: PowerUse) -> Suit | None:
        # Princes named before they snuck in have no effect: the leader leads freely (Deluxe:
        # "may not compel ... unless the lead player only has cards of the Prince suit", and then
        # the basic rules already make them lead one; French: « vous ne pouvez pas faire jouer la
        # couleur des Princes s'ils ne sont pas encore apparus »).
        if use.suit is Suit.PRINCE and not state.princes_at_lead:
            return None
        return use.suit

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if use.suit is None:
            return self.bad(use)
        hand = state.hands[state.leader]
        suit_mask = SUIT_MASKS[SUIT_INDEX[use.suit]]
        early = use.suit is Suit.PRINCE and not state.princes_in
        if early and self.edition in self.no_early_princes:
            return self.bad(use, V.PRINCES_NOT_YET)  # her rule, whatever the leader holds
        if early and hand & ~PRINCE_MASK:  # (Deluxe: unless the leader holds only Princes)
            return self.bad(use, V.PRINCES_NOT_INVITED, state.leader)
        if self.edition is D and not hand & suit_mask:
            return self.bad(use, V.SUIT_NOT_HELD, state.leader)  # name another suit
        return []

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        suit = self.requested_suit(state, use)
        if state.trick_ids or seat != state.leader or suit is None:
            return legal
        return state.hands[seat] & SUIT_MASKS[SUIT_INDEX[suit]] or legal


@register
class Mulan(Power):
    """Mulan: after a trick, swap a card she played for another of the same suit (no Frog)."""

    slug = "mulan"
    names = {"en": "Mulan", "fr": "Mulan"}
    timing = {D: A, C: A}
    card_slots = ("swapped-out", "swapped-in")
    slot_words = {"swapped-out": "the card she played", "swapped-in": "the card she swaps in"}
    never_frog = True
    same_suit = True
    first_after_trick = True
    redecides_trick = True

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        if not state.history:
            return None
        leader, ids = state.history[-1][:2]
        mine = [card_at(c) for i, c in enumerate(ids) if (leader + i) % state.players == seat]
        old = rng.choice(mine)
        same = [c for c in _hand(state, seat) if c.suit is old.suit]
        return PowerUse(seat, self.slug, cards=(old, rng.choice(same))) if same else None

    def evidence(self, use: PowerUse, players: int) -> tuple[Evidence, ...]:
        """The card she swaps in comes from her hand (played, as it were); hers goes back."""
        if len(use.cards) != 2:
            return ()
        old, new = use.cards
        return (held(Seen.PLAYED, use.seat, new), arrived(Seen.PLAYED, use.seat, old))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if len(use.cards) != 2:
            return self.bad(use)
        old, new = use.cards
        leader, ids, _, _ = state.history[-1]
        mine = [cid for i, cid in enumerate(ids) if (leader + i) % state.players == use.seat]
        if card_id(old) not in mine:
            return self.bad(use, V.NOT_IN_TRICK, card_=old)
        if not state.active_hand(use.seat) >> card_id(new) & 1:
            return self.bad(use, V.NOT_IN_HAND, card_=new)
        if self.same_suit and old.suit is not new.suit:
            return self.bad(use, V.MUST_FOLLOW_SUIT, card_=new)
        if self.never_frog and FROG_ID in (card_id(old), card_id(new)):
            return self.bad(use, V.POWER_FROG)
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        old, new = card_id(use.cards[0]), card_id(use.cards[1])
        leader, ids, winner, _ = state.history[-1]
        state.replay_last_trick(old, new)
        return (leader, tuple(ids), winner)  # the trick as played, for the record

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        state.replay_last_trick(card_id(use.cards[1]), card_id(use.cards[0]))


@register
class PeaPrincess(Power):
    """The Pea Princess: the other players must play above 5 when they may."""

    slug = "pea-princess"
    names = {"en": "The Pea Princess", "fr": "La Princesse au petit pois"}
    timing = {D: B, C: T}
    changes_trick = True

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        if seat == use.seat:
            return legal
        if self.edition is C and len(state.trick_ids) <= (use.seat - state.leader) % state.players:
            return legal  # classic: only the players after her in this trick
        return legal & ABOVE_FIVE or legal


@register
class Pocahontas(Power):
    """Pocahontas: choose who leads the coming trick (classic: after winning a trick)."""

    slug = "pocahontas"
    names = {"en": "Pocahontas", "fr": "Pocahontas"}
    timing = {D: B, C: A}
    needs_target = True  # who leads the coming trick
    target_other = CLASSIC_ONLY
    winner_only = CLASSIC_ONLY
    on_lead = True
    # Classic: she names who leads the next trick; after the last one there is none.
    not_on = (NotOn(TrickTime.AFTER_LAST_TRICK, editions=CLASSIC_ONLY),)
    # Choosing another leader would undo their demand on the leader (Deluxe p. 23).
    blocked_by = (Block("little-mermaid"), Block("rapunzel"))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if use.target is None or not 0 <= use.target < state.players:
            return self.bad(use)
        if self.edition in self.winner_only and state.history[-1][2] != use.seat:
            return self.bad(use, V.NOT_TRICK_WINNER)
        if self.edition in self.target_other and use.target == use.seat:
            return self.bad(use)
        return []

    def new_leader(self, use: PowerUse, leader: int) -> int:
        return use.target if use.target is not None else leader

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        return PowerUse(seat, self.slug, target=rng.randrange(state.players))

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        before = state.leader
        state.leader = self.new_leader(use, before)
        return before

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        state.leader = data


@register
class Rapunzel(Power):
    """Rapunzel: the leader must lead a Prince if they hold one (no sneaking in)."""

    slug = "rapunzel"
    names = {"en": "Rapunzel", "fr": "Raiponce"}
    editions = DELUXE_ONLY
    timing = {D: B}
    blocked_by = (Block("ice-princess", on_leader=True), Block("little-mermaid"))
    changes_trick = True

    def acts_on_leader(self, use: PowerUse, leader: int) -> bool:
        return True

    def requested_suit(self, state: RoundForPowers, use: PowerUse) -> Suit | None:
        return Suit.PRINCE  # even before the Princes snuck in (Deluxe p. 23)

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        if state.trick_ids or seat != state.leader:
            return legal
        return state.hands[seat] & PRINCE_MASK or legal


@register
class Scheherazade(Power):
    """Scheherazade: take a random card from a player; give one of yours, or it, back."""

    slug = "scheherazade"
    names = {"en": "Scheherazade", "fr": "Shéhérazade"}
    needs_target = True
    card_slots = ("taken", "given")
    slot_words = {"taken": "the card taken", "given": "the card given back"}
    cards_seen = False
    target_other = BOTH_EDITIONS
    # On the leader only, after any of these three this trick (Deluxe p. 23: the Ice Princess
    # counts whoever she acted on).
    blocked_by = (Block("ice-princess"), Block("little-mermaid"), Block("rapunzel"))
    blocked_on_leader_only = True

    def acts_on_leader(self, use: PowerUse, leader: int) -> bool:
        return use.target == leader

    def unseen_seats(self, use: PowerUse, players: int) -> int:
        if use.cards:
            return 0  # entered: both moves are seen (see evidence)
        target = use.target if use.target is not None else use.seat
        return 1 << use.seat | 1 << target

    def evidence(self, use: PowerUse, players: int) -> tuple[Evidence, ...]:
        """The card drawn was the target's and is now hers, the card given the reverse (or back)."""
        if len(use.cards) != 2 or use.target is None:
            return ()
        taken, given = use.cards
        before = Moment.BEFORE_NEXT
        if taken == given:
            return (held(Seen.DRAWN, use.target, taken, moment=before),
                    arrived(Seen.DRAWN, use.target, taken))
        return (held(Seen.DRAWN, use.target, taken, moment=before),
                held(Seen.DRAWN, use.seat, given, moment=before),
                arrived(Seen.DRAWN, use.target, given), arrived(Seen.DRAWN, use.seat, taken))

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        target = rng.choice([s for s in range(state.players) if s != seat])
        taken = rng.choice(_hand(state, target))
        return PowerUse(seat, self.slug, target=target,
                        cards=(taken, rng.choice([*_hand(state, seat), taken])))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if use.target is None or not 0 <= use.target < state.players or len(use.cards) != 2 \
                or (self.edition in self.target_other and use.target == use.seat):
            return self.bad(use)
        taken, given = use.cards
        if not _held(state, use.target, taken):
            return self.bad(use, V.NOT_IN_HAND, use.target, taken)
        if state.revealed[use.target] >> card_id(taken) & 1:
            return self.bad(use, V.CARD_SHOWN, use.target, taken)
        if any(p.forced_card(u, use.target) == taken for p, u in state.active_powers):
            # The frozen card lies in front of its owner, out of the hand (engine decision).
            return self.bad(use, V.NOT_IN_HAND, use.target, taken)
        if given != taken and not _held(state, use.seat, given):
            return self.bad(use, V.NOT_IN_HAND, card_=given)
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        taken, given = (1 << card_id(c) for c in use.cards)
        target = use.target
        assert target is not None
        if taken != given:  # (giving the same card back changes nothing)
            state.hands[target] = state.hands[target] & ~taken | given
            state.hands[use.seat] = state.hands[use.seat] & ~given | taken
        return None

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        taken, given = (1 << card_id(c) for c in use.cards)
        target = use.target
        assert target is not None
        if taken != given:
            state.hands[use.seat] = state.hands[use.seat] & ~taken | given
            state.hands[target] = state.hands[target] & ~given | taken


@register
class SleepingBeauty(Power):
    """Sleeping Beauty: everyone contributes a card; she keeps one and deals the others."""

    slug = "sleeping-beauty"
    names = {"en": "Sleeping Beauty", "fr": "La Belle au bois dormant"}
    card_slots = ("gives" + PER_SEAT,)
    more_slots = ("gets" + PER_SEAT,)
    slot_words = {"gives": "each seat's card", "gets": "the card each seat receives"}
    cards_seen, partly_known = False, True  # the table may know the cards given, not the rest
    before_gift_pile = True
    # Whoever the Ice Princess acted on (Deluxe p. 23).
    blocked_by = (Block("little-mermaid"), Block("ice-princess"), Block("rapunzel"))

    def unseen_seats(self, use: PowerUse, players: int) -> int:
        if len(use.more) == players:
            return 0  # entered: who got which card is seen (see evidence)
        return (1 << players) - 1  # every hand gave a card and got one

    def evidence(self, use: PowerUse, players: int) -> tuple[Evidence, ...]:
        """Each seat's contribution was in its hand; the card each seat receives arrives."""
        found = []
        if len(use.cards) == players:
            found += [held(Seen.CONTRIBUTED, seat, card_, moment=Moment.BEFORE_NEXT)
                      for seat, card_ in enumerate(use.cards)]
        if len(use.more) == players:
            found += [arrived(Seen.CONTRIBUTED, seat, card_)
                      for seat, card_ in enumerate(use.more)
                      if len(use.cards) != players or use.cards[seat] != card_]
        return tuple(found)

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        given = tuple(rng.choice(_hand(state, s)) for s in range(state.players))
        received = list(given)
        rng.shuffle(received)
        return PowerUse(seat, self.slug, cards=given, more=tuple(received))

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        players = state.players
        if len(use.cards) != players or len(use.more) != players:
            return self.bad(use, V.WRONG_CARD_COUNT)
        for seat, card_ in enumerate(use.cards):
            if not _held(state, seat, card_):
                return self.bad(use, V.NOT_IN_HAND, seat, card_)
        if sorted(map(card_id, use.cards)) != sorted(map(card_id, use.more)):
            return self.bad(use)
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        for seat, card_ in enumerate(use.cards):
            state.hands[seat] &= ~(1 << card_id(card_))
        for seat, card_ in enumerate(use.more):
            state.hands[seat] |= 1 << card_id(card_)
        return None

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        for seat, card_ in enumerate(use.more):
            state.hands[seat] &= ~(1 << card_id(card_))
        for seat, card_ in enumerate(use.cards):
            state.hands[seat] |= 1 << card_id(card_)


@register
class SnowWhite(Power):
    """Snow White: play one of her low cards (up to :attr:`max_rank`) as a zero."""

    slug = "snow-white"
    names = {"en": "Snow White", "fr": "Blanche-Neige"}
    timing = {D: T, C: T}
    card_slots = ("zero",)
    slot_words = {"zero": "her card of rank {max_rank} or lower, played as a zero"}
    max_rank = 7
    changes_trick = True

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        low = [c for c in _hand(state, seat) if self.allows_rank(c)]
        return PowerUse(seat, self.slug, cards=(rng.choice(low),)) if low else None

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if len(use.cards) != 1:
            return self.bad(use)
        (card_,) = use.cards
        if not _held(state, use.seat, card_):
            return self.bad(use, V.NOT_IN_HAND, card_=card_)
        if not self.allows_rank(card_):
            return self.bad(use, V.BAD_POWER_ARGUMENT, card_=card_)
        return []

    def activate(self, state: RoundForPowers, use: PowerUse) -> None:
        state.zero_id = card_id(use.cards[0])

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.seat:
            return legal
        chosen = 1 << card_id(use.cards[0])
        return chosen if legal & chosen else legal


@register
class Thumbelina(Power):
    """Thumbelina: when not leading, play any card but a Prince or the Frog."""

    slug = "thumbelina"
    names = {"en": "Thumbelina", "fr": "Poucette"}
    editions = DELUXE_ONLY
    timing = {D: T}
    changes_trick = True

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        if not state.trick_ids and use.seat == state.leader:
            return self.bad(use, V.POWER_NOT_NOW)  # not while leading
        return []

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.seat or not state.trick_ids:
            return legal
        led = SUIT_OF[state.trick_ids[0] >> 4]
        for power, other in state.active_powers:
            if power.forced_card(other, seat) is not None:
                return legal  # the Ice Princess's card still binds her
            if power.requested_suit(state, other) is led:
                return legal  # not the suit the Little Mermaid or Rapunzel asked for (p. 23)
        return legal | (state.hands[seat] & ~PRINCE_MASK & ~FROG_BIT)


#: Every Princess slug, in alphabetical order.
POWER_SLUGS: tuple[str, ...] = tuple(sorted(cls.slug for cls in Power.__subclasses__()))
