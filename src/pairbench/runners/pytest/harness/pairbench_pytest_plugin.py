"""pairbench's `benchmark` fixture: pytest-benchmark tests timed unchanged, in a variant's own interpreter.

Loaded with `-p pairbench_pytest_plugin` (pytest-benchmark's and pytest-codspeed's own plugins
blocked with `-p no:benchmark -p no:codspeed`), so a variant's environment needs pytest only. It
imports nothing of pairbench. The request is a JSON file named by $PAIRBENCH_PYTEST_REQUEST:

  {"mode": "collect", "answer": PATH}
      one JSON line per collected test: {"nodeid", "kind"}; kind is "fixture" (uses `benchmark`),
      "marker" (pytest-codspeed style: `@pytest.mark.benchmark` without the fixture, the whole
      test is the operation) or "" (not a benchmark)
  {"mode": "calibrate", "answer": PATH, "tests": {NODEID: {}}, "target": S}
      per test {"nodeid", "ok", "loops", "time"}: loops for about `target` s per sample
  {"mode": "time", "answer": PATH, "tests": {NODEID: {"loops": N}}, "samples": K, "warmup": W, "clock": C}
      per test {"nodeid", "ok", "loops", "warmup": [s...], "samples": [s...]}: seconds per sample

A test that fails, is skipped or never calls the fixture answers {"nodeid", "ok": false, "error"}.
The tests not named in "tests" are deselected. Answers are appended as each test ends, so a crash
keeps the ones before it.

The fixture's API is pytest-benchmark's as tests use it: `benchmark(fn, *args, **kwargs)` returns
fn's result; `benchmark.pedantic(fn, args, kwargs, setup, rounds, iterations, warmup_rounds)`
(setup runs before each operation, outside the timer; warmup_rounds untimed calls first);
`benchmark.extra_info`, `benchmark.group`, `benchmark.name`; `@pytest.mark.benchmark(...)`: `timer`
and `disable_gc` honoured (also as `--benchmark-timer`/`--benchmark-disable-gc` in addopts), the
other options accepted. The loop count is pairbench's (shared by every variant), not the test's
`rounds`/`iterations`.
"""

import contextlib
import gc
import importlib
import json
import os
import time

import pytest

from pairbench_loops import calibrate as _calibrate

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}

# pytest-benchmark's command-line options, accepted and ignored so that a project's `addopts`
# naming them still parses with pytest-benchmark's plugin blocked: (option, takes a value).
_IGNORED_OPTIONS = (
    ("--benchmark-min-time", True), ("--benchmark-max-time", True), ("--benchmark-min-rounds", True),
    ("--benchmark-timer", True), ("--benchmark-calibration-precision", True),
    ("--benchmark-warmup", "?"), ("--benchmark-warmup-iterations", True), ("--benchmark-disable-gc", False),
    ("--benchmark-skip", False), ("--benchmark-disable", False), ("--benchmark-enable", False),
    ("--benchmark-only", False), ("--benchmark-save", True), ("--benchmark-autosave", False),
    ("--benchmark-save-data", False), ("--benchmark-json", True), ("--benchmark-compare", "?"),
    ("--benchmark-compare-fail", True), ("--benchmark-cprofile", True), ("--benchmark-sort", True),
    ("--benchmark-group-by", True), ("--benchmark-columns", True), ("--benchmark-name", True),
    ("--benchmark-histogram", "?"), ("--benchmark-storage", True), ("--benchmark-verbose", False),
    ("--benchmark-quiet", False), ("--codspeed", False),
)


class _Request:
    """The request of this pytest process (None when pytest runs without pairbench)."""

    def __init__(self, data):
        self.mode = data["mode"]
        self.answer = data["answer"]
        self.tests = data.get("tests") or {}
        self.target = float(data.get("target", 0.1))
        self.samples = int(data.get("samples", 5))
        self.warmup = int(data.get("warmup", 1))
        self.clock = CLOCKS[data.get("clock") or "wall"]
        self.results = {}
        """nodeid -> the measured answer of a test whose call passed so far."""
        self.errors = {}

    def write(self, item):
        with open(self.answer, "a", encoding="utf-8") as f:
            f.write(json.dumps(item) + "\n")


_request = None


def _load_request():
    path = os.environ.get("PAIRBENCH_PYTEST_REQUEST")
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        return _Request(json.load(f))


def _kind(item):
    if "benchmark" in getattr(item, "fixturenames", ()):
        return "fixture"
    if item.get_closest_marker("benchmark") is not None and hasattr(item, "obj"):
        return "marker"
    return ""


# -- the timing ---------------------------------------------------------------------------------


def _timed_loops(op, setup, loops, clock):
    """Seconds `loops` calls of op take (setup, when given, runs before each call, untimed)."""
    if setup is None:
        start = clock()
        for _ in range(loops):
            op()
        return clock() - start
    total = 0.0
    for _ in range(loops):
        args, kwargs = setup()
        start = clock()
        op(*args, **kwargs)
        total += clock() - start
    return total


def _measure(nodeid, run, extra_warmup=0):
    """Calibrate or time `run(loops)` as the request asks; the answer is kept for the test's end."""
    req = _request
    if req.mode == "calibrate":
        req.results[nodeid] = dict(_calibrate(run, req.target), nodeid=nodeid, ok=True)
        return
    loops = int(req.tests[nodeid]["loops"])
    warm = [run(loops) for _ in range(req.warmup + extra_warmup)]
    samples = [run(loops) for _ in range(req.samples)]
    req.results[nodeid] = {"nodeid": nodeid, "ok": True, "loops": loops, "warmup": warm, "samples": samples}


def _timer(value):
    """A `timer` option: a callable, or pytest-benchmark's command-line spelling `time.process_time`."""
    if value is None or callable(value):
        return value
    module, _, name = str(value).rpartition(".")
    return getattr(importlib.import_module(module or "time"), name)


@contextlib.contextmanager
def _gc_off(disable):
    """pytest-benchmark's `disable_gc`: the garbage collector off while the test's function is timed."""
    was = gc.isenabled()
    if disable:
        gc.disable()
    try:
        yield
    finally:
        if disable and was:
            gc.enable()


class _Conditions:
    """What `@pytest.mark.benchmark(...)` and pytest-benchmark's flags in `addopts` say about the timing:
    `timer` (replaces --clock for the test) and `disable_gc`; the other options are hints."""

    def __init__(self, node, marker_options):
        config = node.config
        self.clock = (_timer(marker_options.get("timer")) or _timer(config.getoption("--benchmark-timer", None))
                      or _request.clock)
        self.disable_gc = bool(marker_options.get("disable_gc", config.getoption("--benchmark-disable-gc", False)))


class BenchmarkFixture:
    """The `benchmark` fixture: times its function in pairbench's calibrated loops."""

    def __init__(self, node, marker_options):
        self.name = node.name
        self.fullname = node.nodeid
        self.param = getattr(getattr(node, "callspec", None), "id", None)
        self.params = getattr(getattr(node, "callspec", None), "params", None)
        self.group = marker_options.get("group")
        self.extra_info = {}
        self.disabled = False
        self.stats = None
        self._options = marker_options
        self._conditions = _Conditions(node, marker_options)
        self._used = False

    def _once(self):
        if self._used:
            raise RuntimeError("the benchmark fixture can be used only once per test (as pytest-benchmark's)")
        self._used = True

    def __call__(self, function_to_benchmark, *args, **kwargs):
        self._once()

        def op():
            return function_to_benchmark(*args, **kwargs)

        with _gc_off(self._conditions.disable_gc):
            result = op()  # its result for the test's own assertions, and a first call to fail early
            _measure(self.fullname, lambda loops: _timed_loops(op, None, loops, self._conditions.clock))
        return result

    def pedantic(self, target, args=(), kwargs=None, setup=None, rounds=1, warmup_rounds=0, iterations=1):
        self._once()
        kwargs = kwargs or {}
        if setup is not None and (args or kwargs):
            raise ValueError("Can't use `args` or `kwargs` if `setup` is given (as pytest-benchmark)")

        def prepared():
            made = setup() if setup is not None else None
            if made is None:
                return args, kwargs
            return made

        clock = self._conditions.clock
        with _gc_off(self._conditions.disable_gc):
            for _ in range(int(warmup_rounds or 0)):  # untimed, as pytest-benchmark's warm-up rounds
                a, k = prepared()
                target(*a, **k)
            a, k = prepared()
            result = target(*a, **k)
            if setup is None:
                _measure(self.fullname, lambda loops: _timed_loops(lambda: target(*args, **kwargs), None, loops, clock))
            else:
                _measure(self.fullname, lambda loops: _timed_loops(target, prepared, loops, clock))
        return result

    def weave(self, *args, **kwargs):
        raise RuntimeError("benchmark.weave is not supported by pairbench")


@pytest.fixture
def benchmark(request):
    """pairbench's stand-in for pytest-benchmark's fixture (runs its function once outside pairbench)."""
    marker = request.node.get_closest_marker("benchmark")
    options = dict(marker.kwargs) if marker is not None else {}
    if _request is None:
        return _Passthrough()
    return BenchmarkFixture(request.node, options)


class _Passthrough:
    """Outside a pairbench run (the plugin loaded by hand): call once, time nothing."""

    extra_info = {}
    group = None

    def __call__(self, fn, *args, **kwargs):
        return fn(*args, **kwargs)

    def pedantic(self, target, args=(), kwargs=None, setup=None, rounds=1, warmup_rounds=0, iterations=1):
        if setup is not None:
            made = setup()
            if made is not None:
                args, kwargs = made
        return target(*args, **(kwargs or {}))


# -- pytest hooks -------------------------------------------------------------------------------


def pytest_addoption(parser):
    group = parser.getgroup("pairbench", "options of pytest-benchmark accepted and ignored under pairbench")
    for name, value in _IGNORED_OPTIONS:
        try:
            if value is False:
                group.addoption(name, action="store_true", default=False, help="ignored under pairbench")
            elif value == "?":
                group.addoption(name, nargs="?", const=True, default=None, help="ignored under pairbench")
            else:
                group.addoption(name, default=None, help="ignored under pairbench")
        except ValueError:  # already defined (the plugin it stands in for is loaded after all)
            pass


def pytest_configure(config):
    global _request
    config.addinivalue_line("markers", "benchmark(**options): a benchmark (pytest-benchmark's options, "
                            "pytest-codspeed's marker)")
    _request = _load_request()


@pytest.hookimpl(trylast=True)  # after -k, -m and other plugins have deselected
def pytest_collection_modifyitems(session, config, items):
    req = _request
    if req is None:
        return
    if req.mode == "collect":
        for item in items:
            req.write({"nodeid": item.nodeid, "kind": _kind(item)})
        config.hook.pytest_deselected(items=list(items))
        items[:] = []
        return
    keep = [item for item in items if item.nodeid in req.tests]
    dropped = [item for item in items if item.nodeid not in req.tests]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep
    found = {item.nodeid for item in keep}
    for nodeid in req.tests:
        if nodeid not in found:
            req.write({"nodeid": nodeid, "ok": False, "error": "not collected under this variant"})


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """A pytest-codspeed style test (marker, no fixture): the whole test function is the operation."""
    if _request is None or _kind(pyfuncitem) != "marker":
        return None
    func = pyfuncitem.obj
    names = pyfuncitem._fixtureinfo.argnames
    kwargs = {name: pyfuncitem.funcargs[name] for name in names}

    def op():
        return func(**kwargs)

    marker = pyfuncitem.get_closest_marker("benchmark")
    conditions = _Conditions(pyfuncitem, dict(marker.kwargs) if marker is not None else {})
    with _gc_off(conditions.disable_gc):
        op()
        _measure(pyfuncitem.nodeid, lambda loops: _timed_loops(op, None, loops, conditions.clock))
    return True


def pytest_runtest_logreport(report):
    req = _request
    if req is None or req.mode == "collect":
        return
    nodeid = report.nodeid
    if report.failed:
        where = "" if report.when == "call" else " (in %s)" % report.when
        text = report.longreprtext.strip().splitlines() if hasattr(report, "longreprtext") else []
        req.errors.setdefault(nodeid, _error_line(text) + where)
    elif report.skipped and nodeid not in req.errors and hasattr(report, "wasxfail"):
        # an xfail test that failed, as marked: its longrepr is the whole traceback; its error line says it
        text = report.longreprtext.strip().splitlines() if hasattr(report, "longreprtext") else []
        req.errors[nodeid] = "expected to fail (xfail): %s" % (_error_line(text),)
    elif report.skipped and nodeid not in req.errors:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if reason.startswith("Skipped: "):  # pytest.skip's reason, as pytest words it
            reason = reason[len("Skipped: "):]
        req.errors[nodeid] = "skipped: %s" % (reason,)
    if report.when == "teardown":
        if nodeid in req.errors:
            req.write({"nodeid": nodeid, "ok": False, "error": req.errors[nodeid]})
        elif nodeid in req.results:
            req.write(req.results[nodeid])
        else:
            req.write({"nodeid": nodeid, "ok": False, "error": "the test never called its benchmark fixture"})
        req.results.pop(nodeid, None)


def _error_line(lines):
    """The line of a failure that says what went wrong (pytest's `E   ...` lines, else the last)."""
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    if errors:
        return " ".join(errors)[:400]
    return (lines[-1] if lines else "failed")[:400]
