"""asv benchmarks timed unchanged in a variant's own interpreter (kind "asv", runners/pytest/runner.py).

    python asv_worker.py BENCHMARK_DIR...

Speaks the protocol of pairbench_pytest_plugin.py (request file in $PAIRBENCH_PYTEST_REQUEST, one
JSON answer line per benchmark), with asv's benchmark suites in place of pytest's tests, following
asv's "Writing benchmarks":

- The directory is imported as a package (as asv does, so relative imports work). Every function
  or method whose name has a benchmark prefix (`time_`, `timeraw_`, `track_`, `mem_`, `peakmem_`,
  or asv's CamelCase `TimeX`...) is a benchmark named as asv names it (`module.Class.time_x`, or
  its `benchmark_name`), one per combination of its `params` (`module.Class.time_x(10, 'a')`);
  `skip_benchmark` leaves it out.
- Attributes are looked up on the function, then the class, then the module; `setup`s of all
  three run (the module's first) and `teardown`s in the other order. A setup that raises
  NotImplementedError skips that combination. `setup_cache()` runs once per process, its value
  passed first to setup, the benchmark and teardown.
- time_: a sample is one of asv's repeats: setup, the loop timed, teardown. The loop count is
  `number` when the benchmark gives it, else calibrated on the baseline (pairbench's, shared by
  every variant); the `timer` attribute replaces the clock. `repeat`, `rounds`, `warmup_time`,
  `goal_time` are hints pairbench does not follow (its samples per process are the repeats).
- timeraw_: the benchmark returns code (or (code, setup code)); each sample runs it `number`
  times (default 1) with timeit in a fresh interpreter (this variant's), start-up not counted.
- track_: its number, once per process. mem_: the size in bytes of a copy of the object it
  returns (asv's measure; pympler's asizeof when installed, else a deep sys.getsizeof count).
  peakmem_: the peak resident size in bytes of a fresh interpreter that imports the suite, sets
  up and runs the benchmark (asv runs each benchmark in its own process).
- `timeout` (default 60 s, asv's) bounds each benchmark's work in a process: past it the
  benchmark fails on that variant with that message and the others go on.

Imports nothing of pairbench; Python 3.8+.
"""

import copy
import gc
import importlib
import inspect
import itertools
import json
import os
import pkgutil
import re
import signal
import subprocess
import sys
import textwrap
import time
import traceback
import types

from pairbench_loops import calibrate as _calibrate

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
KINDS = (("timeraw", r"Timeraw[A-Z_].+|timeraw_.+"), ("time", r"Time[A-Z_].+|time_.+"),
         ("track", r"Track[A-Z_].+|track_.+"), ("peakmem", r"PeakMem[A-Z_].+|peakmem_.+"),
         ("mem", r"Mem[A-Z_].+|mem_.+"))
"""asv's benchmark prefixes (asv_runner's name_regex of each type), the first match wins."""
UNITS = {"mem": "bytes", "peakmem": "bytes"}
DEFAULT_TIMEOUT_S = 60.0
"""asv's default `timeout`."""
RAW = "import time, timeit\nprint(repr(timeit.timeit(stmt=%r, setup=%r, number=%d, timer=time.%s)))"


def _kind(attr):
    for kind, pattern in KINDS:
        if re.fullmatch(pattern, attr):
            return kind
    return ""


def _modules(directory):
    """(dotted name within the suite, module) of every module of the benchmark directory."""
    directory = os.path.abspath(directory)
    parent, package = os.path.split(directory)
    # last on the path: the project installed in the variant's environment wins over a checkout's
    # source beside the benchmarks (`benchmarks/` next to `mylib/` in a flat layout)
    sys.path.append(parent)
    if os.path.exists(os.path.join(directory, "__init__.py")):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            yield info.name[len(package) + 1:], importlib.import_module(info.name)
    else:  # a flat directory of files: each file a module
        sys.path.append(directory)
        for info in pkgutil.iter_modules([directory]):
            yield info.name, importlib.import_module(info.name)


def _named(name, func, attr):
    """asv's (name, kind) of a function: its `benchmark_name` when set (the last part says the kind);
    no kind when `skip_benchmark` is set (asv_runner's @skip_benchmark) or the name has no prefix."""
    if getattr(func, "skip_benchmark", False):
        return name, ""
    custom = getattr(func, "benchmark_name", None)
    if custom:
        return str(custom), _kind(str(custom).split(".")[-1])
    return name, _kind(attr)


def _benchmarks(directory):
    """(name, kind, owner class or None, attribute name, module) of every benchmark, in name order."""
    for modname, module in _modules(directory):
        for attr, value in sorted(vars(module).items()):
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for mattr in sorted(dir(value)):
                    method = getattr(value, mattr, None)
                    if callable(method) and not mattr.startswith("__"):
                        name, kind = _named("%s.%s.%s" % (modname, attr, mattr), method, mattr)
                        if kind:
                            yield name, kind, value, mattr, module
            elif inspect.isfunction(value) and value.__module__ == module.__name__:
                name, kind = _named("%s.%s" % (modname, attr), value, attr)
                if kind:
                    yield name, kind, None, attr, module


def _first(sources, name, default):
    for source in sources:
        value = getattr(source, name, None)
        if value is not None:
            return value
    return default


def _params(sources):
    params = list(_first(sources, "params", None) or [])
    if params and not isinstance(params[0], (list, tuple)):
        params = [params]  # a single parameter's values
    return [list(p) for p in params]


def _label(value):
    """A parameter's repr without memory addresses (asv shows it so), so every process names it alike."""
    return re.sub(r" at 0x[0-9a-fA-F]+>", ">", repr(value))  # in a tuple's or list's items too


def _expanded(directory):
    """name -> (kind, (owner, attr, module, combo), unit): one entry per combination of params."""
    out = {}
    for name, kind, owner, attr, module in _benchmarks(directory):
        func = getattr(owner, attr) if owner is not None else getattr(module, attr)
        sources = [func, owner, module] if owner is not None else [func, module]
        unit = UNITS.get(kind) or str(_first(sources, "unit", "") or "")
        params = _params(sources)
        for combo in (itertools.product(*params) if params else [()]):
            label = name if not params else "%s(%s)" % (name, ", ".join(_label(p) for p in combo))
            out[label] = (kind, (owner, attr, module, combo), unit)
    return out


_caches = {}


class Prepared:
    """One benchmark of one combination, ready to run as asv would."""

    def __init__(self, owner, attr, module, combo):
        target = owner() if owner is not None else module
        self.func = getattr(target, attr)
        sources = [self.func, target, module] if owner is not None else [self.func, module]
        self.setups = [s for s in (getattr(x, "setup", None) for x in sources) if callable(s)][::-1]
        self.teardowns = [t for t in (getattr(x, "teardown", None) for x in sources) if callable(t)]
        self.number = int(_first(sources, "number", 0) or 0)
        self.timer = _first(sources, "timer", None)
        self.timeout = float(_first(sources, "timeout", DEFAULT_TIMEOUT_S))
        cache_fn = _first(sources, "setup_cache", None)
        cached = ()
        if cache_fn is not None:
            key = getattr(cache_fn, "__func__", cache_fn)
            if key not in _caches:
                _caches[key] = cache_fn()
            cached = (_caches[key],)
        self.args = cached + tuple(combo)

    def setup(self):
        for s in self.setups:
            s(*self.args)

    def teardown(self):
        for t in self.teardowns:
            t(*self.args)

    def repeat(self, body):
        """One of asv's repeats: setup, body() (its value returned), teardown."""
        self.setup()
        try:
            return body()
        finally:
            self.teardown()


def _timed(func, args, loops, clock):
    start = clock()
    for _ in range(loops):
        func(*args)
    return clock() - start


def _raw(prepared, loops, clock_name):
    """Seconds `loops` runs of a timeraw_ benchmark's code take in a fresh interpreter (timeit's)."""
    code = prepared.func(*prepared.args)
    stmt, setup = code if isinstance(code, tuple) else (code, "")
    timer = "process_time" if clock_name == "cpu" else "perf_counter"
    program = RAW % (textwrap.dedent(stmt), textwrap.dedent(setup), loops, timer)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("its code failed in a fresh interpreter: %s" % (out.stderr.strip().splitlines() or ["?"])[-1])
    return float(out.stdout.strip())


def _deep_size(root):
    """Bytes of `root` and what it holds, each object once (modules, classes and functions left out)."""
    seen, total, todo = set(), 0, [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total


def _mem(obj):
    """asv's mem_ value: the size of a copy of the object, beyond what it shares with the original."""
    try:
        from pympler.asizeof import asizeof as size
    except ImportError:
        size = _deep_size
    return size([obj, copy.copy(obj)]) - size([obj, obj])


def _maxrss_bytes():
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def _peakmem(name, directories):
    """The peak resident size of a fresh interpreter running the benchmark (asv: a process per benchmark)."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--peakmem", name, *directories],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip().splitlines() or ["peakmem process failed"])[-1])
    return float(out.stdout.strip().splitlines()[-1])


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def _bounded(seconds, work):
    """work(), stopped with _Timeout after `seconds` (POSIX; elsewhere unbounded)."""
    if not hasattr(signal, "setitimer"):
        return work()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _describe(exc):
    return ("%s: %s" % (type(exc).__name__, exc))[:400]


def _number(name, value):
    """The value a track_/mem_/peakmem_ benchmark gave, as a number; anything else is its error."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("%s returned %r, not a number" % (name.rsplit(".", 1)[-1].split("(")[0], value))
    return float(value)


def _answer(name, kind, p, req, spec, directories):
    """The answer of one benchmark in this process (see the module docstring)."""
    clock_name = req.get("clock") or "wall"
    clock = p.timer or CLOCKS[clock_name]
    if kind in ("track", "mem", "peakmem"):  # one value per process
        if req["mode"] != "time":
            return {"loops": 1, "time": 0.0}
        if kind == "peakmem":
            value = _peakmem(name, directories)
        else:
            value = p.repeat(lambda: p.func(*p.args))
            value = _mem(value) if kind == "mem" else value
        return {"loops": 1, "time": 0.0, "value": _number(name, value)}
    if kind == "timeraw":
        run = lambda loops: p.repeat(lambda: _raw(p, loops, clock_name))  # noqa: E731
        number = p.number or 1
    else:
        run = lambda loops: p.repeat(lambda: _timed(p.func, p.args, loops, clock))  # noqa: E731
        number = p.number
    if req["mode"] == "calibrate":
        if number:
            return {"loops": number, "time": run(number)}
        return _calibrate(run, float(req.get("target", 0.1)))
    loops = int(spec["loops"])
    warm = [run(loops) for _ in range(int(req.get("warmup", 1)))]
    samples = [run(loops) for _ in range(int(req.get("samples", 5)))]
    return {"loops": loops, "warmup": warm, "samples": samples}


def _peakmem_main(name, directories):
    """`--peakmem NAME DIR...`: run one peakmem_ benchmark in this fresh process, print its peak."""
    found = {}
    for directory in directories:
        found.update(_expanded(directory))
    p = Prepared(*found[name][1])
    p.repeat(lambda: p.func(*p.args))
    print(_maxrss_bytes())
    return 0


def main():
    if sys.argv[1:2] == ["--peakmem"]:
        return _peakmem_main(sys.argv[2], sys.argv[3:])
    with open(os.environ["PAIRBENCH_PYTEST_REQUEST"], encoding="utf-8") as f:
        req = json.load(f)
    answer = open(req["answer"], "a", encoding="utf-8")

    def write(item):
        answer.write(json.dumps(item) + "\n")
        answer.flush()

    directories = sys.argv[1:]
    try:
        found = {}
        for directory in directories:
            found.update(_expanded(directory))
    except Exception:
        sys.stderr.write(traceback.format_exc())
        return 2
    if req["mode"] == "collect":
        for name, (kind, _, unit) in found.items():
            write({"nodeid": name, "kind": kind, **({"unit": unit} if unit else {})})
        return 0
    for name, spec in req.get("tests", {}).items():
        if name not in found:
            write({"nodeid": name, "ok": False, "error": "not found in the suite under this variant"})
            continue
        kind, where, _ = found[name]
        timeout = DEFAULT_TIMEOUT_S
        try:
            p = Prepared(*where)
            timeout = p.timeout
            item = dict(_bounded(timeout, lambda: _answer(name, kind, p, req, spec, directories)), nodeid=name, ok=True)
        except NotImplementedError:
            item = {"nodeid": name, "ok": False, "error": "skipped: setup raised NotImplementedError"}
        except _Timeout:
            item = {"nodeid": name, "ok": False, "error": "timed out after %g s (its timeout)" % timeout}
        except Exception as exc:
            item = {"nodeid": name, "ok": False, "error": _describe(exc)}
        write(item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
