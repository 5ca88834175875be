"""Taps to record a 6-player round by cards (Round card "a", no special scoring), save included.

Headless Chromium (Debian's /usr/bin/chromium, launched as in tests/browser/conftest.py) at
390x844 with touch drives the real app (CSRF on) on a free 127.0.0.1 port. Every tap the bench
makes is counted; scrolling and reading are not. The 13 cards that score (12 Princes and the Frog)
are given out three ways:

* worst case: every card tapped individually (no "Rest" button);
* typical: the median deal of a seeded simulation of real rounds (8 tricks of 6 cards, each trick
  won by a random player); every card tapped except the biggest pile, which gets "The rest…" then
  the name (two taps: the pop-up by the Save button, then the player);
* worst case with Rest: 13 cards over 6 players always leave someone with 3 or more, so
  3-2-2-2-2-2 is the worst deal for the economical path.

Taps are counted from the score pad ("Enter round by cards" is one tap) to the pad again after
"Save"; the table also gives the count on the entry page alone. After each save the bench checks
the pad's totals against the rulebook (1 point per Prince, 5 for the Frog). Target: <= 14.

Entry by counts (issue 15), the default for Round card "a": one tap opens it, one tap per
player's Princes count in seat order until the rest is forced (the counts reached 12, so everyone
left took 0; or one player is left, who took the rest), one tap for the Frog, one for Save. The
bench counts those taps for each of the same 10,000 simulated deals, then enters the median deal,
the worst deal and a Rebel of the Ball in the browser at 390x844 and 360x740, checking the saved
totals and the scroll distance (how far the page had to scroll for any tap: 0 means every control
and Save were on the first screen). Targets: median <= 8, worst <= 10, scroll 0.

Run: ``python -m bench.taps`` (both), ``python -m bench.taps counts`` (counts only).
"""

from __future__ import annotations

import random
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from . import NAMES6, table
from .page_weight import CHROMIUM, LAUNCH_ARGS, PHONE, serve

TARGET_TAPS = 14
PLAYERS = 6
SCORING = [f"P{rank}" for rank in range(1, 13)] + ["A8"]  # 12 Princes and the Frog
SIMULATED_ROUNDS = 10_000


@dataclass
class Scenario:
    name: str
    deal: dict[str, int]  # card code -> seat
    use_rest: bool


@dataclass
class Outcome:
    scenario: Scenario
    taps_pad: int  # from the score pad, save included
    taps_page: int  # on the entry page only
    totals_ok: bool
    totals: list[int]
    expected: list[int]
    screens: float  # height of the entry page in phone screens
    previews: int  # htmx live-tally requests while entering the round
    preview_bytes: int  # their response bodies (uncompressed)


# --- deals --------------------------------------------------------------------------------------

def simulate_deal(rng: random.Random) -> dict[str, int]:
    """Who takes each scoring card in one 6-player round: 48 cards in 8 tricks of 6, each trick
    won by a random player (a crude but fair model of trick-taking)."""
    deck = SCORING + [f"x{i}" for i in range(48 - len(SCORING))]
    rng.shuffle(deck)
    deal: dict[str, int] = {}
    for trick in range(8):
        winner = rng.randrange(PLAYERS)
        for card in deck[trick * 6:(trick + 1) * 6]:
            if not card.startswith("x"):
                deal[card] = winner
    return deal


def taps_on_page(deal: dict[str, int], use_rest: bool) -> int:
    """Economical taps on the entry page: each card, minus the biggest pile if Rest pays (it
    costs two taps: "The rest…", then the player), + Save."""
    biggest = max(Counter(deal.values()).values())
    cards = len(deal) - biggest + 2 if use_rest and biggest >= 3 else len(deal)
    return cards + 1


def typical_deal(seed: int = 2024) -> tuple[dict[str, int], list[int]]:
    """The first simulated deal whose economical tap count is the median; and all the counts."""
    rng = random.Random(seed)
    deals = [simulate_deal(rng) for _ in range(SIMULATED_ROUNDS)]
    counts = [taps_on_page(d, True) for d in deals]
    median = int(statistics.median_low(counts))
    return next(d for d, c in zip(deals, counts, strict=True) if c == median), counts


def expected_totals(deal: dict[str, int]) -> list[int]:
    """Rulebook, Round card "a": 1 point per Prince, 5 for the Frog (no Rebel of the Ball here)."""
    totals = [0] * PLAYERS
    for card, seat in deal.items():
        totals[seat] += 5 if card == "A8" else 1
    assert max(Counter(deal.values()).values()) < len(deal), "Rebel of the Ball not modelled"
    return totals


# --- the browser run ------------------------------------------------------------------------------

def record_round(page, base: str, scenario: Scenario) -> Outcome:  # type: ignore[no-untyped-def]
    code = new_game_in_page(page, base)  # this browser sets the game up: it is the scorer
    taps = 0
    previews: list[int] = []

    def on_response(response) -> None:  # type: ignore[no-untyped-def]
        if response.url.endswith("/preview"):
            previews.append(int(response.headers.get("content-length", "0")))

    def tap(selector: str) -> None:
        nonlocal taps
        page.locator(selector).tap()
        taps += 1

    page.goto(f"{base}/rebel-princess/g/{code}")
    page.on("response", on_response)
    tap("[data-action=enter-cards]")
    page.wait_for_url(f"**/g/{code}/round/1/cards")
    on_page_from = taps
    screens = page.evaluate("document.documentElement.scrollHeight") / PHONE["viewport"]["height"]

    deal = scenario.deal
    piles = Counter(deal.values())
    rest_seat, biggest = piles.most_common(1)[0]
    use_rest = scenario.use_rest and biggest >= 3
    for card in SCORING:
        seat = deal[card]
        if use_rest and seat == rest_seat:
            continue
        tap(f"[data-row='{card}'] input[value='{seat}'] + span")
    if use_rest:
        tap("[data-action=rest]")
        tap(f"[data-rest='{rest_seat}']")
    # Every card that scores has been given out (the live tally says so) before saving.
    page.locator("#live [data-missing='0']").wait_for(timeout=10_000)
    tap("[data-action=save]")
    page.wait_for_url(f"**/g/{code}")
    page.remove_listener("response", on_response)
    totals = [int(t) for t in page.locator("#pad").get_attribute("data-totals").split(",")]
    expected = expected_totals(deal)
    return Outcome(scenario, taps, taps - on_page_from, totals == expected, totals, expected,
                   screens, len(previews), sum(previews))


def run(out: list[str] | None = None) -> tuple[list[Outcome], str]:
    from playwright.sync_api import sync_playwright

    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    typical, counts = typical_deal()
    spread_all = {card: i % PLAYERS for i, card in enumerate(SCORING)}  # 3-2-2-2-2-2
    scenarios = [
        Scenario("worst case: every card tapped", spread_all, use_rest=False),
        Scenario("typical (median deal) with Rest", typical, use_rest=True),
        Scenario("worst deal with Rest (3-2-2-2-2-2)", spread_all, use_rest=True),
    ]
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-taps-") as tmp:
        with serve(Path(tmp) / "taps.sqlite") as (base, _app), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=LAUNCH_ARGS)
            try:
                context = browser.new_context(**PHONE)
                page = context.new_page()
                for scenario in scenarios:
                    outcomes.append(record_round(page, base, scenario))
                context.close()
            finally:
                browser.close()

    say("Taps: record a 6-player round by cards, Round card a (12 Princes + the Frog), save "
        "included; headless Chromium, 390x844, touch.")
    say()

    def pile_text(deal: dict[str, int]) -> str:
        return "-".join(str(n) for n in sorted(Counter(deal.values()).values(), reverse=True))

    say(table(["case", "piles", "taps from pad", "taps on entry page", "totals saved",
               "entry page height"],
              [[o.scenario.name, pile_text(o.scenario.deal), o.taps_pad, o.taps_page,
                ("ok " if o.totals_ok else "WRONG ") + ",".join(map(str, o.totals)),
                f"{o.screens:.1f} screens"] for o in outcomes], align="llrrll"))
    say()
    dist = Counter(counts)
    spread = ", ".join(f"{taps + 1}: {100 * n / len(counts):.0f}%"
                       for taps, n in sorted(dist.items()))
    say(f"- Over {SIMULATED_ROUNDS:,} simulated rounds (seeded), taps from the pad with Rest: "
        f"median {statistics.median(counts) + 1:.0f}; distribution {spread}.")
    worst, typ = outcomes[0], outcomes[1]
    say(f"- Target <= {TARGET_TAPS} from the pad: worst case {worst.taps_pad} "
        f"({'met' if worst.taps_pad <= TARGET_TAPS else 'NOT met'}), typical {typ.taps_pad} "
        f"({'met' if typ.taps_pad <= TARGET_TAPS else 'NOT met'}). Scrolling is not counted: "
        f"the entry page is {typ.screens:.1f} phone screens tall.")
    say(f"- Each tap also posts the form for the live tally (htmx): {typ.previews} requests and "
        f"{typ.preview_bytes / 1000:.1f} kB of HTML (uncompressed) in the typical case, "
        f"{worst.previews} requests / {worst.preview_bytes / 1000:.1f} kB when every card is "
        "tapped.")
    if not all(o.totals_ok for o in outcomes):
        bad = [o for o in outcomes if not o.totals_ok]
        say(f"- WRONG TOTALS SAVED: {[(o.scenario.name, o.totals, o.expected) for o in bad]}")
    if out is not None:
        out.extend(lines)
    if not all(o.totals_ok for o in outcomes):
        raise RuntimeError("the app saved wrong totals: see the table above")
    return outcomes, "\n".join(lines)


# --- entry by counts ------------------------------------------------------------------------

COUNTS_TARGET = (8, 10)  # median, worst: taps from the pad, save included
PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


def prince_counts(deal: dict[str, int]) -> tuple[list[int], int]:
    """Princes per seat and the Frog's seat of a deal."""
    counts = [0] * PLAYERS
    for card, seat in deal.items():
        if card.startswith("P"):
            counts[seat] += 1
    return counts, deal["A8"]


def count_taps_to_tap(counts: list[int]) -> int:
    """Counts tapped in seat order until the rest is forced (sum reached, or one seat left)."""
    total = 0
    for index, count in enumerate(counts):
        total += count
        if total == sum(counts) or index == len(counts) - 2:
            return index + 1
    return len(counts)


def taps_by_counts(deal: dict[str, int]) -> int:
    """From the pad: open the entry, the counts, the Frog, Save."""
    return 1 + count_taps_to_tap(prince_counts(deal)[0]) + 1 + 1


def counts_expected(deal: dict[str, int]) -> list[int]:
    """Round card "a": a Prince 1, the Frog 5; all of them to one player is Rebel of the Ball."""
    counts, frog = prince_counts(deal)
    if counts[frog] == 12:
        return [-10 if seat == frog else 0 for seat in range(PLAYERS)]
    return [n + (5 if seat == frog else 0) for seat, n in enumerate(counts)]


def new_game_in_page(page, base: str) -> str:  # type: ignore[no-untyped-def]
    """Set up a 6-player game through the set-up page, as the table would (this browser is then
    the game's scorer); Round cards a-e. Returns the game's code."""
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(NAMES6):
        page.locator(f"input[name='names-{seat}']").fill(name)
    for index, letter in enumerate("abcde"):
        page.locator(f"select[name='cards-{index}']").select_option(letter)
    page.locator("[data-action=create]").click()
    page.locator("#this-round").wait_for()
    return str(page.url.rstrip("/").rsplit("/", 1)[1])


def record_by_counts(page, base: str, deal: dict[str, int]  # type: ignore[no-untyped-def]
                     ) -> tuple[int, int, bool, list[int]]:
    """Enter one round by counts as a player would; returns taps, the scroll distance (pixels
    the page would have to scroll to bring each tapped control wholly on screen, summed), whether
    the saved totals are right, and the totals."""
    taps = 0
    scrolled = 0
    code = new_game_in_page(page, base)

    def tap(selector: str) -> None:
        nonlocal taps, scrolled
        # How far the page must scroll for this control to be wholly on screen, before tapping.
        box = page.locator(selector).bounding_box()
        height = page.viewport_size["height"]
        scrolled += int(max(0, box["y"] + box["height"] - height, -box["y"]))
        page.locator(selector).tap()
        taps += 1

    page.goto(f"{base}/rebel-princess/g/{code}")
    tap("[data-action=enter-counts]")
    page.wait_for_url(f"**/g/{code}/round/1/counts")
    counts, frog = prince_counts(deal)
    for seat in range(count_taps_to_tap(counts)):
        tap(f"[data-count-seat='{seat}'] .picker input[value='{counts[seat]}'] + span")
    tap(f"[data-count-seat='{frog}'] .frogpick > span")
    page.locator("#live [data-missing='0']").wait_for(timeout=10_000)
    tap("[data-action=save]")
    page.wait_for_url(f"**/g/{code}")
    totals = [int(t) for t in page.locator("#pad").get_attribute("data-totals").split(",")]
    return taps, scrolled, totals == counts_expected(deal), totals


def run_counts(out: list[str] | None = None) -> str:
    from playwright.sync_api import sync_playwright

    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    rng = random.Random(2024)
    deals = [simulate_deal(rng) for _ in range(SIMULATED_ROUNDS)]
    counts = [taps_by_counts(d) for d in deals]
    median = int(statistics.median_low(counts))
    worst = max(counts)
    rebel = {**{card: 3 for card in SCORING}}
    cases = [("median deal", next(d for d, c in zip(deals, counts, strict=True) if c == median)),
             ("worst deal", next(d for d, c in zip(deals, counts, strict=True) if c == worst)),
             ("Rebel of the Ball", rebel)]
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="companion-bench-counts-") as tmp:
        with serve(Path(tmp) / "counts.sqlite") as (base, _app), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=LAUNCH_ARGS)
            try:
                for viewport in PHONES:
                    context = browser.new_context(**{**PHONE, "viewport": viewport})
                    page = context.new_page()
                    for name, deal in cases:
                        taps, scrolled, right, totals = record_by_counts(page, base, deal)
                        ok = ok and right
                        rows.append([f"{viewport['width']}x{viewport['height']}", name,
                                     "-".join(map(str, prince_counts(deal)[0])), taps,
                                     f"{scrolled} px", ("ok " if right else "WRONG ")
                                     + ",".join(map(str, totals))])
                    context.close()
            finally:
                browser.close()
    say("Taps: record a 6-player round by counts (the default for Round card a), from the score "
        "pad to the pad again, Save included; headless Chromium, touch.")
    say()
    say(table(["phone", "case", "Princes per seat", "taps from pad", "scrolled", "totals saved"],
              rows, align="llllrl"))
    say()
    dist = Counter(counts)
    spread = ", ".join(f"{taps}: {100 * n / len(counts):.0f}%" for taps, n in sorted(dist.items()))
    say(f"- Over {SIMULATED_ROUNDS:,} simulated deals (seeded, 8 tricks of 6 won at random): "
        f"median {statistics.median(counts):.0f}, worst {worst} taps from the pad "
        f"(targets {COUNTS_TARGET[0]} and {COUNTS_TARGET[1]}); distribution {spread}.")
    if out is not None:
        out.extend(lines)
    if not ok:
        raise RuntimeError("the app saved wrong totals: see the table above")
    return "\n".join(lines)


def main() -> None:
    import sys

    if sys.argv[1:] != ["counts"]:
        run()
    run_counts()


if __name__ == "__main__":
    main()
