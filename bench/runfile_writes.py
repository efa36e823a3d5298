"""What saving a run file costs over a long run: main's full rewrites against the append-only journal.

    PYTHONPATH=src python3 bench/runfile_writes.py [--blocks 5000] [--variants 2] [--every 8]

A run of `--blocks` blocks of `--variants` command replicates (time, user, sys, rss, exit_code per
replicate, machine metadata from this machine) is saved three ways in a temporary directory:
  rewrite/block     main's RunWriter (commit 661e663) after every block: the whole document again
  rewrite/0.5s      the same every `--every` blocks, main's session cadence (SAVE_INTERVAL_S = 0.5)
                    for blocks of ~60 ms (two 30 ms commands); a crash loses up to that many blocks
  journal           store.runwriter.RunWriter after every replicate (one appended line), folded
                    into the document once at the end
For each: bytes handed to write(2) (/proc/self/io wchar), seconds spent saving during the run and
in the final write (the journal's fold), and the final file's size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from pairbench.machine import machine_metadata
from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.store.runfile import _compose, _sample_line, load_run
from pairbench.store.runwriter import RunWriter

METRICS = (("time", 0.03), ("user", 0.02), ("sys", 0.008), ("rss", 9.5e6), ("exit_code", 0.0))


class MainRunWriter:
    """main's writer as of 661e663: sample lines cached, the whole document rewritten and renamed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._objs: list[Sample] = []
        self._lines: list[str] = []

    def write(self, run: Run) -> None:
        for sample in run.samples[len(self._objs):]:
            self._objs.append(sample)
            self._lines.append(_sample_line(sample))
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(_compose(run, self._lines))
            fh.write("\n")
        os.replace(tmp, self.path)

    finish = write


def _wchar() -> int:
    with open("/proc/self/io", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("wchar:"))


def _new_run(variants: int) -> Run:
    return Run(metadata=machine_metadata(), variants=[Variant(f"v{i}", f"cmd-{i}", baseline=i == 0) for i in range(variants)],
               benchmarks=[Benchmark("bench", "command", tuple(Metric(m) for m, _ in METRICS), {"command": "{variant}"})],
               status="running")


def _measure(blocks: int, variants: int, make: Callable[[Path], object], after_replicate: bool, every: int,
             directory: Path, name: str) -> tuple[int, float, float, int]:
    path = directory / f"{name}.json"
    run = _new_run(variants)
    writer = make(path)
    saved = 0.0
    bytes0 = _wchar()
    t = 1.7e9
    for block in range(blocks):
        for v in range(variants):
            t += 0.03
            run.samples.extend(Sample("bench", f"v{v}", m, x * (1 + 1e-3 * ((block * 7 + v) % 13)), block, time=t)
                               for m, x in METRICS)
            if after_replicate:
                start = time.perf_counter()
                writer.write(run)  # type: ignore[attr-defined]
                saved += time.perf_counter() - start
        if not after_replicate and (block + 1) % every == 0:
            start = time.perf_counter()
            writer.write(run)  # type: ignore[attr-defined]
            saved += time.perf_counter() - start
    run.status = "complete"
    start = time.perf_counter()
    writer.finish(run)  # type: ignore[attr-defined]
    final = time.perf_counter() - start
    written = _wchar() - bytes0
    assert len(load_run(path).samples) == blocks * variants * len(METRICS)
    return written, saved, final, path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=5000)
    parser.add_argument("--variants", type=int, default=2)
    parser.add_argument("--every", type=int, default=8, help="blocks between main's throttled rewrites")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        rows = [
            ("rewrite/block", _measure(args.blocks, args.variants, MainRunWriter, False, 1, directory, "a")),
            ("rewrite/0.5s", _measure(args.blocks, args.variants, MainRunWriter, False, args.every, directory, "b")),
            ("journal", _measure(args.blocks, args.variants, RunWriter, True, 1, directory, "c")),
        ]
    print(f"{args.blocks} blocks x {args.variants} variants x {len(METRICS)} metrics; python {sys.version.split()[0]}")
    print(f"{'writer':<14} {'bytes written':>15} {'x final':>8} {'s during':>9} {'s at end':>9} {'final size':>11}")
    for name, (written, during, final, size) in rows:
        print(f"{name:<14} {written:>15,} {written / size:>8.1f} {during:>9.2f} {final:>9.2f} {size:>11,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
