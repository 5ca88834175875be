"""Run every bench and write bench/RESULTS.md: ``python -m bench.all`` (``make bench``).

Takes about two minutes: HTTP load (4 x 10 s plus ~12 s of set-up), page weight (the score pad,
then three first visits in headless Chromium, ~15 s), taps in headless Chromium (10 s), the
statistics page with 1,000 games (~30 s, mostly storing them). A bench that fails is reported
in the file and makes the exit status 1; the others still run. ``--only page_weight``
(repeatable) runs one bench and replaces only its section.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from . import ROOT

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def _cmd(args: list[str]) -> str:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=20, cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return "?"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"


def machine() -> list[str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = _cmd(["git", "rev-parse", "--short", "HEAD"])
    # RESULTS.md itself does not count: it is what this run rewrites.
    dirty = _cmd(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                  ":!bench/RESULTS.md"])
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    gunicorn = _cmd([sys.executable, "-m", "gunicorn", "--version"])
    wrk = _cmd(["wrk", "-v"]).split(" Copyright")[0] if shutil.which("wrk") else "wrk missing"
    browser = _cmd([chromium, "--version"]) if Path(chromium).exists() else "chromium missing"
    return [
        f"- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; commit {commit}"
        + (" (with uncommitted changes in the tree)" if dirty not in ("", "?") else ""),
        f"- Machine: {os.cpu_count()} cores (nproc {_cmd(['nproc'])}), {cpu}, "
        f"{platform.system()} {platform.release()}",
        f"- Python {platform.python_version()}; {gunicorn}; {wrk}; {browser}",
        f"- Load average at start: {os.getloadavg()[0]:.2f} (1 min)",
    ]


def replace_sections(document: str, new: dict[str, str], note: str) -> str:
    """``document`` with the section of each bench in ``new`` (keyed by module name, e.g.
    ``page_weight``) replaced and ``note`` added to it; the other sections are kept as they are."""
    parts = re.split(r"(?m)^(?=## )", document)
    done = set()
    for i, part in enumerate(parts):
        for name, section in new.items():
            if part.startswith("## ") and f"(bench/{name}.py)" in part.splitlines()[0]:
                parts[i] = section.rstrip() + f"\n\n{note}\n\n"
                done.add(name)
    parts += [section.rstrip() + f"\n\n{note}\n\n" for name, section in new.items()
              if name not in done]
    return "".join(parts).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds per endpoint in the HTTP bench")
    parser.add_argument("--no-write", action="store_true", help="print only, keep RESULTS.md")
    parser.add_argument("--only", action="append",
                        choices=["http", "page_weight", "taps", "stats", "trick_tap", "engine"],
                        help="run only this bench (may be repeated) and replace only its section "
                             "of RESULTS.md")
    args = parser.parse_args()

    from . import engine, http, page_weight, stats, taps, trick_tap

    header = machine()
    benches: list[tuple[str, str, Callable[[list[str]], object]]] = [
        ("http", "Requests per second (bench/http.py)",
         lambda out: http.run(args.duration, out=out)),
        ("page_weight", "Page weight: the score pad and a first visit (bench/page_weight.py)",
         lambda out: page_weight.run(out=out)),
        ("taps", "Taps per round (bench/taps.py)",
         lambda out: (taps.run(out=out), out.append(""), taps.run_counts(out=out))),
        ("stats", "Statistics page with 1,000 games (bench/stats.py)",
         lambda out: stats.run(out=out)),
        ("trick_tap", "Trick entry: a tap, and check-round against score-round "
                      "(bench/trick_tap.py)", lambda out: trick_tap.run(out=out)),
        ("engine", "Engine against OpenSpiel's Hearts (bench/engine.py)",
         lambda out: engine.main([], out=out)),
    ]
    if args.only:
        benches = [bench for bench in benches if bench[0] in args.only]
    sections: dict[str, str] = {}
    failed = []
    started = time.monotonic()
    for name, title, bench in benches:
        print(f"\n== {title}", flush=True)
        out: list[str] = []
        t0 = time.monotonic()
        try:
            bench(out)
        except Exception:  # one broken bench must not hide the others
            failed.append(title)
            text = traceback.format_exc()
            print(text, file=sys.stderr, flush=True)
            out.append("**FAILED**:\n\n```\n" + text.strip() + "\n```")
        sections[name] = (f"## {title}\n\n" + "\n".join(out).strip()
                          + f"\n\n_(took {time.monotonic() - t0:.0f} s)_\n")

    if args.only and RESULTS.exists():
        note = ("_Run alone (`python -m bench.all --only ...`): "
                + "; ".join(line.removeprefix("- ") for line in header[:2]) + "._")
        doc = replace_sections(RESULTS.read_text(encoding="utf-8"), sections, note)
    else:
        # The sections of the benches run on their own (bench-tables, bench-scaling, the polls,
        # the figures moved from the README) are kept after this run's.
        previous = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
        kept = [part.rstrip() + "\n" for part in re.split(r"(?m)^(?=## )", previous)
                if part.startswith("## ") and not any(
                    f"(bench/{name}.py)" in part.splitlines()[0] for name in sections)]
        doc = "\n".join(["# Benchmark results", "",
                          "Written by `python -m bench.all` (`make bench`); figures from one run "
                          "on this machine, not targets checked by tests.", "", *header,
                          f"- Total time: {time.monotonic() - started:.0f} s", "",
                          *sections.values(), *kept]).rstrip() + "\n"
    if not args.no_write:
        RESULTS.write_text(doc, encoding="utf-8")
        print(f"\nWrote {RESULTS.relative_to(ROOT)}", flush=True)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
