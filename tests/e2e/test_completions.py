"""`pairbench completions SHELL` loads in the real shells and completes flags and choices."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import cli_env

PAIRBENCH = f"{sys.executable} -m pairbench"


def _shell(argv: list[str], tmp_path) -> str:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=cli_env({"HOME": str(tmp_path)}),
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.slow
def test_bash_loads_the_script_and_completes(tmp_path) -> None:
    out = _shell(["bash", "-c", f"source <({PAIRBENCH} completions bash) && complete -p pairbench"], tmp_path)
    assert out.strip() == "complete -F _pairbench pairbench"
    script = (f"source <({PAIRBENCH} completions bash); "
              'COMP_WORDS=(pairbench cmd --sty); COMP_CWORD=2; _pairbench; echo "${COMPREPLY[@]}"; '
              'COMP_WORDS=(pairbench cmd --style ""); COMP_CWORD=3; _pairbench; echo "${COMPREPLY[@]}"; '
              'COMP_WORDS=(pairbench com); COMP_CWORD=1; _pairbench; echo "${COMPREPLY[@]}"')
    lines = _shell(["bash", "-c", script], tmp_path).splitlines()
    assert lines == ["--style", "auto basic full nocolor color none", "compare completions"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (scripts/test.sh installs it)")
def test_zsh_loads_the_script(tmp_path) -> None:
    script = (f"autoload -U compinit && compinit -u -d {tmp_path}/zcd && source <({PAIRBENCH} completions zsh) "
              "&& print ${_comps[pairbench]}")
    assert _shell(["zsh", "-f", "-c", script], tmp_path).strip() == "_pairbench"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (scripts/test.sh installs it)")
def test_fish_completes_flags_and_choices(tmp_path) -> None:
    script = (f"{PAIRBENCH} completions fish | source; complete -C 'pairbench cmd --time-u'; "
              "complete -C 'pairbench cmd --style '")
    words = [line.split("\t")[0] for line in _shell(["fish", "--no-config", "-c", script], tmp_path).splitlines()]
    assert words == ["--time-unit", "auto", "basic", "color", "full", "nocolor", "none"]
