"""``bench.entry_tail --runs N`` reads issue 36's ratio as ``bench.tables`` reads it, run by run
and on all runs' requests at once: the hello's p99 over every hello request, the entry's over
the saves alone (never the PostgreSQL row's polls or pages)."""

from __future__ import annotations

from bench.entry_tail import pooled
from bench.tables import Measures


def _measures(**latency: list[float]) -> Measures:
    measures = Measures()
    for kind, times in latency.items():
        for seconds in times:
            measures.add(kind.replace("_", " "), seconds, True)
    return measures


def _rows(text: str) -> dict[str, list[str]]:
    lines = text.splitlines()[2:]  # (the header and its rule)
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return {row[0]: row[1:] for row in cells}


def test_each_run_and_all_runs_read_as_bench_tables_reads_one() -> None:
    # Run 1: a hello of 200 requests, 1 ms each but its two slowest 9 ms; 100 saves of 3 ms,
    # the slowest 30 ms; polls and pages of the row, slower than any save, are not entries.
    hello_1 = _measures(save=[0.001] * 98 + [0.009, 0.009], live=[0.001] * 100)
    row_1 = _measures(save=[0.003] * 99 + [0.030], live=[0.5] * 50, viewer_page=[0.5] * 5)
    # Run 2: the same, its saves 4 ms and none slower.
    hello_2 = _measures(save=[0.001] * 100, live=[0.001] * 100)
    row_2 = _measures(save=[0.004] * 100)
    rows = _rows(pooled([(hello_1, row_1), (hello_2, row_2)]))
    # One run's p99 is bench.tables': the value at int(0.99 × n) of the sorted times.
    assert rows["run 1"] == ["200", "9.0 ms", "100", "1", "30.0 ms", "3.3×"]
    assert rows["run 2"] == ["200", "1.0 ms", "100", "1", "4.0 ms", "4.0×"]
    # All runs: 400 hello requests (p99: the 5th-slowest, 1 ms), 200 saves (the 3rd-slowest).
    assert rows["all runs"] == ["400", "1.0 ms", "200", "2", "4.0 ms", "4.0×"]


def test_one_run_has_no_pooled_line() -> None:
    rows = _rows(pooled([(_measures(save=[0.001] * 10), _measures(save=[0.002] * 10))]))
    assert list(rows) == ["run 1"]
