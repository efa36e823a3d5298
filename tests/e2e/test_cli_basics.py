import subprocess
import sys

import pytest

from tests.conftest import cli_env

HEAVY = ("numpy", "scipy", "matplotlib", "dask", "distributed", "pairbench.analysis", "pairbench.stats",
         "pairbench.cluster")


@pytest.mark.parametrize("argv", [["--help"], ["cmd", "--help"], ["demo", "--help"], ["run", "--help"]])
def test_help_does_not_import_heavy_modules(argv):
    code = (
        "import sys\nfrom pairbench.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in {{'numpy','scipy','matplotlib','dask','distributed'}} "
        f"or m.startswith(('pairbench.analysis', 'pairbench.stats', 'pairbench.cluster'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout, out.stdout[-500:]


def test_version(run_cli):
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.startswith("pairbench ")
