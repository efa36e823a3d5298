"""The pure helpers of bench/sensitivity.py: parsing peers' output and scoring trials."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "bench" / "sensitivity.py"
_spec = importlib.util.spec_from_file_location("bench_sensitivity", _PATH)
assert _spec and _spec.loader
sens = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sens  # dataclasses look their module up by name
_spec.loader.exec_module(sens)


def test_callgrind_total_is_read_from_summary_line() -> None:
    text = "version: 1\ncmd: ./busy 30000000\nevents: Ir\nsummary: 120037984\n\nfn=main\n5 4\ntotals: 1\n"
    assert sens.parse_callgrind_total(text) == 120037984


def test_callgrind_without_total_is_an_error() -> None:
    with pytest.raises(ValueError):
        sens.parse_callgrind_total("events: Ir\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Benchmark hidden because not significant (1): command\n", (False, None, None)),
        ("Not significant!\n", (False, None, None)),
        ("Mean +- std dev: [a] 30.1 ms +- 0.2 ms -> [b] 33.2 ms +- 0.3 ms: 1.10x slower\n", (True, True, 1.10)),
        ("Mean +- std dev: [a] 33.2 ms +- 0.2 ms -> [b] 30.1 ms +- 0.3 ms: 1.25x faster\n", (True, False, 0.8)),
    ],
)
def test_compare_to_output_is_parsed(text: str, expected: tuple) -> None:
    sig, slower, ratio = sens.parse_compare_to(text)
    assert (sig, slower) == expected[:2]
    assert ratio == pytest.approx(expected[2]) if expected[2] is not None else ratio is None


def test_unknown_compare_to_output_is_an_error() -> None:
    with pytest.raises(ValueError):
        sens.parse_compare_to("ERROR: no benchmark in common\n")


@pytest.mark.parametrize(
    ("diff", "significant", "slower", "expected"),
    [(0, True, False, "fp"), (0, True, True, "fp"), (0, False, None, "ok"),
     (2, True, True, "hit"), (2, True, False, "wrong"), (2, False, None, "miss")],
)
def test_outcome(diff: float, significant: bool, slower: bool | None, expected: str) -> None:
    assert sens.outcome(diff, significant, slower) == expected


def _row(tool: str, diff: float, significant: bool, slower: bool | None, elapsed: float = 20.0) -> dict:
    return {"tool": tool, "budget": 20.0, "diff": diff, "significant": significant, "slower": slower,
            "elapsed": elapsed}


def test_aggregate_counts_hits_false_positives_and_wrong_way_calls() -> None:
    rows = [_row("pyperf", 0, True, True), _row("pyperf", 0, False, None),
            _row("pyperf", 5, True, True, 30.0), _row("pyperf", 5, True, False, 10.0), _row("pyperf", 5, False, None)]
    cells = sens.aggregate(rows)
    assert cells[("pyperf", 20.0, 0.0)] == {"n": 2, "hits": 1, "wrong": 0, "elapsed": 20.0}
    assert cells[("pyperf", 20.0, 5.0)] == {"n": 3, "hits": 1, "wrong": 1, "elapsed": 20.0}


def test_table_has_a_row_per_tool_and_budget_in_tool_order() -> None:
    rows = [_row("pyperf", 0, False, None), _row("pairbench", 0, False, None), _row("pairbench", 1, True, True)]
    table = sens.format_table(sens.aggregate(rows)).splitlines()
    assert table[0] == "| tool | budget | A/A false positives | 1% detected | s used |"
    assert table[2].startswith("| pairbench | 20 s | 0/1 | 1/1 |")
    assert table[3].startswith("| pyperf | 20 s | 0/1 | – |")
