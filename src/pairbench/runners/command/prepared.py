"""What a variant's command is started with, made once for the whole call: its argv and environment.

Why: a run of /bin/true takes ~0.75 ms, and rebuilding the environment (a copy of os.environ
with the variant's changes), splitting the command and encoding ~40 variables for the launcher
cost pairbench ~0.2 ms more on every run (docs/measurement.md). What varies per run (the
environment offset, a fresh --metric-json file) goes beside the cached environment, never into it.
"""

from __future__ import annotations

import os
import shlex

from pairbench.model import Variant
from pairbench.runners.command.invocation import variant_environment
from pairbench.runners.command.metric_json import METRIC_JSON_ENV
from pairbench.runners.command.shells import shell_words, take_assignments

__all__ = ["ENV_OFFSET", "PER_RUN_ENV", "PreparedCommands"]

ENV_OFFSET = "PAIRBENCH_ENV_OFFSET"
"""A variable of random length per run, so that the stack's start moves (layout bias, Mytkowicz et al.)."""

PER_RUN_ENV = (ENV_OFFSET, METRIC_JSON_ENV)
"""Variables set afresh on every run: kept out of the cached environment so that none appears twice."""


class PreparedCommands:
    """(argv, environment) per variant, command, shell and PATH head; both are shared: never mutate them."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, str, str, str], tuple[Variant, list[str], dict[str, str]]] = {}

    def get(self, variant: Variant, command: str, shell: bool | str | list[str] | None,
            path_first: str) -> tuple[list[str], dict[str, str]]:
        key = (id(variant), command, repr(shell), path_first)
        made = self._made.get(key)
        if made is None or made[0] is not variant:  # the variant object is kept, so its id is not reused
            env = variant_environment(variant)
            if path_first:  # what the version manager's `exec` does before it execs the version
                env["PATH"] = os.pathsep.join(filter(None, [path_first, env.get("PATH", "")]))
            for name in PER_RUN_ENV:
                env.pop(name, None)
            words = list(shell) if isinstance(shell, list) else shell_words(shell) if shell is not None else None
            # a leading space keeps a command such as `-x` from being read as the shell's own option
            argv = ([*words, "-c", " " + command if command.startswith("-") else command] if words
                    else take_assignments(shlex.split(command), env))
            made = self._made[key] = (variant, argv, env)
        return made[1], made[2]
