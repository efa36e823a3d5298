"""Known truth for `--profile`: `python shift.py base` and `python shift.py slower` differ in one
function: the candidate runs `work` four times as long (+150% of the run, all of it in `work`);
`python shift.py moved` moves time from `other` to `work` (work x2.5, other x0.5)."""

import sys

UNIT = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000_000


def work(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
    return s


def other(n: int) -> int:
    s = 0
    for i in range(n):
        s += i
    return s


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "base"
    factor_work, factor_other = {"base": (1.0, 1.0), "slower": (4.0, 1.0), "moved": (2.5, 0.5)}[mode]
    work(int(UNIT * factor_work))
    other(int(UNIT * factor_other))


main()
