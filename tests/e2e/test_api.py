"""The Python API for real: commands and a micro file measured in real processes, the run loaded
and rendered, `import pairbench` kept light, and the examples of docs/api.md run as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pairbench
from tests.conftest import cli_env

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
PY = sys.executable


@pytest.mark.slow
def test_import_pairbench_loads_no_api_until_a_name_is_used() -> None:
    code = ("import sys, pairbench\n"
            "print(sorted(m for m in sys.modules if m.startswith('pairbench') or m in ('numpy', 'argparse')))\n"
            "pairbench.load_run\nprint('pairbench.api' in sys.modules)\n")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=cli_env(), timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "['pairbench']" and second == "True"


@pytest.mark.slow
def test_a_command_comparison_measures_real_processes(tmp_path: Path) -> None:
    # Four times the work in the candidate: its wall time is well over 1.3x the baseline's even with
    # the interpreter's start-up in both (effects asserted are 30% or more).
    kept = tmp_path / "run.json"
    run = pairbench.compare_commands(f"{PY} -c 'sum(range(3_000_000))'", f"{PY} -c 'sum(range(12_000_000))'",
                                     command_name=["one", "four"], runs=6, warmup=1, seed=1,
                                     history=str(tmp_path / "h.sqlite"), export_json=str(kept))
    assert [v.name for v in run.variants] == ["one", "four"] and run.status == "complete"
    (wall,) = [c for c in run.comparisons if c.metric == "time"]
    assert wall.candidate == "four" and wall.ratio is not None and wall.ratio > 1.3, wall
    assert {s.variant for s in run.samples if not s.warmup} == {"one", "four"}
    assert json.loads(kept.read_text())["comparisons"]
    with pairbench.open_history(tmp_path / "h.sqlite") as history:
        assert [r.variants for r in history.runs()] == [("one", "four")]


@pytest.mark.slow
def test_a_micro_file_then_load_and_render_every_format(tmp_path: Path) -> None:
    bench = tmp_path / "bench_lists.py"
    bench.write_text("def bench_append():\n    l = []\n    for i in range(50):\n        l.append(i)\n\n"
                     "def bench_comprehension():\n    [i for i in range(50)]\n")
    kept = tmp_path / "micro.json"
    run = pairbench.compare_micro(str(bench), python=[PY, PY], name=["a", "b"], samples=3, warmup_samples=1,
                                  target_time=0.01, runs=3, seed=1, no_history=True, export_json=str(kept))
    times = [c for c in run.comparisons if c.metric == "time_per_op"]
    assert sorted(c.benchmark for c in times) == ["append", "comprehension"]
    assert all(c.candidate == "b" and c.ci is not None and c.ci[0] <= c.ratio <= c.ci[1] for c in times), times
    loaded = pairbench.load_run(kept)
    assert loaded.comparisons == run.comparisons and len(loaded.samples) == len(run.samples) > 0
    rendered = {fmt: pairbench.render(loaded, fmt, title="lists", width=120) for fmt in pairbench.formats()}
    assert rendered["markdown"].startswith("# lists") and "comprehension" in rendered["markdown"]
    assert "<html" in rendered["html"].lower() and "comprehension" in rendered["html"]
    assert json.loads(rendered["json"])["comparisons"]
    assert rendered["csv"].splitlines()[0].count(",") >= 3 and "comprehension" in rendered["csv"]
    assert "comprehension" in rendered["terminal"]


@pytest.mark.slow
def test_the_examples_of_docs_api_md_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAIRBENCH_HISTORY", str(tmp_path / "default-history.sqlite"))
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), namespace)  # noqa: S102 - the documentation's own code
    assert (tmp_path / "report.html").is_file() and (tmp_path / "history.sqlite").is_file()
