"""The loop count of a timed sample, shared by the pytest plugin and the asv worker beside it.

Both run as scripts (or a plugin) from this folder, so it is on sys.path[0]; like them, this file
imports nothing of pairbench.
"""

CALIBRATE_MIN_TIME = 0.02
"""Seconds one trial must last before its count is scaled to the target (timeit.autorange's 0.2 s / 10)."""


def calibrate(run, target):
    """Loops for about `target` s per sample, grown geometrically then scaled (timeit.autorange).

    `run(loops)` times that many loops and returns seconds. Returns {"loops": N, "time": last trial}.
    """
    loops = 1
    while True:
        t = run(loops)
        if t >= CALIBRATE_MIN_TIME or loops >= 10 ** 9:
            break
        loops *= 10 if t < CALIBRATE_MIN_TIME / 20 else 2
    if loops == 1 and t >= target:
        return {"loops": 1, "time": t}
    for _ in range(2):
        loops = max(1, int(round(loops * target / max(t, 1e-9))))
        t = run(loops)
    loops = max(1, int(round(loops * target / max(t, 1e-9))))
    if loops >= 100:
        digits = len(str(loops)) - 2
        loops = int(round(loops / 10 ** digits)) * 10 ** digits
    return {"loops": loops, "time": t}
