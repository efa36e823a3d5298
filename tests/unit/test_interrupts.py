"""The signal policy: what the first, a second and a shielded signal do (handlers called directly)."""

from __future__ import annotations

import json
import signal

import pytest

from pairbench import interrupts
from pairbench.errors import Interrupted
from pairbench.runners.fake import FakeRunner
from pairbench.session import execute
from tests.unit.test_session import make_run, options


def test_first_signal_raises_and_sets_the_exit_code() -> None:
    with interrupts.installed():
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        with pytest.raises(interrupts.Stopped) as info:
            handler(signal.SIGTERM, None)
        assert info.value.signum == signal.SIGTERM
        assert isinstance(info.value, KeyboardInterrupt)  # every Ctrl-C cleanup applies
        assert interrupts.exit_code() == 143
        assert interrupts.signal_name() == "SIGTERM"
        assert not interrupts.hurried()
        with pytest.raises(interrupts.Stopped):
            handler(signal.SIGINT, None)  # a second one still cuts a wait short
        assert interrupts.hurried()
        assert interrupts.exit_code() == 143  # the first signal decides


def test_shielded_signals_are_counted_not_raised() -> None:
    with interrupts.installed():
        interrupts.shield()
        signal.getsignal(signal.SIGHUP)(signal.SIGHUP, None)  # type: ignore[operator]
        assert interrupts.exit_code() == 129


def test_previous_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with interrupts.installed():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_no_signal_is_a_plain_ctrl_c() -> None:
    with interrupts.installed():
        assert interrupts.exit_code() == 130
        assert interrupts.first_signal() is None


class _SignalledAgainOnClose(FakeRunner):
    """A second signal arrives while the runner stops its children."""

    def close(self) -> None:
        super().close()
        signal.getsignal(signal.SIGINT)(signal.SIGINT, None)  # type: ignore[operator]


def test_a_second_signal_while_stopping_keeps_the_analysis(tmp_path) -> None:
    run = make_run(2)
    runner = _SignalledAgainOnClose(fail_at=9, fail_with=lambda: interrupts.Stopped(signal.SIGTERM))
    with interrupts.installed():
        interrupts.record(signal.SIGTERM)  # as the handler does before raising
        with pytest.raises(Interrupted, match=r"interrupted by SIGTERM after 4 complete blocks; 9 samples kept"):
            execute(run, {"command": runner}, options(tmp_path, runs=10, warmup=0))
        assert interrupts.exit_code() == 143
    assert runner.closed == 1
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["status"] == "interrupted"
    assert doc["comparisons"]


def test_after_a_stop_a_late_signal_cannot_kill_the_exit() -> None:
    """The process is on its way out with its results printed: a signal that arrives after the policy's
    block (between `main` returning and the interpreter exiting) must not raise KeyboardInterrupt and
    turn exit 130 into death by SIGINT."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        with interrupts.installed():
            with pytest.raises(interrupts.Stopped):
                signal.getsignal(signal.SIGINT)(signal.SIGINT, None)  # type: ignore[operator]
            interrupts.shield()
        late = signal.getsignal(signal.SIGINT)
        assert callable(late)
        late(signal.SIGINT, None)  # counted, not raised
    finally:
        signal.signal(signal.SIGINT, previous)


def test_without_a_stop_the_previous_handlers_come_back() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    with interrupts.installed():
        pass
    assert signal.getsignal(signal.SIGTERM) is previous
