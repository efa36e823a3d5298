"""Version-manager shims: find the real executable behind `python3`, `ruby`, `node` on PATH.

Why: with pyenv, rbenv, nodenv, asdf or mise, the `python3` found on PATH is a small script (or a
symlink to the manager) that runs the manager to pick a version and then execs it. Measured
through the shim, `python3 -c pass` costs ~170 ms of bash and manager instead of ~10 ms of
Python, and an A/B of two interpreters has its ratio pulled towards 1. The command runner runs
the executable this module finds instead, with the version's bin directory first on PATH, as the
manager's own `exec` would.

How: the shim is recognised by its text (the templates of `pyenv rehash`/`rbenv rehash`, asdf's
`reshim`) or by its target (mise, rtx, volta). The manager's own `which` answers first (exact, with
its plugins and rules); when it cannot run, the version is looked up as the managers document it
(`<TOOL>_VERSION`, the nearest version file up from the working directory, then the global one).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Mapping

__all__ = ["Shim", "resolve_shim", "command_word", "MANAGER_TIMEOUT_S"]

MANAGER_TIMEOUT_S = 15.0
"""How long the manager's own `which` may take (pyenv needs ~0.1 s; a cold disk more)."""
_HEAD_BYTES = 4096
"""Shim scripts are a few hundred bytes; an executable's first 4 KiB tells it is not one."""

# pyenv, rbenv, nodenv, goenv, plenv, jenv ... all write this shim (`<tool>-rehash`):
#   export PYENV_ROOT="/root/.pyenv"
#   exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"
_ENV_FAMILY = re.compile(r'^exec "(?P<tool>[^"]*/(?P<name>[a-z]+env))" exec "\$program"', re.MULTILINE)
_ENV_ROOT = re.compile(r'^export (?P<var>[A-Z]+_ROOT)="(?P<root>[^"]*)"', re.MULTILINE)
# asdf's reshim:  # asdf-plugin: python 3.11.7  ...  exec /home/u/.asdf/bin/asdf exec "python3" "$@"
_ASDF_PLUGIN = re.compile(r"^# asdf-plugin: (?P<plugin>\S+) (?P<version>\S+)", re.MULTILINE)
_ASDF_EXEC = re.compile(r'^exec (?P<tool>\S+) exec "', re.MULTILINE)
# Managers whose shims are symlinks to one binary that dispatches on its name.
_LINKED = {"mise": "mise", "rtx": "rtx", "volta-shim": "volta"}
# The version file each *env tool reads (its README); others default to `.<lang>-version`.
_VERSION_FILES = {"pyenv": ".python-version", "rbenv": ".ruby-version", "nodenv": ".node-version",
                  "goenv": ".go-version", "plenv": ".perl-version", "jenv": ".java-version"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class Shim:
    """A version-manager shim found on PATH and what it stands for."""

    manager: str
    """`pyenv`, `rbenv`, `asdf`, `mise`...: who wrote the shim."""
    shim: str
    """The shim's path, as PATH found it."""
    executable: str | None
    """The real executable the shim would exec, or None when it could not be resolved."""
    version: str | None = None
    """The manager's version name (`3.11.7`), where known."""
    how: str = ""
    """`manager` (its own `which` answered) or `lookup` (version files read here); why not, if unresolved."""

    @property
    def bin_dir(self) -> str | None:
        """The directory the manager's `exec` puts first on PATH."""
        return os.path.dirname(self.executable) if self.executable else None


def command_word(command: str) -> tuple[int, int, str] | None:
    """Where the executable is in a shell command line: (start, end, word), after `VAR=value`s.

    None when the first word is shell syntax (quotes, `$`, redirections...), which is left to the shell.
    """
    pos = 0
    while True:
        match = re.compile(r"\s*(\S+)").match(command, pos)
        if match is None:
            return None
        word = match.group(1)
        if _ASSIGNMENT.match(word):
            value = word.split("=", 1)[1]
            if any(c in value for c in "'\"`$\\"):
                return None  # a quoted value may hold spaces; let the shell parse it
            pos = match.end()
            continue
        if any(c in word for c in "|&;<>()$`\\\"'*?[#~{}"):
            return None
        return match.start(1), match.end(1), word


_resolved: dict[tuple[str, tuple[tuple[str, str], ...], str | None], Shim | None] = {}


def resolve_shim(name: str, env: Mapping[str, str], cwd: str | None = None) -> Shim | None:
    """As `_resolve_shim`, remembered: the run file and the runner ask for each variant, and
    asking pyenv costs ~0.1-0.3 s."""
    key = (name, tuple(sorted(env.items())), cwd)
    if key not in _resolved:
        _resolved[key] = _resolve_shim(name, env, cwd)
    return _resolved[key]


def _resolve_shim(name: str, env: Mapping[str, str], cwd: str | None = None) -> Shim | None:
    """The shim `name` finds on the variant's PATH, resolved; None when it is not a shim.

    Args:
        name: the command word (`python3`); a path with a `/` is looked at as given.
        env: the variant's environment (PATH, PYENV_VERSION, ASDF_*_VERSION, HOME...).
        cwd: the variant's working directory, where version files are looked up from.
    """
    found = name if "/" in name else shutil.which(name, path=env.get("PATH"))
    if not found or not os.path.isfile(found):
        return None
    program = os.path.basename(found)
    target = os.path.basename(os.path.realpath(found))
    if target in _LINKED:
        tool = os.path.join(os.path.dirname(os.path.realpath(found)), _LINKED[target])
        return _ask(Shim(_LINKED[target], found, None), [tool, "which", program], env, cwd)
    head = _head(found)
    if head is None:
        return None
    family = _ENV_FAMILY.search(head)
    if family:
        return _resolve_env_family(found, program, head, family, env, cwd)
    asdf = _ASDF_EXEC.search(head)
    plugins = [(m.group("plugin"), m.group("version")) for m in _ASDF_PLUGIN.finditer(head)]
    if asdf and plugins:
        shim = _ask(Shim("asdf", found, None), [asdf.group("tool"), "which", program], env, cwd)
        if shim.executable:
            return shim
        return _lookup_asdf(found, program, plugins, env, cwd) or shim
    return None


def _head(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    if not data.startswith(b"#!"):
        return None
    return data.decode("utf-8", "replace")


def _ask(shim: Shim, argv: list[str], env: Mapping[str, str], cwd: str | None) -> Shim:
    """Ask the manager (`pyenv which python3`); the answer is the executable."""
    if not (os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK)) and shutil.which(argv[0], path=env.get("PATH")) is None:
        return Shim(shim.manager, shim.shim, None, shim.version, f"{argv[0]} not found")
    try:
        done = subprocess.run(argv, env=dict(env), cwd=cwd or None, capture_output=True, text=True,
                              timeout=MANAGER_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Shim(shim.manager, shim.shim, None, shim.version, f"`{' '.join(argv)}` failed: {exc}")
    path = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0 or not os.path.isfile(path):
        why = " ".join((done.stderr or done.stdout).split())[:200] or f"exit code {done.returncode}"
        return Shim(shim.manager, shim.shim, None, shim.version, f"`{' '.join(argv)}`: {why}")
    return Shim(shim.manager, shim.shim, path, shim.version, "manager")


def _resolve_env_family(found: str, program: str, head: str, family: re.Match[str],
                        env: Mapping[str, str], cwd: str | None) -> Shim:
    tool, manager = family.group("tool"), family.group("name")
    root_match = _ENV_ROOT.search(head)
    root_var = root_match.group("var") if root_match else f"{manager.upper()}_ROOT"
    root = root_match.group("root") if root_match else os.path.dirname(os.path.dirname(found))
    # the shim exports its root over any inherited one, so the shim's text is the truth
    tool_env = {**env, root_var: root if root_match else env.get(root_var) or root}
    versions = _env_family_versions(manager, root, tool_env, cwd)
    version = versions[0] if versions else None
    asked = _ask(Shim(manager, found, None, version), [tool, "which", program], tool_env, cwd)
    if asked.executable:
        return asked
    for candidate in versions:
        path = _system_which(program, env, found) if candidate == "system" else \
            os.path.join(root, "versions", candidate, "bin", program)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return Shim(manager, found, path, candidate, "lookup")
    return Shim(manager, found, None, version, asked.how or f"no {program} in version {version}")


def _env_family_versions(manager: str, root: str, env: Mapping[str, str], cwd: str | None) -> list[str]:
    """The versions a *env tool would select, in order (`PYENV_VERSION=3.12:3.11` names several)."""
    chosen = env.get(f"{manager.upper()}_VERSION", "")
    if not chosen:
        file_name = _VERSION_FILES.get(manager, f".{manager[:-3]}-version")
        path = _nearest(file_name, cwd or os.getcwd()) or os.path.join(root, "version")
        chosen = ":".join(_read_words(path)) or "system"
    prefix = {"pyenv": "python-", "rbenv": "ruby-"}.get(manager, "")
    return [v[len(prefix):] if prefix and v.startswith(prefix) else v for v in chosen.split(":") if v]


def _lookup_asdf(found: str, program: str, plugins: list[tuple[str, str]],
                 env: Mapping[str, str], cwd: str | None) -> Shim | None:
    data_dir = os.path.dirname(os.path.dirname(found))  # <data>/shims/<program>
    home = env.get("HOME", os.path.expanduser("~"))
    file_name = env.get("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME", ".tool-versions")
    files = [p for p in (_nearest(file_name, cwd or os.getcwd()), os.path.join(home, file_name)) if p]
    for plugin in dict.fromkeys(p for p, _ in plugins):
        chosen = env.get(f"ASDF_{plugin.upper().replace('-', '_')}_VERSION", "").split()
        for path in files:
            if chosen:
                break
            for line in _read_lines(path):
                words = line.split()
                if words and words[0] == plugin:
                    chosen = words[1:]
                    break
        for version in chosen:
            candidate = _system_which(program, env, found) if version == "system" else \
                os.path.join(data_dir, "installs", plugin, version, "bin", program)
            if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return Shim("asdf", found, candidate, version, "lookup")
    return None


def _system_which(program: str, env: Mapping[str, str], shim: str) -> str | None:
    """`system`: the program on PATH once the shims directory is left out."""
    shims_dir = os.path.dirname(shim)
    path = os.pathsep.join(d for d in env.get("PATH", os.defpath).split(os.pathsep)
                           if os.path.realpath(d or ".") != os.path.realpath(shims_dir))
    return shutil.which(program, path=path)


def _nearest(file_name: str, start: str) -> str | None:
    here = os.path.abspath(start)
    while True:
        candidate = os.path.join(here, file_name)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return [line.split("#", 1)[0].strip() for line in fh]
    except OSError:
        return []


def _read_words(path: str) -> list[str]:
    return [word for line in _read_lines(path) for word in line.split()]
