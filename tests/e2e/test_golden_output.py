"""The CLI's output, byte for byte, on scripted timings (`--debug-fake`, fixed seeds).

Why: a restructuring must not change what a user reads. Each case below runs the CLI as a user
would, on the fake runner (no process is measured, so every figure is a function of the seed),
and compares stdout, stderr and every file it wrote with a golden copy in tests/data/golden/.
Only what cannot be fixed by a seed is masked: run-file paths, the clock (durations, dates) and
the machine's own metadata. The machine's state (load, cores, governor, swap) is fixed for the CLI
by a `sitecustomize` module, so a busy machine's warning does not enter the transcript.

A change that is meant to alter the output regenerates the copies on purpose:
`PAIRBENCH_REGEN_GOLDEN=1 pytest tests/e2e/test_golden_output.py`, and the diff is reviewed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import cli_env

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
REGEN = os.environ.get("PAIRBENCH_REGEN_GOLDEN") == "1"

# (name, argv per step, fake factors). Steps run in order in one directory: later steps read the
# files earlier ones wrote (r1.json, r2.json).
CASES: list[tuple[str, list[list[str]], str]] = [
    ("cmd_two", [["cmd", "a", "b", "--seed", "3", "--export-json", "r1.json",
                  "--export-markdown", "r.md", "--export-csv", "r.csv"]], "1,1.05"),
    ("cmd_reference", [["cmd", "--reference", "base", "one", "two", "--seed", "5"]], "1,0.9,1.004"),
    ("cmd_single", [["cmd", "sleep 0.3", "--seed", "2"]], "1"),
    ("cmd_params", [["cmd", "-L", "n", "1,2,3", "work {n}", "--seed", "7", "-r", "8"]], "1,1.2,1.5"),
    ("cmd_adaptive", [["cmd", "a", "b", "--seed", "9", "--max-time", "30", "--fail-on-regression"]],
     "1,1.03"),
    ("demo", [["demo", "--seed", "3"]], "1,1.05"),
    ("micro", [["micro", "-s", "x = 1", "x + 1", "--python", "python3", "--python", "python3 -S",
                "--seed", "2"]], "1,0.97"),
    ("http", [["http", "--server", "srv-a {port}", "--server", "srv-b {port}", "--url", "/",
               "--url", "/about", "--seed", "2"]], "1,1.1"),
    ("suite", [["init"], ["run", "--seed", "4", "-r", "6"]], "1,1.02,0.98,1.01"),
    ("reports", [["cmd", "a", "b", "--seed", "3", "--export-json", "r1.json"],
                 ["cmd", "a", "b", "--seed", "4", "--export-json", "r2.json"],
                 ["report", "r1.json"],
                 ["report", "r1.json", "--markdown"],
                 ["compare", "r1.json", "r2.json"]], "1,1.05"),
    ("errors", [["cmd"], ["cmd", "a", "b", "--threshold", "-3"], ["report", "missing.json"],
                ["cmd", "a", "b", "--export-frobnicate", "x"]], "1,1.05"),
]



_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(run file: )\S*(\n\S*\.json\b)?"), r"\1<RUNFILE>"),
    (re.compile(r"\d{8}-\d{6}-[\d\n]+\.json"), "<RUNID>.json"),  # a folded path wraps its id
    (re.compile(r"× \d+ ops"), "× <N> ops"),  # calibrated on the real clock
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\+\d{4}|Z)?"), "<DATE>"),
    (re.compile(r"(in )[\d.e-]+( s\b)"), r"\1<T>\2"),
    (re.compile(r"(\| (?:cpu_model|cwd|elapsed_s|governor|hostname|kernel|load_average|platform|python|"
                r"started|started_unix|swap_used_bytes|run_file|pairbench_version) \| ).*( \|)$", re.M),
     r"\1<M>\2"),
    (re.compile(r"/tmp/[^\s'\"|)]*"), "<TMP>"),
    (re.compile(r"/\S*/(python|pypy)[\d.]*\b"), "<PYTHON>"),  # where this machine keeps its interpreter
    (re.compile(r"\((\d+\.\d+\.\d+)\)"), "(<VERSION>)"),
    # the machine's load when the run started: a warning on a busy machine, none on a quiet one
    (re.compile(r"warning: load average [\d.]+ on \d+ cores when the run started \(other work competes with "
                r"the benchmark; ?\n?interleaving keeps the comparison fair but widens the CI\)\n"), ""),
    (re.compile(r"warning: load average [\d.]+ on \d+ cores when the run started \(it widens the CI\)\n"), ""),
    (re.compile(r"- \*\*machine-busy\*\*: load average [^\n]*\n"), ""),
]


def _mask(text: str, workdir: Path) -> str:
    text = text.replace(str(workdir), "<WORK>")
    for pattern, repl in _MASKS:
        text = pattern.sub(repl, text)
    return text


_QUIET_MACHINE = """\
import pairbench.machine as _machine

_measured = _machine.machine_metadata


def _quiet(*args, **kwargs):
    facts = _measured(*args, **kwargs)
    facts.update(load_average=[0.1, 0.1, 0.1], cpu_count=2, governor=None, swap_used_bytes=0)
    return facts


_machine.machine_metadata = _quiet
"""


def _transcript(name: str, steps: list[list[str]], fake: str, workdir: Path) -> str:
    parts: list[str] = []
    site = workdir / "_site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_QUIET_MACHINE)
    env = cli_env({"PAIRBENCH_DEBUG_FAKE": fake, "PAIRBENCH_HISTORY": str(workdir / "history.sqlite"),
                   "COLUMNS": "100", "XDG_DATA_HOME": str(workdir / "data")})
    env.pop("PAIRBENCH_STYLE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    for argv in steps:
        before = {p.name for p in workdir.iterdir()}
        proc = subprocess.run([sys.executable, "-m", "pairbench", *argv, "--no-progress"]
                              if argv[0] not in ("report", "compare", "init") and argv[1:] else
                              [sys.executable, "-m", "pairbench", *argv],
                              capture_output=True, text=True, cwd=workdir, env=env, timeout=120)
        parts.append(f"$ pairbench {' '.join(argv)}\n[exit {proc.returncode}]\n"
                     f"--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}")
        for new in sorted({p.name for p in workdir.iterdir()} - before):
            path = workdir / new
            if path.is_file() and path.suffix in (".md", ".csv"):
                parts.append(f"--- file {new}\n{path.read_text()}")
    return _mask("\n".join(parts), workdir)


@pytest.mark.parametrize("name,steps,fake", CASES, ids=[c[0] for c in CASES])
def test_cli_output_is_unchanged(name: str, steps: list[list[str]], fake: str, tmp_path: Path) -> None:
    text = _transcript(name, steps, fake, tmp_path)
    golden = GOLDEN / f"{name}.txt"
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.is_file(), f"no golden copy {golden}: run with PAIRBENCH_REGEN_GOLDEN=1"
    expected = golden.read_text()
    assert text == expected, _first_difference(expected, text)


def _first_difference(expected: str, got: str) -> str:
    for i, (a, b) in enumerate(zip(expected.splitlines(), got.splitlines())):
        if a != b:
            return f"line {i + 1} differs:\n  golden: {a!r}\n  now:    {b!r}"
    return "lengths differ"


def test_the_mask_leaves_figures_alone(tmp_path: Path) -> None:
    """The masks hide the clock and paths, never a measured figure or a verdict."""
    line = "time   │ 99.79 ms ±0.7% │ 104.7 ms ±0.4% │ 1.044 │ [1.036, 1.052] │ slower"
    assert _mask(line, tmp_path) == line
    assert _mask("note: measured 10 blocks in 0.00106 s: the 10", tmp_path) == "note: measured 10 blocks in <T> s: the 10"
    assert shutil.which("true") is None or _mask(f"{tmp_path}/r1.json", tmp_path) == "<WORK>/r1.json"
