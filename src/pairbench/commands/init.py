"""`pairbench init`: write a commented example suite file that runs as written with python3."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["register", "EXAMPLE_SUITE"]

EXAMPLE_SUITE = r'''# pairbench suite: one experiment, every comparison of it.  Run it with `pairbench run`.
# The format is documented in docs/suite.md; every key below is optional unless marked.

[defaults]
runs = 10            # blocks: every variant runs once per block, in random order
warmup = 1           # warm-up runs per variant, discarded
threshold = 1.0      # the noise band, in percent: smaller differences count as "same"
max_time = 120       # seconds for the whole suite; stops early once every answer is clear

# --- variants: ways to run the system under test. {variant} in a benchmark stands for
# --- `command` followed by `args`. Exactly one is the baseline (the first, unless one says so).
[variants.python]
command = "python3"                     # required: a command prefix or an executable
baseline = true

[variants.python-nosite]
command = "python3"
args = ["-S"]                           # extra arguments after the command: skip `import site`
env = { PYTHONHASHSEED = "0" }          # added to the inherited environment (NAME = false removes one)
params = { SIZE = 20000 }               # its own value for {SIZE}, since the sweep below skips it

# A variant built from a git ref, in its own worktree, once per commit and build command:
# [variants.patched]
# git = { repo = "~/src/ruby", ref = "my-branch", build = "./configure && make -j2" }
# command = "{worktree}/ruby"

# --- sweeps: a parameter with several values; multiplies the variants it applies to.
# Each point is a variant named like python/SIZE=20000.
[[sweeps]]
name = "SIZE"
values = [20000, 200000]                # or range = { start = 0, stop = 42, step = 3 }
as = "placeholder"                      # "env" (an environment variable), "arg", or "placeholder" ({SIZE})
variants = ["python"]                   # which variants it multiplies (default: all)

# To skip combinations:
# [[exclude]]
# variant = "python"
# SIZE = 200000

[benchmarks.startup]
kind = "command"                        # the default; "http" and "micro" are the other kinds
command = "{variant} -c pass"

[benchmarks.sort]
# {SIZE} is filled from the sweep (or the variant's params)
command = "{variant} -c 'import random, time; r = random.Random(1); xs = [r.random() for _ in range({SIZE})]; t = time.perf_counter(); sorted(xs); print(\"sort time:\", time.perf_counter() - t)'"
# numbers the program prints about itself: name = regex with one group around the number
metrics = { sort = { regex = 'sort time: ([\d.e-]+)', unit = "s" } }
timeout = 60                            # seconds per run
'''


def register(sub: Any) -> None:
    p = sub.add_parser(
        "init",
        help="write a commented example suite file (./pairbench.toml)",
        description="Write a commented example suite that runs as written with python3; edit it, then `pairbench run`.",
    )
    p.add_argument("file", nargs="?", default="pairbench.toml", metavar="FILE", help="where to write (default ./pairbench.toml)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pairbench.errors import UserError

    path = Path(args.file)
    if path.exists() and not args.force:
        raise UserError(f"{path} already exists; pass --force to overwrite it, or name another file")
    from pairbench.flows.saved import write_new_file

    write_new_file(str(path), EXAMPLE_SUITE)
    print(f"wrote {path}: 2 variants (one swept over SIZE), 2 benchmarks. Run it with: pairbench run"
          + ("" if str(path) == "pairbench.toml" else f" {path}"))
    return 0
