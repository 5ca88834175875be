"""One game's save, this checkout against an older commit's code for it, interleaved in one
process: the app's thread CPU per save (the POST alone), where a shared machine's load
disturbs both sides alike.

Side A takes what ``--swap`` names from the older commit (``--against``, default ``HEAD~1``:
its ``companion`` from ``git archive``, each module named loaded from there under another name,
so its relative imports reach this checkout's modules): ``TARGET=SOURCE`` sets attribute
``TARGET`` (``module.attribute``) to ``SOURCE`` as the older commit has it (a module, or
``module.attribute``), e.g. ``companion.routes.rebel_princess.rounds.play=
companion.play.rebel_princess``. Side B is this checkout. Every round makes ``2 × --tables``
fresh games of ``--game`` (``bench.tables``' tables), half of them A and half B (the halves
swap each round), each with its own client keeping its cookies as a phone does: the scorer's
page, then each save (the entries ``bench.tables`` posts) and the page it leads to. The first
save of each game warms it and is not counted.

Run: ``python -m bench.save_ab --game rebel-princess --swap … [--against REV]
[--database-url postgresql://…] [--tables 20] [--rounds 6]``
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from . import ROOT
from .tables import GAMES, SAVES, _empty_postgres, _games


def _older(folder: Path, name: str, rev: str) -> ModuleType:
    """Module ``name`` as commit ``rev`` has it (from ``folder``, its archive), loaded as
    ``name`` + ``_ab``: beside this checkout's, its relative imports resolved in its package."""
    known = sys.modules.get(f"{name}_ab")
    if known is not None:
        return known
    path = folder / Path(*name.split(".")).with_suffix(".py")
    if not path.exists():
        path = folder / Path(*name.split(".")) / "__init__.py"
    spec = importlib.util.spec_from_file_location(f"{name}_ab", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{name} is not in {rev}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"{name}_ab"] = module
    spec.loader.exec_module(module)
    return module


def _split(dotted: str) -> tuple[str, str | None]:
    """``module`` or ``module.attribute`` → (the longest importable module, the attribute)."""
    try:
        importlib.import_module(dotted)
        return dotted, None
    except ModuleNotFoundError:
        module, _, attribute = dotted.rpartition(".")
        importlib.import_module(module)
        return module, attribute


def swaps(specs: list[str], rev: str, folder: Path) -> list[tuple[Any, str, Any, Any]]:
    """Each ``TARGET=SOURCE`` as (target module, attribute, A's value, B's value)."""
    found = []
    for spec in specs:
        target, _, source = spec.partition("=")
        module, attribute = _split(target)
        if attribute is None:
            raise SystemExit(f"{target}: name a module's attribute to swap")
        name, inside = _split(source)
        older: Any = _older(folder, name, rev)
        if inside is not None:
            older = getattr(older, inside)
        holder = sys.modules[module]
        found.append((holder, attribute, older, getattr(holder, attribute)))
    return found


def run(game: str, specs: list[str], rev: str, database_url: str | None, tables: int,
        rounds: int) -> None:
    from companion import create_app

    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", rev, "companion"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        changed = swaps(specs, rev, Path(folder))
        config: dict[str, object] = {"SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                                     "RATELIMIT_ENABLED": False,
                                     "DATABASE": str(Path(folder) / "ab.sqlite")}
        if database_url:
            config["DATABASE_URL"] = database_url
        app = create_app(config)
        cpu: dict[str, list[float]] = {"A": [], "B": []}

        def use(side: str) -> None:
            for holder, attribute, older, newer in changed:
                setattr(holder, attribute, older if side == "A" else newer)

        print(f"{game}: {rev} (A) against this checkout (B), "
              f"{'PostgreSQL' if database_url else 'SQLite'}, {len(changed)} swaps")
        for number in range(rounds):
            if database_url:
                _empty_postgres(config)
            made = _games(config, 2 * tables, [game])
            side = {t.number: "AB"[(t.number + number) % 2] for t in made}
            clients = {t.number: app.test_client() for t in made}
            for t in made:
                use(side[t.number])
                clients[t.number].get(t.page(t.scorer))
            for save in range(SAVES):
                for t in made:
                    use(side[t.number])
                    path, body = t.save()
                    start = time.thread_time()
                    answer = clients[t.number].post(path, data=body)
                    answer.get_data()
                    spent = time.thread_time() - start
                    if answer.status_code not in (302, 303):
                        raise SystemExit(f"{path}: {answer.status_code} ({side[t.number]})")
                    t.saved += 1
                    if save:
                        cpu[side[t.number]].append(spent)
                    clients[t.number].get(answer.headers["Location"]).get_data()
            a, b = statistics.median(cpu["A"]), statistics.median(cpu["B"])
            print(f"round {number + 1}: load {os.getloadavg()[0]:.1f}, thread CPU per save "
                  f"p50 A {a * 1e3:.3f} ms, B {b * 1e3:.3f} ms ({(b - a) * 1e3:+.3f}), "
                  f"{len(cpu['A'])} + {len(cpu['B'])} saves", flush=True)
        use("B")
        a, b = statistics.median(cpu["A"]), statistics.median(cpu["B"])
        print(f"{game}: A {a * 1e3:.3f} ms, B {b * 1e3:.3f} ms: {(b - a) * 1e3:+.3f} ms "
              f"({(b / a - 1) * 100:+.1f} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=GAMES, required=True)
    parser.add_argument("--swap", action="append", default=[], metavar="TARGET=SOURCE")
    parser.add_argument("--against", default="HEAD~1", metavar="REV")
    parser.add_argument("--database-url")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    run(args.game, args.swap, args.against, args.database_url, args.tables, args.rounds)


if __name__ == "__main__":
    main()
