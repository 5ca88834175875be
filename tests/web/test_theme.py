"""Dark mode (issue 22): the colour scheme a phone chose (the "theme" cookie app.js sets) is
written on <html data-theme> by the server, a cached pad never hands one phone's choice to
another, and every colour pair app.css defines keeps WCAG AA contrast in both schemes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..rebel_princess.test_pad_cache import viewer_of

STATIC = Path(__file__).resolve().parents[2] / "companion" / "static"


def html_tag(page: str) -> str:
    return re.search(r"<html[^>]*>", page).group(0)


def theme_of(page: str) -> str | None:
    """The data-theme of the page's <html> (pages may come minified: quotes optional)."""
    found = re.search(r"""data-theme=["']?([^"' >]*)""", html_tag(page))
    return found.group(1) if found else None


@pytest.mark.parametrize("cookie, expected", [
    (None, None), ("dark", "dark"), ("light", "light"), ("auto", None),
    ('dark" onload="x', None), ("DARK", None)])
def test_the_chosen_scheme_is_on_the_html_element(client, cookie, expected):
    if cookie is not None:
        client.set_cookie("theme", cookie)
    for path in ["/", "/rebel-princess/new", "/reveillez/new", "/rules",
                 "/rebel-princess/g/nowhere"]:
        page = client.get(path).text
        assert theme_of(page) == expected, path
        assert "onload" not in html_tag(page)


def test_a_cached_pad_keeps_each_phone_s_scheme(app, make_game):
    code = make_game()
    viewer = viewer_of(app, code)
    dark, light, auto = app.test_client(), app.test_client(), app.test_client()
    dark.set_cookie("theme", "dark")
    light.set_cookie("theme", "light")
    for _ in range(2):  # the second time from the cache
        assert theme_of(dark.get(f"/rebel-princess/g/{viewer}").text) == "dark"
        assert theme_of(light.get(f"/rebel-princess/g/{viewer}").text) == "light"
        assert theme_of(auto.get(f"/rebel-princess/g/{viewer}").text) is None


# --- contrast -------------------------------------------------------------------------------------

def luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted([luminance(a), luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", block))


def schemes() -> dict[str, dict[str, str]]:
    css = (STATIC / "app.css").read_text()
    light = variables(re.search(r":root \{(.*?)\}", css, re.S).group(1))
    media = variables(re.search(
        r'@media \(prefers-color-scheme: dark\) \{\s*:root:not\(\[data-theme="light"\]\) \{(.*?)\}',
        css, re.S).group(1))
    chosen = variables(re.search(r':root\[data-theme="dark"\] \{(.*?)\}', css, re.S).group(1))
    assert media == chosen, "the phone's dark setting and the dark switch must give one palette"
    return {"light": light, "dark": {**light, **chosen}}


def test_the_dark_scheme_redefines_every_colour():
    light, dark = schemes()["light"], variables(re.search(
        r':root\[data-theme="dark"\] \{(.*?)\}', (STATIC / "app.css").read_text(), re.S).group(1))
    assert set(light) == set(dark)


TEXT_ON = {  # text colour: the backgrounds it is written on
    "ink": ["bg", "card", "field", "sub", "tint-good", "tint-bad", "tint-warn", "tint-gold",
            "tint-brand", "tint-gray"],
    "muted": ["bg", "card", "field", "sub", "tint-brand"],
    "brand": ["bg", "card", "field", "tint-brand"],
    "on-brand": ["brand"], "head-ink": ["head-bg"],
    "accent": ["bg", "card"], "good": ["card", "tint-good"], "bad": ["card", "tint-bad"],
    "warn": ["card"], "blue-ink": ["tint-blue"],
    "prince": ["field"], "queen": ["field"], "fairy": ["field"], "pet": ["field"],
}


@pytest.mark.parametrize("name", ["light", "dark"])
def test_every_text_colour_keeps_aa_contrast(name):
    palette = schemes()[name]
    low = [(text, back, round(contrast(palette[text], palette[back]), 2))
           for text, backs in TEXT_ON.items() for back in backs
           if contrast(palette[text], palette[back]) < 4.5]
    assert not low, f"{name}: under 4.5:1: {low}"


def mix(colour: str, other: str, share: float) -> str:
    """CSS color-mix(in srgb, colour share, other)."""
    a, b = (colour.lstrip("#"), other.lstrip("#"))
    channels = (int(a[i:i + 2], 16) * share + int(b[i:i + 2], 16) * (1 - share) for i in (0, 2, 4))
    return "#" + "".join(f"{round(c):02x}" for c in channels)


@pytest.mark.parametrize("name", ["light", "dark"])
def test_the_players_colours_keep_aa_contrast(name):
    """Text on a player's colour (the initial in its mark) and text in a player's colour
    (--seat-ink, mixed with the scheme's ink) keep 4.5:1 in both schemes."""
    from companion.common.colours import PALETTE, seat_style

    scheme = schemes()[name]
    for seat, (colour, on) in enumerate(PALETTE):
        assert contrast(colour, on) >= 4.5, (colour, on)
        share = float(re.search(r"--seat-ink:color-mix\(in srgb,#\w+ (\d+)%,var\(--ink\)\)",
                                seat_style(seat)).group(1)) / 100
        ink = mix(colour.lower(), scheme["ink"], share)
        for back in ("bg", "card", "field"):
            assert contrast(ink, scheme[back]) >= 4.5, (name, colour, ink, back)
