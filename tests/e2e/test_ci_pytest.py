"""`pairbench ci --pytest PATH`: a pytest-benchmark suite measured under the base and the head.

Real git, real worktrees, real pytest processes. The project under test is a src layout package
(`src/app`); each side's tests import their own commit's `app` (PYTHONPATH is the worktree's `src`)
and each side runs its own test file. The slow tests measure for real: a head whose function does
60% more work trips the gate, a docs-only head does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_ci import git, one_line_error

APP = "DATA = [None] * 2000\n\n\ndef work():\n    for _ in range({n}):\n        for _ in DATA:\n            pass\n"
TESTS = "import app\n\n\ndef test_work(benchmark):\n    benchmark(app.work)\n\n\ndef test_plain():\n    assert True\n"


REAL = ("--max-time", "120", "--clock", "cpu", "--samples", "3", "--target-time", "0.02")
"""CPU time: blind to the other processes of this shared machine; short samples, as many blocks as fit."""


def make_repo(tmp_path: Path, head: dict[str, str]) -> Path:
    """main: src/app (work() loops 10 times) and bench/test_app.py; `feature` changes `head`."""
    repo = tmp_path / "proj"
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "bench").mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "src" / "app" / "__init__.py").write_text(APP.format(n=10))
    (repo / "bench" / "test_app.py").write_text(TESTS)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for name, text in head.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the pull request")
    return repo


def ci_pytest(run_cli, repo: Path, tmp_path: Path, *extra: str, cwd: Path | None = None):
    return run_cli("ci", "--pytest", "bench/test_app.py", "--base", "main", "--no-history",
                   "--comment", str(tmp_path / "comment.md"), "--export-json", str(tmp_path / "run.json"),
                   *extra, cwd=cwd or repo, env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}, timeout=400)


def test_each_side_runs_its_own_test_file_with_its_own_code(tmp_path: Path, run_cli) -> None:
    # the head's test file imports a function only the head's app has: it collects only with the head's own code
    head_tests = "from app import added\n" + TESTS + "\n\ndef test_new(benchmark):\n    benchmark(added)\n"
    repo = make_repo(tmp_path, {"src/app/__init__.py": APP.format(n=10) + "\n\ndef added():\n    return 1\n",
                                "bench/test_app.py": head_tests})
    proc = ci_pytest(run_cli, repo, tmp_path, "--debug-fake", "1,1.3", "--max-time", "30", "--samples", "3",
                     "--clock", "cpu", "-b", "work", "--", "-k", "work or new")
    assert proc.returncode == 3, proc.stderr
    run = json.loads((tmp_path / "run.json").read_text())
    worktrees = {v["name"]: v["params"]["worktree"] for v in run["variants"]}
    assert set(worktrees) == {"base", "head"} and worktrees["base"] != worktrees["head"]
    for v in run["variants"]:
        assert v["cwd"] == worktrees[v["name"]]
        assert v["env"]["PYTHONPATH"].split(":")[0] == str(Path(worktrees[v["name"]]) / "src")
    assert [b["name"] for b in run["benchmarks"]] == ["bench/test_app.py::test_work"]  # -k passed; base's tests
    assert run["benchmarks"][0]["options"]["args"] == ["-k", "work or new"]
    assert not [n for n in run["notices"] if n["kind"] == "benchmark-failed"], run["notices"]
    text = (tmp_path / "comment.md").read_text()
    assert "1 confirmed regression" in text and "| bench/test_app.py::test_work |" in text
    assert "--pytest bench/test_app.py" in text and "-- -k 'work or new'" in text
    assert "-b work --samples 3 --clock cpu" in text and "--target-time" not in text  # the flags not at their defaults


def test_a_path_given_from_a_subfolder_is_the_same_file_in_each_worktree(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"README": "docs\n"})
    proc = run_cli("ci", "--pytest", "test_app.py", "--base", "main", "--no-history", "--debug-fake", "1,1.0",
                   "--max-time", "20", "--export-json", str(tmp_path / "run.json"), cwd=repo / "bench",
                   env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert [b["name"] for b in json.loads((tmp_path / "run.json").read_text())["benchmarks"]] == \
        ["bench/test_app.py::test_work"]


def test_pytest_and_cmd_are_one_or_the_other(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"README": "docs\n"})
    line = one_line_error(run_cli("ci", "--pytest", "bench/test_app.py", "--cmd", "sh {worktree}/x", cwd=repo))
    assert "--pytest" in line and "--cmd" in line
    line = one_line_error(run_cli("ci", "--pytest", "no/such_test.py", "--base", "main", "--debug-fake", "1,1",
                                  cwd=repo, env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")}))
    assert "no/such_test.py" in line


@pytest.mark.slow
def test_a_really_slower_function_trips_the_gate(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"src/app/__init__.py": APP.format(n=16)})  # 60% more work
    # -r 6, the fewest blocks a verdict takes: there each run read 99% CI [1.54, 1.65] on CPU time,
    # far outside the ±2% band, and the default 10 blocks of each run only narrow it
    proc = ci_pytest(run_cli, repo, tmp_path, *REAL, "-r", "6")
    assert proc.returncode == 3, proc.stderr
    assert "1 confirmed regression" in (tmp_path / "comment.md").read_text()


@pytest.mark.slow
def test_an_unchanged_function_passes(tmp_path: Path, run_cli) -> None:
    repo = make_repo(tmp_path, {"README": "docs only\n"})
    # 40 s, not the slower head's 120: an unchanged head passes whether its run settles or spends
    # the budget (it spent 119 s of 120 in a CI run with a CPU hog)
    proc = ci_pytest(run_cli, repo, tmp_path, *REAL, "--max-time", "40")
    assert proc.returncode == 0, proc.stderr
    assert "confirmed regression" not in (tmp_path / "comment.md").read_text().splitlines()[1].replace("no confirmed", "")


def test_an_environment_in_the_checkout_is_the_code_and_gets_no_pythonpath(tmp_path: Path, run_cli) -> None:
    # the build makes a virtual environment inside each checkout (here: one that sees the job's
    # packages and the checkout's src through a .pth file, as an install would)
    repo = make_repo(tmp_path, {"README": "docs\n"})
    build = ("python3 -m venv --system-site-packages --without-pip .venv && "
             "echo \"$PWD/src\" > \"$(.venv/bin/python -c 'import site; print(site.getsitepackages()[0])')/app.pth\"")
    proc = ci_pytest(run_cli, repo, tmp_path, "--debug-fake", "1,1.0", "--max-time", "20", "--build", build,
                     "--python", "{worktree}/.venv")
    assert proc.returncode == 0, proc.stderr
    run = json.loads((tmp_path / "run.json").read_text())
    for v in run["variants"]:
        assert v["command"] == str(Path(v["params"]["worktree"]) / ".venv" / "bin" / "python")
        assert "PYTHONPATH" not in v["env"]
    assert [b["name"] for b in run["benchmarks"]] == ["bench/test_app.py::test_work"]


@pytest.mark.slow
def test_a_test_the_head_breaks_is_a_row_that_says_so(tmp_path: Path, run_cli) -> None:
    broken = TESTS.replace("    benchmark(app.work)\n", "    benchmark(app.work)\n    raise ValueError('broken by the head')\n")
    repo = make_repo(tmp_path, {"bench/test_app.py": broken})
    # the head fails in its first block; the blocks after it would measure the base alone (they did:
    # 17 blocks in 25 s of --max-time 30), so the run stops at its first look
    proc = ci_pytest(run_cli, repo, tmp_path, "--max-time", "30", "--samples", "2", "--target-time", "0.01")
    assert proc.returncode == 0, proc.stderr  # nothing compared is no regression; the comment says what failed
    run = json.loads((tmp_path / "run.json").read_text())
    blocks = {s["block"] for s in run["samples"] if not s["warmup"]}
    assert len(blocks) <= 10, f"{len(blocks)} blocks: the run went on after the head's only test failed"
    text = (tmp_path / "comment.md").read_text()
    assert "1 benchmark not compared" in text.splitlines()[1]
    row = next(line for line in text.splitlines() if line.startswith("| bench/test_app.py::test_work |"))
    assert "failed on head" in row and "broken by the head" in row


def test_a_pull_request_that_adds_the_benchmarks_says_the_base_has_none(tmp_path: Path, run_cli) -> None:
    """The base has no bench/ yet: one line that says so in the pull request's words (it named the
    variant 'base' and a folder of the build cache)."""
    repo = make_repo(tmp_path, {"bench/test_new.py": TESTS})
    proc = run_cli("ci", "--pytest", "bench/test_new.py", "--base", "main", "--no-history", "--max-time", "20",
                   cwd=repo, env={"PAIRBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 1, proc.stderr
    error = one_line_error(proc)
    assert "bench/test_new.py is not in the base" in error and "merge-base" in error, error
    assert str(tmp_path / "cache") not in error, error
