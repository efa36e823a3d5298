"""The public API: `pairbench.__all__` and `pairbench.api.__all__` agree and hold every public name
(as httpx's tests/test_exported_members.py), and the options map onto the CLI's flags."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

import pairbench
from pairbench import api


def test_every_exported_name_exists_and_is_documented() -> None:
    for name in pairbench.__all__:
        assert getattr(pairbench, name) is not None, name
    for name in api.__all__:
        value = getattr(api, name)
        assert getattr(pairbench, name) is value, name
        assert (value.__doc__ or "").strip(), name


def test_every_public_name_is_exported() -> None:
    defined = {n for n, v in vars(api).items()
               if not n.startswith("_") and getattr(v, "__module__", None) == "pairbench.api"}
    assert defined <= set(api.__all__)
    assert set(api.__all__) == set(pairbench._API) and "__version__" in pairbench.__all__
    public = {n for n in dir(pairbench) if not n.startswith("_")
              and not isinstance(getattr(pairbench, n), types.ModuleType) and n != "annotations"}
    assert public <= set(pairbench.__all__)
    with pytest.raises(AttributeError):
        pairbench.no_such_name  # noqa: B018


def test_options_become_the_subcommands_flags() -> None:
    args = api._parse("cmd", ["a", "b c"], {"runs": 4, "warmup": 0, "command_name": ["x", "y"],
                                           "parameter_list": [("N", "1,2")], "no_history": True,
                                           "fail_on_regression": False, "seed": None})
    assert (args.runs, args.warmup, args.command_name) == (4, 0, ["x", "y"])
    assert args.parameter_list == [["N", "1,2"]] and args.no_history and not args.fail_on_regression
    assert args.commands == ["a", "b c"]
    # after `--`: a statement that starts with a dash stays a statement
    assert api._parse("micro", ["-1", "x"], {"python": ["p1", "p2"]}).targets == ["-1", "x"]


def test_bad_options_are_one_user_error_line() -> None:
    with pytest.raises(pairbench.UserError, match=r"^cmd: unknown option 'rns'; valid: .*runs"):
        api._parse("cmd", ["a"], {"rns": 3})
    with pytest.raises(pairbench.UserError, match=r"^cmd: argument -r/--runs: 'x' is not a whole number"):
        api._parse("cmd", ["a"], {"runs": "x"})
    with pytest.raises(pairbench.UserError, match="valid subcommands are cmd, micro"):
        pairbench.measure("history")


def test_a_comparison_loads_renders_and_is_recorded(tmp_path: Path) -> None:
    """With the scripted runner (`debug_fake`, no process): the run comes back as the model."""
    store = tmp_path / "h.sqlite"
    kept = tmp_path / "run.json"
    run = pairbench.compare_commands("a", "b", runs=8, warmup=0, debug_fake="1,1.5", seed=3,
                                     history=str(store), export_json=str(kept))
    assert [v.name for v in run.variants] == ["a", "b"] and run.status == "complete"
    (c,) = [c for c in run.comparisons if c.metric == "time"]
    assert c.candidate == "b" and c.verdict == "slower" and c.ratio == pytest.approx(1.5, rel=0.1)
    assert pairbench.regressions(run) == [c for c in run.comparisons if c.verdict == "slower" and c.meaningful]
    assert c in pairbench.regressions(run)
    assert pairbench.load_run(kept).comparisons == run.comparisons
    with pairbench.open_history(store) as history:
        (summary,) = history.runs()
        assert summary.variants == ("a", "b") and summary.samples == len(run.samples)
    for fmt in pairbench.formats():
        assert "b" in pairbench.render(run, fmt, width=100), fmt
    pairbench.export(run, "markdown", tmp_path / "r.md", title="t")
    assert (tmp_path / "r.md").read_text().startswith("# t")


def test_nothing_is_printed_without_echo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairbench.compare_commands("a", "b", runs=3, warmup=0, debug_fake="1,1.2", no_history=True)
    assert capsys.readouterr() == ("", "")
    pairbench.compare_commands("a", "b", runs=3, warmup=0, debug_fake="1,1.2", no_history=True, echo=True)
    assert "b" in capsys.readouterr().out


def test_no_history_store_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(pairbench.UserError):
        pairbench.open_history(tmp_path / "missing.sqlite")


def test_ignore_failure_codes_become_hyperfines_flag() -> None:
    from pairbench.api import _flags, _subparser

    parser = _subparser("cmd")
    assert _flags(parser, {"ignore_failure": [1, 2]}) == ["--ignore-failure=1,2"]
    assert _flags(parser, {"ignore_failure": True}) == ["--ignore-failure"]
    args = parser.parse_args([*_flags(parser, {"ignore_failure": (3,)}), "true", "false"])
    assert args.ignore_codes == "3" and args.commands == ["true", "false"]
