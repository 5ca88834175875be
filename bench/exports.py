"""What a tap on Export holds a worker for, against a save, in one process (interleaved): a
small group's export sent at once (its 10 finished games: ``companion.routes.exports
.IMMEDIATE``, the largest group that gets its file in the answer), and the tap that starts a
larger group's job (100 games), and the job's progress page — beside a save (round 1 of a new
Rebel Princess game by scores, the pad drawn). Median CPU ms of ``--repeat`` warm requests each,
taken in turns. Run: ``python -m bench.exports``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from . import load_line, table
from .scaling import _app, _save, _save_games
from .stats import fill


def _read(client, path: str) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    """CPU ms of one request read whole, and its answer."""
    cpu = time.process_time()
    response = client.get(path)
    response.get_data()
    response.close()
    return (time.process_time() - cpu) * 1000, response


def run(repeat: int = 30) -> list[str]:
    from companion.ops import jobs
    from companion.routes import exports

    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        app = _app(Path(folder) / "exports.sqlite")
        _, small = fill(app, exports.IMMEDIATE)
        _, large = fill(app, 100, seed=15)
        saves = _save_games(app, repeat + 1)
        client = app.test_client()
        held: list[str] = []
        jobs.start_export = held.append  # type: ignore[assignment]  # (the jobs are not run)
        found: dict[str, list[float]] = {}
        _save(client, saves.pop())
        _read(client, f"/group/{small}/history/export.json")
        for _ in range(repeat):
            found.setdefault("a save (round by scores, pad drawn)", []).append(
                _save(client, saves.pop()))
            spent, answer = _read(client, f"/group/{small}/history/export.json")
            assert answer.status_code == 200  # type: ignore[attr-defined]
            found.setdefault(f"export.json of {exports.IMMEDIATE} games, sent at once",
                             []).append(spent)
            shutil.rmtree(app.config["EXPORT_DIR"], ignore_errors=True)  # a new job each time
            spent, answer = _read(client, f"/group/{large}/history/export.json")
            assert answer.status_code == 303  # type: ignore[attr-defined]
            found.setdefault("export.json of 100 games: the tap that starts its job",
                             []).append(spent)
            page = answer.headers["Location"]  # type: ignore[attr-defined]
            spent, answer = _read(client, page)
            found.setdefault("its progress page", []).append(spent)
        app.extensions["companion.engine"].dispose()
    save = statistics.median(found["a save (round by scores, pad drawn)"])
    rows = [(label, f"{statistics.median(values):.1f}",
             f"{statistics.median(values) / save:.2f}×") for label, values in found.items()]
    out = [f"A tap on Export against a save; SQLite, in-process (Flask test client), median CPU "
           f"ms of {repeat} warm requests each, taken in turns; "
           f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
           table(["CPU ms", "median", "/ a save"], rows), "",
           load_line(load_start)]
    print("\n".join(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    run(parser.parse_args().repeat)


if __name__ == "__main__":
    main()
