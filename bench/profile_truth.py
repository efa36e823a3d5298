"""`--profile` on known truth: how much of the measured difference each function is given.

    python3 bench/profile_truth.py [--unit-py 5000000] [--unit-c 50000000] [--runs 10] [--blocks 4]
                                   [--repeat 3] [--cases py-slower,py-moved,c-slower,c-moved]

The programs are tests/data/profile/shift.py and shift.c (built here with -O1 and frame pointers):
`base` runs work(U) then other(U); `slower` runs work(4U) (all of the difference in `work`);
`moved` runs work(2.5U) and other(0.5U): +1.5U in `work`, -0.5U in `other`, +1U in all, so the
truth is `work` +150% and `other` -50% of the difference. Python is profiled by py-spy, C by
perf (or callgrind where perf cannot record). Each case is run `--repeat` times by
`pairbench cmd --profile` (its own process, its own run file); printed per case: the shares each
repeat gave `work` and `other` (self time, of the measured difference), against the truth, and the
per-block interval's width. The figures in docs/profiles.md come from this script on a quiet
machine; on a loaded one the wall-time samples of py-spy vary more from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "profile"
TRUTH = {"slower": {"work": 1.0, "other": 0.0}, "moved": {"work": 1.5, "other": -0.5}}


def _shares(run_file: Path) -> dict[str, tuple[float | None, float | None]]:
    """{function: (self share, interval width as a share)} from a run file (read with pairbench's own code)."""
    sys.path.insert(0, str(ROOT / "src"))
    from pairbench.analysis.profiles import profile_differences
    from pairbench.store.runfile import load_run

    (d,) = profile_differences(load_run(run_file))
    out: dict[str, tuple[float | None, float | None]] = {}
    for f in d.frames:
        name = f.frame.split(" (")[0]
        if name in ("work", "other"):
            width = (f.interval[1] - f.interval[0]) / abs(d.difference_s) if f.interval and d.difference_s else None
            out[name] = (f.self_share, width)
    return out


def _case(name: str, args: argparse.Namespace, tmp: Path) -> list[dict[str, object]]:
    lang, mode = name.split("-")
    if lang == "py":
        prog = f"{sys.executable} {DATA / 'shift.py'}"
        unit = args.unit_py
    else:
        exe = tmp / "shift"
        if not exe.exists():
            subprocess.run(["gcc", "-O1", "-fno-omit-frame-pointer", "-o", str(exe), str(DATA / "shift.c")], check=True)
        prog, unit = str(exe), args.unit_c
    rows = []
    for i in range(args.repeat):
        run_file = tmp / f"{name}-{i}.json"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        proc = subprocess.run([sys.executable, "-m", "pairbench", "cmd", f"{prog} base {unit}", f"{prog} {mode} {unit}",
                               "--profile", "--profile-blocks", str(args.blocks), "-r", str(args.runs), "-w", "1",
                               "--no-history", "--no-progress", "--export-json", str(run_file)],
                              capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{name}: pairbench exited {proc.returncode}: {proc.stderr[-600:]}")
        rows.append({"case": name, "repeat": i, **{k: v for k, v in _shares(run_file).items()}})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--unit-py", type=int, default=5_000_000)
    ap.add_argument("--unit-c", type=int, default=50_000_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default="py-slower,py-moved,c-slower,c-moved")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pairbench-profile-truth-") as tmp:
        for name in args.cases.split(","):
            truth = TRUTH[name.split("-")[1]]
            rows = _case(name, args, Path(tmp))
            if args.json:
                for row in rows:
                    print(json.dumps(row))
                continue
            for fn in ("work", "other"):
                got = [r.get(fn, (None, None)) for r in rows]
                shares = ", ".join("–" if s is None else f"{s * 100:+.0f}%" for s, _ in got)
                widths = ", ".join("–" if w is None else f"{w * 100:.0f}" for _, w in got)
                print(f"{name:10} {fn:6} truth {truth[fn] * 100:+.0f}%  measured {shares}  "
                      f"(interval widths, points: {widths})")


if __name__ == "__main__":
    main()
