"""hyperfine's `--export-csv`: one row per command, hyperfine's columns, times in seconds."""

from __future__ import annotations

import csv
import io
import statistics

from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.report.exporters import render_export


def _run() -> Run:
    variants = [Variant("n=1", command="sleep {n}", params={"n": "1"}, baseline=True),
                Variant("fast", command="sleep {n}", params={"n": "2"})]
    metrics = (Metric("time", "s", "lower"), Metric("user", "s", "lower"), Metric("sys", "s", "lower"))
    samples = [Sample("b", "n=1", "time", 9.0, 0, warmup=True)]
    for block, (t1, t2) in enumerate([(1.0, 2.0), (3.0, 2.5), (2.0, 4.0), (6.0, 3.5)]):
        samples += [Sample("b", "n=1", "time", t1, block), Sample("b", "fast", "time", t2, block),
                    Sample("b", "n=1", "user", 0.25 * block, block), Sample("b", "n=1", "sys", 0.5, block)]
    return Run(metadata={}, variants=variants, benchmarks=[Benchmark("b", "command", metrics)], samples=samples)


def test_one_row_per_command_with_hyperfine_columns_and_figures() -> None:
    rows = list(csv.reader(io.StringIO(render_export(_run(), "csv"))))
    assert rows[0] == ["command", "mean", "stddev", "median", "user", "system", "min", "max", "parameter_n"]
    assert len(rows) == 3
    first, second = rows[1], rows[2]
    # no name given: the command line with its parameter filled, as hyperfine writes it
    assert first[0] == "sleep 1" and second[0] == "fast"
    times = [1.0, 3.0, 2.0, 6.0]  # the warm-up run (9.0) is not a measured run
    assert [float(x) for x in first[1:4]] == [statistics.fmean(times), statistics.stdev(times), 2.5]
    assert [float(x) for x in first[4:8]] == [0.375, 0.5, 1.0, 6.0]
    assert first[8] == "1" and second[8] == "2"
    # no CPU times recorded for the second command: empty cells, not zeros
    assert second[4:6] == ["", ""] and float(second[6]) == 2.0 and float(second[7]) == 4.0


def test_samples_stay_available_one_per_row() -> None:
    run = _run()
    rows = list(csv.reader(io.StringIO(render_export(run, "samples-csv"))))
    assert rows[0][:4] == ["benchmark", "variant", "metric", "value"] and len(rows) == 1 + len(run.samples)
