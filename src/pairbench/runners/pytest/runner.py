"""The runner for kind "pytest": the tests of a pytest-benchmark suite timed unchanged in each
variant's own interpreter, through pairbench's own `benchmark` fixture (harness/).

A worker is the variant's interpreter running `harness/run_pytest.py` (pytest itself, with
`-p pairbench_pytest_plugin -p no:benchmark -p no:codspeed`), told what to do by a JSON request
file and answering one JSON line per test in another file. The loop count of each test is
calibrated once, on the baseline, and shared by every variant (as kind micro does). Per block, the
first replicate asked of a variant starts one worker that runs every test of the suite under that
variant (one pytest start-up and collection per process, not per test) and keeps the answers for
the block's other replicates: each test gets its per-process samples from that process (METHOD.md
§1). A test that fails under a variant is reported once with its error; its other variants and the
other tests go on.

Benchmark.options for kind "pytest": options.py (`PytestOptions`).
"""

from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pairbench.errors import UserError
from pairbench.model import Benchmark, Notice, Sample, Variant
from pairbench.runners.base import ProgressFn, Replicate

__all__ = ["PytestRunner", "HARNESS_DIR", "ENV_DIR", "worker_argv", "env_build"]

HARNESS_DIR = Path(__file__).resolve().parent / "harness"
PLUGIN = "pairbench_pytest_plugin"
ENV_DIR = ".pairbench-env"
"""A git ref's own environment, in its worktree (harness/make_env.py)."""
BLOCKED_PLUGINS = ("benchmark", "codspeed", "cacheprovider")
"""pytest-benchmark's and pytest-codspeed's fixtures would shadow ours; the cache would reorder tests."""
PYTEST_FAILED = (2, 3, 4)
"""pytest's exit codes for an interrupted run, an internal error and a usage error (0, 1 and 5 are
tests passed, some failed, none selected: every test then has its own answer)."""

Spawn = Callable[[list[str], Mapping[str, str], "str | None", float], "tuple[int, str, str]"]
"""(argv, env, cwd, timeout) -> (returncode, stdout, stderr); injectable for tests."""


def worker_argv(variant: Variant, args: Sequence[str], paths: Sequence[str], harness: str = "pytest") -> list[str]:
    """The command of a worker: the variant's interpreter running pytest with pairbench's plugin
    (or, for asv suites, the asv worker on the benchmark directories)."""
    try:
        prefix = shlex.split(variant.command)
    except ValueError as exc:
        raise UserError(f"variant {variant.name!r}: cannot parse command {variant.command!r}: {exc}") from None
    if not prefix:
        raise UserError(f"variant {variant.name!r}: no interpreter given")
    if harness == "asv":
        return [*prefix, *variant.args, str(HARNESS_DIR / "asv_worker.py"), *paths]
    blocked = [a for name in BLOCKED_PLUGINS for a in ("-p", f"no:{name}")]
    # an ini's `required_plugins = pytest-benchmark` would stop pytest: pairbench's plugin stands in for it
    return [*prefix, *variant.args, str(HARNESS_DIR / "run_pytest.py"), "-p", PLUGIN, *blocked, "-q",
            "-o", "required_plugins=", *args, *paths]


def env_build(python: str) -> str:
    """The default build of a git ref's variant: `python` makes an environment in the worktree that
    sees its packages, and installs the ref's project there (harness/make_env.py)."""
    try:
        words = shlex.split(python)
    except ValueError as exc:
        raise UserError(f"--python {python!r}: cannot parse it: {exc}") from None
    return shlex.join([words[0], str(HARNESS_DIR / "make_env.py"), ENV_DIR, "-q"])


def _default_spawn(argv: list[str], env: Mapping[str, str], cwd: str | None, timeout: float) -> tuple[int, str, str]:
    """Run one worker in its own process group, and stop the whole group on a timeout, Ctrl-C or a
    signal: a benchmark may start processes of its own, which would outlive a worker killed alone
    (and, holding its pipes, keep a timed-out worker's output from ever ending)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", env=dict(env), cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        _kill_group(proc)
        raise
    _kill_group(proc)  # what the worker's tests left running after it exited
    return proc.returncode, out, err


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the worker's process group and reap the worker (its pipes closed with it)."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    proc.wait()


class PytestRunner:
    """Runner for kind "pytest" (see the module docstring for the method)."""

    batched = True
    """A block's first replicate of a variant runs every test (runners/base.py)."""

    def __init__(self, *, seed: int | None = None, spawn: Spawn | None = None, machine: str = "",
                 harness: str = "pytest") -> None:
        self.machine = machine
        self.harness = harness
        """pytest (a pytest-benchmark suite) or asv (an asv benchmark directory)."""
        self._spawn = spawn or _default_spawn
        self._rng = random.Random(seed)
        self._known: dict[str, Benchmark] = {}
        """benchmark name -> the benchmark, once prepared: what a variant's worker runs."""
        self._loops: dict[str, int] = {}
        self._sample_s: dict[str, float] = {}
        """benchmark name -> seconds a sample took in calibration."""
        self._failed: dict[tuple[str, str], str] = {}
        """(benchmark, variant) -> the error that stops it; later replicates return at once."""
        self._tried: set[str] = set()
        """Benchmarks calibration was attempted for (a failure everywhere is not retried)."""
        self._answers: dict[tuple[str, int, bool, tuple[Any, ...]], dict[str, dict[str, Any]]] = {}
        """(variant, block, warm-up, suite) -> the answers of that block's worker, by benchmark name."""

    # -- one worker --------------------------------------------------------------------------

    @staticmethod
    def _suite(benchmark: Benchmark) -> tuple[Any, ...]:
        """What a worker collects: benchmarks with the same paths, arguments and directory share one."""
        o = benchmark.options
        return (tuple(o.get("paths") or ()), tuple(o.get("args") or ()), o.get("cwd"))

    def _env(self, variant: Variant, request_path: str) -> dict[str, str]:
        env = dict(os.environ)
        for name in variant.unset_env:
            env.pop(name, None)
        env.update(variant.env)
        env["PAIRBENCH_PYTEST_REQUEST"] = request_path
        # a random environment size per process moves the initial stack (as micro and cmd do)
        env["PAIRBENCH_ENV_PAD"] = "x" * self._rng.randrange(0, 4096)
        return env

    def call(self, variant: Variant, suite: tuple[Any, ...], request: dict[str, Any],
             timeout: float, none_ok: bool = False) -> tuple[list[dict[str, Any]], str]:
        """Run one worker: (its answers, one per test, or the error that left tests unanswered);
        `none_ok`: a worker that exits 0 without an answer found nothing (collection), not an error."""
        paths, args, cwd = suite
        with tempfile.TemporaryDirectory(prefix="pairbench-pytest-") as tmp:
            answer = os.path.join(tmp, "answer.jsonl")
            req = os.path.join(tmp, "request.json")
            Path(req).write_text(json.dumps({**request, "answer": answer}), encoding="utf-8")
            try:
                argv = worker_argv(variant, args, paths, self.harness)
                code, out, err = self._spawn(argv, self._env(variant, req), cwd or variant.cwd, timeout)
            except UserError as exc:
                return [], str(exc)
            except FileNotFoundError:
                return [], f"interpreter {variant.command!r} not found; check the path or PATH"
            except PermissionError:
                return [], f"interpreter {variant.command!r} is not executable"
            except subprocess.TimeoutExpired:
                return [], f"{self.harness} timed out after {timeout:.0f} s"
            answers = _read_answers(answer)
        failed = code != 0 if self.harness == "asv" else code in PYTEST_FAILED
        if failed or (not answers and code != 5 and not (none_ok and code == 0)):
            return answers, _pytest_error(self.harness, code, out, err)
        return answers, ""

    def collect(self, variant: Variant, suite: tuple[Any, ...]) -> tuple[list[dict[str, Any]], str]:
        """The tests pytest collects under `variant`: ({nodeid, kind} for each, error)."""
        return self.call(variant, suite, {"mode": "collect"}, timeout=300, none_ok=True)

    # -- calibration ---------------------------------------------------------------------------

    def calibrate(self, benchmarks: Sequence[Benchmark], variants: Sequence[Variant]) -> list[Notice]:
        """Loop counts for every benchmark, in one worker on the baseline per suite; a test that
        fails there is calibrated on the next variant. Returns the notices of what failed."""
        notices: list[Notice] = []
        order = sorted(variants, key=lambda v: not v.baseline)
        by_suite: dict[tuple[Any, ...], list[Benchmark]] = {}
        for b in benchmarks:
            self._known[b.name] = b
            if b.options.get("loops"):
                self._loops[b.name] = int(b.options["loops"])
            elif b.name not in self._loops and b.name not in self._tried:
                by_suite.setdefault(self._suite(b), []).append(b)
            self._tried.add(b.name)
        for suite, todo in by_suite.items():
            for v in order:
                todo = [b for b in todo if b.name not in self._loops and (b.name, v.name) not in self._failed]
                if not todo:
                    break
                target = max(float(b.options.get("target_time", 0.1)) for b in todo)
                clock = str(todo[0].options.get("clock", "wall"))
                request = {"mode": "calibrate", "target": target, "clock": clock,
                           "tests": {str(b.options["nodeid"]): {} for b in todo}}
                answers, error = self.call(v, suite, request, timeout=300 + 30 * target * len(todo))
                by_id = {str(a.get("nodeid")): a for a in answers}
                for b in todo:
                    a = by_id.get(str(b.options["nodeid"]))
                    if a is not None and a.get("ok"):
                        self._loops[b.name] = int(a["loops"])
                        self._sample_s[b.name] = float(a.get("time") or 0.0)
                        if not v.baseline:
                            notices.append(Notice(
                                "calibration", f"{self.harness} benchmark {b.name!r}: loop count calibrated on {v.name!r} "
                                "because the baseline failed", "", b.name, v.name))
                    else:
                        reason = str(a.get("error")) if a is not None else error or f"no answer from {self.harness}"
                        notices.extend(n for n in [self._fail(b, v, reason)] if n)
        return notices

    def loops(self, benchmark: Benchmark) -> int | None:
        """The shared loop count (None if no variant could run the test)."""
        return self._loops.get(benchmark.name)

    def _fail(self, benchmark: Benchmark, variant: Variant, error: str) -> Notice | None:
        """Record that `variant` cannot run `benchmark`; the Notice only the first time."""
        if (benchmark.name, variant.name) in self._failed:
            return None
        message = f"{self.harness} benchmark {benchmark.name!r} on variant {variant.name!r}: {error}"
        self._failed[(benchmark.name, variant.name)] = message
        return Notice("benchmark-failed", message, "its other variants and the other tests still run",
                      benchmark.name, variant.name)

    # -- Runner protocol -----------------------------------------------------------------------

    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        """Calibrate the test's loop count on the baseline, unless done already (the builder
        calibrates a whole suite in one worker up front)."""
        if not benchmark.options.get("nodeid"):
            raise UserError(f"{self.harness} benchmark {benchmark.name!r}: no nodeid (the test's node id, or the asv name)")
        return self.calibrate([benchmark], variants)

    def measure(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                progress: ProgressFn) -> Replicate:
        """This test's samples from the block's worker of `variant` (started on the first ask)."""
        if (benchmark.name, variant.name) in self._failed:
            return Replicate(failed=True)
        if benchmark.name not in self._loops:
            notice = self._fail(benchmark, variant, "no loop count: no variant could run it to calibrate")
            return Replicate(failed=True, notices=[notice] if notice else [])
        self._known.setdefault(benchmark.name, benchmark)
        suite = self._suite(benchmark)
        key = (variant.name, block, warmup, suite)
        if key not in self._answers or benchmark.name not in self._answers[key]:
            for old in [k for k in self._answers if k[0] == variant.name and k[3] == suite]:
                del self._answers[old]
            self._answers[key] = self._run_block(suite, variant, block, progress)
        answer = self._answers[key].get(benchmark.name, {})
        if not answer.get("ok"):
            notice = self._fail(benchmark, variant, str(answer.get("error") or f"no answer from {self.harness}"))
            return Replicate(failed=True, notices=[notice] if notice else [])
        return self._replicate(benchmark, variant, block, warmup, answer)

    def _run_block(self, suite: tuple[Any, ...], variant: Variant, block: int,
                   progress: ProgressFn) -> dict[str, dict[str, Any]]:
        """One worker running every runnable test of `suite` under `variant`: answers by benchmark name."""
        todo = [b for b in self._known.values() if self._suite(b) == suite and b.name in self._loops
                and (b.name, variant.name) not in self._failed]
        first = todo[0].options
        request = {"mode": "time", "samples": int(first.get("samples", 5)), "warmup": int(first.get("warmup", 1)),
                   "clock": str(first.get("clock", "wall")),
                   "tests": {str(b.options["nodeid"]): {"loops": self._loops[b.name]} for b in todo}}
        progress(f"{variant.name} · block {block + 1} · {len(todo)} tests")
        per_sample = sum(max(float(b.options.get("target_time", 0.1)), self._sample_s.get(b.name, 0.0)) for b in todo)
        timeout = 120.0 + 30 * (request["samples"] + request["warmup"]) * per_sample
        answers, error = self.call(variant, suite, request, timeout)
        by_id = {str(a.get("nodeid")): a for a in answers}
        out: dict[str, dict[str, Any]] = {}
        for b in todo:
            out[b.name] = by_id.get(str(b.options["nodeid"])) or {"ok": False, "error": error or f"no answer from {self.harness}"}
        return out

    def _replicate(self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool,
                   data: dict[str, Any]) -> Replicate:
        if "value" in data:  # asv's track_*: one number per process
            return Replicate(samples=[Sample(benchmark.name, variant.name, "value", float(data["value"]), block, 0, 0,
                                             warmup, time.time(), self.machine)])
        loops = int(data["loops"])
        warm = [float(t) for t in data.get("warmup", [])]
        times = [float(t) for t in data.get("samples", [])]
        rep = Replicate()
        now = time.time()
        for i, total in enumerate(warm + times):
            per_op = max(total / loops, 1e-12)
            is_warm = warmup or i < len(warm)
            for metric, value in (("time_per_op", per_op), ("ops_per_s", 1.0 / per_op)):
                rep.samples.append(Sample(benchmark.name, variant.name, metric, value, block, 0, i, is_warm,
                                          now, self.machine))
        return rep

    def close(self) -> None:
        """Workers end with their block; nothing is left running."""
        self._answers.clear()


def _read_answers(path: str) -> list[dict[str, Any]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return []
    answers = []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash
        if isinstance(item, dict):
            answers.append(item)
    return answers


def _pytest_error(harness: str, code: int, out: str, err: str) -> str:
    """What pytest said when it could not run the tests (usage error, import error, crash)."""
    lines = [line for line in (err.strip().splitlines() + out.strip().splitlines()) if line.strip()]
    said = [line.strip() for line in lines if line.startswith(("E ", "ERROR")) or "Error" in line or "error:" in line]
    tail = " | ".join((said or lines)[-3:])[:500] or "no output"
    if "No module named 'pytest'" in err or "No module named pytest" in err:
        return "pytest is not installed in this interpreter's environment; install it there (pip install pytest)"
    if harness == "pytest" and code == 4:  # a usage error: often an ini's addopts for a plugin not installed here
        return f"pytest exited with code 4 (usage error): {tail}; to run without the ini's addopts: -- -o addopts=\"\""
    return f"{'the asv worker' if harness == 'asv' else 'pytest'} exited with code {code}: {tail}"
