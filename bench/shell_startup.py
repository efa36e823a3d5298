"""How often a command shorter than the shell's start-up reads <= 0 under each subtraction rule.

    PYTHONPATH=src python3 bench/shell_startup.py [--trials 20] [--runs 10]

Per trial: 30 runs of `sh -c ''` (the runner's calibration), then `--runs` runs of each command
through `sh -c`. Prints, per command:
  - runs <= 0 with the median of the calibration subtracted (hyperfine's rule, pairbench's before),
    and with its fastest subtracted, never more than the run took (pairbench's now);
  - trials whose median of the runs reads <= 0 under each rule (what `Time (median)` shows);
  - user CPU time below 0 under the median rule, and at 0 under the fastest rule;
  - trials in which a run's remainder fell within the start-up's spread (fastest to 90th
    percentile: when pairbench says so once), and the same with the median as the spread's end;
and the least, median and largest wall time of `true` run without a shell (nothing subtracted).
Run it on a busy machine too: the rules differ most under load.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics

from pairbench.model import Variant
from pairbench.runners.command.runner import CommandRunner
from pairbench.runners.command.startup import CALIBRATION_RUNS, shell_cost

COMMANDS = (":", "true", "true;true", "sleep 0.005", "sleep 0.02")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    runner = CommandRunner(random.Random(1))
    variant = Variant("x")
    keys = ("old_runs", "new_runs", "old_median", "new_median", "old_user", "new_user", "spread", "half")
    counts = {c: dict.fromkeys(keys, 0) for c in COMMANDS}
    direct: list[float] = []

    def run(command: str, shell: list[str] | None) -> tuple[float, float, float]:
        o = runner._run(command, variant, shell=shell, timeout=10.0, keep_stdout=False)
        return o.wall, o.user, o.sys

    try:
        for _ in range(args.trials):
            calibration = [run("", ["sh"]) for _ in range(CALIBRATION_RUNS)]
            cost = shell_cost(calibration)
            median_wall = statistics.median(r[0] for r in calibration)
            median_user = statistics.median(r[1] for r in calibration)
            for command in COMMANDS:
                k = counts[command]
                runs = [run(command, ["sh"]) for _ in range(args.runs)]
                old = [w - median_wall for w, _, _ in runs]
                new = [cost.net(*r)[0] for r in runs]
                k["old_runs"] += sum(x <= 0 for x in old)
                k["new_runs"] += sum(x <= 0 for x in new)
                k["old_median"] += statistics.median(old) <= 0
                k["new_median"] += statistics.median(new) <= 0
                k["old_user"] += sum(u - median_user < 0 for _, u, _ in runs)
                k["new_user"] += sum(cost.net(*r)[1] <= 0 for r in runs)
                k["spread"] += any(cost.within_spread(w) for w, _, _ in runs)
                k["half"] += any(w - cost.wall < median_wall - cost.wall for w, _, _ in runs)
            direct += [run("true", None)[0] for _ in range(args.runs)]
    finally:
        runner.close()
    total = args.trials * args.runs
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.trials} trials of {args.runs} runs")
    print("command            runs<=0 median/fastest  trial medians<=0  user<0 (median) / =0 (fastest)  "
          "within spread p90 / median")
    for command, k in counts.items():
        print(f"sh -c {command!r:13} {k['old_runs']:4d} / {k['new_runs']:<4d} of {total}   "
              f"{k['old_median']:3d} / {k['new_median']:<3d} of {args.trials}      "
              f"{k['old_user']:4d} / {k['new_user']:<4d}                     "
              f"{k['spread']:3d} / {k['half']:<3d} of {args.trials}")
    print(f"true without a shell: {min(direct) * 1e3:.3f} / {statistics.median(direct) * 1e3:.3f} / "
          f"{max(direct) * 1e3:.3f} ms (least / median / largest), all > 0: {all(w > 0 for w in direct)}")


if __name__ == "__main__":
    main()
