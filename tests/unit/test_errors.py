"""The one error tree: every error a user can fix is a UserError, and a bug is never a warning."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

import pairbench.errors as errors
from pairbench.store import history


def test_every_error_is_under_the_one_root_and_drawn_in_the_tree() -> None:
    doc = errors.__doc__ or ""
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.UserError), name
        assert name in doc, f"{name} is missing from the tree in errors.py"
    assert history.HistoryError is errors.HistoryError  # one class, wherever it is imported from


def test_ctrl_c_keeps_its_exit_code_although_it_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from pairbench import cli

    def interrupted(args):  # type: ignore[no-untyped-def]
        raise errors.Interrupted("interrupted after 3 complete blocks")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda argv=None: parser)
    parser.set_defaults(handler=interrupted)
    err = io.StringIO()
    with redirect_stderr(err):
        assert cli.main([]) == cli.EXIT_INTERRUPTED
    assert err.getvalue().strip() == "interrupted after 3 complete blocks"


def test_a_store_error_is_a_notice_but_a_bug_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 100)
    run = make_run()
    notice = history.record_run(run, str(bad))
    assert notice is not None and "run not recorded in the history" in notice.message

    def broken(self, run, source="pairbench"):  # type: ignore[no-untyped-def]
        raise TypeError("a bug in the recorder")

    monkeypatch.setattr(history.History, "record", broken)
    with pytest.raises(TypeError, match="a bug in the recorder"):
        history.record_run(make_run(), str(tmp_path / "h.sqlite"))
