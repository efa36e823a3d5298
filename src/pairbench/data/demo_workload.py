"""The demo's workload: one task done two ways, chosen by the DEMO_SORT environment variable.

`sort` sorts 15,000 pseudo-random floats: with DEMO_SORT=key through a redundant identity key
function (one Python call per item), with DEMO_SORT=plain without it: a real difference.
`json` encodes and decodes the same document whatever DEMO_SORT says: no real difference.

The program reports `work`: its task's CPU time divided by the CPU time of a fixed reference
loop run right after it, the median over REPEATS such pairs, printed as a JSON line. Why not
the task's own time: on the shared 2-core machine at a load of 4-8, the task's time varied by
20-35% between processes in wall time and still 12-25% in CPU time, even as the fastest of 30
repetitions, because a busy machine slows a whole process (another virtual CPU's load, cache
and memory bandwidth), not single repetitions. That slowdown hits the reference loop beside the
task alike, and the ratio varied by 4-7% (measured by hand: 14 A/A pairs of processes, sd of
the log-ratio 3.8% with 15 pairs per process, against 24.8% for the task's time). The garbage
collector is off so that a collection does not land in some repetitions and not others.
"""

import gc
import json
import os
import random
import statistics
import sys
import time

REPEATS = 9
"""Task/reference pairs per process; the median ratio is reported."""

REFERENCE_STEPS = 30_000
"""Steps of the reference loop: about as long as one task."""


def sort_task(n):
    rng = random.Random(42)
    data = [rng.random() for _ in range(n)]
    keyed = os.environ.get("DEMO_SORT", "key") == "key"
    start = time.process_time()
    if keyed:
        sorted(data, key=lambda x: x)
    else:
        sorted(data)
    return time.process_time() - start


def json_task(n):
    doc = {"items": [{"id": i, "name": "item%d" % i, "tags": ["a", "b"], "price": i * 0.5} for i in range(n // 10)]}
    start = time.process_time()
    json.loads(json.dumps(doc))
    return time.process_time() - start


def reference():
    """The same integer arithmetic every time: the yardstick for how fast this process runs now."""
    start = time.process_time()
    acc = 0
    for i in range(REFERENCE_STEPS):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return time.process_time() - start


def work_ratio(task_times, reference_times):
    """The reported figure: the median over repetitions of task time / reference time."""
    return statistics.median(t / max(r, 1e-9) for t, r in zip(task_times, reference_times))


def main():
    task = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 15_000
    fn = {"sort": sort_task, "json": json_task}[task]
    gc.disable()
    tasks, refs = [], []
    for _ in range(REPEATS):
        tasks.append(fn(n))
        refs.append(reference())
    print(json.dumps({"pairbench": {"work": work_ratio(tasks, refs)}}))


if __name__ == "__main__":
    main()
