"""`pairbench cmd` on real processes: known extra work is found, identical commands are not told apart."""

import json
import sys

import pytest

PY = sys.executable
# CPU-bound loop; prints the CPU time of the loop itself as a metric, so the true ratio of
# `work` between 1_000_000 and 1_100_000 iterations is 1.10.
WORK = (
    "import time,json,sys; n=int(sys.argv[1]); t=time.process_time(); x=0\n"
    "for i in range(n): x+=i\n"
    "print(json.dumps({'pairbench': {'work': time.process_time()-t}}))"
)


@pytest.fixture
def work_script(tmp_path):
    path = tmp_path / "work.py"
    path.write_text(WORK)
    return path


@pytest.mark.slow
def test_ten_percent_more_work_is_reported_slower_with_the_true_ratio_in_the_ci(run_cli, tmp_path, work_script):
    run_file = tmp_path / "r.json"
    out = run_cli(
        "cmd", f"{PY} {work_script} 1000000", f"{PY} {work_script} 1100000", "-n", "base", "-n", "more",
        "-r", "20", "--max-time", "150", "-w", "2", "-N", "--export-json", str(run_file), "--no-history", "--no-progress", timeout=400,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    work = next(c for c in doc["comparisons"] if c["metric"] == "work")
    assert work["verdict"] == "slower", work["sentence"]
    assert work["meaningful"] is True
    low, high = work["adjusted_ci"] or work["ci"]
    # the truth is 1.10; allow 2% for what differs besides the loop count (allocation of bigger ints)
    assert low < 1.12 and high > 1.08, work["sentence"]
    wall = next(c for c in doc["comparisons"] if c["metric"] == "time")
    assert wall["ratio"] > 1.0
    text = " ".join(out.stdout.split())
    assert "more is" in text and "slower than base" in text, text[-2000:]


@pytest.mark.slow
def test_identical_commands_are_not_reported_different(run_cli, tmp_path, work_script):
    run_file = tmp_path / "r.json"
    cmd = f"{PY} {work_script} 300000"
    out = run_cli(
        "cmd", cmd, cmd, "-n", "A", "-n", "A-again", "-r", "20", "--threshold", "5",
        "--export-json", str(run_file), "--no-history", "--no-progress", "--fail-on-regression", timeout=400,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    doc = json.loads(run_file.read_text())
    for c in doc["comparisons"]:
        if c["metric"] in ("time", "work"):
            assert not c["meaningful"], c["sentence"]
            assert c["verdict"] in ("same", "inconclusive"), c["sentence"]


@pytest.mark.slow
def test_regex_metrics_and_parameter_lists(run_cli, tmp_path):
    run_file = tmp_path / "r.json"
    out = run_cli(
        "cmd", "-L", "n", "1,3", "echo 'setup time for 10 fibers: {n}.5'",
        "--metric", r"setup=setup time for \d+ fibers: ([\d.]+)", "-r", "6", "-w", "0",
        "--export-json", str(run_file), "--no-history", "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    assert [v["name"] for v in doc["variants"]] == ["n=1", "n=3"]
    values = {(s["variant"], s["value"]) for s in doc["samples"] if s["metric"] == "setup"}
    assert values == {("n=1", 1.5), ("n=3", 3.5)}
    setup = next(c for c in doc["comparisons"] if c["metric"] == "setup")
    assert setup["verdict"] == "slower" and abs(setup["ratio"] - 3.5 / 1.5) < 1e-9


@pytest.mark.slow
def test_fail_on_regression_exits_3(run_cli, tmp_path, work_script):
    out = run_cli(
        "cmd", f"{PY} {work_script} 200000", f"{PY} {work_script} 600000", "-r", "8", "-N",
        "--fail-on-regression", "--no-history", "--no-progress", "--export-json", str(tmp_path / "r.json"),
        timeout=300,
    )
    assert out.returncode == 3, out.stdout + out.stderr
    assert "regression" in out.stderr


@pytest.mark.slow
def test_demo_finds_the_real_difference(run_cli, tmp_path):
    run_file = tmp_path / "demo.json"
    out = run_cli("demo", "--max-time", "60", "--export-json", str(run_file), "--no-history", timeout=300)
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    by = {(c["benchmark"], c["metric"]): c for c in doc["comparisons"]}
    assert by[("sort", "work_time")]["verdict"] == "faster"
    assert not by[("json", "work_time")]["meaningful"]
    assert "sort-plain is" in " ".join(out.stdout.split())
