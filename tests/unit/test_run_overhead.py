"""What a `cmd` call does that it need not (issue: overhead per run and memory): counted, never timed.

A run of /bin/true takes ~0.75 ms; every module loaded and every step repeated per run shows in
the whole call's time and peak memory beside hyperfine's (bench/overhead.py has the figures).
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from pairbench.model import Benchmark, Sample, Variant
from pairbench.runners.command import invocation, output
from pairbench.runners.command.runner import CommandRunner
from pairbench.store.runfile import sample_line

SRC = Path(__file__).resolve().parents[2] / "src"

_LOADED = """
import sys
from pairbench.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\n".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_command_run_loads_no_other_kind_no_profiler_and_no_progress_bar(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _LOADED, "cmd", "-N", "-r", "6", "-w", "0", "-n", "a", "true",
                           "-n", "b", "true"], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    loaded = set(done.stderr.split())
    assert "pairbench.runners.command.runner" in loaded, done.stderr[-2000:]  # it did run commands
    unneeded = {m for m in loaded if m.startswith(("pairbench.runners.http", "pairbench.runners.micro",
                                                   "pairbench.runners.pytest", "pairbench.runners.samplers",
                                                   "pairbench.analysis.profiles", "pairbench.report.http",
                                                   "pairbench.report.micro", "pairbench.cluster.units",
                                                   "rich.progress"))}
    assert not unneeded


def _runner_counting(monkeypatch: pytest.MonkeyPatch) -> tuple[CommandRunner, dict[str, int]]:
    counts = {"environments": 0, "stderr reads": 0}
    made = invocation.variant_environment

    def environment(variant: Variant, base: object = None) -> dict[str, str]:
        counts["environments"] += 1
        return made(variant, base)  # type: ignore[arg-type]

    scan = output.scan_output

    def scanned(path: str | None, *args: object, **kwargs: object) -> output.OutputScan:
        if path is not None and path.endswith("stderr"):
            counts["stderr reads"] += 1
        return scan(path, *args, **kwargs)  # type: ignore[arg-type]

    for module in ("pairbench.runners.command.invocation", "pairbench.runners.command.prepared",
                   "pairbench.runners.command.runner"):
        if module in sys.modules and hasattr(sys.modules[module], "variant_environment"):
            monkeypatch.setattr(sys.modules[module], "variant_environment", environment)
    monkeypatch.setattr("pairbench.runners.command.runner.scan_output", scanned)
    return CommandRunner(random.Random(1)), counts


def test_each_variant_environment_is_made_once_and_stderr_read_only_when_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    runner, counts = _runner_counting(monkeypatch)
    bench = Benchmark("b", "command", (), options={"command": "{variant}", "shell": False})
    variants = [Variant("a", "true", env={"X": "1"}), Variant("c", "true", env={"X": "2"})]
    try:
        runner.prepare(bench, variants)
        before = dict(counts)
        for block in range(20):
            for v in variants:
                rep = runner.measure(bench, v, block, False, lambda text: None)
                assert {s.metric: s.value for s in rep.samples}["exit_code"] == 0
    finally:
        runner.close()
    assert counts["environments"] - before["environments"] <= len(variants)
    assert counts["stderr reads"] - before["stderr reads"] == 0


def test_a_failed_run_still_says_what_it_printed_on_stderr(tmp_path: Path) -> None:
    runner = CommandRunner(random.Random(1))
    bench = Benchmark("b", "command", (), options={"command": "{variant}"})
    variant = Variant("a", "sh -c 'echo broken-for-a-reason >&2; exit 3'")
    from pairbench.errors import BenchmarkFailed

    try:
        runner.prepare(bench, [variant])
        with pytest.raises(BenchmarkFailed, match="broken-for-a-reason"):
            runner.measure(bench, variant, 0, False, lambda text: None)
    finally:
        runner.close()


def test_the_environment_of_each_run_has_the_variant_settings_and_its_own_offset(tmp_path: Path) -> None:
    out = tmp_path / "env.txt"
    runner = CommandRunner(random.Random(2))
    bench = Benchmark("b", "command", (), options={"command": "{variant}", "output": str(out)})
    variant = Variant("a", "env", env={"PB_SETTING": "on"}, unset_env=("HOME",))
    lengths = set()
    try:
        runner.prepare(bench, [variant])
        for block in range(6):
            runner.measure(bench, variant, block, False, lambda text: None)
            seen = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
            assert seen["PB_SETTING"] == "on" and "HOME" not in seen
            assert list(seen).count("PAIRBENCH_ENV_OFFSET") == 1
            lengths.add(len(seen["PAIRBENCH_ENV_OFFSET"]))
    finally:
        runner.close()
    assert len(lengths) > 1  # a fresh offset per run, not the first one cached


def _random_text(rng: random.Random) -> str:
    alphabet = "abc xyz_-.é\"\\/\n\t☃𝄞\x01"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def test_a_sample_line_is_the_json_of_its_fields() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        value = rng.choice([rng.random() * 10 ** rng.randrange(-12, 12), 0.0, -0.0, 1e-300, 5e-324, 1.0, 3,
                            2 ** 70, True, 123456789.123456789])
        s = Sample(_random_text(rng), _random_text(rng), _random_text(rng), value, rng.randrange(10 ** 6),
                   rng.randrange(5), rng.randrange(50), rng.random() < 0.5, rng.random() * 2e9,
                   rng.choice(["", "host-1", _random_text(rng)]))
        line = sample_line(s)
        assert line == "  " + json.dumps(asdict(s), allow_nan=False, default=str)
        assert json.loads(line) == json.loads(json.dumps(asdict(s)))


def test_a_sample_that_is_not_finite_is_still_refused() -> None:
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError):
            sample_line(Sample("b", "v", "time", bad, 0))


def _minor_faults(pid: int) -> int:
    """The process's minor page faults so far (/proc/PID/stat, field 10)."""
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[7])


def _runs_of_true(helper: str, runs: int, tmp_path: Path) -> tuple[int, list[dict | None]]:
    """The helper's page faults over `runs` runs of /bin/true after a first one, and their replies."""
    from pairbench.runners.command.launcher import start_launcher

    launcher = start_launcher(helper, ())
    request = {"argv": ["/bin/true"], "env": {"PATH": os.defpath}, "extra_env": {}, "cwd": None, "timeout": None,
               "stdout": None, "stderr": str(tmp_path / "err"), "stdin": None, "pipe": False, "inherit": None}
    try:
        assert launcher.run(request) is not None  # its first run touches its pages once
        before = _minor_faults(launcher.pid)
        replies = [launcher.run(request) for _ in range(runs)]
        faults = _minor_faults(launcher.pid) - before
    finally:
        launcher.stop()
    assert all(r is not None and r["exit_code"] == 0 for r in replies)
    return faults, replies


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc/PID/stat")
def test_the_exec_helper_starts_a_command_without_copying_itself(tmp_path: Path) -> None:
    """A forked helper takes ~11 copy-on-write page faults after every run (its page tables copied,
    then each page it touches copied): ~0.1 ms a run of /bin/true that hyperfine does not pay.
    Started by vfork from the statically linked helper, a run costs it none, and the command's
    peak RSS still reads its own (below 3 MiB for /bin/true, as /usr/bin/time reads it)."""
    from pairbench.runners.command.rss import HELPER, rss_method

    method = rss_method()
    if method.name != HELPER or method.helper is None:
        pytest.skip(f"no exec helper here: {method.reason}")
    faults, replies = _runs_of_true(method.helper, 100, tmp_path)
    assert faults < 50, f"{faults} page faults in the helper over 100 runs"
    assert max(r["maxrss_kib"] for r in replies if r) < 3 * 1024


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc/PID/stat")
def test_without_a_static_c_library_the_helper_is_built_dynamically_and_forks(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Where `-static` cannot link (no libc.a), the helper is still built, dynamically, and starts
    commands by fork: its ~1.3 MiB would otherwise be folded into a small command's peak RSS."""
    import shutil

    from pairbench.runners.command import rss

    real = shutil.which("cc") or shutil.which("gcc")
    if real is None:
        pytest.skip("no C compiler")
    wrapper = tmp_path / "cc-without-libc-a"
    wrapper.write_text(f'#!/bin/sh\nfor a; do [ "$a" = -static ] && {{ echo "cannot find -lc" >&2; exit 1; }}; done\n'
                       f'exec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    method = rss.rss_method()
    assert method.name == rss.HELPER and method.helper is not None
    faults, _ = _runs_of_true(method.helper, 20, tmp_path)
    assert faults >= 20  # forked: its pages are copied on write after every run
