"""The demo's workload: one task done two ways, chosen by the DEMO_SORT environment variable.

`sort` sorts 200,000 pseudo-random floats: with DEMO_SORT=key through a redundant identity key
function (one Python call per item), with DEMO_SORT=plain without it: a real difference.
`json` encodes and decodes the same document whatever DEMO_SORT says: no real difference.
Prints its own timing as a JSON line, which pairbench picks up as the metric `work_time`.
"""

import json
import os
import random
import sys
import time


def sort_task(n):
    rng = random.Random(42)
    data = [rng.random() for _ in range(n)]
    start = time.perf_counter()
    if os.environ.get("DEMO_SORT", "key") == "key":
        data.sort(key=lambda x: x)
    else:
        data.sort()
    return time.perf_counter() - start


def json_task(n):
    doc = {"items": [{"id": i, "name": "item%d" % i, "tags": ["a", "b"], "price": i * 0.5} for i in range(n // 40)]}
    start = time.perf_counter()
    for _ in range(2):
        doc = json.loads(json.dumps(doc))
    return time.perf_counter() - start


def main():
    task = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
    elapsed = {"sort": sort_task, "json": json_task}[task](n)
    print(json.dumps({"pairbench": {"work_time": elapsed}}))


if __name__ == "__main__":
    main()
