"""What a variant's command becomes: the template filled in, its environment, the executable
behind it (for the run file), and how its process group is stopped."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
from typing import Any, Mapping

from pairbench.model import Variant
from pairbench.runners.command.rss import rss_method
from pairbench.runners.command.shells import executable_word as _executable_word
from pairbench.runners.shims import resolve_shim

__all__ = ["PLACEHOLDER", "expand_command", "resolve_command", "variant_environment", "kill_group"]

PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
"""`{NAME}` in a command: a variant's parameter (`${HOME}` is the shell's)."""


def expand_command(template: str, variant: Variant) -> str:
    """Fill `{variant}` with the variant's command (and args), then `{NAME}` with its parameters.

    Two passes, so a variant's own command may hold parameters too (`{py} -c ...` swept by -L).
    """
    prefix = " ".join([variant.command, *map(shlex.quote, variant.args)]).strip()
    command = template.replace("{variant}", prefix)
    params = {k: str(v) for k, v in variant.params.items()}

    def fill(match: re.Match[str]) -> str:
        return params.get(match.group(1), match.group(0))

    return PLACEHOLDER.sub(fill, command)


def resolve_command(variant: Variant, template: str = "{variant}") -> dict[str, Any]:
    """What the variant will run, for the run file: the command, its executable's full path and,
    when that is a version manager's shim, the shim, its manager and the version it selects.

    Leading `VAR=value` assignments are skipped: the executable is the word after them.
    """
    command = expand_command(template, variant)
    facts: dict[str, Any] = {"command": command, "rss_method": rss_method().name}
    first = _executable_word(command)
    if first is None:
        return facts
    env = variant_environment(variant)
    shim = resolve_shim(first, env, variant.cwd)
    if shim is not None:
        facts.update(executable=shim.executable or shim.shim, shim=shim.shim, shim_manager=shim.manager)
        if shim.version:
            facts["version"] = shim.version
        if shim.executable is None:
            facts["shim_unresolved"] = shim.how
        return facts
    path = shutil.which(first, path=env.get("PATH")) if "/" not in first else first
    facts["executable"] = os.path.realpath(path) if path else first
    return facts


def variant_environment(variant: Variant, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The inherited environment with the variant's additions and removals."""
    env = dict(os.environ if base is None else base)
    for key in variant.unset_env:
        env.pop(key, None)
    env.update({k: str(v) for k, v in variant.env.items()})
    return env


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """Kill the process group a child leads (it was started in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
