"""scipy is not a runtime dependency: nothing in the package imports it, and the stats it gave agree.

`pip install .` reads `[project] dependencies`; scipy stays in the `test` extra only, to check the
package's own distribution functions and tests against it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st  # type: ignore[import-untyped]

from pairbench.stats.per_process import summarize_processes
from pairbench.stats.tests import mann_whitney_p

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "pairbench"


def _requirement_names(reqs: list[str]) -> set[str]:
    names = set()
    for req in reqs:
        name = req.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        names.add(name.strip().lower())
    return names


def test_scipy_is_not_a_runtime_dependency_but_is_a_test_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _requirement_names(project["dependencies"])
    assert "scipy" not in runtime, project["dependencies"]
    assert {"numpy", "rich"} <= runtime
    assert "scipy" in _requirement_names(project["optional-dependencies"]["test"])


def test_no_module_of_the_package_imports_scipy() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            offenders += [f"{path.relative_to(SRC)}:{node.lineno} {m}" for m in mods if m.split(".")[0] == "scipy"]
    assert not offenders


def test_mann_whitney_p_known_cases() -> None:
    # Complete separation, m = n = 4: U = 0 is 1 of C(8, 4) = 70 orders; two-sided 2/70.
    assert mann_whitney_p([1, 2, 3, 4], [5, 6, 7, 8]) == pytest.approx(2 / 70, rel=1e-12)
    # m = 3, n = 2, y = {1, 5} among x = {2, 3, 4}: U(y) = 3 of 6 is the centre, p = 1 (clipped).
    assert mann_whitney_p([2, 3, 4], [1, 5]) == pytest.approx(1.0)
    assert mann_whitney_p([1.0, 1.0], [1.0, 1.0, 1.0]) == 1.0
    assert mann_whitney_p([], [1.0]) == 1.0


@pytest.mark.parametrize("m,n,ties", [(3, 5, False), (8, 8, False), (4, 20, False), (9, 9, False),
                                      (12, 30, False), (6, 6, True), (15, 10, True), (40, 40, True)])
def test_mann_whitney_p_matches_scipy(m: int, n: int, ties: bool) -> None:
    rng = np.random.default_rng(m * 1000 + n)
    for shift in (0.0, 0.5, 1.5):
        x, y = rng.normal(size=m), rng.normal(shift, 1.0, size=n)
        if ties:  # clock-quantized values tie
            x, y = np.round(x, 1), np.round(y, 1)
        want = float(st.mannwhitneyu(y, x, alternative="two-sided").pvalue)
        assert mann_whitney_p(x, y) == pytest.approx(want, rel=1e-9, abs=1e-15), (m, n, shift)


def test_per_process_interval_uses_the_t_quantile() -> None:
    # Logs 0, 1, 2: mean 1, sd 1, n 3; the 95% half-width is t(0.975, 2) / sqrt(3) = 4.302652729749464 / sqrt(3).
    s = summarize_processes([1.0, np.e, np.e ** 2])
    assert s is not None and s.n == 3
    half = 4.302652729749464 / np.sqrt(3)
    assert (np.log(s.low), np.log(s.center), np.log(s.high)) == pytest.approx((1 - half, 1.0, 1 + half), rel=1e-12)
