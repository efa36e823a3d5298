"""--metric-json pyperf: the JSON pyperf writes (made here by pyperf itself) read as metrics."""

from pathlib import Path

import pyperf
import pytest

from pairbench.errors import BenchmarkFailed
from pairbench.runners.command.metric_json import fresh_metric_json, read_metric_json, read_pyperf_json



def _suite(*benchmarks):
    return pyperf.BenchmarkSuite(list(benchmarks))


def _bench(name, *runs, unit=None):
    meta = {"name": name, **({"unit": unit} if unit else {})}
    made = [pyperf.Run(list(values), warmups=[(1, 9.0)], metadata=meta, collect_metadata=False) for values in runs]
    # a calibration run: warm-ups only, no values
    made.insert(0, pyperf.Run([], warmups=[(1, 9.0), (2, 8.0)], metadata={**meta, "calibrate_loops": 2},
                               collect_metadata=False))
    return pyperf.Benchmark(made)


def _written(tmp_path: Path, suite) -> str:
    directory = tmp_path / "out"
    directory.mkdir(exist_ok=True)
    path = fresh_metric_json(str(directory))
    suite.dump(path)
    return str(directory)


def test_each_benchmark_is_one_metric_the_mean_of_its_values_without_warmups(tmp_path):
    suite = _suite(_bench("chaos", [0.10, 0.12], [0.11, 0.13]), _bench("2to3", [1.0, 3.0]))
    assert read_metric_json("pyperf", _written(tmp_path, suite), "cmd") == pytest.approx(
        {"chaos": 0.115, "2to3": 2.0})


def test_a_gzipped_file_and_a_builtin_name_are_read(tmp_path):
    directory = tmp_path / "gz"
    directory.mkdir()
    gz = directory / "x.json.gz"
    _suite(_bench("time", [2.0])).dump(str(gz))
    (directory / "metric.json").write_bytes(gz.read_bytes())
    assert read_metric_json("pyperf", str(directory), "cmd") == {"pyperf_time": 2.0}


def test_a_fresh_path_removes_the_last_runs_file_for_pyperf_o(tmp_path):
    path = fresh_metric_json(str(tmp_path))
    Path(path).write_text("{}")
    assert fresh_metric_json(str(tmp_path)) == path and not Path(path).exists()


def test_a_missing_or_foreign_file_is_one_clear_failure(tmp_path):
    with pytest.raises(BenchmarkFailed, match=r'wrote no pyperf JSON to \$PAIRBENCH_METRIC_JSON; .*-o "\$PAIRBENCH'):
        read_metric_json("pyperf", str(tmp_path), "python3 bm.py")
    (tmp_path / "metric.json").write_text('{"results": []}')
    with pytest.raises(BenchmarkFailed, match="cannot be read: not a pyperf JSON document"):
        read_metric_json("pyperf", str(tmp_path), "python3 bm.py")
    with pytest.raises(ValueError, match="version '9.0'"):
        read_pyperf_json({"version": "9.0", "benchmarks": []})
