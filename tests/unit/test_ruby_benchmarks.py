"""Ruby benchmark directories and globs as micro targets (suite/ruby_benchmarks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.errors import UserError
from pairbench.suite.ruby_benchmarks import expand_ruby_target


def make(root: Path) -> Path:
    bench = root / "benchmark"
    (bench / "lib").mkdir(parents=True)
    for name in ("vm_b.yml", "app_a.rb", "so_c.yaml", "README.md", "lib/helper.rb"):
        (bench / name).write_text("x\n")
    return bench


def test_a_directory_is_its_top_level_ruby_files_in_name_order(tmp_path: Path) -> None:
    bench = make(tmp_path)
    files = expand_ruby_target(str(bench), ruby=True)
    assert files == [bench / "app_a.rb", bench / "so_c.yaml", bench / "vm_b.yml"]


def test_a_glob_is_the_ruby_files_it_matches(tmp_path: Path) -> None:
    bench = make(tmp_path)
    assert expand_ruby_target(str(bench / "*.yml"), ruby=True) == [bench / "vm_b.yml"]
    # a glob over everything keeps the Ruby files only
    assert expand_ruby_target(str(bench / "*"), ruby=False) == [bench / "app_a.rb", bench / "so_c.yaml",
                                                                 bench / "vm_b.yml"]


def test_other_targets_are_left_to_the_other_forms(tmp_path: Path) -> None:
    (tmp_path / "bm_x").mkdir()
    for name in ("run_benchmark.py", "pyproject.toml", "data.yml"):
        (tmp_path / "bm_x" / name).write_text("")
    (tmp_path / "notes.rb").write_text("")
    assert expand_ruby_target(str(tmp_path / "bm_x"), ruby=False) is None
    assert expand_ruby_target(str(tmp_path), ruby=False) is None  # a pyperformance directory
    assert expand_ruby_target(str(tmp_path / "bm_*"), ruby=False) is None
    assert expand_ruby_target("x = [1, 2]; x[0]", ruby=True) is None  # statements
    assert expand_ruby_target("a*b", ruby=True) is None
    assert expand_ruby_target("a = 1\nb = a", ruby=True) is None
    assert expand_ruby_target("file.yml", ruby=True) is None  # a plain file name: checked by the command


def test_nothing_to_run_is_one_line_naming_the_target(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"empty/\*\.yml' matches no file"):
        expand_ruby_target(str(tmp_path / "empty" / "*.yml"), ruby=False)
    with pytest.raises(UserError, match=r"empty: no benchmark files \(\*\.yml or \*\.rb\)"):
        expand_ruby_target(str(tmp_path / "empty"), ruby=True)
