"""Run every bench and write bench/RESULTS.md: ``python -m bench.all`` (``make bench``).

Takes about a minute and a quarter: HTTP load (4 x 10 s plus ~12 s of set-up), page weight
(2 s), taps in headless Chromium (10 s). A bench that fails is reported in the file and makes
the exit status 1; the others still run.
"""

from __future__ import annotations

import argparse
import os
import platform
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
    dirty = _cmd(["git", "status", "--porcelain", "--untracked-files=no"])
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10.0,
                        help="seconds per endpoint in the HTTP bench")
    parser.add_argument("--no-write", action="store_true", help="print only, keep RESULTS.md")
    parser.add_argument("--only", default="",
                        help="comma-separated benches to run (http, weight, taps, tricks, "
                             "engine); the other sections of RESULTS.md are kept as they are")
    args = parser.parse_args()

    from . import engine, http, page_weight, taps, trick_tap

    header = machine()
    every: list[tuple[str, str, Callable[[list[str]], object]]] = [
        ("http", "Requests per second (bench/http.py)",
         lambda out: http.run(args.duration, out=out)),
        ("weight", "Page weight of the score pad (bench/page_weight.py)",
         lambda out: page_weight.run(out=out)),
        ("taps", "Taps per round (bench/taps.py)", lambda out: taps.run(out=out)),
        ("tricks", "Trick entry: a tap, and check-round against score-round (bench/trick_tap.py)",
         lambda out: trick_tap.run(out=out)),
        ("engine", "Engine against OpenSpiel's Hearts (bench/engine.py)",
         lambda out: engine.main([], out=out)),
    ]
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    benches = [(title, bench) for key, title, bench in every if not only or key in only]
    sections: list[str] = []
    failed = []
    started = time.monotonic()
    for title, bench in benches:
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
        sections.append(f"## {title}\n\n" + "\n".join(out).strip()
                        + f"\n\n_(took {time.monotonic() - t0:.0f} s)_\n")

    if only and RESULTS.exists():  # keep the sections not re-run, say when these were
        stamp = header[0].removeprefix("- Date: ")
        sections = [section.replace("\n\n", f"\n\n_Measured {stamp} (`--only`), in one "
                                               "run; the sections above and below may be "
                                               "from other runs._\n\n", 1)
                    for section in sections]
        kept = _sections(RESULTS.read_text(encoding="utf-8"))
        for section in sections:
            kept[section.splitlines()[0]] = section
        head = RESULTS.read_text(encoding="utf-8").split("\n## ", 1)[0].rstrip().splitlines()
        doc = [*head, "", *kept.values()]
    else:
        doc = ["# Benchmark results", "",
               "Written by `python -m bench.all` (`make bench`); figures from one run on this "
               "machine, not targets checked by tests.", "", *header,
               f"- Total time: {time.monotonic() - started:.0f} s", "", *sections]
    if not args.no_write:
        RESULTS.write_text("\n".join(doc).rstrip() + "\n", encoding="utf-8")
        print(f"\nWrote {RESULTS.relative_to(ROOT)}", flush=True)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _sections(text: str) -> dict[str, str]:
    """The ``## `` sections of RESULTS.md by their heading line, in order."""
    found: dict[str, str] = {}
    for part in text.split("\n## ")[1:]:
        section = "## " + part.rstrip() + "\n"
        found[section.splitlines()[0]] = section
    return found


if __name__ == "__main__":
    sys.exit(main())
