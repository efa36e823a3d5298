"""pyperf and hyperfine documents (shaped as the tools write them) become runs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pairbench.errors import UserError
from pairbench.importers import detect_format, import_file

PYPERF = {
    "version": "1.0",
    "metadata": {"hostname": "vm", "cpu_model_name": "EPYC", "loops": 10, "name": "timeit", "unit": "second"},
    "benchmarks": [{"runs": [
        {"metadata": {"date": "2026-11-30 16:37:06.1", "calibrate_loops": 10}, "warmups": [[1, 2e-6], [10, 2e-6]]},
        {"metadata": {"date": "2026-11-30 16:37:07.0"}, "values": [1.6e-6, 1.9e-6, 2.8e-6], "warmups": [[10, 2.2e-6]]},
        {"metadata": {"date": "2026-11-30 16:37:08.0"}, "values": [1.7e-6, 1.7e-6, 1.6e-6], "warmups": [[10, 2.0e-6]]},
    ]}],
}
HYPERFINE = {"results": [
    {"command": "sleep 0.000", "mean": 0.002, "user": 0.001, "system": 0.0, "times": [0.0013, 0.0014, 0.0046],
     "exit_codes": [0, 0, 0], "parameters": {"x": "0"}},
    {"command": "sleep 0.001", "mean": 0.008, "user": 0.001, "system": 0.0, "times": [0.0026, 0.0104, 0.0118],
     "exit_codes": [0, 1, 0], "parameters": {"x": "1"}, "memory_usage_byte": [1000, 1100, 1200]},
]}


def test_pyperf_runs_are_blocks_and_values_are_iterations(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(PYPERF))
    run = import_file(path)
    assert [v.name for v in run.variants] == ["base"] and run.variants[0].baseline
    assert [b.name for b in run.benchmarks] == ["timeit"]
    measured = [s for s in run.samples if not s.warmup]
    assert [(s.block, s.iteration, s.value) for s in measured] == [
        (0, 0, 1.6e-6), (0, 1, 1.9e-6), (0, 2, 2.8e-6), (1, 0, 1.7e-6), (1, 1, 1.7e-6), (1, 2, 1.6e-6)]
    assert sum(s.warmup for s in run.samples) == 2  # the calibration run measured nothing
    assert run.metadata["interleaved"] is False and run.metadata["hostname"] == "vm"


def test_pyperf_gzip_and_name(tmp_path: Path) -> None:
    path = tmp_path / "x.json.gz"
    path.write_bytes(gzip.compress(json.dumps(PYPERF).encode()))
    assert import_file(path, name="patched").variants[0].name == "patched"


def test_hyperfine_commands_are_variants(tmp_path: Path) -> None:
    path = tmp_path / "hf.json"
    path.write_text(json.dumps(HYPERFINE))
    run = import_file(path)
    assert [v.name for v in run.variants] == ["sleep 0.000", "sleep 0.001"]
    assert run.variants[0].baseline and run.variants[1].params == {"x": "1"}
    assert [m.name for m in run.benchmarks[0].metrics] == ["time", "peak_rss"]
    assert [s.value for s in run.samples if s.variant == "sleep 0.001" and s.metric == "time"] == [0.0026, 0.0104, 0.0118]
    kinds = [n.kind for n in run.notices]
    assert "not-interleaved" in kinds and "exit-code" in kinds


def test_bad_inputs_are_one_clear_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match="is not valid JSON"):
        import_file(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"results": "nope"}))
    with pytest.raises(UserError, match="is not a results file pairbench imports .formats: pyperf, hyperfine, "):
        import_file(other)
    with pytest.raises(UserError, match="is not pyperf JSON .* it looks like hyperfine --export-json .--format hyperfine."):
        path = tmp_path / "hf.json"
        path.write_text(json.dumps(HYPERFINE))
        import_file(path, fmt="pyperf")
    assert detect_format(PYPERF) == "pyperf" and detect_format(HYPERFINE) == "hyperfine" and detect_format([]) is None
