"""Start-up of `pairbench --help` beside `python -c pass` on the same interpreter, in the same run.

    python3 bench/startup.py [--repeat 60] [--python EXE] [--command 'cmd --help'] [--site venv|system|none]
                             [--src DIR]

Both are run by the real interpreter binary (sys.executable, never a pyenv shim: the shim is a
shell script that costs more than either), with the package's src on PYTHONPATH. `pairbench` is
started as its console script starts it (`from pairbench.cli import main; sys.exit(main())`).

Where: `--site venv` (default) runs both in a fresh virtual environment of that interpreter
(`python -m venv --without-pip`, no network): site runs as usual, but no `.pth` file of the
machine's site-packages imports anything (one here imports certifi and importlib.resources, which
costs more than pairbench's own start-up and is the interpreter's, not ours). `system` uses the
interpreter as installed; `none` runs both with -S.

Bytecode is cached in a temporary directory (PYTHONPYCACHEPREFIX), as an installed package has it
(pip compiles at install): with PYTHONDONTWRITEBYTECODE every start would compile the sources anew.
Each round runs both once, in a shuffled order, so that machine drift hits them alike; a few rounds
are discarded as warm-up. Reported, for wall time and for CPU time (user + system of the child):
the median and interquartile range of each, the ratio of the medians and the interquartile range
of the rounds' own ratios; with --instructions, instructions counted by valgrind (load-proof). Target (issue 16 §4): ratio <= 3.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import sys; from pairbench.cli import main; sys.exit(main())"


def _time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from the child's rusage) of one start."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4 above
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)}: exit {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _instructions(argv: list[str], env: dict[str, str]) -> float:
    """Instructions executed (millions) under valgrind's callgrind: the same on a loaded machine."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          capture_output=True, text=True, env=env, check=False, timeout=600)
    match = re.search(r"Collected : (\d+)", proc.stderr)
    if not match:
        raise SystemExit(f"valgrind: {proc.stderr[-500:]}")
    return int(match.group(1)) / 1e6


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[1], q[2]


def _interpreter(python: str, site: str, tmp: Path) -> tuple[str, list[str]]:
    """The binary and flags both sides run with."""
    if site == "none":
        return python, ["-S"]
    if site == "system":
        return python, []
    subprocess.run([python, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True, timeout=120)
    return str(tmp / "venv" / "bin" / "python"), []


def _environment(src: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env["PYTHONPATH"] = str(src)
    return env


def _measure(tools: dict[str, list[str]], env: dict[str, str], rounds: int, warmup: int,
             seed: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    rng = random.Random(seed)
    walls: dict[str, list[float]] = {name: [] for name in tools}
    cpus: dict[str, list[float]] = {name: [] for name in tools}
    for round_ in range(warmup + rounds):
        order = list(tools)
        rng.shuffle(order)
        for name in order:
            wall, cpu = _time_once(tools[name], env)
            if round_ >= warmup:
                walls[name].append(wall)
                cpus[name].append(cpu)
    return walls, cpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=60, help="measured rounds (default 60)")
    ap.add_argument("--warmup", type=int, default=5, help="discarded rounds (default 5)")
    ap.add_argument("--python", default=sys.executable, help="interpreter binary (default: this one)")
    ap.add_argument("--command", default="--help", help="pairbench arguments to time (default --help)")
    ap.add_argument("--site", choices=("venv", "system", "none"), default="venv",
                    help="a fresh venv (default), the interpreter as installed, or -S")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the package's source tree (default: this checkout's)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions under valgrind (deterministic, slow: ~10 s per start)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        python, flags = _interpreter(args.python, args.site, Path(tmp))
        tools = {
            "python -c pass": [python, *flags, "-c", "pass"],
            f"pairbench {args.command}": [python, *flags, "-c", ENTRY, *shlex.split(args.command)],
        }
        env = _environment(args.src.resolve(), Path(tmp) / "pycache")
        walls, cpus = _measure(tools, env, args.repeat, args.warmup, args.seed)
        counts = {name: _instructions(argv, env) for name, argv in tools.items()} if args.instructions else {}
    print(f"{args.python} (site: {args.site}), {args.src}: {args.repeat} rounds, both in each round, shuffled")
    base, ours = list(tools)
    for label, times in (("wall", walls), ("cpu", cpus)):
        for name in tools:
            q1, med, q3 = _quartiles(times[name])
            print(f"  {label:<4} {name:<24} median {med * 1e3:7.2f} ms   IQR {q1 * 1e3:6.2f}-{q3 * 1e3:6.2f} ms")
        ratio = statistics.median(times[ours]) / statistics.median(times[base])
        r1, _, r3 = _quartiles([o / b for o, b in zip(times[ours], times[base]) if b > 0])
        print(f"  {label:<4} ratio of medians {ratio:.2f}x (per-round ratios, IQR {r1:.2f}-{r3:.2f}x; target <= 3x)")
    if counts:
        for name, count in counts.items():
            print(f"  instr {name:<23} {count:7.1f} M")
        print(f"  instr ratio {counts[ours] / counts[base]:.2f}x")


if __name__ == "__main__":
    main()
