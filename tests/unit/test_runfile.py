import json

import pytest

from pairbench.errors import RunFileError
from pairbench.model import Benchmark, Comparison, Metric, Notice, Run, Sample, Variant
from pairbench.store.runfile import VERSION, load_run, run_to_dict, write_run


def make_run() -> Run:
    return Run(
        metadata={"hostname": "h"},
        variants=[Variant("a", "cmd-a", baseline=True, env={"K": "V"}), Variant("b", "cmd-b", params={"p": "1"})],
        benchmarks=[Benchmark("bench", "command", (Metric("time"), Metric("rate", "op/s", "higher")), {"command": "{variant}"})],
        samples=[Sample("bench", "a", "time", 1.5, 0), Sample("bench", "b", "time", 1.2, 0, warmup=True)],
        comparisons=[Comparison("bench", "time", "a", "b", 0.8, (0.7, 0.9), 0.01, 10, True, True, "faster", None)],
        notices=[Notice("drift", "drifting", "hint")],
        status="complete",
    )


def test_round_trip_keeps_everything(tmp_path):
    path = tmp_path / "run.json"
    run = make_run()
    write_run(path, run)
    back = load_run(path)
    assert back.variants == run.variants
    assert back.benchmarks == run.benchmarks
    assert back.samples == run.samples
    assert back.comparisons == run.comparisons
    assert back.notices == run.notices
    doc = json.loads(path.read_text())
    assert doc["schema"] == "pairbench.run" and doc["version"] == VERSION
    assert doc["comparisons"][0]["ci"] == [0.7, 0.9]
    assert not list(tmp_path.glob(".*.tmp"))


def test_newer_version_is_refused_with_upgrade_hint(tmp_path):
    doc = run_to_dict(make_run())
    doc["version"] = VERSION + 1
    path = tmp_path / "new.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RunFileError, match="newer than this pairbench"):
        load_run(path)


@pytest.mark.parametrize("text, fragment", [("{}", "not a pairbench run file"), ('{"schema": "pairbench.run", "ver', "not valid JSON"), ("[1]", "not a pairbench run file")])
def test_not_a_run_file(tmp_path, text, fragment):
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(RunFileError, match=fragment):
        load_run(path)


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(RunFileError, match="cannot read run file"):
        load_run(tmp_path / "missing.json")
