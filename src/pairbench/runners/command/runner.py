"""The command runner: one replicate is one process of the benchmark's command (hyperfine style).

Each run records wall time, user and system CPU time and peak RSS from the kernel's accounting
of the finished child (wait4 rusage), its exit code, and the metrics it printed about itself
(`--metric NAME=REGEX`, or JSON lines `{"pairbench": {"NAME": VALUE}}` on stdout).

By default a command runs directly when its line needs no shell (no shell syntax, a program first:
shells.py `needs_shell`), so nothing is subtracted; otherwise, or with any shell given (`-S bash`),
it goes through `SHELL -c`. That shell's start-up is measured once in `prepare`, and its fastest
run is taken off each run, never more than the run took, so no time reads below 0 (startup.py).
The environment is padded by a random amount per run (PAIRBENCH_ENV_OFFSET) so that the stack's
alignment varies between runs instead of biasing one variant (Mytkowicz et al., ASPLOS 2009).
"""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from pairbench.errors import BenchmarkFailed, UserError
from pairbench.model import Benchmark, Notice, Sample, Variant
from pairbench.runners.base import ProgressFn, Replicate
from pairbench.runners.command.invocation import PLACEHOLDER, expand_command, variant_environment
from pairbench.runners.command.launcher import Launcher, start_launcher
from pairbench.runners.command.metric_json import METRIC_JSON_ENV, fresh_metric_json, read_metric_json
from pairbench.runners.command.metric_spec import compile_metric, metric_value
from pairbench.runners.command.options import OUTPUT_MODES, failure_advice, failure_ignored
from pairbench.runners.command.output import OutputScan, scan_output, unwritable
from pairbench.runners.command.prepared import ENV_OFFSET, PreparedCommands
from pairbench.runners.command.rss import LAUNCHER, rss_method
from pairbench.runners.command.startup import CALIBRATION_RUNS, ShellCost, shell_cost, shell_notices, spread_notice
from pairbench.runners.command.shells import (
    SHELL_SYNTAX as _SHELL_SYNTAX,
    executable_word as _executable_word,
    found_shell,
    is_shell_builtin as _is_shell_builtin,
    needs_shell,
    program_finder,
)
from pairbench.runners.shims import command_word, resolve_shim

__all__ = ["CommandRunner"]

# How much of a failing command's output an error message shows.
OUTPUT_TAIL_CHARS = 600
# Largest random padding of the environment, in bytes (hyperfine varies it up to 4 KiB).
ENV_OFFSET_MAX = 4096
_DISCARDING = ("null", "pipe", "inherit")
"""--output modes whose stdout pairbench never reads."""


def _check_output_file(benchmark: Benchmark, variant: Variant) -> None:
    """A variant's output file (a suite's `output`) that no run could write: one error before any runs."""
    output = str(variant.meta.get("output") or benchmark.options.get("output") or "auto")
    problem = None if output in OUTPUT_MODES else unwritable(output)
    if problem is not None:
        raise UserError(f"benchmark {benchmark.name!r}, variant {variant.name!r}: output {output}: {problem}")


@dataclass(frozen=True, slots=True)
class _Outcome:
    wall: float
    user: float
    sys: float
    rss: float
    exit_code: int
    timed_out: bool
    stdout: OutputScan
    """Metrics and tail of stdout (empty when it was discarded)."""
    stderr: OutputScan
    faults: float = 0.0  # page faults and context switches, for `--measure counters`
    switches: float = 0.0


class CommandRunner:
    """Runs whole commands; see the module docstring for what one run records."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        self._shell_cost: dict[str, ShellCost] = {}
        self._direct: set[tuple[str, str]] = set()
        """(benchmark, variant) pairs run without a shell under the default `shell` (no shell syntax)."""
        self._spread_said: set[str] = set()
        """Benchmarks whose runs shorter than the shell's start-up spread were already pointed out."""
        self._setup_done: set[tuple[str, str]] = set()
        self._cleanups: list[tuple[str, Variant, Benchmark]] = []
        self._metrics: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        self._unit_words: dict[tuple[str, str], tuple[str, str]] = {}
        """(benchmark, metric) -> (the variant, the word after its number) of the first run that printed it."""
        self._spawner: Launcher | None = None
        self._inherit: tuple[int, ...] = ()
        """Copies of pairbench's stdout and stderr passed to the launcher (--output=inherit)."""
        self._output_dir: str | None = None
        """Where each run's stdout and stderr land (the files are truncated per run)."""
        self._stdout_seen: dict[str, set[str]] = {}
        """Per benchmark, the variants whose stdout has been scanned for metric lines."""
        self._stdout_needed: dict[str, bool] = {}
        """Per benchmark: True once a run printed a metric line, or when a --metric regex needs it."""
        self._variants: dict[str, set[str]] = {}
        self._shims: dict[tuple[str, str], tuple[str, str]] = {}
        """(benchmark, variant) -> (command with the shim replaced, directory put first on PATH)."""
        self._last_outcome: _Outcome | None = None  # its rusage counters are read by counted.py
        self._prepared = PreparedCommands()

    # -- Runner protocol -------------------------------------------------------------------
    def prepare(self, benchmark: Benchmark, variants: list[Variant]) -> list[Notice]:
        opts = benchmark.options
        template = str(opts.get("command", "{variant}"))
        self._metrics[benchmark.name] = [compile_metric(f"{n}={r}") for n, r in dict(opts.get("metrics", {})).items()]
        self._stdout_needed[benchmark.name] = bool(self._metrics[benchmark.name])
        self._stdout_seen[benchmark.name] = set()
        self._variants[benchmark.name] = {v.name for v in variants}
        notices: list[Notice] = []
        shell = self._shell_of(benchmark)
        for variant in variants:
            command = expand_command(template, variant)
            if not command.strip():
                raise UserError(f"benchmark {benchmark.name!r}: variant {variant.name!r} has an empty command")
            leftover = [m.group(1) for m in PLACEHOLDER.finditer(command)]
            if leftover:
                raise UserError(
                    f"benchmark {benchmark.name!r}, variant {variant.name!r}: unknown placeholder "
                    f"{{{leftover[0]}}} in {command!r}; known: {{variant}}"
                    + "".join(f", {{{k}}}" for k in variant.params)
                )
            if shell is None or shell == ["sh"]:  # another shell may define functions of its own (-S bash f)
                self._check_executable(command, variant, shell=shell is not None)
            _check_output_file(benchmark, variant)
            find = program_finder(variant_environment(variant).get("PATH"), variant.cwd)
            if opts.get("shell", True) is True and not needs_shell(command, find):
                self._direct.add((benchmark.name, variant.name))
            notice = self._resolve_shim(benchmark, variant, command)
            if notice is not None:
                notices.append(notice)
        method = rss_method()
        if method.name == LAUNCHER:
            notices.append(Notice(
                "rss-floor", f"rss includes the launcher's own ~8-10 MiB: {method.reason}",
                "install a C compiler (or set CC) so that each command's own peak is measured", benchmark.name))
        shelled = [v.name for v in variants if self._shell_for(benchmark, v) is not None]
        if shell is not None and shelled:
            self._shell_cost[benchmark.name] = self._measure_shell_overhead(shell)
        notices.extend(shell_notices(benchmark.name, [v.name for v in variants], shelled, " ".join(shell or []),
                                     self._shell_cost.get(benchmark.name), chosen=opts.get("shell", True) is not True)
                       if shell is not None else [])
        for variant in variants:
            setup = opts.get("setup")
            if setup:
                self._run_hook("setup", expand_command(str(setup), variant), variant, benchmark)
            if opts.get("cleanup"):
                self._cleanups.append((expand_command(str(opts["cleanup"]), variant), variant, benchmark))
        return notices

    def measure(
        self, benchmark: Benchmark, variant: Variant, block: int, warmup: bool, progress: ProgressFn
    ) -> Replicate:
        opts = benchmark.options
        command = expand_command(str(opts.get("command", "{variant}")), variant)
        # a command's own hook (hyperfine's -p/-C given once per command) before the benchmark's
        prepare = variant.meta.get("prepare") or opts.get("prepare")
        if prepare:
            self._run_hook("prepare", expand_command(str(prepare), variant), variant, benchmark)
        shell = self._shell_for(benchmark, variant)
        timeout = opts.get("timeout")
        run_command, path_first = self._shims.get((benchmark.name, variant.name), (command, ""))
        output = str(variant.meta.get("output") or opts.get("output", "auto"))
        keep = self._keeps_stdout(benchmark.name) if output == "auto" else output not in _DISCARDING
        outcome = self._run(run_command, variant, shell=shell, timeout=float(timeout) if timeout else None,
                            path_first=path_first, keep_stdout=keep, regexes=self._metrics.get(benchmark.name, []),
                            output=output, stdin=opts.get("input"), metric_json=bool(opts.get("metric_json")),
                            stderr_tail=False)
        conclude = variant.meta.get("conclude") or opts.get("conclude")
        if conclude:  # after the clock stopped: not timed (hyperfine's --conclude)
            self._run_hook("conclude", expand_command(str(conclude), variant), variant, benchmark)
        if keep:
            self._stdout_seen.setdefault(benchmark.name, set()).add(variant.name)
            if outcome.stdout.json_values:
                self._stdout_needed[benchmark.name] = True
        if outcome.timed_out:
            raise BenchmarkFailed(
                f"benchmark {benchmark.name!r}, variant {variant.name!r}: `{command}` did not finish within "
                f"--timeout {timeout:g} s and was killed; raise --timeout or shorten the workload"
            )
        replicate = Replicate()
        if outcome.exit_code != 0:
            if outcome.exit_code == 127 and shell is not None:
                raise BenchmarkFailed(
                    f"variant {variant.name!r}: `{command}` exited with 127 (command not found): "
                    f"{_tail(outcome.stderr.tail) or 'check the command and PATH'}"
                )
            if not failure_ignored(opts, outcome.exit_code):
                raise BenchmarkFailed(f"benchmark {benchmark.name!r}, variant {variant.name!r}: `{command}` exited with "
                                      f"code {outcome.exit_code}; {failure_advice(opts)}. Its output ended with: "
                                      f"{_output_tail(outcome, keep)}")
            replicate.notices.append(
                Notice("nonzero-exit", f"`{command}` exited with code {outcome.exit_code}", "", benchmark.name, variant.name)
            )
        cost = self._shell_cost.get(benchmark.name) if shell is not None else None
        if cost is not None and cost.within_spread(outcome.wall) and benchmark.name not in self._spread_said:
            self._spread_said.add(benchmark.name)
            replicate.notices.append(spread_notice(benchmark.name, command, " ".join(shell or []), cost))
        now = time.time()
        # the shell's fastest start-up, never more than the run took (startup.py says why); values
        # that reach 0 are tested on their paired differences
        wall, user, sys_time = cost.net(outcome.wall, outcome.user, outcome.sys) if cost else (
            outcome.wall, outcome.user, outcome.sys)
        values: dict[str, float] = {
            "time": wall,
            "user": user,
            "sys": sys_time,
            "rss": outcome.rss,
            "exit_code": float(outcome.exit_code),
        }
        values.update(self._custom_metrics(benchmark, variant, command, outcome))
        replicate.samples.extend(
            Sample(benchmark.name, variant.name, name, value, block, warmup=warmup, time=now)
            for name, value in values.items()
        )
        progress(f"{variant.name}: {values['time']:.4g} s")
        return replicate

    def close(self) -> None:
        """Run every --cleanup (all, even after one failed), stop the launcher; then a failed cleanup
        fails the run as in hyperfine, unless an error already ends it (that one is the one to see)."""
        cleanups, self._cleanups = self._cleanups, []
        failed: BenchmarkFailed | None = None
        try:
            for command, variant, benchmark in cleanups:
                try:
                    self._run_hook("cleanup", command, variant, benchmark)
                except BenchmarkFailed as exc:
                    failed = failed or exc
        finally:
            self._stop_spawner()
            for fd in self._inherit:
                os.close(fd)
            self._inherit = ()
            if self._output_dir is not None:
                shutil.rmtree(self._output_dir, ignore_errors=True)
                self._output_dir = None
        if failed is not None and sys.exc_info()[1] is None:
            raise failed

    # -- helpers -----------------------------------------------------------------------------
    def _check_executable(self, command: str, variant: Variant, shell: bool) -> None:
        """Refuse a missing executable before anything runs (shell syntax is left to the shell)."""
        try:
            shlex.split(command)
        except ValueError as exc:
            raise UserError(f"variant {variant.name!r}: cannot parse command {command!r}: {exc}") from None
        first = _executable_word(command)
        if first is None:
            return
        if shell and (any(c in _SHELL_SYNTAX for c in first) or _is_shell_builtin(first)):
            return
        if "/" in first:
            path = first if os.path.isabs(first) or not variant.cwd else os.path.join(variant.cwd, first)
            found = os.path.isfile(path) and os.access(path, os.X_OK)
        else:
            found = shutil.which(first, path=variant_environment(variant).get("PATH")) is not None
        if not found:
            raise UserError(
                f"variant {variant.name!r}: executable {first!r} not found (command: {command!r}); "
                "check the name, PATH, or give a full path"
            )

    def _resolve_shim(self, benchmark: Benchmark, variant: Variant, command: str) -> Notice | None:
        """Run the real executable behind a version manager's shim (see runners/shims.py); say so."""
        located = command_word(command)
        if located is None:
            return None
        start, end, word = located
        shim = resolve_shim(word, variant_environment(variant), variant.cwd)
        if shim is None:
            return None
        if shim.executable is None:
            return Notice(
                "shim", f"`{word}` is a {shim.manager} shim ({shim.shim}) that could not be resolved "
                f"({shim.how}); the shim's own start-up is measured in every run",
                f"give the interpreter's full path, e.g. `{shim.manager} which {word}`", benchmark.name, variant.name)
        self._shims[(benchmark.name, variant.name)] = (
            command[:start] + shlex.quote(shim.executable) + command[end:], shim.bin_dir or "")
        version = f" ({shim.version})" if shim.version else ""
        return Notice("shim-resolved", f"`{word}` is a {shim.manager} shim: running {shim.executable}{version}",
                      "", benchmark.name, variant.name)

    def _keeps_stdout(self, benchmark: str) -> bool:
        """Whether this run's stdout is kept and scanned, or discarded like hyperfine's --output=null.

        Kept while some variant has not yet been run once (its output may hold metric lines), and
        for good when a run printed one or a --metric regex reads it; every variant is treated
        alike from its second round on, so that none pays for a copy of its output the other skips.
        """
        if self._stdout_needed.get(benchmark, True):
            return True
        return not self._variants.get(benchmark, set()) <= self._stdout_seen.get(benchmark, set())

    def _shell_of(self, benchmark: Benchmark) -> list[str] | None:
        """The benchmark's shell (None: `--shell none`); a variant may still run without it (`_shell_for`)."""
        return found_shell(benchmark.options.get("shell", True), f"benchmark {benchmark.name!r}")

    def _shell_for(self, benchmark: Benchmark, variant: Variant) -> list[str] | None:
        """The shell that runs this variant's command, or None when it runs directly."""
        if (benchmark.name, variant.name) in self._direct:
            return None
        return self._shell_of(benchmark)

    def _measure_shell_overhead(self, shell: list[str]) -> ShellCost:
        runs = [self._run("", Variant("shell"), shell=shell, timeout=10.0, keep_stdout=False)
                for _ in range(CALIBRATION_RUNS)]
        return shell_cost([(r.wall, r.user, r.sys) for r in runs])

    def _run_hook(self, what: str, command: str, variant: Variant, benchmark: Benchmark) -> None:
        outcome = self._run(command, variant, shell=self._shell_of(benchmark) or True, timeout=None)
        if outcome.exit_code != 0:
            raise BenchmarkFailed(
                f"benchmark {benchmark.name!r}, variant {variant.name!r}: the --{what} command `{command}` exited "
                f"with code {outcome.exit_code}: {_output_tail(outcome, True)}"
            )

    def _spawner_process(self) -> Launcher:
        if self._spawner is None or not self._spawner.alive():
            self._spawner = start_launcher(rss_method().helper, self._inherit)
        return self._spawner

    def _inherited_fds(self) -> list[int]:
        """pairbench's own stdout and stderr, as the launcher knows them (for --output=inherit).

        The launcher's stdout is its reply pipe, so copies of ours are passed to it; a launcher
        started without them is restarted once.
        """
        if not self._inherit:
            self._stop_spawner()
            self._inherit = (os.dup(sys.__stdout__.fileno() if sys.__stdout__ else 1),
                             os.dup(sys.__stderr__.fileno() if sys.__stderr__ else 2))
        return list(self._inherit)

    def _stop_spawner(self) -> None:
        launcher, self._spawner = self._spawner, None
        if launcher is not None:
            launcher.stop()  # the launcher kills the running command's group, then exits

    def _run(self, command: str, variant: Variant, shell: bool | list[str] | None, timeout: float | None,
             path_first: str = "", keep_stdout: bool = True,
             regexes: list[tuple[str, re.Pattern[str]]] | None = None, output: str = "auto",
             stdin: str | None = None, metric_json: bool = False, counter: Any = None,
             stderr_tail: bool = True) -> _Outcome:
        """One run through the launcher. `stderr_tail=False`: stderr is read only when a metric
        regex needs it or the run failed (reading it after every successful run cost ~30 µs a run)."""
        argv, env = self._prepared.get(variant, command, shell, path_first)  # shared: never mutated
        extra = {ENV_OFFSET: "x" * self._rng.randrange(ENV_OFFSET_MAX)}
        if variant.cwd and not os.path.isdir(variant.cwd):
            raise UserError(f"variant {variant.name!r}: working directory {variant.cwd!r} does not exist")
        if self._output_dir is None:
            self._output_dir = tempfile.mkdtemp(prefix="pairbench-")
        out_path, err_path = os.path.join(self._output_dir, "stdout"), os.path.join(self._output_dir, "stderr")
        if metric_json:  # a fresh file per run, read back in _custom_metrics (--metric-json)
            extra[METRIC_JSON_ENV] = fresh_metric_json(self._output_dir)
        if counter is not None:  # counted.py
            argv, env = counter.wrap(list(argv), {**env, **extra})
            extra = {}
        if output not in OUTPUT_MODES:
            out_path = output  # the user's file, truncated per run as hyperfine does; its metrics are read
        request = {"argv": argv, "env": env, "extra_env": extra, "cwd": variant.cwd, "timeout": timeout,
                   "stdout": out_path if keep_stdout else None, "stderr": err_path,
                   "stdin": stdin, "pipe": output == "pipe",
                   "inherit": self._inherited_fds() if output == "inherit" else None}
        try:
            reply = self._spawner_process().run(request)
        except BaseException:
            self._stop_spawner()
            raise
        if reply is None:
            self._stop_spawner()
            raise BenchmarkFailed(f"variant {variant.name!r}: the process launcher died while running `{command}`")
        stdout = scan_output(out_path if keep_stdout else None, regexes or [], want_json=True)
        code = int(reply["exit_code"])
        left = [r for r in regexes or [] if r[0] not in stdout.matches]
        read_err = output != "inherit" and (stderr_tail or left or code != 0 or bool(reply["timed_out"]))
        stderr = scan_output(err_path if read_err else None, left)
        self._last_outcome = _Outcome(
            wall=float(reply["wall"]),
            user=float(reply["utime"]),
            sys=float(reply["stime"]),
            rss=float(reply["maxrss_kib"]) * 1024.0,  # Linux reports KiB
            exit_code=code if code >= 0 else 128 - code,
            timed_out=bool(reply["timed_out"]),
            stdout=stdout,
            stderr=stderr,
            faults=float(reply.get("faults", 0)), switches=float(reply.get("switches", 0)),  # counters.py
        )
        return self._last_outcome

    def _custom_metrics(self, benchmark: Benchmark, variant: Variant, command: str, outcome: _Outcome) -> dict[str, float]:
        values: dict[str, float] = dict(outcome.stdout.json_values)
        if benchmark.options.get("metric_json"):
            values.update(read_metric_json(str(benchmark.options["metric_json"]), str(self._output_dir), command))
        for name, regex in self._metrics.get(benchmark.name, []):
            found = outcome.stdout.matches.get(name, outcome.stderr.matches.get(name))
            if found is None:
                raise BenchmarkFailed(
                    f"benchmark {benchmark.name!r}, variant {variant.name!r}: `{command}` did not print metric "
                    f"{name!r} (regex {regex.pattern!r}); check the regex against its output, which ended with: "
                    f"{_tail(outcome.stdout.tail) or '(nothing on stdout)'}"
                )
            stream = outcome.stdout if name in outcome.stdout.matches else outcome.stderr
            word = stream.units.get(name, "")
            first = self._unit_words.setdefault((benchmark.name, name), (variant.name, word))
            declared = str(dict(benchmark.options.get("metric_units") or {}).get(name, ""))
            values[name] = metric_value(name, regex, found, word, declared, first=first, variant=variant.name)
        return values


def _output_tail(outcome: _Outcome, stdout_kept: bool) -> str:
    """The end of a failed run's stderr, else of its stdout, for an error message."""
    text = _tail(outcome.stderr.tail) or _tail(outcome.stdout.tail)
    return text or ("(no output)" if stdout_kept else "(nothing on stderr; stdout is discarded after each "
                                                       "variant's first run)")


def _tail(text: str) -> str:
    text = text.strip()
    return " ".join(("…" + text[-OUTPUT_TAIL_CHARS:] if len(text) > OUTPUT_TAIL_CHARS else text).split())
