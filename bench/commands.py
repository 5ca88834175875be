"""How fast an operator's read-only command starts: ``flask --app companion groups list``
against its anchor, ``python -c "import flask, sqlalchemy, sqlmodel"`` (the libraries any such
command needs), measured in the same run, interleaved, on a database of 50 groups.

Each is run ``--repeat`` times as a new process (wall time, the way an operator or a cron job
sees it); the table gives the median and the ratio. Aim: ``groups list`` within 2× its anchor.
Run: ``python -m bench.commands [--repeat 9]`` (``make bench-commands``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLASK = str(Path(sys.executable).with_name("flask"))


def _timed(command: list[str], environment: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=environment, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--groups", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as instance:
        environment = {**os.environ, "COMPANION_INSTANCE": instance}
        environment.pop("DATABASE_URL", None)
        subprocess.run([FLASK, "--app", "companion", "db", "upgrade"], env=environment,
                       check=True, stdout=subprocess.DEVNULL)
        from companion import create_app
        from companion.db import get_session
        from companion.play import groups

        os.environ["COMPANION_INSTANCE"] = instance
        app = create_app()
        with app.app_context():
            session = get_session()
            for number in range(args.groups):
                groups.new_group(session, name=f"Group {number}")
            session.commit()
        app.extensions["companion.engine"].dispose()
        commands = {
            "flask groups list": [FLASK, "--app", "companion", "groups", "list"],
            "python -c 'import flask, sqlalchemy, sqlmodel' (anchor)":
                [sys.executable, "-c", "import flask, sqlalchemy, sqlmodel"],
        }
        load = os.getloadavg()[0]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                times[name].append(_timed(command, environment))
        load_after = os.getloadavg()[0]
    medians = {name: statistics.median(found) for name, found in times.items()}
    anchor = list(medians.values())[1]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.repeat} runs each, "
          f"interleaved, {args.groups} groups; load average {load:.1f} before, "
          f"{load_after:.1f} after ({os.cpu_count()} cores)\n")
    print("| command | median wall s | min s | ÷ anchor |")
    print("|---|---:|---:|---:|")
    for name, median in medians.items():
        print(f"| {name} | {median:.2f} | {min(times[name]):.2f} | {median / anchor:.2f}× |")


if __name__ == "__main__":
    main()
