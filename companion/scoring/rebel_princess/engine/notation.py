"""The one-line notation of a :class:`~.state.RoundState` (our FEN): :meth:`RoundNotation.notation`
writes it; :meth:`~.state.RoundState.from_notation` reads it back with the helpers here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cards import card_at, check_disjoint, format_cards, format_mask, mask_of, parse_cards
from .errors import InvalidEntryError
from .round_base import RoundBase
from .steps import PowerUse, StepKind, parse_step

if TYPE_CHECKING:
    pass

__all__ = ["RoundNotation"]


class RoundNotation(RoundBase):
    """Write the state as one line, and set the optional fields read from one."""

    if TYPE_CHECKING:  # (defined by the other parts of RoundState)
        def haggle_option(self) -> tuple[int, int] | None: ...
        def _reactivate(self) -> None: ...
        def _recount(self) -> None: ...

    def notation(self) -> str:
        """The state as one line, our FEN. Fields, separated by one space::

            edition round-card leader princes hands taken tricks-won trick [extras]

        ``princes`` is ``+`` once Princes have snuck in, else ``-``; ``hands`` and ``taken`` list
        each seat's cards run together (``P3Q10A8``), seats separated by ``/``, ``-`` for none;
        ``trick`` holds the cards of the trick in progress in play order, ``-`` if none.
        ``extras``, present only when needed, joins with ``;`` any of ``step=KIND`` (the step
        due), ``aside=SEATS`` (set-aside cards), ``pile=CARDS`` (the gift pile of the coming
        trick), ``gifts=SEATS`` (gift piles won), ``shown=SEATS`` (revealed cards still held) and
        ``haggle=SEAT:CARDS`` (the trick winner who may still haggle, and the cards they may take),
        ``princesses=SLUG,-,...`` (each seat's Princess), ``used=SEAT,...`` (powers used this
        round) and ``active=USE|...`` (powers in effect for this trick, each a record ``power``
        line without its first word, blanks written ``:``).
        """
        fields = [
            self.edition.value, self.round_card, str(self.leader), "+" if self.princes_in else "-",
            format_seats(self.hands), format_seats(self.taken),
            "/".join(str(w) for w in self.tricks_won),
            format_cards(card_at(c) for c in self.trick_ids),
        ]
        extras = []
        if self._pending is not None:
            extras.append(f"step={self._pending.value}")
        if any(self.aside):
            extras.append(f"aside={format_seats(self.aside)}")
        if self._gift:
            extras.append(f"pile={format_mask(self._gift)}")
        if any(self.gifts):
            extras.append(f"gifts={format_seats(self.gifts)}")
        shown = [r & h for r, h in zip(self.revealed, self.hands, strict=True)]
        if any(shown):
            extras.append(f"shown={format_seats(shown)}")
        option = self.haggle_option()
        if option is not None:
            extras.append(f"haggle={option[0]}:{format_mask(option[1])}")
        if any(self.princesses):
            extras.append("princesses=" + ",".join(p or "-" for p in self.princesses))
        if any(self.used):
            extras.append("used=" + ",".join(str(s) for s, u in enumerate(self.used) if u))
        if self.active_powers:
            extras.append("active=" + "|".join(str(use).replace(" ", ":")[len("power:"):]
                                               for _, use in self.active_powers))
        if extras:
            fields.append(";".join(extras))
        return " ".join(fields)

    def _set_extras(self, extras: dict[str, str], text: str) -> None:
        players = self.players
        try:
            self._pending = StepKind(extras["step"]) if "step" in extras else None
        except ValueError:
            raise InvalidEntryError(f"unknown step in {text!r}") from None
        for name in ("aside", "gifts", "shown"):
            if name in extras:
                masks = parse_seats(extras[name])
                if len(masks) != players:
                    raise InvalidEntryError(f"{name} needs {players} seats in {text!r}")
                setattr(self, "revealed" if name == "shown" else name, masks)
        self._gift = parse_seat_cards(extras.get("pile", "-"))
        if "haggle" in extras:
            seat, _, cards = extras["haggle"].partition(":")
            if not seat.isdigit() or int(seat) >= players:
                raise InvalidEntryError(f"bad haggle field in {text!r}")
            self._haggle_seed = (int(seat), parse_seat_cards(cards))
        check_disjoint(players, self.hands + self.taken + self.aside + self.gifts + [self._gift])
        if any(r & ~h for r, h in zip(self.revealed, self.hands, strict=True)):
            raise InvalidEntryError(f"shown cards must be in the hand in {text!r}")
        try:
            for seat in extras["used"].split(",") if "used" in extras else []:
                self.used[int(seat)] = True
            for token in extras["active"].split("|") if "active" in extras else []:
                use = parse_step("power " + token.replace(":", " "))
                power = self.powers[use.seat]  # type: ignore[union-attr]
                if not isinstance(use, PowerUse) or power is None or power.slug != use.power:
                    raise ValueError
                self.active_powers.append((power, use))
        except (ValueError, IndexError):
            raise InvalidEntryError(f"bad used or active field in {text!r}") from None
        self._reactivate()
        self._dealt = list(self.hands)
        self._recount()


def format_seats(masks: Sequence[int]) -> str:
    return "/".join(format_mask(mask) for mask in masks)


def parse_seats(text: str) -> list[int]:
    return [parse_seat_cards(part) for part in text.split("/")]


def parse_extras(text: str, line: str) -> dict[str, str]:
    extras: dict[str, str] = {}
    for item in text.split(";") if text else []:
        name, sep, value = item.partition("=")
        known = ("step", "aside", "pile", "gifts", "shown", "haggle", "princesses", "used",
                 "active")
        if not sep or name not in known or name in extras:
            raise InvalidEntryError(f"bad extra field {item!r} in {line!r}")
        extras[name] = value
    return extras


def parse_seat_cards(text: str) -> int:
    return 0 if text == "-" else mask_of(parse_cards(text))
