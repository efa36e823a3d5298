"""The profilers behind `--profile`: each wraps a command's argv and reads back folded stacks.

Four samplers, chosen once per benchmark:

    py-spy     CPython programs (every variant runs a `python*` executable): samples the
               interpreter's Python stacks from outside (ptrace), no change to the program;
               `--subprocesses` follows a shell or a launcher into the interpreter.
    stackprof  Ruby programs (every variant runs a `ruby*` executable), when Debian's
               ruby-stackprof is installed: loaded into each Ruby process by RUBYOPT (no change to
               the program), CPU-time samples of the Ruby stacks (`Object#work`), folded by
               `stackprof --stackcollapse`. Without it a Ruby program is a native one (below).
    perf       native programs, when `perf record` works here (a cpu-clock software event, so
               a VM without a PMU works too): `perf record -g` (frame pointers), symbols by
               `perf script`.
    callgrind  native programs when perf cannot record (not installed, perf_event_paranoid):
               valgrind counts every instruction each function executes (exact, 20-60x slower);
               its stacks are self costs per function, without callers.

A sampler that cannot be used is a value (`SamplerMissing`: the reason and the one command that
installs or allows it), never an exception: the timed verdict comes all the same.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from pairbench.runners.instructions import summed_outputs

__all__ = ["Sampler", "Attaching", "SamplerMissing", "PySpy", "Stackprof", "Perf", "Callgrind", "choose_sampler",
           "is_cpython", "is_ruby", "read_folded", "parse_perf_script", "parse_callgrind", "PY_SPY_INSTALL",
           "PTRACE_HINT", "RUBY_NO_SAMPLER", "STACKPROF_INSTALL"]

PY_SPY_INSTALL = "python3 -m pip install py-spy"
PERF_INSTALL = "apt-get install linux-perf"
VALGRIND_INSTALL = "apt-get install valgrind"
STACKPROF_INSTALL = "apt-get install ruby-stackprof"
RUBY_NO_SAMPLER = ("no Ruby-level sampler is available (stackprof is not installed): the profile shows the "
                   "interpreter's C frames as perf or callgrind sees them, not Ruby methods")
"""The one line said when a Ruby program is profiled as a native one."""
RUBY_SERVER_NATIVE = ("stackprof cannot attach to a running Ruby server: the profile shows the interpreter's C "
                      "frames as perf sees them, not Ruby methods")
PTRACE_HINT = "run as root, or allow it: sysctl kernel.yama.ptrace_scope=0"
SAMPLE_RATE_HZ = 250
"""py-spy's and perf's samples per second: 250 gives a 0.2 s run 50 samples, small enough overhead."""
_PYTHON_NAME = re.compile(r"^python(\d+(\.\d+)*)?(-dbg)?$")
_RUBY_NAME = re.compile(r"^ruby(\d+(\.\d+)*)?$")
_STACKPROF_START = """\
require "stackprof"
StackProf.start(mode: :cpu, interval: %d, raw: true)
at_exit do
  StackProf.stop
  StackProf.results(File.join(ENV.fetch("PAIRBENCH_STACKPROF_DIR"), "stackprof.#{Process.pid}.dump"))
end
""" % (1_000_000 // SAMPLE_RATE_HZ)
"""Loaded into each Ruby process (RUBYOPT -r): samples from start to exit, one dump per process."""


class Sampler(Protocol):
    """Wraps one profiled run and reads its stacks; `wrap` then `read`, once per run."""

    name: str
    unit: str

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of a profiled run."""
        ...

    def read(self) -> dict[str, float]:
        """The last run's folded stacks: {root;...;leaf: weight} (raises ValueError without output)."""
        ...

    def close(self) -> None:
        ...


class Attaching(Protocol):
    """A sampler that can attach to running processes (an HTTP server's): started, then stopped by SIGINT."""

    name: str
    unit: str

    def attach(self, pids: Sequence[int]) -> list[str]:
        """The argv that samples `pids` until it is interrupted (then `read`)."""
        ...

    def read(self) -> dict[str, float]:
        ...


@dataclass(frozen=True, slots=True)
class SamplerMissing:
    """Why no sampler can profile a benchmark, and the fix."""

    reason: str
    hint: str


@dataclass
class _Files:
    out_dir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="pairbench-profile-"))

    def fresh(self) -> None:
        for f in glob.glob(os.path.join(self.out_dir, "*")):
            os.remove(f)

    def close(self) -> None:
        shutil.rmtree(self.out_dir, ignore_errors=True)


@dataclass
class PySpy(_Files):
    """py-spy record --format raw: Python frames as `function (file)`, line numbers left out."""

    executable: str = "py-spy"
    name: str = "py-spy"
    unit: str = "samples"

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        self.fresh()
        out = os.path.join(self.out_dir, "stacks.txt")
        return [self.executable, "record", "--format", "raw", "--nolineno", "--subprocesses",
                "-r", str(SAMPLE_RATE_HZ), "-o", out, "--", *argv], env

    def attach(self, pids: Sequence[int]) -> list[str]:
        self.fresh()
        # --gil: a server's threads spend most of their wall time waiting in select() and read(),
        # which py-spy does not always see as idle; the thread holding the GIL is the one at work
        return [self.executable, "record", "--format", "raw", "--nolineno", "--subprocesses", "--gil", "-r",
                str(SAMPLE_RATE_HZ), "-o", os.path.join(self.out_dir, "stacks.txt"), "--pid", str(pids[0])]

    def read(self) -> dict[str, float]:
        path = os.path.join(self.out_dir, "stacks.txt")
        if not os.path.exists(path):
            raise ValueError("py-spy wrote no stacks")
        with open(path, encoding="utf-8", errors="replace") as fh:
            return read_folded(fh.read())


@dataclass
class Stackprof(_Files):
    """stackprof in every Ruby process of the run (RUBYOPT -r a starter), read by `stackprof --stackcollapse`."""

    executable: str = "stackprof"
    name: str = "stackprof"
    unit: str = "samples"

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        self.fresh()
        starter = os.path.join(self.out_dir, "start.rb")
        with open(starter, "w", encoding="utf-8") as fh:
            fh.write(_STACKPROF_START)
        opt = " ".join(x for x in (env.get("RUBYOPT", ""), f"-r{starter}") if x)
        return argv, {**env, "RUBYOPT": opt, "PAIRBENCH_STACKPROF_DIR": self.out_dir}

    def read(self) -> dict[str, float]:
        dumps = glob.glob(os.path.join(self.out_dir, "stackprof.*.dump"))
        if not dumps:
            raise ValueError("stackprof wrote no profile")
        stacks: dict[str, float] = {}
        for path in dumps:
            out = subprocess.run([self.executable, "--stackcollapse", path], capture_output=True, text=True,
                                 errors="replace", timeout=300)
            for stack, weight in read_folded(out.stdout).items():
                stacks[stack] = stacks.get(stack, 0.0) + weight
        return stacks


@dataclass
class Perf(_Files):
    """perf record -g on the cpu-clock event; stacks from perf script (leaf first, reversed here)."""

    note: str = ""
    """A line to say with the profile (a Ruby program seen as a native one)."""
    name: str = "perf"
    unit: str = "samples"

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        self.fresh()
        out = os.path.join(self.out_dir, "perf.data")
        return ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(SAMPLE_RATE_HZ), "-g", "-o", out,
                "--", *argv], env

    def attach(self, pids: Sequence[int]) -> list[str]:
        self.fresh()
        return ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(SAMPLE_RATE_HZ), "-g", "-o",
                os.path.join(self.out_dir, "perf.data"), "-p", ",".join(str(p) for p in pids)]

    def read(self) -> dict[str, float]:
        path = os.path.join(self.out_dir, "perf.data")
        if not os.path.exists(path):
            raise ValueError("perf record wrote no data")
        out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,ip,sym"], capture_output=True,
                             text=True, errors="replace", timeout=300)
        return parse_perf_script(out.stdout)


@dataclass
class Callgrind(_Files):
    """valgrind --tool=callgrind: instructions per function (self), every child process followed."""

    why: str = ""
    """Why perf was not used."""
    note: str = ""
    """A line to say with the profile (a Ruby program seen as a native one)."""
    name: str = "callgrind"
    unit: str = "instructions"

    def wrap(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        self.fresh()
        return ["valgrind", "--tool=callgrind", "--trace-children=yes",
                "--log-file=" + os.path.join(self.out_dir, "log.%p"),
                "--callgrind-out-file=" + os.path.join(self.out_dir, "cg.%p"), *argv], env

    def read(self) -> dict[str, float]:
        return {frame: float(cost) for frame, cost in
                summed_outputs(self.out_dir, parse_callgrind, "callgrind wrote no output").items()}


def read_folded(text: str) -> dict[str, float]:
    """Folded lines (`a;b;c 12`) -> {stack: weight}, as written (analysis/profiles.py cleans the frames)."""
    stacks: dict[str, float] = {}
    for line in text.splitlines():
        stack, _, weight = line.rstrip().rpartition(" ")
        try:
            value = float(weight)
        except ValueError:
            continue
        if value > 0:
            stacks[stack] = stacks.get(stack, 0.0) + value
    return stacks


def parse_perf_script(text: str) -> dict[str, float]:
    """`perf script -F comm,ip,sym` output -> folded stacks, one sample per event (root first).

    Each event is a header line (the command) and its frames, leaf first, one per line
    (`addr symbol`), then a blank line; an unresolved frame is `[unknown]`.
    """
    stacks: dict[str, float] = {}
    frames: list[str] = []

    def flush() -> None:
        if frames:
            key = ";".join(reversed(frames))
            stacks[key] = stacks.get(key, 0.0) + 1.0
        frames.clear()

    for line in text.splitlines():
        if not line.strip():
            flush()
        elif line[0].isspace():
            parts = line.split(None, 1)
            symbol = parts[1] if len(parts) > 1 else "[unknown]"
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "", symbol.strip()).replace(";", ":"))
        else:
            flush()
    flush()
    return stacks


def parse_callgrind(text: str) -> dict[str, float]:
    """A callgrind output file -> {function: self instructions} (the first event, Ir).

    Name compression (`fn=(12) name`, then `fn=(12)`) is expanded; the cost line after a
    `calls=` line is the call's inclusive cost, not the caller's own, and is skipped.
    """
    names: dict[str, str] = {}
    own: dict[str, float] = {}
    current = "???"
    positions = 1
    skip = False
    for line in text.splitlines():
        if line.startswith("positions:"):
            positions = len(line.split()) - 1
        elif line.startswith(("fn=", "cfn=", "cfi=", "cfl=")):
            key, _, rest = line.partition("=")
            match = re.match(r"\((\d+)\)\s*(.*)", rest)
            name = rest.strip()
            if match:
                name = match.group(2).strip() or names.get(match.group(1), match.group(1))
                names.setdefault(match.group(1), name) if key in ("fn", "cfn") else None
            if key == "fn":
                current = name
        elif line.startswith("calls="):
            skip = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if skip:
                skip = False
                continue
            parts = line.split()
            if len(parts) > positions:
                own[current] = own.get(current, 0.0) + float(parts[positions])
    return {k: v for k, v in own.items() if v > 0}


def is_cpython(executable: str) -> bool:
    """Whether a command's executable is a CPython interpreter (by its name, after symlinks)."""
    base = os.path.basename(executable)
    real = os.path.basename(os.path.realpath(executable)) if os.path.exists(executable) else base
    return any(_PYTHON_NAME.match(name) for name in (base, real)) and "pypy" not in real


def is_ruby(executable: str) -> bool:
    """Whether a command's executable is a Ruby interpreter (by its name, after symlinks)."""
    base = os.path.basename(executable)
    real = os.path.basename(os.path.realpath(executable)) if os.path.exists(executable) else base
    return any(_RUBY_NAME.match(name) for name in (base, real))


def _stackprof() -> str | None:
    return shutil.which("stackprof")


def _perf_records() -> str:
    """'' when `perf record` works here, else why not."""
    if shutil.which("perf") is None:
        return "perf is not installed"
    with tempfile.TemporaryDirectory(prefix="pairbench-perf-") as tmp:
        try:
            out = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", os.path.join(tmp, "p"),
                                  "--", "true"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"perf could not run ({exc})"
    if out.returncode != 0:
        line = next((x for x in out.stderr.splitlines() if x.strip()), "")
        return f"perf record is not allowed here ({line.strip()[:120]})"
    return ""


def _py_spy() -> str | None:
    found = shutil.which("py-spy")
    if found is None:  # installed for this interpreter but not on PATH (a venv not activated)
        beside = os.path.join(os.path.dirname(sys.executable), "py-spy")
        found = beside if os.path.exists(beside) else None
    return found


def choose_sampler(executables: Sequence[str], attaching: bool = False) -> Sampler | SamplerMissing:
    """py-spy when every variant runs CPython, stackprof when every one runs Ruby and it is installed
    (not `attaching` to a running server: it starts inside the program); else perf record when it
    works, else callgrind (a Ruby program so seen carries a `note` saying so)."""
    if executables and all(is_cpython(e) for e in executables):
        spy = _py_spy()
        if spy is None:
            return SamplerMissing("py-spy is not installed", f"install it: {PY_SPY_INSTALL}")
        return PySpy(executable=spy)
    note = ""
    if executables and all(is_ruby(e) for e in executables):
        found = _stackprof()
        if found is not None and not attaching:
            return Stackprof(executable=found)
        note = RUBY_SERVER_NATIVE if found is not None else RUBY_NO_SAMPLER
    why = _perf_records()
    if not why:
        return Perf(note=note)
    if shutil.which("valgrind") is None:
        return SamplerMissing(f"{why}, and valgrind is not installed",
                              f"install one: {PERF_INSTALL} (or {VALGRIND_INSTALL})")
    return Callgrind(why=why, note=note)
