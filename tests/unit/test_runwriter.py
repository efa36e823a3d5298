"""The run file while a run is measured: the document once, a journal line per replicate, folded at the end."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pairbench.errors import RunFileError
from pairbench.model import Benchmark, Metric, Notice, Run, Sample, Variant
from pairbench.runners.fake import FakeRunner
from pairbench.session import RunOptions, execute
from pairbench.store.runfile import dumps_run, load_run
from pairbench.store.runwriter import RunWriter


def _run() -> Run:
    return Run(metadata={"hostname": "h"}, variants=[Variant("a", baseline=True), Variant("b")],
               benchmarks=[Benchmark("bench", "command", (Metric("time"),))], status="running")


def _replicate(run: Run, block: int) -> None:
    for v in ("a", "b"):
        run.samples.append(Sample("bench", v, "time", 0.1 + block * 1e-4, block, time=1.7e9 + block))


@dataclass
class _ReadingRunner:
    """Wraps the fake runner; before each replicate, reads the run file as `report` would."""

    inner: FakeRunner
    path: Path
    run: Run
    lagging: list[tuple[int, int]] = field(default_factory=list)

    def prepare(self, benchmark, variants):
        return self.inner.prepare(benchmark, variants)

    def measure(self, benchmark, variant, block, warmup, progress):
        on_disk = len(load_run(self.path).samples) if self.path.exists() else 0
        if on_disk != len(self.run.samples):
            self.lagging.append((on_disk, len(self.run.samples)))
        return self.inner.measure(benchmark, variant, block, warmup, progress)

    def close(self):
        self.inner.close()


def test_every_finished_replicate_is_on_disk_before_the_next_one_starts(tmp_path: Path) -> None:
    run = Run(metadata={}, variants=[Variant("v0", baseline=True), Variant("v1")],
              benchmarks=[Benchmark("b0", "command", (Metric("time"),))])
    path = tmp_path / "run.json"
    runner = _ReadingRunner(FakeRunner(), path, run)
    execute(run, {"command": runner}, RunOptions(runs=12, warmup=1, seed=1, record_history=False,
                                                 export_json=str(path)))
    assert runner.lagging == []  # every look saw every sample measured so far
    doc = json.loads(path.read_text())  # the end folds the journal in: one plain JSON document
    assert doc["status"] == "complete" and len(doc["samples"]) == len(run.samples) == 2 * 13


def test_saves_only_append_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    run = _run()
    writer = RunWriter(path)
    writer.write(run)
    inode = path.stat().st_ino
    before = path.read_bytes()
    for block in range(300):
        _replicate(run, block)
        if block == 150:
            run.notices.append(Notice("drift", "the machine drifted"))
        writer.write(run)
        now = path.read_bytes()
        assert now.startswith(before) and len(now) > len(before)
        before = now
    assert path.stat().st_ino == inode  # appended in place, never rewritten
    back = load_run(path)
    assert back.samples == run.samples and back.notices == run.notices and back.status == "running"
    run.status = "complete"
    writer.finish(run)
    assert path.read_text() == dumps_run(run) + "\n"
    assert load_run(path).samples == run.samples


def test_a_torn_last_line_loses_only_its_replicate(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    run = _run()
    writer = RunWriter(path)
    writer.write(run)
    for block in range(5):
        _replicate(run, block)
        writer.write(run)
    whole = path.read_bytes()
    last_line_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    for cut in range(last_line_start + 1, len(whole) - 1, 7):
        path.write_bytes(whole[:cut])
        assert load_run(path).samples == run.samples[:-2], cut


def test_a_damaged_journal_line_before_the_last_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    run = _run()
    writer = RunWriter(path)
    writer.write(run)
    for block in range(3):
        _replicate(run, block)
        writer.write(run)
    lines = path.read_text().split("\n")
    lines[-3] = lines[-3][:10]
    path.write_text("\n".join(lines))
    with pytest.raises(RunFileError, match="damaged: journal line 2 is unreadable"):
        load_run(path)


def test_samples_that_are_not_the_ones_saved_start_a_new_document(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    run = _run()
    writer = RunWriter(path)
    for block in range(3):
        _replicate(run, block)
        writer.write(run)
    run.samples = run.samples[2:]  # not an extension of what was saved: the journal cannot express it
    writer.write(run)
    assert json.loads(path.read_text())["samples"] == json.loads(dumps_run(run))["samples"]
    assert load_run(path).samples == run.samples


def test_a_change_nothing_announced_reaches_the_file_within_the_head_interval(tmp_path: Path) -> None:
    from pairbench.store.runwriter import HEAD_INTERVAL_S

    now = [0.0]
    path = tmp_path / "run.json"
    run = _run()
    run.metadata["blocks"] = 0
    writer = RunWriter(path, clock=lambda: now[0])
    writer.write(run)
    run.metadata["blocks"] = 1  # same keys, new value: not worth rendering the head per replicate
    _replicate(run, 0)
    writer.write(run)
    assert load_run(path).metadata["blocks"] == 0 and len(load_run(path).samples) == 2
    now[0] += HEAD_INTERVAL_S
    _replicate(run, 1)
    writer.write(run)
    assert load_run(path).metadata["blocks"] == 1 and len(load_run(path).samples) == 4


def test_a_comparison_with_an_undefined_figure_is_saved_as_null_not_a_crash(tmp_path: Path) -> None:
    # An interim look at three blocks can leave a figure undefined (0/0); JSON has no NaN, and the
    # run writer raising there lost the run in the middle of measuring it.
    from pairbench.model import Comparison

    run = _run()
    _replicate(run, 0)
    run.comparisons = [Comparison("bench", "time", "a", "b", float("nan"), (float("nan"), 1.2), float("inf"), 3,
                                  False, False, "insufficient", 3, mde=float("nan"), adjusted_p=float("nan"))]
    path = tmp_path / "run.json"
    writer = RunWriter(path)
    writer.write(run)
    writer.finish(run)
    (c,) = load_run(path).comparisons
    assert c.ratio is None and c.ci is None and c.p_value is None and c.mde is None and c.adjusted_p is None
    assert c.n == 3 and c.verdict == "insufficient"
    assert json.loads(dumps_run(run))["comparisons"][0]["ratio"] is None


def _series(run: Run, block: int) -> None:
    from pairbench.model import ProcessSeries

    for v in ("a", "b"):
        run.series.append(ProcessSeries("bench", v, block, 0, "time", 8, tuple(0.1 + i * 1e-4 for i in range(16))))


def test_the_batch_series_of_every_finished_replicate_is_journaled_with_its_samples(tmp_path: Path) -> None:
    """A killed micro run keeps each measured process's batch series (its steady state is read from
    it), on the replicate's own journal line, not only when the document's other fields are next
    rendered (at most every HEAD_INTERVAL_S): the clock here never moves."""
    path = tmp_path / "run.json"
    run = _run()
    writer = RunWriter(path, clock=lambda: 0.0)
    writer.write(run)
    for block in range(4):
        _replicate(run, block)
        _series(run, block)
        writer.write(run)
        assert load_run(path).series == run.series  # as a killed run leaves it: no finish
    journal = [line for line in path.read_text().split("\n") if line.startswith('{"samples"')]
    assert len(journal) == 4 and all('"series":[' in line for line in journal)  # one line per replicate
    whole = path.read_bytes()  # a torn last line loses its replicate's samples and series together
    path.write_bytes(whole[: whole.rstrip(b"\n").rfind(b"\n") + 5])
    back = load_run(path)
    assert back.series == run.series[:-2] and back.samples == run.samples[:-2]
    path.write_bytes(whole)
    writer.finish(run)
    assert path.read_text() == dumps_run(run) + "\n"
