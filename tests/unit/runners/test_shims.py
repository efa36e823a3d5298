"""Version-manager shims resolved from shim trees laid out the way pyenv, rbenv and asdf write them.

The shim texts are those of `pyenv rehash` (pyenv 2.6), `rbenv rehash` and asdf's `reshim`; the
managers themselves are absent here, so the version is looked up from the files they read.
"""

import os
import shutil

import pytest

from pairbench.model import Benchmark, Variant
from pairbench.runners.command import BUILTIN_METRICS, CommandRunner, resolve_command
from pairbench.runners.shims import command_word, resolve_shim

PYENV_SHIM = """#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${{0##*/}}"

export PYENV_ROOT="{root}"
SHIM_PATH=${{0%/*}}
if [[ $SHIM_PATH != "{root}/shims" ]]; then
  export _PYENV_SHIM_PATH="$SHIM_PATH"
fi
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""

RBENV_SHIM = """#!/usr/bin/env bash
set -e
[ -n "$RBENV_DEBUG" ] && set -x

program="${{0##*/}}"

export RBENV_ROOT="{root}"
exec "/usr/lib/rbenv/libexec/rbenv" exec "$program" "$@"
"""

ASDF_SHIM = """#!/usr/bin/env bash
# asdf-plugin: nodejs 18.19.0
# asdf-plugin: nodejs 20.11.1
exec {data}/bin/asdf exec "node" "$@" # asdf_allow: ' asdf '
"""


def _executable(path, text="#!/bin/sh\nexit 0\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def pyenv_root(tmp_path):
    root = tmp_path / "pyenv"
    _executable(root / "shims" / "python3", PYENV_SHIM.format(root=root))
    for version in ("3.11.7", "3.12.1"):
        _executable(root / "versions" / version / "bin" / "python3")
    (root / "version").write_text("3.11.7\n")
    return root


def _env(*dirs):
    return {"PATH": os.pathsep.join(str(d) for d in dirs), "HOME": "/nonexistent-home"}


def test_pyenv_shim_resolves_to_the_global_version(pyenv_root, tmp_path):
    shim = resolve_shim("python3", _env(pyenv_root / "shims"), str(tmp_path))
    assert shim is not None and shim.manager == "pyenv"
    assert shim.shim == str(pyenv_root / "shims" / "python3")
    assert shim.executable == str(pyenv_root / "versions" / "3.11.7" / "bin" / "python3")
    assert shim.version == "3.11.7" and shim.how == "lookup"
    assert shim.bin_dir == str(pyenv_root / "versions" / "3.11.7" / "bin")


def test_pyenv_local_version_file_then_environment_take_precedence(pyenv_root, tmp_path):
    project = tmp_path / "project" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "project" / ".python-version").write_text("3.12.1\n")
    local = resolve_shim("python3", _env(pyenv_root / "shims"), str(project))
    assert local is not None and local.version == "3.12.1"
    chosen = resolve_shim("python3", {**_env(pyenv_root / "shims"), "PYENV_VERSION": "3.11.7"}, str(project))
    assert chosen is not None and chosen.executable == str(pyenv_root / "versions" / "3.11.7" / "bin" / "python3")


def test_pyenv_system_version_is_the_next_program_on_path(pyenv_root, tmp_path):
    system = _executable(tmp_path / "usr" / "bin" / "python3")
    (pyenv_root / "version").write_text("system\n")
    shim = resolve_shim("python3", _env(pyenv_root / "shims", system.parent), str(tmp_path))
    assert shim is not None and shim.executable == str(system) and shim.version == "system"


def test_a_shim_whose_version_is_not_installed_is_reported_unresolved(pyenv_root, tmp_path):
    shim = resolve_shim("python3", {**_env(pyenv_root / "shims"), "PYENV_VERSION": "3.99.0"}, str(tmp_path))
    assert shim is not None and shim.executable is None
    assert "libexec/pyenv not found" in shim.how


def test_rbenv_shim_reads_ruby_version_files(tmp_path):
    root = tmp_path / "rbenv"
    _executable(root / "shims" / "ruby", RBENV_SHIM.format(root=root))
    ruby = _executable(root / "versions" / "3.3.0" / "bin" / "ruby")
    (tmp_path / ".ruby-version").write_text("ruby-3.3.0\n")  # rbenv drops the `ruby-` prefix
    shim = resolve_shim("ruby", _env(root / "shims"), str(tmp_path))
    assert shim is not None and shim.manager == "rbenv" and shim.executable == str(ruby)


def test_asdf_shim_reads_tool_versions(tmp_path):
    data = tmp_path / "asdf"
    _executable(data / "shims" / "node", ASDF_SHIM.format(data=data))
    node = _executable(data / "installs" / "nodejs" / "20.11.1" / "bin" / "node")
    (tmp_path / ".tool-versions").write_text("python 3.11.7\nnodejs 20.11.1 18.19.0\n")
    shim = resolve_shim("node", _env(data / "shims"), str(tmp_path))
    assert shim is not None and shim.manager == "asdf"
    assert shim.executable == str(node) and shim.version == "20.11.1"
    older = _executable(data / "installs" / "nodejs" / "18.19.0" / "bin" / "node")
    override = resolve_shim("node", {**_env(data / "shims"), "ASDF_NODEJS_VERSION": "18.19.0"}, str(tmp_path))
    assert override is not None and override.executable == str(older)


def test_ordinary_scripts_and_binaries_are_not_shims(tmp_path):
    _executable(tmp_path / "bin" / "tool", "#!/usr/bin/env bash\nexec python3 \"$@\"\n")
    shutil.copy("/bin/true", tmp_path / "bin" / "true")
    assert resolve_shim("tool", _env(tmp_path / "bin"), str(tmp_path)) is None
    assert resolve_shim("true", _env(tmp_path / "bin"), str(tmp_path)) is None
    assert resolve_shim("missing", _env(tmp_path / "bin"), str(tmp_path)) is None


@pytest.mark.parametrize("command, word", [
    ("python3 -c pass", "python3"),
    ("  FOO=1 BAR=x python3 -c pass", "python3"),
    ("/usr/bin/env python3", "/usr/bin/env"),
])
def test_command_word_finds_the_executable_after_assignments(command, word):
    located = command_word(command)
    assert located is not None and command[located[0]:located[1]] == word


@pytest.mark.parametrize("command", ["'python3' -c pass", "$PY -c pass", "FOO='a b' python3", "(python3)"])
def test_command_word_leaves_shell_syntax_to_the_shell(command):
    assert command_word(command) is None


def test_run_file_records_the_shim_and_the_executable(pyenv_root, tmp_path):
    v = Variant("x", command="FOO=1 python3 -c pass", env=_env(pyenv_root / "shims"), cwd=str(tmp_path))
    facts = resolve_command(v)
    assert facts["executable"] == str(pyenv_root / "versions" / "3.11.7" / "bin" / "python3")
    assert facts["shim"] == str(pyenv_root / "shims" / "python3")
    assert (facts["shim_manager"], facts["version"]) == ("pyenv", "3.11.7")


def test_runner_says_in_one_line_which_executable_replaces_the_shim(pyenv_root, tmp_path):
    v = Variant("x", command="python3 -c pass", env=_env(pyenv_root / "shims"), cwd=str(tmp_path))
    missing = Variant("y", command="python3 -c pass", env={**_env(pyenv_root / "shims"), "PYENV_VERSION": "3.0"},
                      cwd=str(tmp_path))
    bench = Benchmark("b", "command", BUILTIN_METRICS, options={"command": "{variant}", "shell": False})
    runner = CommandRunner()
    try:
        notices = runner.prepare(bench, [v, missing])
    finally:
        runner.close()
    by_variant = {n.variant: n for n in notices}
    assert by_variant["x"].kind == "shim-resolved"
    assert str(pyenv_root / "versions" / "3.11.7" / "bin" / "python3") in by_variant["x"].message
    assert by_variant["y"].kind == "shim" and "could not be resolved" in by_variant["y"].message


def test_a_shim_is_resolved_once_per_environment(pyenv_root, tmp_path):
    env = {**_env(pyenv_root / "shims"), "PB_TEST": "once"}
    first = resolve_shim("python3", env, str(tmp_path))
    shutil.rmtree(pyenv_root / "versions")  # a second lookup would now fail
    assert resolve_shim("python3", env, str(tmp_path)) == first and first.executable is not None
