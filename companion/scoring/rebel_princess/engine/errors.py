"""Errors and violations of the rules engine, on the app's one problem type.

Two kinds of trouble, kept apart in the python-chess manner:

- *Violations* are data: :class:`companion.scoring.problems.Problem` values made by
  :func:`violation`. :meth:`RoundState.check_trick` and friends return every problem they find and
  never raise. A violation's ``code`` is a :class:`ViolationCode` (a ``StrEnum``: its string value
  is stable, and templates and tests key on it, never on English text); it names the seat and card
  concerned (the card by its code), the trick when known, and ``params["rule"]``, the slug of the
  rule that was broken (``"basic"`` for the basic rules, otherwise a Round card or Princess slug).
  The sentence a player reads comes from :data:`CATALOGUES` (``messages.toml``, English and
  French), which names the rule in the reader's language.
- *Errors* are raised by commands. :class:`EngineError` (an
  :class:`~companion.scoring.problems.EntryError`, so a ``ValueError`` carrying ``problems``) has
  three children: :class:`InvalidEntryError` for malformed input, :class:`IllegalTrickError` for
  well-formed input that breaks the rules (it carries ``.violations``), and
  :class:`AmbiguousEntryError` for input that allows more than one reading. Their own message is
  for developers: it names the input and the state notation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion.scoring.problems import Catalogue, EntryError, Problem, language
from companion.scoring.rebel_princess.cards import FROG, Edition, RebelCard
from companion.scoring.rebel_princess.problems import name_cards_with

__all__ = ["BASIC", "CATALOGUES", "AmbiguousEntryError", "EngineError", "IllegalTrickError",
           "InvalidEntryError", "RuleCatalogue", "ViolationCode", "violation"]

BASIC = "basic"


class ViolationCode(StrEnum):
    """Why a play or a trick is not allowed; the values are stable identifiers."""

    # Entry shape (also raised as InvalidEntryError by the parse_* functions).
    UNKNOWN_CARD = "unknown-card"
    CARD_NOT_IN_DECK = "card-not-in-deck"
    DUPLICATE_CARD = "duplicate-card"
    WRONG_CARD_COUNT = "wrong-card-count"
    WRONG_LEADER = "wrong-leader"
    ROUND_OVER = "round-over"
    # Where the card comes from.
    CARD_ALREADY_PLAYED = "card-already-played"
    NOT_IN_HAND = "not-in-hand"
    # Basic trick rules (Deluxe "Playing a Trick", French "Jouer un pli").
    MUST_FOLLOW_SUIT = "must-follow-suit"
    PRINCES_NOT_INVITED = "princes-not-invited"
    # Round cards.
    MUST_PLAY_HIGHEST_OR_LOWEST = "must-play-highest-or-lowest"  # Magic Beans (c)
    MUST_MATCH_PARITY = "must-match-parity"  # Odds and Evens (s / U)
    NOT_YOUR_TURN = "not-your-turn"
    # Round-card steps outside the tricks.
    STEP_REQUIRED = "step-required"  # a set-aside, reveal, gift or musical chairs is due first
    STEP_NOT_DUE = "step-not-due"
    SUIT_NOT_HELD = "suit-not-held"  # Crystal Clear (h / I): reveal a suit you hold
    NOT_TRICK_WINNER = "not-trick-winner"  # Haggle with the Hag (p / T)
    NOT_IN_TRICK = "not-in-trick"
    HAGGLE_OWN_CARD = "haggle-own-card"
    # Princess powers.
    POWER_NOT_IN_PLAY = "power-not-in-play"  # the seat's Princess has another power
    POWER_ALREADY_USED = "power-already-used"  # once per round
    POWER_NOT_NOW = "power-not-now"  # wrong moment for this power
    NOT_ON_LAST_TRICK = "not-on-last-trick"  # a timing rule (Late to the Ball, b / G)
    POWER_BLOCKED = "power-blocked"  # another power used this trick forbids it (Deluxe)
    POWER_RESTRICTION = "power-restriction"  # a power in effect forbids this card
    BAD_POWER_ARGUMENT = "bad-power-argument"
    NOT_THE_LEADER = "not-the-leader"
    PRINCES_NOT_YET = "princes-not-yet"  # classic Little Mermaid: no Prince has appeared yet
    POWER_FROG = "power-frog"  # Alice and Mulan never move the Frog
    CARD_SHOWN = "card-shown"  # Crystal Clear: shown cards cannot be picked at random
    # Outcome of a trick entered at the table.
    WRONG_WINNER = "wrong-winner"


@dataclass(frozen=True, eq=False)
class RuleCatalogue(Catalogue):
    """The engine's sentences (``messages.toml`` beside this module) for one edition.

    On top of :class:`~companion.scoring.problems.Catalogue` it fills ``{rule}`` with the name of
    the Round card or Princess whose slug a problem carries, as printed in this edition and in the
    reader's language, gives ``{player}``, ``{card}`` and ``{rule}`` a neutral default, and starts
    the sentence with a capital letter. A code may have a sentence of its own for one rule, keyed
    ``code@rule-slug``.
    """

    edition: Edition = Edition.DELUXE

    def text(self, code: str, /, lang: str = "en", names: Sequence[str] | None = None,
             **params: Any) -> str:
        lang = language(lang)
        word = self._words(lang)
        params = {key: value for key, value in params.items() if value is not None}
        slug = str(params.get("rule") or "")
        if f"{code}@{slug}" in self.codes("en"):  # a sentence of its own for this rule
            code = f"{code}@{slug}"
        params["rule"] = self.rule_name(slug, lang) if slug else word["this-rule"]
        params["rule_mid"] = _mid(params["rule"])
        # The power a rule names (a timing rule).
        params["power"] = self.rule_name(str(params["power"]), lang) if "power" in params \
            else word["a-princess"]
        if code != ViolationCode.UNKNOWN_CARD and "card" in params:
            params["card"] = self.card_name(str(params["card"]), lang)
        params.setdefault("card", word["a-card"])
        if code == ViolationCode.POWER_BLOCKED:
            if "by" in params:
                params.update(self._blocked_words(lang, names, params))
            else:
                code = "power-blocked-plain"
        text = super().text(code, lang, names, **params)
        return text[:1].upper() + text[1:]

    def _blocked_words(self, lang: str, names: Sequence[str] | None,
                       params: dict[str, Any]) -> dict[str, str]:
        """What a blocked power's sentence says the earlier power did (``did``) and how that
        forbids this one (``then``): on the leader, or for the whole trick."""
        by = str(params["by"])
        done = f"did@{by}" if f"did@{by}" in self.codes("en") else "did"
        seats = {key: params.get(key) for key in ("on", "leader")}
        did = super().text(done, lang, names, by=self.rule_name(by, lang), **seats)
        if params.get("scope") != "leader":
            then = "then-trick"
        elif params.get("on") == params.get("leader"):
            then = "then-her"
        else:
            then = "then-leader"
        return {"did": did, "then": super().text(then, lang, names, rule_mid=params["rule_mid"],
                                                  leader=params.get("leader"))}

    def card_name(self, code: str, lang: str = "en") -> str:
        """A card by its name, never its code (« le 2 de Fées », "the Frog (8 of Pets)"); a text
        that is not a card code is kept as it is."""
        try:
            card = RebelCard.from_code(code)
        except ValueError:
            return code
        key = "card@frog" if card.is_frog else f"card@{card.suit.value}"
        return super().text(key, language(lang), rank=card.rank)

    def rule_name(self, slug: str, lang: str = "en") -> str:
        """The player-facing name of a rule slug: a Princess, a Round card, the basic rules."""
        if slug == BASIC:
            return self._words(language(lang))["basic-rules"]
        return _rule_namer(slug, self.edition, language(lang))

    def _words(self, lang: str) -> dict[str, str]:
        return {key: super(RuleCatalogue, self).text(key, lang)
                for key in ("basic-rules", "this-rule", "a-card", "a-princess")}


def _slug_words(slug: str, edition: Edition, lang: str) -> str:
    return slug.replace("-", " ")


#: How a rule slug is named for players: :mod:`.modifiers` (which imports this module) gives its
#: registry's names through :func:`name_rules_with` when it is imported.
_rule_namer: Callable[[str, Edition, str], str] = _slug_words


def name_rules_with(namer: Callable[[str, Edition, str], str]) -> None:
    """Name the rules in the engine's sentences with ``namer(slug, edition, lang)``."""
    global _rule_namer
    _rule_namer = namer


def _mid(name: str) -> str:
    """A printed name inside a sentence: "The Little Mermaid" -> "the Little Mermaid"."""
    first, _, rest = name.partition(" ")
    return f"{first.lower()} {rest}" if rest and first in ("The", "La", "Le", "Les") else name


#: The engine's catalogue for each edition (Round cards and Princesses are named as printed in it).
CATALOGUES: dict[Edition, RuleCatalogue] = {
    edition: RuleCatalogue(__package__, edition=edition) for edition in Edition}


def violation(code: ViolationCode, seat: int | None = None, card: RebelCard | str | None = None,
              rule: str = BASIC, edition: Edition = Edition.DELUXE, *,
              trick: int | None = None, **params: Any) -> Problem:
    """A rule violation as a :class:`~companion.scoring.problems.Problem`: ``code`` by ``seat``
    with ``card`` under the rule ``rule`` (a slug), worded by the ``edition``'s catalogue."""
    return Problem(code, seat=seat, card=None if card is None else str(card), trick=trick,
                   params={"rule": rule, **params}, catalogue=CATALOGUES[edition])


class EngineError(EntryError):
    """Base of every error the rules engine raises; ``problems`` lists what was found."""

    def __init__(self, message: str, problems: Iterable[Problem] = ()) -> None:
        ValueError.__init__(self, message)
        self.problems: list[Problem] = list(problems)


class InvalidEntryError(EngineError):
    """Malformed input: an unknown card, a wrong card count, a duplicate, a bad notation."""

    def __init__(self, message: str, code: ViolationCode | None = None) -> None:
        super().__init__(message, [violation(code)] if code is not None else [])
        self.code = code


class IllegalTrickError(EngineError):
    """Well-formed input that breaks the rules; ``violations`` lists every problem found."""

    def __init__(self, message: str, violations: Iterable[Problem]) -> None:
        found = list(violations)
        detail = "; ".join(_describe(v) for v in found)
        super().__init__(f"{message}: {detail}" if detail else message, found)
        self.violations = found


class AmbiguousEntryError(EngineError):
    """Input with more than one reading (e.g. a power without its target): ask the player."""


def _describe(problem: Problem) -> str:
    """A violation in a few words, for developers (``must-follow-suit seat 1 A3 (mulan)``)."""
    parts = [str(problem.code)]
    if problem.seat is not None:
        parts.append(f"seat {problem.seat}")
    if problem.card is not None:
        parts.append(problem.card)
    rule = problem.params.get("rule", BASIC)
    if rule != BASIC:
        parts.append(f"({rule})")
    return " ".join(parts)


def _scoring_card_name(code: str, lang: str) -> str:
    """A card in the scoring core's sentences for players: « la Grenouille » alone (a round's
    count names it so: "A8" means nothing at the table, "A" being the French Animaux), every
    other card as :meth:`RuleCatalogue.card_name` names it."""
    catalogue = CATALOGUES[Edition.DELUXE]
    if code.strip().upper() == FROG.code:
        return Catalogue.text(catalogue, "card@the-frog", lang)
    return catalogue.card_name(code, lang)


name_cards_with(_scoring_card_name)
