"""pyperformance bm_* directories read into micro targets (suite/pyperformance.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.errors import UserError
from pairbench.suite.pyperformance import PyperfTarget, expand_pyperformance


def bm(root: Path, name: str, table: str, metafiles: dict[str, str] | None = None) -> Path:
    d = root / f"bm_{name}"
    d.mkdir(parents=True)
    (d / "run_benchmark.py").write_text("import pyperf\n")
    (d / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.pyperformance]\n{table}\n')
    for meta, text in (metafiles or {}).items():
        (d / f"bm_{meta}.toml").write_text(f"[tool.pyperformance]\n{text}\n")
    return d


def test_a_directory_and_its_metafiles_are_benchmarks_with_their_own_extra_opts(tmp_path: Path) -> None:
    d = bm(tmp_path, "pickle", 'name = "pickle"\nextra_opts = ["pickle"]',
           {"pickle_dict": 'name = "pickle_dict"\nextra_opts = ["pickle_dict"]', "unpickle": 'name = "unpickle"'})
    script = (d / "run_benchmark.py").resolve()
    assert expand_pyperformance(str(d)) == [
        PyperfTarget(script, "pickle", ("pickle",)),
        PyperfTarget(script, "pickle_dict", ("pickle_dict",)),
        PyperfTarget(script, "unpickle", ()),  # the directory's extra_opts are not inherited
    ]


def test_a_directory_of_benchmarks_a_glob_and_the_default_name(tmp_path: Path) -> None:
    bm(tmp_path, "nbody", "")
    bm(tmp_path, "chaos", 'name = "chaos"')
    (tmp_path / "not_a_benchmark").mkdir()
    assert [t.name for t in expand_pyperformance(str(tmp_path)) or []] == ["chaos", "nbody"]
    assert [t.name for t in expand_pyperformance(str(tmp_path / "bm_n*")) or []] == ["nbody"]


def test_other_targets_are_left_alone_and_bad_directories_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("")
    assert expand_pyperformance(str(tmp_path / "f.py")) is None
    assert expand_pyperformance("x = [1]") is None  # a statement, not a glob of directories
    with pytest.raises(UserError, match="not a pyperformance benchmark directory"):
        expand_pyperformance(str(tmp_path))
    bad = bm(tmp_path, "bad", 'extra_opts = "oops"')
    with pytest.raises(UserError, match="extra_opts as a list of strings"):
        expand_pyperformance(str(bad))
