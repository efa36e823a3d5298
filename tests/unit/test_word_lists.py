"""Each word list has one home, and every other place that spells it is checked against it.

- format names: report/formats.py `FORMATS` (the exporter table, the `--export-FORMAT` flags,
  `report --format`, `pairbench.formats()`, docs/reports.md, README.md);
- the command kind's metric names: its `BUILTIN_METRICS` (runners.command; the `--metric` and
  suite-file reserved names, the secondary metrics, the reports' and analysis' subsets, docs);
- run settings: run_settings.py `RUN_SETTINGS` (RunOptions' fields, the shared flags and what
  they set, the suite file's `[defaults]` reader, `Defaults`, the JSON Schema, docs/suite.md,
  README.md).

Each check is a function of the lists it compares, and is shown to fail on a planted drift.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

from pairbench.errors import UserError
from pairbench.run_settings import RUN_SETTINGS, SUITE_SETTINGS, RunSetting

ROOT = Path(__file__).resolve().parents[2]


def drift(home: Iterable[str], others: Mapping[str, Iterable[str]]) -> list[str]:
    """'where: missing X; extra Y' for every list of `others` that does not hold exactly `home`'s words."""
    want = list(home)
    found = []
    for where, words in others.items():
        got = list(words)
        missing = [w for w in want if w not in got]
        extra = [w for w in got if w not in want]
        if missing or extra:
            found.append(f"{where}: missing {missing}; extra {extra}")
    return found


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings if s.startswith("--")}


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([^`\s]+)`", text)


def _outside_parentheses(text: str) -> str:
    kept, depth = [], 0
    for ch in text:
        depth += ch == "("
        if depth == 0:
            kept.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(kept)


# Format names ---------------------------------------------------------------------------------

def _report_parser() -> argparse.ArgumentParser:
    from pairbench.commands import report

    subparsers = argparse.ArgumentParser().add_subparsers()
    report.register(subparsers)
    return subparsers.choices["report"]


def _measuring_parser() -> argparse.ArgumentParser:
    from pairbench.commands.common import add_run_options

    parser = argparse.ArgumentParser()
    add_run_options(parser)
    return parser


def format_drift(formats: Mapping[str, str | None], exporters: Sequence[str], measuring: Iterable[str],
                 report_flags: Iterable[str], report_choices: Iterable[str], api: Sequence[str], docs: str,
                 readme: str) -> list[str]:
    """Where the format names differ from `formats` (the home)."""
    from pairbench.report.formats import RUN_FILE, export_flag

    exported = [f for f, help in formats.items() if help]
    flags = [export_flag(f) for f in exported]
    files = [f for f in formats if f != "terminal"]
    found = drift(formats, {"EXPORTERS": exporters, "pairbench.formats()": api})
    if list(exporters) != list(formats):
        found.append(f"EXPORTERS is not in the order of FORMATS: {list(exporters)}")
    sentence = docs.split("FORMAT is any of", 1)[-1].split("--export-FORMAT", 1)[0]
    found += drift(flags + [export_flag(RUN_FILE)],
                   {"measuring flags": [f for f in measuring if f.startswith("--export-") and f not in NOT_FORMATS],
                    "report flags": [f for f in report_flags if f.startswith("--export-")]})
    found += drift(files, {"report --format": report_choices, "docs/reports.md": _backticked(sentence)})
    found += [f"README.md: no {flag}" for flag in flags if flag not in readme]
    return found


NOT_FORMATS = ("--export-folded",)
"""Export flags that write no report of the run: `--export-folded DIR` writes the profiles' folded
stacks (`--profile`), a directory of files for flame graph tools."""


def _format_lists() -> dict[str, object]:
    import pairbench
    from pairbench.report.exporters import EXPORTERS

    report = _report_parser()
    return {"exporters": list(EXPORTERS), "measuring": list(_flags(_measuring_parser())),
            "report_flags": list(_flags(report)), "report_choices": list(_flags(report)["--format"].choices or ()),
            "api": list(pairbench.formats()), "docs": (ROOT / "docs" / "reports.md").read_text(encoding="utf-8"),
            "readme": (ROOT / "README.md").read_text(encoding="utf-8")}


def test_the_format_names_have_one_home() -> None:
    from pairbench.report.formats import FORMATS

    assert format_drift(FORMATS, **_format_lists()) == []  # type: ignore[arg-type]


def test_a_drifted_format_list_is_found() -> None:
    from pairbench.report.formats import FORMATS

    planted = {**FORMATS, "pdf": "also write a PDF report"}
    found = format_drift(planted, **_format_lists())  # type: ignore[arg-type]
    assert "EXPORTERS: missing ['pdf']; extra []" in found
    assert "measuring flags: missing ['--export-pdf']; extra []" in found
    assert "report flags: missing ['--export-pdf']; extra []" in found
    assert "report --format: missing ['pdf']; extra []" in found
    assert "README.md: no --export-pdf" in found
    lists = _format_lists()
    lists["docs"] = str(lists["docs"]).replace("`orgmode`, ", "")
    assert format_drift(FORMATS, **lists) == ["docs/reports.md: missing ['orgmode']; extra []"]  # type: ignore[arg-type]


# The command kind's metric names ----------------------------------------------------------------

def metric_drift(builtin: Sequence[tuple[str, str]], lists: Mapping[str, Iterable[str]]) -> list[str]:
    """Where the command kind's metric names differ from `builtin` ((name, unit), the kind's own)."""
    names = [n for n, _ in builtin]
    wanted = {
        "all": names,
        "secondary": names[1:],  # every metric but the primary one
        "primary": names[:1],
        "seconds": [n for n, unit in builtin if unit == "s"],
    }
    return [m for where, words in lists.items() for m in drift(wanted[where.split(":")[0]], {where: words})]


def _metric_lists() -> dict[str, Iterable[str]]:
    from pairbench.analysis.comparisons import SHELL_TIMED_METRICS
    from pairbench.report.terminal import SECONDARY_COMMAND_METRICS
    from pairbench.runners.command import SECONDARY_METRICS, parse_metric
    from pairbench.suite.schema import DEFAULT_COMMAND_METRIC, RESERVED_METRICS

    def refused_by_metric_flag(name: str) -> bool:
        try:
            parse_metric(f"{name}=took ([\\d.]+)")
        except UserError as exc:
            return "built-in" in str(exc)
        return False

    candidates = {*RESERVED_METRICS, *SECONDARY_METRICS, "time", "cpu", "instructions", "ops"}
    runfile = (ROOT / "docs" / "runfile.md").read_text(encoding="utf-8")
    recorded = runfile.split("Command benchmarks record", 1)[1].split("plus", 1)[0]
    return {
        "all:suite/schema.py RESERVED_METRICS": RESERVED_METRICS,
        "all:--metric refuses": sorted(n for n in candidates if refused_by_metric_flag(n)),
        "all:docs/runfile.md": _backticked(_outside_parentheses(recorded)),
        "secondary:runners.command SECONDARY_METRICS": SECONDARY_METRICS,
        "secondary:report/terminal.py SECONDARY_COMMAND_METRICS": SECONDARY_COMMAND_METRICS,
        "primary:suite/schema.py DEFAULT_COMMAND_METRIC": [DEFAULT_COMMAND_METRIC.name],
        "seconds:analysis/comparisons.py SHELL_TIMED_METRICS": SHELL_TIMED_METRICS,
    }


def _builtin() -> list[tuple[str, str]]:
    from pairbench.runners.command import BUILTIN_METRICS

    return [(m.name, m.unit) for m in BUILTIN_METRICS]


def test_the_command_metric_names_have_one_home() -> None:
    assert metric_drift(_builtin(), _metric_lists()) == []


def test_a_drifted_metric_list_is_found() -> None:
    planted = [*_builtin(), ("cpu", "s")]
    found = metric_drift(planted, _metric_lists())
    assert "all:suite/schema.py RESERVED_METRICS: missing ['cpu']; extra []" in found
    assert "all:--metric refuses: missing ['cpu']; extra []" in found
    assert "secondary:report/terminal.py SECONDARY_COMMAND_METRICS: missing ['cpu']; extra []" in found
    assert "seconds:analysis/comparisons.py SHELL_TIMED_METRICS: missing ['cpu']; extra []" in found


def test_the_json_schema_names_the_reserved_metrics() -> None:
    from pairbench.suite.jsonschema import suite_json_schema

    names = ", ".join(n for n, _ in _builtin())
    assert f"{names} are taken" in str(suite_json_schema())


# Run settings -------------------------------------------------------------------------------------

SAMPLE_VALUES: dict[str, tuple[str, ...]] = {
    # a run setting -> what follows its flag to give it a value other than its default
    "runs": ("3",), "warmup": ("0",), "max_time": ("5",), "max_runs": ("20",), "threshold": ("2.5",),
    "confidence": ("0.9",), "export_json": ("r.json",), "fail_on_regression": (), "seed": ("4",),
    "correction": ("bh",), "history": ("h.db",), "record_history": (),
    "profile": (),
}
SAMPLE_SUITE_VALUES: dict[str, object] = {"runs": 3, "warmup": 0, "max_time": 5.0, "threshold": 2.5,
                                          "confidence": 0.9, "seed": 4, "profile": 4}
BENCHMARK_DEFAULTS = ("timeout", "metrics")
"""[defaults] keys that are not run settings: what every benchmark gets unless it says otherwise."""


def setting_drift(settings: Sequence[RunSetting]) -> list[str]:
    """Where the run settings' fields, flags, suite keys, schema and docs differ from `settings`."""
    from pairbench.commands.common import options_from_args
    from pairbench.flows.settings import RunOptions
    from pairbench.suite import parse_suite, validation
    from pairbench.suite.jsonschema import suite_json_schema
    from pairbench.suite.schema import Defaults

    names = [s.name for s in settings]
    flagged = [s for s in settings if s.flag]
    in_suite = [s.name for s in settings if s.in_suite]
    parser = _measuring_parser()
    flags = _flags(parser)
    found = drift(names, {"RunOptions fields": [f.name for f in dataclasses.fields(RunOptions)]})
    found += [f"{s.flag}: not a shared flag" for s in flagged if s.flag not in flags]
    found += [f"{s.name}: no sample value in this test" for s in flagged if s.name not in SAMPLE_VALUES]
    # every flag reaches its field: given alone, it changes that field of the options and no other
    # (but `default_bound`, which any of -r, --max-time, -M turns off: adaptive stopping by default)
    default = options_from_args(parser.parse_args([]))
    for s in flagged:
        if s.flag in flags and s.name in SAMPLE_VALUES:
            got = options_from_args(parser.parse_args([s.flag, *SAMPLE_VALUES[s.name]]))
            changed = [f.name for f in dataclasses.fields(RunOptions) if getattr(got, f.name) != getattr(default, f.name)
                       and not (f.name == "default_bound" and s.name in ("runs", "max_time", "max_runs"))]
            if changed != [s.name]:
                found.append(f"{s.flag}: sets {changed}, not {s.name}")
    suite_keys = [k for k in validation._DEFAULT_KEYS if k not in BENCHMARK_DEFAULTS]
    schema_defaults = suite_json_schema()["properties"]["defaults"]["properties"]
    docs = (ROOT / "docs" / "suite.md").read_text(encoding="utf-8").split("## `[defaults]`", 1)[1].split("\n## ")[0]
    found += drift(in_suite, {
        "suite/validation.py _DEFAULT_KEYS": suite_keys,
        "suite/schema.py Defaults": [f.name for f in dataclasses.fields(Defaults) if f.name in names],
        "suite/jsonschema.py [defaults]": [k for k in schema_defaults if k not in BENCHMARK_DEFAULTS],
        "docs/suite.md [defaults]": [k for k in re.findall(r"^\| `(\w+)` \|", docs, re.M)
                                     if k not in BENCHMARK_DEFAULTS],
    })
    # every suite key reaches its field of the suite's Defaults
    body = "".join(f"{k} = {SAMPLE_SUITE_VALUES[k]!r}\n" for k in in_suite if k in SAMPLE_SUITE_VALUES)
    try:
        suite = parse_suite(f"[defaults]\n{body}[variants.a]\ncommand = 'true'\n[variants.b]\ncommand = 'true'\n"
                            "[benchmarks.x]\ncommand = '{variant}'\n")
        found += [f"[defaults] {k}: not read" for k in in_suite
                  if getattr(suite.defaults, k, None) != SAMPLE_SUITE_VALUES.get(k, "no sample value in this test")]
    except UserError as exc:
        found.append(f"[defaults]: {exc}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shared = readme.split("Shared flags:", 1)[1].split("\n\n", 1)[0]
    found += [f"README.md shared flags: no {s.flag}" for s in flagged if s.flag not in shared]
    return found


def test_the_run_settings_have_one_home() -> None:
    assert setting_drift(RUN_SETTINGS) == []
    assert SUITE_SETTINGS == tuple(s.name for s in RUN_SETTINGS if s.in_suite)


def test_the_correction_choices_are_the_analysis_ones() -> None:
    from pairbench.analysis.comparisons import CORRECTIONS
    from pairbench.flows.settings import RunOptions

    assert drift(CORRECTIONS, {"--correction": _flags(_measuring_parser())["--correction"].choices or ()}) == []
    for name in CORRECTIONS:
        RunOptions(correction=name)
    with pytest.raises(UserError):
        RunOptions(correction="bonferroni")


def test_a_drifted_run_setting_is_found() -> None:
    planted = [*RUN_SETTINGS, RunSetting("rounds", "--rounds", in_suite=True)]
    found = setting_drift(planted)
    assert "RunOptions fields: missing ['rounds']; extra []" in found
    assert "--rounds: not a shared flag" in found
    assert "suite/validation.py _DEFAULT_KEYS: missing ['rounds']; extra []" in found
    assert "suite/jsonschema.py [defaults]: missing ['rounds']; extra []" in found
    assert "docs/suite.md [defaults]: missing ['rounds']; extra []" in found
    assert "README.md shared flags: no --rounds" in found
    moved = [dataclasses.replace(s, flag="--max-time") if s.name == "max_runs" else s for s in RUN_SETTINGS]
    assert setting_drift(moved) == ["--max-time: sets ['max_time'], not max_runs"]
    unsuited = [dataclasses.replace(s, in_suite=False) if s.name == "seed" else s for s in RUN_SETTINGS]
    assert "suite/validation.py _DEFAULT_KEYS: missing []; extra ['seed']" in setting_drift(unsuited)


def test_the_api_measures_every_measuring_subcommand_it_names() -> None:
    from pairbench import api
    from pairbench.commands import COMMAND_MODULES

    assert drift(api.MEASURING, {"api._MEASURES": api._MEASURES}) == []
    assert set(api.MEASURING) <= set(COMMAND_MODULES)


def test_the_brief_outputs_counter_names_are_the_counter_sets() -> None:
    from pairbench.report.brief import COUNTER_METRICS
    from pairbench.runners.counters import COUNTER_NAMES, counter_metrics

    names = {m.name for sim in (True, False) for m in counter_metrics(COUNTER_NAMES, sim)}
    assert not drift(sorted(names), {"report/brief.py COUNTER_METRICS": sorted(COUNTER_METRICS)})
