"""What `pairbench --help` loads beyond the interpreter's own start-up (bench/startup.py times it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import cli_env

# Standard-library modules that cost start-up and that --help has no use for: typing, pathlib and
# dataclasses (~15-45 M instructions each), shutil (with bz2/lzma), threading and contextlib.
NOT_AT_START = ("typing", "pathlib", "dataclasses", "inspect", "shutil", "threading", "contextlib", "shlex")

# -S: site is left out, so that only what pairbench imports shows (a .pth file may import any of them).
CODE = (
    "import sys\nbefore = set(sys.modules)\nfrom pairbench.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print('LOADED', ' '.join(sorted(set(sys.modules) - before)))\n"
)


def _loaded(*argv: str) -> set[str]:
    out = subprocess.run([sys.executable, "-S", "-c", CODE, *argv], capture_output=True, text=True,
                         env=cli_env(), timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.rsplit("LOADED", 1)[1].split())


@pytest.mark.slow
def test_help_imports_no_costly_module_and_no_subcommand() -> None:
    loaded = _loaded("--help")
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))
    assert not {m for m in loaded if m.startswith("pairbench.commands.")}, sorted(loaded)
    assert "argparse" in loaded  # the check sees what the CLI loads


@pytest.mark.slow
def test_a_subcommand_help_imports_only_its_own_module() -> None:
    loaded = _loaded("cmd", "--help")
    assert {m for m in loaded if m.startswith("pairbench.commands.")} <= {"pairbench.commands.cmd",
                                                                         "pairbench.commands.common"}
    assert "pairbench.commands.cmd" in loaded
    assert not loaded & {"numpy", "scipy", "rich"}
