"""pairbench cmd on an output-heavy command next to hyperfine, and its RSS readings next to /usr/bin/time.

    PYTHONPATH=src python3 bench/output_and_rss.py [--rounds 5] [--runs 20] [--bytes 200000000]

Prints, from one run of this script:
  1. `head -c BYTES /dev/zero` timed by pairbench (`cmd -N`, stdout discarded by default) and by
     hyperfine (`-N --output=null`), in alternating turns, `--rounds` times `--runs` runs each:
     each tool's median of its per-turn medians, and the ratio pairbench / hyperfine
     (target: within 5%).
  2. pairbench's own peak RSS (`/usr/bin/time -f %M` around the pairbench process) with a small
     and a large output, once with stdout discarded and once with a `--metric` regex that makes
     pairbench scan the whole output (target: flat in the output size).
  3. the `rss` pairbench records for `/bin/true`, `head -c1 FILE` and a 100 MiB allocation, next
     to `/usr/bin/time -f %M` for the same commands (target: within 20%).
Needs hyperfine and /usr/bin/time (Debian packages `hyperfine`, `time`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME = "/usr/bin/time"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run(argv: list[str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])}...: exit {proc.returncode}: {proc.stderr[-800:]}")
    return proc


def _pairbench(args: list[str], tmp: Path, name: str) -> dict[str, object]:
    path = tmp / f"{name}.json"
    _run([sys.executable, "-m", "pairbench", "cmd", *args, "--no-history", "--no-progress",
          "--export-json", str(path)])
    doc: dict[str, object] = json.loads(path.read_text())
    return doc


def _median_of(doc: dict[str, object], variant: str, metric: str) -> float:
    samples = doc["samples"]
    assert isinstance(samples, list)
    return statistics.median(s["value"] for s in samples
                             if s["variant"] == variant and s["metric"] == metric and not s.get("warmup"))


def output_heavy(rounds: int, runs: int, size: int, tmp: Path) -> None:
    command = f"head -c {size} /dev/zero"
    ours: list[float] = []
    theirs: list[float] = []
    for i in range(rounds):
        # pairbench compares two commands: both are this one, and both halves count
        doc = _pairbench(["-N", "-r", str(runs // 2), "-w", "1", command, command, "-n", "a", "-n", "b"],
                         tmp, f"out{i}")
        ours.append(statistics.median(s["value"] for s in doc["samples"]  # type: ignore[union-attr]
                                      if s["metric"] == "time" and not s.get("warmup")))
        export = tmp / f"hf{i}.json"
        _run(["hyperfine", "-N", "--output=null", "-w", "2", "-r", str(runs), "--export-json", str(export), command])
        theirs.append(statistics.median(json.loads(export.read_text())["results"][0]["times"]))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"1. `{command}` ({rounds} alternating turns of {runs} runs)")
    print(f"   pairbench {a * 1e3:8.2f} ms   hyperfine {b * 1e3:8.2f} ms   ratio {a / b:.3f}")
    print(f"   per turn: pairbench {[round(x * 1e3, 1) for x in ours]} ms, hyperfine {[round(x * 1e3, 1) for x in theirs]} ms")


def own_rss(size: int, tmp: Path) -> None:
    print("2. pairbench's own peak RSS (KiB, /usr/bin/time -f %M around pairbench)")
    for label, extra in (("stdout discarded", []), ("--metric scans it", ["--metric", r"x=x=(\d+)"])):
        cells = []
        for n in (1_000_000, size):
            out = tmp / f"rss-{n}.json"
            proc = _run([TIME, "-f", "%M", sys.executable, "-m", "pairbench", "cmd", "-r", "3", "-w", "1",
                         f"head -c {n} /dev/zero; echo x=1", "echo x=2", *extra, "--no-history", "--no-progress",
                         "--export-json", str(out)])
            cells.append(f"{n / 1e6:g} MB output: {int(proc.stderr.split()[-1]):7d}")
        print(f"   {label:18s} " + "   ".join(cells))


def rss_readings(tmp: Path) -> None:
    data = tmp / "one-page"
    data.write_bytes(b"x" * 4096)
    alloc = "x = bytearray(100 * 2**20)"
    commands = {"/bin/true": ["/bin/true"], "head -c1 FILE": ["head", "-c1", str(data)],
                "100 MiB allocation": [sys.executable, "-c", alloc]}
    doc = _pairbench(["-N", "-r", "5", "-w", "1", "/bin/true", f"head -c1 {data}", f'{sys.executable} -c "{alloc}"',
                      "-n", "/bin/true", "-n", "head -c1 FILE", "-n", "100 MiB allocation"], tmp, "rss")
    variants = doc["variants"]
    assert isinstance(variants, list)
    print(f"3. rss (KiB, median of 5) measured by {variants[0]['meta'].get('rss_method')}, vs /usr/bin/time -f %M")
    for name, argv in commands.items():
        ours = _median_of(doc, name, "rss") / 1024
        theirs = statistics.median(int(_run([TIME, "-f", "%M", *argv]).stderr.split()[-1]) for _ in range(5))
        print(f"   {name:20s} pairbench {ours:9.0f}   /usr/bin/time {theirs:9.0f}   ratio {ours / theirs:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bytes", type=int, default=200_000_000)
    args = parser.parse_args()
    for tool in ("hyperfine", TIME):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        output_heavy(args.rounds, args.runs, args.bytes, Path(tmp))
        own_rss(args.bytes, Path(tmp))
        rss_readings(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
