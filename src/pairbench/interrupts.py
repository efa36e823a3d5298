"""One signal policy for the whole process: SIGINT, SIGTERM and SIGHUP stop a run the same way.

Why one place: a run stopped by Ctrl-C, by `kill` or by a closed terminal must keep what it
measured, analyse it and say so; handlers scattered over runners each did one of these for one
signal. `cli.main` installs the policy (`installed()`); below it:

- the first signal raises `Stopped` (a KeyboardInterrupt) in the main thread, wherever it is, so
  the runner stops the replicate in flight and the session saves what was measured;
- a second signal raises again: it cuts short the wait for the replicate in flight (a server's
  grace period, a child's exit), and `hurried()` tells the code that stops children to kill them
  without a grace period from then on;
- once the session starts saving (`shield()`), signals are only counted, so the analysis, the
  run file and the printed results are never cut off.
- after a stop they stay counted, then ignored at exit, so a late one cannot turn the exit code
  into death by that signal.

Loops that must turn a signal into their own stop (an event loop swallows exceptions raised in
its callbacks) install their own handlers for `SIGNALS` and call `record` from them.

The exit code is 128 + the first signal's number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell
reports a process killed by that signal.
"""

from __future__ import annotations

import signal

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

__all__ = ["SIGNALS", "Stopped", "installed", "record", "shield", "hurried", "first_signal", "exit_code",
           "signal_name"]

SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop signal arrived; every `except KeyboardInterrupt` cleanup applies to it too."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _State:
    __slots__ = ("received", "shielded")

    def __init__(self) -> None:
        self.received: list[int] = []
        self.shielded = False


_state = _State()


def _handle(signum: int, frame: FrameType | None) -> None:
    _state.received.append(signum)
    if not _state.shielded:
        raise Stopped(signum)


def installed() -> _Installed:
    """Apply the policy inside the block (main thread only); the previous handlers come back after."""
    return _Installed()


class _Installed:
    """The block of `installed()`: a class rather than contextlib and threading, which together
    cost a twentieth of `pairbench --help`."""

    __slots__ = ("outer", "previous")

    def __enter__(self) -> None:
        global _state
        self.outer, _state = _state, _State()
        self.previous: dict[int, Any] = {}
        for sig in SIGNALS:
            try:
                self.previous[sig] = signal.signal(sig, _handle)
            except ValueError:  # not the main thread: only the main thread may set handlers
                break

    def __exit__(self, *exc: object) -> None:
        global _state
        # After a stop the process is on its way out with its results kept: a late signal is only
        # counted (restoring Python's handler would let it kill the exit, 130 becoming death by SIGINT).
        stopping = bool(_state.received)
        for number, handler in self.previous.items():
            signal.signal(number, _absorb if stopping else handler)
        _state = self.outer
        if stopping:
            import atexit

            atexit.unregister(_ignore_to_the_end)  # once, however many runs were stopped
            atexit.register(_ignore_to_the_end)


def _absorb(signum: int, frame: FrameType | None) -> None:
    _state.received.append(signum)


def _ignore_to_the_end() -> None:
    """At exit, the signals `_absorb` still counts are ignored instead. The interpreter's exit puts
    back the default action of every signal with a Python handler (it leaves SIG_IGN alone), so
    one landing then (Ctrl-C pressed again as the results come out) would kill the process: exit
    130 would become death by SIGINT. A handler the program has set since is kept."""
    for sig in SIGNALS:
        if signal.getsignal(sig) is _absorb:
            signal.signal(sig, signal.SIG_IGN)


def record(signum: int) -> None:
    """Count a signal that another handler turned into its own stop."""
    _state.received.append(signum)


def shield() -> None:
    """From now on signals are counted, never raised: what is being saved and printed is kept whole."""
    _state.shielded = True


def hurried() -> bool:
    """True after a second signal: stop children at once, without their grace period."""
    return len(_state.received) >= 2


def first_signal() -> int | None:
    """The signal that stopped the run, if one did."""
    return _state.received[0] if _state.received else None


def exit_code(default: int = 128 + signal.SIGINT) -> int:
    """128 + the first signal's number; `default` (Ctrl-C's 130) when no signal was seen."""
    first = first_signal()
    return 128 + first if first is not None else default


def signal_name(signum: int | None = None) -> str:
    """`SIGTERM` for the signal that stopped the run (SIGINT when none was seen: a plain Ctrl-C)."""
    number = signum if signum is not None else (first_signal() or signal.SIGINT)
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
