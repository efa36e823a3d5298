"""The default output is short: hyperfine's line count + 4 for two commands, nothing said twice.

On the fake runner (`PAIRBENCH_DEBUG_FAKE`), with standard output and standard error together as
a terminal shows them, 80 columns wide. `-v` keeps the full report.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env

HYPERFINE_LINES = 13
"""What hyperfine prints for two commands (two blocks of 4 lines, a blank, the summary's 3 lines)."""

SYMBOLS = ("(< δ?)", "(+", "(adj.)", "(*adj.)", "Δ ")


def _terminal(tmp_path: Path, fake: str, *args: str) -> str:
    env = cli_env({"PAIRBENCH_DEBUG_FAKE": fake, "COLUMNS": "80", "XDG_DATA_HOME": str(tmp_path / "data"),
                   "PAIRBENCH_HISTORY": str(tmp_path / "history.sqlite")})
    proc = subprocess.run([sys.executable, "-m", "pairbench", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout
    # the run file's line is one line on a terminal; here its long temporary path wraps
    return re.sub(r"run file: \n?(\S+\n)+", "run file: <path>\n", proc.stdout)


def _said_once(text: str, lines: bool = True) -> None:
    """No line (with `lines`: benchmarks alike say alike sentences), and no note or warning,
    twice; no count disagrees with its noun."""
    shown = [line.strip() for line in text.splitlines() if line.strip() and "┃" not in line and "━" not in line]
    repeated = {line for line in shown if shown.count(line) > 1}
    assert not (lines and repeated), text
    joined = re.sub(r"\s*\n\s*", " ", text)
    said = re.findall(r"(?:note|warning)(?: \[[^\]]*\])?: (.*?)(?= (?:note|warning)(?: \[[^\]]*\])?: |run file:|$)",
                      joined)
    assert len(said) == len(set(said)), said
    assert not re.search(r"\b1 blocks\b", text), text


def _symbols_explained(text: str) -> None:
    """Every symbol a table uses is explained in a caption (`SYMBOL:`)."""
    for symbol in SYMBOLS:
        rows = [line for line in text.splitlines() if "│" in line or "┃" in line]
        if any(symbol in row for row in rows):
            assert f"{symbol.strip()}:" in re.sub(r"\s*\n\s*", " ", text).replace("(+N)", "(+"), (symbol, text)


def test_two_commands_give_a_verdict_in_hyperfines_lines_plus_4(tmp_path):
    text = _terminal(tmp_path, "1,1.05", "cmd", "sleep 0.02", "sleep 0.021", "--seed", "3")
    assert len(text.splitlines()) <= HYPERFINE_LINES + 4, text
    assert "│ slower" in text
    assert "user, sys, rss" not in text or "no meaningful change" in text
    assert "run file:" in text
    _said_once(text)
    _symbols_explained(text)


def test_three_commands_with_a_reference_say_nothing_twice(tmp_path):
    text = _terminal(tmp_path, "1,0.9,1.004", "cmd", "--reference", "base", "one", "two", "--seed", "5")
    _said_once(text)
    _symbols_explained(text)
    assert text.count("note:") <= 2, text


def test_demo_is_short_and_says_no_note_twice(tmp_path):
    text = _terminal(tmp_path, "1,1.05", "demo", "--seed", "3")
    assert len(text.splitlines()) < 80, text  # the full report was 139 lines
    for part in re.split(r"\n(?=pairbench demo, part)", text):  # two runs: each says everything once
        _said_once(part, lines=False)


def test_r_alone_keeps_a_fixed_count(tmp_path):
    text = _terminal(tmp_path, "1,1.05", "cmd", "a", "b", "-r", "10", "--seed", "3")
    assert "(10 blocks" in text


def test_verbose_keeps_the_full_report(tmp_path):
    short = _terminal(tmp_path, "1,1.05", "cmd", "a", "b", "--seed", "3")
    full = _terminal(tmp_path, "1,1.05", "cmd", "a", "b", "--seed", "3", "-v")
    assert "values: the baseline's geometric mean" in full and "values: the baseline's" not in short
    assert re.search(r"^user\s", full, re.M) and not re.search(r"^user\s", short, re.M)
    assert "note: measured" in full and "note: measured" not in short
    assert len(full.splitlines()) > len(short.splitlines())


def test_each_sentence_names_its_candidate_among_several(tmp_path):
    text = _terminal(tmp_path, "1,0.9,1.004", "cmd", "--reference", "base", "one", "two", "--seed", "5")
    sentences = re.findall(r"^  time[^:]*: .*", text, re.M)
    assert len(sentences) == 2 and all(" one" in s or " two" in s for s in sentences), text


def test_too_few_blocks_say_what_can_be_said(tmp_path):
    """`-r 3`: no verdict, but the ratio and the interval at the level 3 blocks reach (75%), and
    the blocks a 95% verdict needs, once; no interval is labelled 95% (short and -v alike)."""
    for flags in ((), ("-v",)):
        text = _terminal(tmp_path, "1,1.05", "cmd", "a", "b", "-r", "3", "--seed", "3", *flags)
        joined = re.sub(r"\s*\n\s*", " ", text)
        said = re.search(r"time: no verdict: ratio (\d\.\d+), 75% interval \[(\d\.\d+), (\d\.\d+)\]; 3 blocks are "
                         r"too few for a 95% verdict: run 6 or more", joined)
        assert said, text
        ratio, low, high = map(float, said.groups())
        assert low <= ratio <= high
        assert f"[{said.group(2)}, {said.group(3)}] at 75%" in joined, text  # the table's cell
        assert "95% CI [" not in joined, text
        if not flags:  # -v keeps its notes and warnings
            assert joined.count("too few") == 1 and "no verdict (" not in joined, text
            _said_once(text)
