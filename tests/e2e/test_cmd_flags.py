"""hyperfine command lines run unchanged through `pairbench cmd` (scripted timings, no process)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pairbench.store.runfile import load_run

FAST = ("-w", "0", "--no-history", "--no-progress", "--debug-fake=1,1")


def test_names_before_each_command(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "A", "sleep 0.1", "-n", "B", "sleep 0.2", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [(v.name, v.command) for v in run.variants] == [("A", "sleep 0.1"), ("B", "sleep 0.2")]


def test_a_a_check_runs_with_names_made_distinct_said_once(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.1", "sleep 0.1", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [v.name for v in run.variants] == ["sleep 0.1", "sleep 0.1 #2"]
    said = (r.stdout + r.stderr).count("repeated names made distinct")
    assert said == 1, r.stdout + r.stderr


def test_a_name_template_with_a_parameter_list(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "-n", "one-{a}", "-L", "a", "1,2", "echo {a}", "-r", "6", *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert [v.name for v in load_run(tmp_path / "r.json").variants] == ["one-1", "one-2"]


EXPORTS = ("--export-markdown", "r.md", "--export-csv", "r.csv", "--export-asciidoc", "r.adoc",
           "--export-orgmode", "r.org", "--export-samples-csv", "s.csv")


def _check_exports(tmp_path: Path, variant: str, timed: bool = True) -> None:
    markdown = (tmp_path / "r.md").read_text()  # hyperfine's table, then the verdicts
    if timed:
        assert "| Command | Mean [" in markdown and f"`{variant}`" in markdown, markdown
    else:  # no time per run (HTTP): the verdicts alone
        assert "| Command |" not in markdown, markdown
    assert "- **" in markdown
    assert (tmp_path / "r.csv").read_text().startswith("command,mean,stddev,median,user,system,min,max")
    assert (tmp_path / "s.csv").read_text().startswith("benchmark,variant,metric,value")
    adoc = (tmp_path / "r.adoc").read_text()
    assert adoc.count("|===") == 2 and f"| {variant}" in adoc
    org = (tmp_path / "r.org").read_text()
    assert org.startswith("#+TITLE:") and f"| {variant} |" in org


def test_hyperfine_exports_on_cmd(run_cli, tmp_path: Path) -> None:
    # hyperfine README: hyperfine --export-markdown results.md ... (and the other formats alike)
    r = run_cli("cmd", *EXPORTS, "sleep 0.1", "sleep 0.2", "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "sleep 0.2")


def test_hyperfine_exports_on_run(run_cli, tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text('[variants.a]\ncommand = "true"\n[variants.b]\ncommand = "false"\n'
                                     '[benchmarks.t]\nkind = "command"\ncommand = "{variant}"\n')
    r = run_cli("run", "s.toml", *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "b")


def test_hyperfine_exports_on_http(run_cli, tmp_path: Path) -> None:
    r = run_cli("http", "--server", "python3 -m http.server {port}", "--server", "python3 -m http.server {port} ",
                "--requests", "10", *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, "server2", timed=False)


@pytest.mark.slow
def test_hyperfine_exports_on_micro(run_cli, tmp_path: Path) -> None:
    # micro calibrates its loop on the real interpreter before the scripted timings take over
    r = run_cli("micro", "--python", sys.executable, "--python", f"{sys.executable} -X dev", "x = 1 + 1",
                *EXPORTS, "-r", "6", *FAST)
    assert r.returncode == 0, r.stderr
    _check_exports(tmp_path, f"{sys.executable} -X dev")


def test_parameter_scan_with_decimal_steps(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: hyperfine -P delay 0.3 0.7 -D 0.2 'sleep {delay}'
    r = run_cli("cmd", "-P", "delay", "0.3", "0.7", "-D", "0.2", "sleep {delay}", "-r", "6", *FAST,
                "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [v.params for v in run.variants] == [{"delay": "0.3"}, {"delay": "0.5"}, {"delay": "0.7"}]


def test_max_runs_alone_bounds_the_blocks(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: -M/--max-runs NUM, with no time limit
    r = run_cli("cmd", "-M", "7", "sleep 0.1", "sleep 0.2", *FAST[:-1], "--debug-fake=1,1", "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    blocks = load_run(tmp_path / "r.json").metadata["blocks"]
    assert blocks == 7  # identical timings never settle a difference, so the bound is what stops it


@pytest.mark.slow
def test_hooks_run_where_hyperfine_runs_them_and_conclude_is_not_timed(run_cli, tmp_path: Path) -> None:
    log = tmp_path / "log"
    r = run_cli("cmd", "-s", f"echo setup >> {log}", "-p", f"echo prepare >> {log}",
                "-C", f"echo conclude >> {log}; sleep 0.3", "-c", f"echo cleanup >> {log}",
                "true", "true", "-r", "2", "-w", "1", "--no-history", "--no-progress", "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    lines = log.read_text().split()
    assert lines.count("setup") == 2 and lines.count("cleanup") == 2
    assert lines.count("prepare") == lines.count("conclude") == 2 * (2 + 1)
    assert lines.index("conclude") > lines.index("prepare")
    times = [s.value for s in load_run(tmp_path / "r.json").samples if s.metric == "time" and not s.warmup]
    assert max(times) < 0.15  # the 0.3 s of --conclude is outside the timed run


REAL = ("-r", "2", "-w", "0", "--no-history", "--no-progress")


@pytest.mark.slow
def test_show_output_prints_what_the_commands_print(run_cli) -> None:
    # hyperfine --help: --show-output
    r = run_cli("cmd", "--show-output", "echo one-line-from-a", "echo one-line-from-b", *REAL)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines.count("one-line-from-a") == 2 and lines.count("one-line-from-b") == 2


@pytest.mark.slow
def test_output_pipe_gives_the_command_a_pipe_and_null_does_not(run_cli) -> None:
    # hyperfine --help: --output=pipe, for programs that detect /dev/null
    probe = "[ -p /proc/self/fd/1 ]"  # exits 1 unless stdout is a pipe
    assert run_cli("cmd", "--output=pipe", probe, f"{probe} ", *REAL).returncode == 0
    refused = run_cli("cmd", "--output=null", probe, f"{probe} ", *REAL)
    assert refused.returncode == 1 and "exited with code 1" in refused.stderr


@pytest.mark.slow
def test_input_file_is_each_runs_stdin_and_output_file_keeps_the_last(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: --input FILE, --output FILE
    (tmp_path / "in.txt").write_text("a\nb\nc\n")
    r = run_cli("cmd", "--input", "in.txt", "--output", "out.txt", "--metric", r"lines=^\s*(\d+)",
                "wc -l", "cat | wc -l", *REAL, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.txt").read_text().strip() == "3"
    lines = {s.value for s in load_run(tmp_path / "r.json").samples if s.metric == "lines"}
    assert lines == {3.0}


def test_input_that_is_missing_is_one_clear_error(run_cli) -> None:
    r = run_cli("cmd", "--input", "nope.txt", "wc -l", "cat", *FAST)
    assert r.returncode == 1
    assert r.stderr.strip() == "error: --input nope.txt: no readable file there; give the file the commands read as stdin"


@pytest.mark.parametrize("per_command", [False, True])
def test_an_output_file_that_cannot_be_written_is_one_clear_error_before_anything_runs(
        run_cli, tmp_path: Path, per_command: bool) -> None:
    outputs = ["--output", "/nonexistent/x.log"] + (["--output", "null"] if per_command else [])
    r = run_cli("cmd", *outputs, "echo hi > ran.txt", "echo ho > ran.txt", "-r", "2", "-w", "0", "--no-history",
                "--no-progress")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --output /nonexistent/x.log:"), r.stderr
    assert "/nonexistent" in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "ran.txt").exists()  # nothing ran


@pytest.mark.slow
def test_any_shell_runs_the_commands_and_its_start_up_is_subtracted(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: -S/--shell SHELL, e.g. hyperfine -S bash ...; here a shell that takes 0.5 s to start
    slow = tmp_path / "slowsh"
    slow.write_text("#!/bin/sh\nsleep 0.5\nexec bash \"$@\"\n")
    slow.chmod(0o755)
    r = run_cli("cmd", "-S", str(slow), "--output", "out.txt", "echo $BASH_VERSION", "true", "-r", "3", "-w", "0",
                "--no-history", "--no-progress", "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    times = [s.value for s in load_run(tmp_path / "r.json").samples if s.metric == "time" and not s.warmup]
    assert sorted(times)[len(times) // 2] < 0.25, times  # the 0.5 s start-up is taken off (a wide margin: CI is noisy)
    r = run_cli("cmd", "-S", "bash", "--output", "out.txt", "-L", "x", "1,2", "echo $BASH_VERSION/{x}", "-r", "1",
                "-w", "0", "--no-history", "--no-progress")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.txt").read_text().strip() not in ("/1", "/2")  # bash ran it: sh has no $BASH_VERSION


@pytest.mark.slow
@pytest.mark.parametrize("shell", ["sh", "bash", "zsh", "fish"])
def test_a_command_that_starts_with_a_dash_runs_after_a_double_dash(run_cli, tmp_path: Path, shell: str) -> None:
    # `pairbench cmd -- -x`: the word is a command, for the flag parser and for the shell's `-c` alike
    tool = tmp_path / "-mark"
    tool.write_text("#!/bin/sh\necho ran >> marks.txt\n")
    tool.chmod(0o755)
    r = run_cli("cmd", "-S", shell, "-r", "2", "-w", "0", "--no-history", "--no-progress", "--", "-mark", "true",
                env={"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "marks.txt").read_text().split() == ["ran"] * 2


def test_a_missing_shell_is_one_clear_error(run_cli) -> None:
    r = run_cli("cmd", "-S", "no-such-shell", "true", "false", "-r", "2", "-w", "0", "--no-history", "--no-progress")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1].startswith("error: benchmark 'command': shell 'no-such-shell' not found")


def test_time_unit_sort_and_style_none(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: -u/--time-unit, --sort mean-time, --style none
    fast = ("-r", "6", "-w", "0", "--no-history", "--no-progress", "--debug-fake=1,0.5")
    r = run_cli("cmd", "-u", "microsecond", "sleep 0.1", "sleep 0.2", *fast)
    assert r.returncode == 0 and "µs" in r.stdout and " ms " not in r.stdout, r.stdout
    r = run_cli("cmd", "--sort", "mean-time", "sleep 0.1", "sleep 0.2", *fast, "--export-markdown", "r.md")
    rows = [line for line in (tmp_path / "r.md").read_text().splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[0] for row in rows] == ["| `sleep 0.2`", "| `sleep 0.1`"]
    r = run_cli("cmd", "--style", "none", "sleep 0.1", "sleep 0.2", *fast, "--export-orgmode", "r.org")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert "| sleep 0.2 |" in (tmp_path / "r.org").read_text()


def test_style_color_colours_off_a_terminal_and_basic_never(run_cli) -> None:
    fast = ("-r", "6", "-w", "0", "--no-history", "--debug-fake=1,0.5")
    colour = run_cli("cmd", "--style", "color", "sleep 0.1", "sleep 0.2", *fast, env={"TERM": "xterm-256color"})
    assert colour.returncode == 0 and "\x1b[" in colour.stdout
    plain = run_cli("cmd", "--style", "basic", "sleep 0.1", "sleep 0.2", *fast,
                    env={"TERM": "xterm-256color", "FORCE_COLOR": "1"})
    assert plain.returncode == 0 and "\x1b[" not in plain.stdout + plain.stderr


def test_the_live_bar_under_max_time_keeps_its_bound_and_shows_the_time_left(run_cli) -> None:
    import re

    # --style full draws the bar off a terminal too (hyperfine's meaning), so its frames can be read
    r = run_cli("cmd", "sleep 0.1", "sleep 0.2", "-r", "6", "-w", "0", "--no-history", "--max-time", "2",
                "--style", "full", "--debug-fake=1,1.02", env={"TERM": "xterm-256color"})
    assert r.returncode == 0, r.stderr
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", r.stderr)
    frames = re.findall(r"block (\d+) \(min (\d+), ≤2 s\)", plain)
    assert len(frames) >= 3 and {m for _, m in frames} == {"6"}
    assert re.search(r"≤ \d+(\.\d)? s left", plain)


@pytest.mark.slow
def test_prepare_given_once_per_command_goes_with_its_command(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: "--prepare ... can be specified once for all commands or multiple times, once for each"
    log = tmp_path / "log"
    r = run_cli("cmd", "-p", f"echo prep-a >> {log}", "echo a >> " + str(log),
                "-p", f"echo prep-b >> {log}", "echo b >> " + str(log), "-r", "2", "-w", "0",
                "--no-history", "--no-progress")
    assert r.returncode == 0, r.stderr
    lines = log.read_text().split()
    pairs = list(zip(lines[::2], lines[1::2]))
    assert sorted(pairs) == [("prep-a", "a")] * 2 + [("prep-b", "b")] * 2


def test_prepare_given_neither_once_nor_per_command_is_refused(run_cli) -> None:
    r = run_cli("cmd", "-p", "x", "-p", "y", "a", "b", "c", *FAST)
    assert r.returncode == 1
    assert r.stderr.strip() == "error: --prepare given 2 times for 3 commands: give it once for all, or once per command"


def test_shown_output_and_the_run_file_cannot_share_stdout(run_cli) -> None:
    r = run_cli("cmd", "--show-output", "echo a", "echo b", *FAST, "--export-json", "-")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().startswith("error: --show-output/--output=inherit and --export-json - would both write")


README_LINES = [  # hyperfine's README, as written (a second command added where it gives one)
    ["--runs", "5", "sleep 0.3", "sleep 0.3"],
    ["--warmup", "3", "grep -R TODO *", "grep -R FIXME *"],
    ["--prepare", "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches", "grep -R TODO *", "grep -R FIXME *"],
    ["--prepare", "make clean", "--parameter-scan", "num_threads", "1", "12", "make -j {num_threads}"],
    ["--parameter-scan", "delay", "0.3", "0.7", "-D", "0.2", "sleep {delay}"],
    ["-L", "compiler", "gcc,clang", "{compiler} -O2 main.cpp"],
    ["-N", "grep TODO /home/user", "grep TODO /home/other"],
    ["--min-runs", "5", "sleep 0.2", "sleep 3.2"],
    ["-m", "6", "-M", "20", "--style", "basic", "-u", "millisecond", "--sort", "mean-time", "a", "b"],
]


@pytest.mark.parametrize("argv", README_LINES, ids=lambda a: " ".join(a)[:40])
def test_hyperfine_readme_command_lines_run_unchanged(run_cli, argv) -> None:
    r = run_cli("cmd", *argv, "--no-history", "--no-progress", "--debug-fake=1,1.1")
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("zsh") is None, reason="zsh is not installed (scripts/test.sh)")
def test_hyperfine_readme_zsh_line_runs_in_zsh(run_cli, tmp_path: Path) -> None:
    # hyperfine README: hyperfine --shell zsh 'for i in {1..10000}; do echo test; done'
    r = run_cli("cmd", "--shell", "zsh", "--output", "long.txt", "--output", "short.txt",
                "for i in {1..10000}; do echo test; done",
                "for i in {1..100}; do echo test; done", "-r", "3", "-w", "0", "--no-history", "--no-progress",
                "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    # zsh expanded {1..N}: each run printed N lines; sh would print one line per run ("{1..10000}" is one word)
    long = (tmp_path / "long.txt").read_text().splitlines()
    short = (tmp_path / "short.txt").read_text().splitlines()
    assert long and len(long) % 10000 == 0 and set(long) == {"test"}, len(long)
    assert short and len(short) % 100 == 0 and set(short) == {"test"}, len(short)
    assert len(load_run(tmp_path / "r.json").samples) > 0


@pytest.mark.slow
def test_output_given_once_per_command_goes_with_its_command(run_cli, tmp_path: Path) -> None:
    # hyperfine --help: --output "can be specified once for all commands or multiple times, once for each"
    r = run_cli("cmd", "--output", "a.txt", "--output", "b.txt", "echo from-a", "echo from-b", *REAL)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.txt").read_text() == "from-a\n" and (tmp_path / "b.txt").read_text() == "from-b\n"
    r = run_cli("cmd", "--output", "a.txt", "--output", "b.txt", "--output", "c.txt", "echo a", "echo b", *FAST)
    assert r.returncode == 1 and "--output given 3 times for 2 commands" in r.stderr


def test_reference_name_names_the_reference(run_cli, tmp_path: Path) -> None:
    # hyperfine >= 1.20: --reference CMD --reference-name NAME; -n names the other commands
    r = run_cli("cmd", "--reference", "sleep 0.1", "--reference-name", "base", "-n", "new", "sleep 0.2", "-r", "6",
                *FAST, "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    run = load_run(tmp_path / "r.json")
    assert [(v.name, v.command, v.baseline) for v in run.variants] == [
        ("base", "sleep 0.1", True), ("new", "sleep 0.2", False)]


def test_reference_name_without_reference_is_refused(run_cli) -> None:
    r = run_cli("cmd", "--reference-name", "base", "sleep 0.1", "sleep 0.2", *FAST)
    assert r.returncode == 1 and "--reference-name" in r.stderr and "--reference" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_duplicate_parameter_list_names_are_refused(run_cli) -> None:
    # hyperfine refuses `-L a 1,2 -L a 3`: which value would {a} take?
    r = run_cli("cmd", "-L", "a", "1,2", "-L", "a", "3", "echo {a}", *FAST)
    assert r.returncode == 1, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and "-L a" in lines[-1] and "once" in lines[-1], r.stderr
    assert "Traceback" not in r.stderr


def test_a_parameter_list_and_scan_of_one_name_are_refused(run_cli) -> None:
    r = run_cli("cmd", "-L", "a", "1,2", "-P", "a", "1", "3", "echo {a}", *FAST)
    assert r.returncode == 1 and "error: " in r.stderr and "-P a" in r.stderr, r.stderr


def _blocks(path: Path) -> int:
    return load_run(path).metadata["blocks"]


def test_min_benchmarking_time_adds_blocks_until_that_much_time_is_measured(run_cli, tmp_path: Path) -> None:
    # hyperfine: each command is measured for at least SECONDS; here every variant runs once per
    # block (scripted runs of ~0.1 s), so 1.5 s asks for about 15 blocks where -r asks for 3
    r = run_cli("cmd", "sleep 0.1", "sleep 0.1", "-r", "3", "--min-benchmarking-time", "1.5", *FAST,
                "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert 13 <= _blocks(tmp_path / "r.json") <= 17


def test_min_benchmarking_time_below_the_minimum_changes_nothing(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.1", "sleep 0.1", "-r", "4", "--min-benchmarking-time", "0.1", *FAST,
                "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert _blocks(tmp_path / "r.json") == 4


def test_min_benchmarking_time_stays_within_max_runs(run_cli, tmp_path: Path) -> None:
    r = run_cli("cmd", "sleep 0.1", "sleep 0.1", "-r", "3", "-M", "6", "--min-benchmarking-time", "5", *FAST,
                "--export-json", "r.json")
    assert r.returncode == 0, r.stderr
    assert _blocks(tmp_path / "r.json") <= 6


def test_min_benchmarking_time_counts_the_prepare_and_conclude_commands_as_hyperfine_does(run_cli, tmp_path: Path) -> None:
    # hyperfine sizes the run count on the whole cost of a run: a 200 ms --prepare before a 20 ms
    # command leaves room for about a tenth of the runs that the command alone would get
    quick = ("-w", "1", "--no-history", "--no-progress", "-r", "2", "--min-benchmarking-time", "1")
    alone = run_cli("cmd", "sleep 0.02", *quick, "--export-json", "a.json")
    prepared = run_cli("cmd", "sleep 0.02", "--prepare", "sleep 0.2", *quick, "--export-json", "p.json")
    concluded = run_cli("cmd", "sleep 0.02", "--conclude", "sleep 0.2", *quick, "--export-json", "c.json")
    assert alone.returncode == prepared.returncode == concluded.returncode == 0, alone.stderr + prepared.stderr
    blocks = _blocks(tmp_path / "a.json")
    assert blocks >= 10
    assert 2 <= _blocks(tmp_path / "p.json") <= min(blocks / 2, 6)
    assert 2 <= _blocks(tmp_path / "c.json") <= min(blocks / 2, 6)
