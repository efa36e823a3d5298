"""The pure-Python t and normal functions behind every CI and p-value: closed forms and scipy agree."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from scipy import special as sp  # type: ignore[import-untyped]

from pairbench.stats._dist import norm_cdf, norm_ppf, t_ppf, t_sf

XS = [1e-6, 1e-3, 0.1, 0.5, 1.0, 1.96, 2.5, 3.0, 5.0, 10.0, 30.0, 100.0, 1e4]
DFS = [0.5, 1.0, 1.5, 2.0, 3.0, 4.7, 9.0, 19.0, 29.3, 99.0, 500.0, 999.5, 1001.0, 1299.0, 5000.0, 1e5]
PS = [1e-9, 1e-6, 0.001, 0.01, 0.025, 0.05, 0.1, 0.3, 0.6, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995]


def close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * abs(b)


@pytest.mark.parametrize("x", XS + [-x for x in XS])
def test_t_sf_matches_closed_forms_for_one_and_two_degrees_of_freedom(x: float) -> None:
    assert close(t_sf(x, 1.0), 0.5 - math.atan(x) / math.pi if x < 0 else math.atan2(1.0, x) / math.pi, 1e-13)
    # df = 2: P(T > x) = (1 - x / sqrt(2 + x²)) / 2, written without cancellation for x > 0
    two = 1.0 / (math.sqrt(2 + x * x) * (math.sqrt(2 + x * x) + x)) if x > 0 else 0.5 - x / (2 * math.sqrt(2 + x * x))
    assert close(t_sf(x, 2.0), two, 1e-12)


def test_t_sf_matches_scipy_across_the_grid() -> None:
    for df in DFS:
        for x in XS[2:] + [-x for x in XS[2:]]:  # scipy loses digits for |x| < 1e-3 (the closed forms check those)
            want = float(sp.stdtr(df, -x))
            if want > 1e-300:
                assert close(t_sf(x, df), want, 1e-10), (x, df, t_sf(x, df), want)


def test_t_ppf_inverts_t_sf_and_matches_scipy() -> None:
    for df in DFS:
        for p in PS:
            x = t_ppf(p, df)
            tail = min(p, 1 - p)
            assert close(t_sf(-x, df) if p < 0.5 else t_sf(x, df), tail, 1e-10), (p, df, x)
            assert close(x, float(sp.stdtrit(df, p)), 1e-9), (p, df, x)
            if p >= 1e-3:  # below, 1 - p itself has lost the low digits of p
                assert t_ppf(1 - p, df) == pytest.approx(-x, rel=1e-9)


def test_limits_and_bad_input() -> None:
    assert t_ppf(0.5, 7) == 0.0 and t_sf(0.0, 7) == 0.5
    assert t_ppf(0.0, 3) == -math.inf and t_ppf(1.0, 3) == math.inf
    assert t_sf(math.inf, 3) == 0.0 and t_sf(-math.inf, 3) == 1.0
    assert t_ppf(0.975, math.inf) == pytest.approx(1.959963984540054, rel=1e-14)
    assert all(math.isnan(v) for v in (t_ppf(1.5, 3), t_ppf(0.5, 0), t_sf(1.0, -1), t_sf(math.nan, 3)))
    assert norm_ppf(0.0) == -math.inf and norm_ppf(1.0) == math.inf and math.isnan(norm_ppf(2.0))
    for p in PS:
        assert close(norm_ppf(p), float(sp.ndtri(p)), 1e-13)
    for x in [-40.0, -5.0, -1.0, 0.0, 0.3, 2.0, 8.0]:
        assert close(norm_cdf(x), float(sp.ndtr(x)), 1e-13)


def test_a_whole_run_and_its_analysis_never_import_scipy() -> None:
    """Every invocation ends with an analysis: scipy.special cost ~0.25 s of start-up, scipy.stats ~1 s."""
    code = (
        "import sys\n"
        "from pairbench.cli import main\n"
        "code = main(['cmd', 'true', 'true ', '-r', '4', '-w', '0', '--no-history', '--no-progress'])\n"
        "print('SCIPY' if any(m.split('.')[0] == 'scipy' for m in sys.modules) else 'CLEAN', code)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["CLEAN", "0"], out.stdout[-2000:]
