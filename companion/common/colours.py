"""One colour and one initial per player, the same on every screen of a game and its history.

The colours are Okabe and Ito's palette for colour-blind readers ("Color Universal Design",
2008), in the order that keeps the first players furthest apart; no yellow, which vanishes on a
light page. They are used as swatches, borders and chart lines — never alone: the player's initial
(in a mark of the player's colour) or name always goes with them, and the charts' lines also
differ by dash. Where the colour must carry text (Réveillez's grid), ``--seat-ink`` mixes it with
the scheme's ink, so it keeps 4.5:1 on the page in both colour schemes.

Templates read :func:`seat_class` (the class that gives the element holding a player that
player's CSS variables: app.css writes one rule per seat, each :func:`seat_style`'s declarations,
since the Content-Security-Policy allows no inline style) and :func:`initials`; the ``seat_mark``
macro draws the mark; the charts draw with :func:`seat_colour` (SVG presentation attributes).
"""

from __future__ import annotations

from collections.abc import Sequence

PALETTE = (
    ("#E69F00", "#000"),  # orange
    ("#56B4E9", "#000"),  # sky blue
    ("#009E73", "#000"),  # bluish green
    ("#CC79A7", "#000"),  # reddish purple
    ("#0072B2", "#fff"),  # blue
    ("#D55E00", "#000"),  # vermilion
)
"""Each seat's colour and the colour of text on it (4.5:1 at least)."""


def seat_class(seat: int) -> str:
    """The class that gives an element ``seat``'s colour variables (``--seat``, ``--on-seat``,
    ``--seat-ink``), written in app.css from :data:`PALETTE` (a test keeps the two the same):
    a player's name in their own colour, with no inline style."""
    return f"seat-{seat % len(PALETTE)}"


def seat_colour(seat: int) -> str:
    """The colour of ``seat`` (seat numbers past the palette's end come round again)."""
    return PALETTE[seat % len(PALETTE)][0]


def seat_style(seat: int) -> str:
    """The CSS variables of ``seat``'s colour: ``--seat`` (swatches, borders), ``--on-seat``
    (text on it), ``--seat-ink`` (text in the player's colour on the page) — what app.css's rule
    for :func:`seat_class` declares (never a style attribute: the CSP refuses those)."""
    colour, on = PALETTE[seat % len(PALETTE)]
    return (f"--seat:{colour};--on-seat:{on};"
            f"--seat-ink:color-mix(in srgb,{colour} 55%,var(--ink))")


def initials(names: Sequence[str]) -> tuple[str, ...]:
    """Each player's initial: the first letter of the name, or its first two letters where two
    players share one (Ana and Alex: « An », « Al »), followed by the seat's number where even
    that is shared (« Ch1 », « Ch2 »)."""
    def first(name: str, size: int) -> str:
        letters = [c for c in name.strip() if c.isalnum()] or ["?"]
        return (letters[0].upper() + "".join(letters[1:size]).lower())

    one = [first(name, 1) for name in names]
    two = [first(name, 2) if one.count(one[seat]) > 1 else one[seat]
           for seat, name in enumerate(names)]
    return tuple(mark if two.count(mark) == 1 else f"{mark}{seat + 1}"
                 for seat, mark in enumerate(two))
