"""Bad input to `pairbench cmd`: one clear line, exit 1, samples kept, no process left behind."""

import csv
import json
import os
import shutil
import sys
import time

import pytest

PY = sys.executable


def process_alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def assert_one_line_error(out, fragment):
    assert out.returncode == 1, (out.stdout, out.stderr)
    lines = [l for l in out.stderr.strip().splitlines() if l.strip()]
    assert lines[-1].startswith("error: "), out.stderr
    assert fragment in lines[-1], lines[-1]
    assert "Traceback" not in out.stderr


def test_missing_executable_is_refused_before_running(run_cli, tmp_path):
    out = run_cli("cmd", "true", "no-such-program-xyz --flag", "--export-json", str(tmp_path / "r.json"), "--no-history")
    assert_one_line_error(out, "'no-such-program-xyz' not found")


def test_invalid_regex_is_refused_before_running(run_cli, tmp_path):
    marker = tmp_path / "ran"
    out = run_cli("cmd", f"touch {marker}", "true", "--metric", "x=([", "--no-history")
    assert_one_line_error(out, "invalid regular expression")
    assert not marker.exists()


def test_nonzero_exit_names_the_command_and_keeps_samples(run_cli, tmp_path):
    counter = tmp_path / "count"
    # fails on its 4th run, after one warm-up each and a first block have been measured
    script = f"n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter}; [ $n -lt 4 ] || {{ echo boom >&2; exit 7; }}"
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "true", script, "-r", "5", "-w", "1", "--export-json", str(run_file), "--no-history")
    assert_one_line_error(out, "exited with code 7")
    assert "-i/--ignore-failure" in out.stderr and "boom" in out.stderr
    doc = json.loads(run_file.read_text())
    assert doc["status"] == "failed"
    assert len([s for s in doc["samples"] if s["metric"] == "time"]) >= 3


def test_ignore_failure_measures_failing_commands(run_cli, tmp_path):
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "true", "exit 3", "-i", "-r", "6", "--export-json", str(run_file), "--no-history")
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    codes = {s["value"] for s in doc["samples"] if s["metric"] == "exit_code" and s["variant"] == "exit 3"}
    assert codes == {3.0}


def test_timeout_kills_the_whole_process_group(run_cli, tmp_path):
    pidfile = tmp_path / "child.pid"
    # the command leaves a grandchild sleeping; the timeout must take it down too
    hang = f"sleep 300 & echo $! > {pidfile}; wait"
    start = time.monotonic()
    out = run_cli("cmd", "true", hang, "--timeout", "1", "-w", "0", "--no-history")
    assert time.monotonic() - start < 60
    assert_one_line_error(out, "did not finish within --timeout 1 s")
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    assert not process_alive(pid)


def test_metric_never_printed_is_a_clear_error(run_cli):
    out = run_cli("cmd", "echo a", "echo b", "--metric", r"x=value: (\d+)", "--no-history")
    assert_one_line_error(out, "did not print metric 'x'")


@pytest.mark.parametrize("flags, fragment", [(["-r", "x"], "not a whole number"), (["--max-time", "-1"], "must be positive")])
def test_invalid_flags_are_usage_errors(run_cli, flags, fragment):
    out = run_cli("cmd", "true", "true", *flags)
    assert out.returncode == 2
    assert fragment in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.slow
def test_ignore_failure_with_codes_measures_only_those(run_cli, tmp_path):
    # hyperfine >= 1.20: --ignore-failure=1,2 ignores those exit codes alone
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "true", "sh -c 'exit 2'", "--ignore-failure=1,2", "-r", "3", "-w", "0",
                  "--export-json", str(run_file), "--no-history")
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    codes = {s["value"] for s in doc["samples"] if s["metric"] == "exit_code" and s["variant"] != "true"}
    assert codes == {2.0}


@pytest.mark.slow
def test_ignore_failure_with_codes_fails_on_another_code(run_cli, tmp_path):
    out = run_cli("cmd", "true", "sh -c 'exit 3'", "--ignore-failure=1,2", "-r", "3", "-w", "0", "--no-history")
    assert_one_line_error(out, "exited with code 3")
    assert "--ignore-failure=1,2" in out.stderr


def test_ignore_failure_alone_still_takes_the_next_word_as_a_command(run_cli, tmp_path):
    # `-i CMD` and `--ignore-failure CMD`: the flag takes no value unless written with '='
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "--ignore-failure", "false", "true", "-r", "3", "-w", "0", "--export-json", str(run_file),
                  "--no-history")
    assert out.returncode == 0, out.stderr
    assert [v["name"] for v in json.loads(run_file.read_text())["variants"]] == ["false", "true"]


def test_ignore_failure_all_non_zero_is_hyperfines_spelling_of_i(run_cli, tmp_path):
    out = run_cli("cmd", "-r", "2", "-w", "0", "--no-history", "--ignore-failure=all-non-zero", "exit 5", "exit 7")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("codes", ["", "a", "1,,2", "-1"])
def test_ignore_failure_bad_codes_are_refused(run_cli, codes):
    out = run_cli("cmd", "true", "false", f"--ignore-failure={codes}", "--no-history")
    assert out.returncode != 0
    assert "--ignore-failure" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_failing_cleanup_fails_the_run_and_keeps_samples(run_cli, tmp_path):
    # hyperfine: a --cleanup command that exits non-zero is an error
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "true", "true", "--cleanup", "sh -c 'exit 5'", "-r", "3", "-w", "0",
                  "--export-json", str(run_file), "--no-history")
    assert_one_line_error(out, "exited with code 5")
    assert "--cleanup" in out.stderr and "exit 5" in out.stderr
    doc = json.loads(run_file.read_text())
    assert len([s for s in doc["samples"] if s["metric"] == "time" and not s.get("warmup")]) == 6


@pytest.mark.slow
def test_a_measuring_failure_is_not_hidden_by_a_failing_cleanup(run_cli, tmp_path):
    out = run_cli("cmd", "true", "sh -c 'exit 7'", "--cleanup", "sh -c 'exit 5'", "-r", "3", "-w", "0",
                  "--no-history")
    assert_one_line_error(out, "exited with code 7")


# Fails on its third run: the runs before it were measured (a counter in the working directory).
FAILS_THIRD = "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -lt 3 ]"


def test_a_command_failing_mid_run_still_writes_every_export_of_what_was_measured(run_cli, tmp_path):
    """hyperfine writes its exports with the commands measured before one failed; so does pairbench,
    in every format asked, from the blocks measured before the failure."""
    out = run_cli("cmd", "-r", "6", "-w", "0", "--no-history", "-n", "ok", "true", "-n", "flaky", FAILS_THIRD,
                  "--export-json", "r.json", "--export-markdown", "r.md", "--export-csv", "r.csv",
                  "--export-samples-csv", "s.csv", "--export-asciidoc", "r.adoc", "--export-orgmode", "r.org",
                  "--export-html", "r.html", "--export-bmf", "b.json", "--export-github-benchmark", "g.json",
                  "--export-pyperf", "p.json")
    assert_one_line_error(out, "flaky")
    for name in ("r.md", "r.csv", "s.csv", "r.adoc", "r.org", "r.html", "b.json", "g.json", "p.ok.json"):
        assert (tmp_path / name).exists(), name
        assert name == "p.ok.json" or "ok" in (tmp_path / name).read_text(), name
    rows = {r["command"]: r for r in csv.DictReader((tmp_path / "r.csv").read_text().splitlines())}
    assert float(rows["ok"]["mean"]) > 0  # two blocks were measured before the third run failed
    from pairbench.store.runfile import load_run

    run = load_run(tmp_path / "r.json")
    assert run.status == "failed"
    assert sum(s.variant == "ok" and s.metric == "time" for s in run.samples) >= 2


@pytest.mark.parametrize("asked,named", [("cycles", "cycles"), ("cache-misses,time", "cache-misses"),
                                         ("instructions", "instructions"), ("counters", "counters")])
def test_a_counter_without_perf_or_valgrind_names_what_was_asked_and_the_packages(run_cli, tmp_path, asked, named):
    # A PATH holding only the command measured: no perf, no valgrind (nor setarch).
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "true").symlink_to(shutil.which("true"))
    r = run_cli("cmd", "-N", "--measure", asked, "true", "true", "-r", "2", "--no-progress", "--no-history",
                env={"PATH": str(bare)})
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"--measure {named} needs" in lines[0], lines[0]
    assert "counters" not in lines[0] or named == "counters", lines[0]
    assert "apt-get install valgrind" in lines[0] and "linux-perf" in lines[0], lines[0]


def test_micro_cycles_without_perf_or_valgrind_names_cycles(run_cli, tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    r = run_cli("micro", "--python", sys.executable, "--python", sys.executable, "-s", "x = 1", "x + 1",
                "--measure", "cycles", "-r", "2", "--no-progress", "--no-history", env={"PATH": str(bare)})
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "--measure cycles needs perf or valgrind" in line and "sim-cycles" in line and "linux-perf" in line


@pytest.mark.parametrize("kind", ["cmd", "micro"])
def test_a_metric_measured_twice_is_one_clear_error(run_cli, kind):
    args = ["a", "b"] if kind == "cmd" else ["--python", sys.executable, "--python", sys.executable, "x = 1"]
    r = run_cli(kind, "--measure", "time,time", *args, "-r", "2", "--no-progress", "--no-history",
                env={"PAIRBENCH_DEBUG_FAKE": "1,1.05"})
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "time is named twice" in line, line


@pytest.mark.parametrize(("args", "says"), [
    (["--measure", "cyclez"], "error: --measure 'cyclez': valid: time, instructions"),
    (["--measure", "time,time"], "error: --measure 'time,time': time is named twice"),
])
def test_a_bad_option_names_its_flag_once(run_cli, args, says):
    # the message names the key for a suite file ("measure 'x': ..."); on the command line the flag
    # takes the key's place instead of being put before it ("--measure: measure 'x'")
    r = run_cli("cmd", *args, "a", "b", "-r", "2", "--no-progress", "--no-history", env={"PAIRBENCH_DEBUG_FAKE": "1,1.05"})
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(says), line
