"""The rules engine of Rebel Princess: pure Python, no Flask and no database.

Full information (:class:`RoundState`, every hand known) and table entry (:class:`TableRound`,
hands unknown, rules judged at once or once later plays prove them broken) share the same rules.
Public surface, python-chess style: frozen :class:`RebelCard` values with a notation round-trip, one
:class:`RoundState` with cheap queries (:meth:`~RoundState.legal_plays`,
:meth:`~RoundState.is_legal_play`, :meth:`~RoundState.check_trick`) and explicit commands
(:meth:`~RoundState.play_trick`, :meth:`~RoundState.push`, :meth:`~RoundState.pop`), violations as
data (the app's one :class:`~companion.scoring.problems.Problem`, made by :func:`violation`) and
three precise errors under :class:`EngineError`. Round cards and
Princess powers are :class:`Modifier` hook objects registered by slug (:mod:`.modifiers` documents
the order in which they are consulted).
"""

from __future__ import annotations

from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit

from .cards import parse_card, parse_cards
from .errors import (
    AmbiguousEntryError,
    EngineError,
    IllegalTrickError,
    InvalidEntryError,
    ViolationCode,
    violation,
)
from .evidence import Evidence, Kept, Moment, Seen
from .modifiers import (
    Modifier,
    Timing,
    WinReason,
    modifier_class,
    register,
    registered,
    round_card_class,
)
from .powers import Power, power_class, power_slugs, zero_rank
from .princesses import POWER_SLUGS  # (defines the twelve powers)
from .record import RoundTranscript, format_record, parse_record
from .state import RoundState
from .steps import (
    Chairs,
    Gift,
    Haggle,
    Pass,
    PowerUse,
    Reveal,
    SetAside,
    Step,
    StepKind,
    parse_step,
)
from .table import TableRound
from .values import RoundOutcome, Trick

__all__ = [
    "POWER_SLUGS", "AmbiguousEntryError", "Chairs", "Edition", "EngineError", "Evidence", "Gift",
    "Haggle", "Kept", "Moment", "Seen",
    "IllegalTrickError", "InvalidEntryError", "Modifier", "Pass", "Power", "PowerUse", "RebelCard",
    "Reveal", "RoundOutcome", "RoundState", "RoundTranscript", "SetAside", "Step", "StepKind",
    "Suit", "TableRound", "Timing", "Trick", "ViolationCode", "WinReason", "format_record",
    "modifier_class", "parse_card", "parse_cards", "parse_record", "parse_step", "power_class",
    "power_slugs", "register", "registered", "round_card_class", "violation", "zero_rank",
]
