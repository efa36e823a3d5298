"""Bad input and closed pipes at the CLI boundary: one line or a quiet exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.unit.runs_by_hand import make_run

from pairbench.store.runfile import write_run

EXIT_BROKEN_PIPE = 141


def _one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], proc.stderr


@pytest.mark.parametrize("argv, fragments", [
    (["cmd", "", "true"], ["command 1 is empty"]),
    (["cmd", "true", "  "], ["command 2 is empty"]),
    (["cmd", "true", "false", ""], ["command 3 is empty"]),
    (["cmd", "-n", "", "true", "false"], ["-n/--command-name", "empty"]),
    (["cmd", "--name", "", "true", "false"], ["--name", "empty"]),
    (["micro", "--python", "", "x = 1"], ["--python", "empty"]),
    (["micro", "--ruby", " ", "x = 1"], ["--ruby", "empty"]),
    (["micro", "-n", "", "x = 1"], ["--name", "empty"]),
    (["http", "--server", "", "--url", "/"], ["--server", "empty"]),
    (["http", "--server", "true {port}", "--name", "", "--url", "/"], ["--name", "empty"]),
], ids=lambda v: " ".join(map(repr, v)) if isinstance(v, list) and v and v[0] in ("cmd", "micro", "http") else "")
def test_empty_commands_and_names_are_one_line(run_cli, argv: list[str], fragments: list[str]) -> None:
    _one_line_error(run_cli(*argv, "--no-history", timeout=60), *fragments)


def test_bisect_outside_a_git_repository_names_the_folder_and_the_way_out(tmp_path: Path, run_cli) -> None:
    bisect = ["bisect", "--good", "v1", "--bad", "main", "--cmd", "{worktree}/tool"]
    proc = run_cli(*bisect, "--no-history", timeout=60)
    _one_line_error(proc, str(tmp_path), "not a git repository", "--repo")
    assert "suite" not in proc.stderr  # no suite was given
    proc = run_cli(*bisect, "--no-history", "--repo", "missing", timeout=60)
    _one_line_error(proc, "missing", "does not exist", "--repo")
    assert "suite" not in proc.stderr


def _with_reader_gone(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run the CLI with its stdout a pipe whose reading end is already closed (`| head -0`)."""
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=cli_env(env))
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read()
    return proc.wait(timeout=120), err


def test_history_and_compare_into_a_closed_pipe_exit_quietly(tmp_path: Path, run_cli) -> None:
    env = {"PAIRBENCH_HISTORY": str(tmp_path / "h.sqlite")}
    for i in range(3):
        write_run(tmp_path / f"r{i}.json", make_run(seed=10 + i))
    assert run_cli("import", "r0.json", "r1.json", "r2.json", env=env).returncode == 0
    for args in (["history"], ["history", "--csv", "-"], ["compare", "r0.json", "r1.json"], ["report", "r2.json"]):
        code, err = _with_reader_gone(args, tmp_path, env)
        assert err == "", (args, err)
        assert code == EXIT_BROKEN_PIPE, (args, code)


def test_cmd_into_a_pipe_closed_after_its_first_line_exits_141_quietly(tmp_path: Path) -> None:
    # `pairbench cmd ... | head -1`: the pipe holds one page and the output is seven, so the writer
    # is still writing when the reader goes away, as with head on any machine.
    import fcntl
    import os

    read_fd, write_fd = os.pipe()
    fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 4096)
    commands = [f"echo {i}" for i in range(30)]  # about 30 kB of table (-v: every row)
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", "cmd", "--no-history", "-v", *commands], stdout=write_fd,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=cli_env({"PAIRBENCH_DEBUG_FAKE": "1,1.05"}))
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        first = reader.readline()
    assert proc.stderr is not None
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE, err
    assert first.startswith("echo 0")
    assert "Traceback" not in err and "error:" not in err, err
    assert "run file:" in err  # the run was analysed and kept, as the closed pipe cost only the output


def test_run_file_to_a_pipe_closed_after_its_first_line_exits_141_quietly(tmp_path: Path) -> None:
    # `pairbench cmd -r 3000 --export-json - true true | head -1`: the run file is one write of about a
    # megabyte, cut short by the reader leaving; a text stream reports such a write as complete, so
    # without care the command would exit 0 with the file's end lost.
    import fcntl
    import os

    read_fd, write_fd = os.pipe()
    fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([sys.executable, "-m", "pairbench", "cmd", "-r", "3000", "-w", "0", "--no-history",
                             "--export-json", "-", "true", "true"], stdout=write_fd, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=cli_env({"PAIRBENCH_DEBUG_FAKE": "1,1"}))
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        first = reader.readline()
    assert proc.stderr is not None
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE, err
    assert first.strip() == "{"
    assert "Traceback" not in err and "error:" not in err, err


def test_run_file_with_a_list_where_a_table_was_is_one_line(tmp_path: Path, run_cli) -> None:
    import json

    from pairbench.store.runfile import dumps_run

    doc = json.loads(dumps_run(make_run()))
    doc["variants"] = ["head", "patched"]  # found by tests/e2e/test_cli_property.py
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    _one_line_error(run_cli("report", "bad.json"), "bad.json is damaged")


def test_report_markdown_before_the_run_file_reads_it(tmp_path: Path, run_cli) -> None:
    write_run(tmp_path / "run.json", make_run())
    before = (tmp_path / "run.json").read_text()
    proc = run_cli("report", "--markdown", "run.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# pairbench report")
    assert (tmp_path / "run.json").read_text() == before
    write_run(tmp_path / "other.json", make_run(seed=3))
    proc = run_cli("compare", "--markdown", "run.json", "other.json")
    assert proc.returncode == 0, proc.stderr
    assert "# pairbench compare" in proc.stdout


@pytest.mark.slow
def test_micro_whose_baseline_cannot_run_compares_nothing(run_cli) -> None:
    proc = run_cli("micro", "x = 1", "--python", "no-such-python-xyz", "--python", sys.executable, "--no-history")
    _one_line_error(proc, "baseline", "no-such-python-xyz", "nothing can be compared")


OSC_TITLE = "\x1b]0;pwned\x07"


def _no_raw_controls(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text, repr(text)


def test_names_from_someone_elses_run_file_are_escaped_by_compare_and_report(tmp_path: Path, run_cli) -> None:
    from dataclasses import replace

    run = make_run()
    rename = {"head": f"head{OSC_TITLE}", "patched": "patched\nforged"}
    run.variants = [replace(v, name=rename[v.name]) for v in run.variants]
    run.samples = [replace(s, variant=rename[s.variant]) for s in run.samples]
    run.comparisons = [replace(c, baseline=rename[c.baseline], candidate=rename[c.candidate]) for c in run.comparisons]
    run.benchmarks = [replace(b, name=b.name + OSC_TITLE) if b.name == "startup" else b for b in run.benchmarks]
    run.samples = [replace(s, benchmark=s.benchmark + OSC_TITLE) if s.benchmark == "startup" else s for s in run.samples]
    run.comparisons = [replace(c, benchmark=c.benchmark + OSC_TITLE) if c.benchmark == "startup" else c
                       for c in run.comparisons]
    write_run(tmp_path / "evil.json", run)
    write_run(tmp_path / "other.json", run)
    for args in (["report", "evil.json"], ["compare", "evil.json", "other.json"]):
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        _no_raw_controls(proc.stdout + proc.stderr)
        assert "\\x1b" in proc.stdout and "pwned\\a" in proc.stdout  # Markdown may escape the "]" too


STYLING = "\x1b[31m\x1b[8m"
"""Colour, then conceal: the kind of sequence pairbench's own styling uses, so a stream that lets
its own styling through must still not take it from a name."""


def test_styling_sequences_in_names_are_escaped_in_every_output_of_report_compare_and_history(
        tmp_path: Path, run_cli) -> None:
    from dataclasses import replace

    from pairbench.commands.report import FILE_FORMATS

    run = make_run()
    run.variants = [replace(v, name=v.name + STYLING) if v.name == "head" else v for v in run.variants]
    run.samples = [replace(s, variant=s.variant + STYLING, benchmark=s.benchmark + STYLING) if s.variant == "head"
                   else replace(s, benchmark=s.benchmark + STYLING) for s in run.samples]
    run.benchmarks = [replace(b, name=b.name + STYLING) for b in run.benchmarks]
    run.comparisons = [replace(c, benchmark=c.benchmark + STYLING, baseline=c.baseline + STYLING)
                       for c in run.comparisons]
    run.metadata["hostname"] = "bench" + STYLING
    write_run(tmp_path / "evil.json", run)
    write_run(tmp_path / "other.json", run)
    assert run_cli("import", "evil.json").returncode == 0
    shown = [["report", "evil.json", "--format", fmt] for fmt in FILE_FORMATS]
    shown += [["compare", "evil.json", "other.json"], ["history"], ["history", "--benchmark", "startup" + STYLING],
              ["history", "--csv", "-"]]
    for args in shown:
        proc = run_cli(*args)
        assert proc.returncode == 0, (args, proc.stderr)
        _no_raw_controls(proc.stdout + proc.stderr)
        assert "\\x1b" in proc.stdout or "\\u001b" in proc.stdout, (args, proc.stdout)  # shown, escaped (JSON's way)


@pytest.mark.slow
def test_a_command_name_with_an_osc_sequence_is_printed_escaped(run_cli) -> None:
    proc = run_cli("cmd", "true", "true # b", "-n", OSC_TITLE, "-n", "b\nforged", "-r", "2", "-w", "0", "--no-history")
    assert proc.returncode == 0, proc.stderr
    _no_raw_controls(proc.stdout + proc.stderr)
    assert "\\x1b]0;pwned\\a" in proc.stdout and "b\\nforged" in proc.stdout


@pytest.mark.slow
def test_warnings_go_to_stderr_and_the_piped_table_keeps_its_verdicts(run_cli) -> None:
    proc = run_cli("cmd", "true", "true # b", "-r", "2", "-w", "0", "--no-history", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    assert "run file:" in proc.stderr  # the diagnostics' stream (which warnings a run gets depends on the machine)
    assert "2 blocks are too few for a 95% verdict" in " ".join(proc.stdout.split())  # the sentence, not a warning
    assert "warning" not in proc.stdout and "run file:" not in proc.stdout
    assert "insufficient" in proc.stdout and "…" not in proc.stdout


def test_compare_of_runs_with_no_benchmark_in_common_prints_no_empty_table(tmp_path: Path, run_cli) -> None:
    """It printed the table's header over no row, and the blank line after it."""
    from dataclasses import replace

    write_run(tmp_path / "a.json", make_run(seed=1))
    other = make_run(seed=2)
    other.benchmarks = [replace(b, name="new " + b.name) for b in other.benchmarks]
    other.samples = [replace(x, benchmark="new " + x.benchmark) for x in other.samples]
    other.comparisons = []
    write_run(tmp_path / "b.json", other)
    proc = run_cli("compare", "a.json", "b.json")
    assert proc.returncode == 0, proc.stderr
    assert "verdict" not in proc.stdout and "only in b.json: new " in proc.stdout
    assert "nothing was compared" in proc.stderr and "Traceback" not in proc.stderr


def test_a_flag_value_after_double_dash_is_quoted_as_typed(run_cli) -> None:
    """`--plan -- -5%` quoted the value with the parser's internal mark: '\\x00-5%'."""
    proc = run_cli("cmd", "true", "--plan", "--", "-5%")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "\\x00" not in proc.stderr and "'-5%'" in proc.stderr


def test_the_caption_names_no_spread_that_no_cell_shows(run_cli) -> None:
    """`cmd -r 3` said "± half the interquartile range" under values shown without any ± (a spread
    takes 4 blocks): each caption says only what its table shows."""
    proc = run_cli("cmd", "a", "b", "-r", "3", "--no-history", env={"PAIRBENCH_DEBUG_FAKE": "1,1.05"})
    assert proc.returncode == 0, proc.stderr
    assert "±" not in proc.stdout.split("━━\n")[-1].split("values:")[0]
    assert "values: geometric means" in proc.stdout and "interquartile" not in proc.stdout
    proc = run_cli("cmd", "a", "b", "-r", "6", "--no-history", env={"PAIRBENCH_DEBUG_FAKE": "1,1.05"})
    assert "±" in proc.stdout and "interquartile" in proc.stdout


def test_importing_a_missing_file_does_not_call_it_a_run_file(run_cli) -> None:
    """`import nosuch.json` said "cannot read run file nosuch.json" of a results file never made."""
    proc = run_cli("import", "nosuch.json", "--no-history")
    _one_line_error(proc, "nosuch.json", "no such file")
    assert "run file" not in proc.stderr


@pytest.mark.parametrize("flag", ["--export-json", "--export-markdown", "--export-csv"])
def test_run_refuses_to_write_over_its_suite_file(run_cli, tmp_path: Path, flag: str) -> None:
    # `run s.toml --export-json s.toml` replaced the suite file with the run file
    suite = "[variants.a]\ncommand = \"true\"\n[variants.b]\ncommand = \"true\"\n[benchmarks.x]\ncommand = \"{variant}\"\n"
    (tmp_path / "s.toml").write_text(suite)
    proc = run_cli("run", "s.toml", "-r", "2", "--no-history", flag, "s.toml")
    _one_line_error(proc, "s.toml is the suite file")
    assert (tmp_path / "s.toml").read_text() == suite
