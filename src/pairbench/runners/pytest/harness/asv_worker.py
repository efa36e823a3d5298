"""asv benchmarks timed unchanged in a variant's own interpreter (kind "asv", runners/pytest/runner.py).

    python asv_worker.py BENCHMARK_DIR

Speaks the protocol of pairbench_pytest_plugin.py (request file in $PAIRBENCH_PYTEST_REQUEST, one
JSON answer line per benchmark), with asv's benchmark suites in place of pytest's tests: the
directory is imported as a package (as asv does, so relative imports work), and every `time_*`
function or method is a benchmark named as asv names it (`module.Class.time_x`), one per
combination of its `params` (`module.Class.time_x(10, 'a')`). `setup(*params)` and
`teardown(*params)` run once per process around each benchmark, `setup_cache()` once per process
and class, its value passed first to setup, the benchmark and teardown; a setup that raises
NotImplementedError skips that combination, as in asv. `number`, `repeat`, `rounds`,
`warmup_time` and `timeout` are hints pairbench does not follow (its loop count is calibrated and
shared). A `track_*` benchmark is called once per process and its number is the value compared
(its `unit` attribute names the unit). `timeraw_*`, `mem_*` and `peakmem_*` are collected and
reported as not run.
Imports nothing of pairbench; Python 3.8+.
"""

import importlib
import inspect
import itertools
import json
import os
import pkgutil
import sys
import time
import traceback

from pairbench_loops import calibrate as _calibrate

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
TIMED = ("time_",)
TRACKED = ("track_",)
OTHERS = ("timeraw_", "mem_", "peakmem_")


def _modules(directory):
    """(dotted name within the suite, module) of every module of the benchmark directory."""
    directory = os.path.abspath(directory)
    parent, package = os.path.split(directory)
    sys.path.insert(0, parent)
    if os.path.exists(os.path.join(directory, "__init__.py")):
        root = importlib.import_module(package)
        yield from _walk(root.__path__, package + ".", len(package) + 1)
    else:  # a flat directory of files: each file a module
        sys.path.insert(0, directory)
        for info in pkgutil.iter_modules([directory]):
            yield info.name, importlib.import_module(info.name)


def _walk(path, prefix, cut):
    for info in pkgutil.walk_packages(path, prefix):
        yield info.name[cut:], importlib.import_module(info.name)


def _benchmarks(directory):
    """(name, kind, owner class or None, attribute name, module) of every benchmark, in file order."""
    for modname, module in _modules(directory):
        for attr, value in sorted(vars(module).items()):
            if inspect.isclass(value) and value.__module__ == module.__name__:
                for mattr in sorted(dir(value)):
                    if mattr.startswith(TIMED + TRACKED + OTHERS) and callable(getattr(value, mattr)):
                        yield "%s.%s.%s" % (modname, attr, mattr), value, mattr, module
            elif attr.startswith(TIMED + TRACKED + OTHERS) and inspect.isfunction(value) and value.__module__ == module.__name__:
                yield "%s.%s" % (modname, attr), None, attr, module


def _params(owner, func):
    params = getattr(func, "params", None) or (getattr(owner, "params", None) if owner is not None else None) or []
    if params and not isinstance(params[0], (list, tuple)):
        params = [params]  # a single parameter's values
    return [list(p) for p in params]


def _expanded(directory):
    """name -> (kind, make) where make() -> (op, finish): one entry per combination of params."""
    out = {}
    for name, owner, attr, module in _benchmarks(directory):
        func = getattr(owner, attr) if owner is not None else getattr(module, attr)
        kind = "time" if attr.startswith(TIMED) else "track" if attr.startswith(TRACKED) else ""
        unit = str(getattr(func, "unit", "") or "")
        params = _params(owner, func)
        combos = list(itertools.product(*params)) if params else [()]
        for combo in combos:
            label = name if not params else "%s(%s)" % (name, ", ".join(repr(p) for p in combo))
            out[label] = (kind, (owner, attr, module, combo), unit)
    return out


_caches = {}


def _prepare(owner, attr, module, combo):
    """(op, finish): the benchmark ready to call, set up; finish() tears it down."""
    target = owner() if owner is not None else module
    cached = ()
    cache_fn = getattr(target, "setup_cache", None)
    if cache_fn is not None:
        key = owner if owner is not None else module
        if key not in _caches:
            _caches[key] = cache_fn()
        cached = (_caches[key],)
    args = cached + tuple(combo)
    func = getattr(target, attr)
    setup = getattr(target, "setup", None)
    teardown = getattr(target, "teardown", None)
    if owner is None:  # a module-level function: the module's setup/teardown apply to it
        setup = getattr(func, "setup", setup)
        teardown = getattr(func, "teardown", teardown)
    if setup is not None:
        setup(*args)

    def op():
        return func(*args)

    def finish():
        if teardown is not None:
            teardown(*args)

    return op, finish


def _timed(op, loops, clock):
    start = clock()
    for _ in range(loops):
        op()
    return clock() - start


def _describe(exc):
    return ("%s: %s" % (type(exc).__name__, exc))[:400]


def main():
    with open(os.environ["PAIRBENCH_PYTEST_REQUEST"], encoding="utf-8") as f:
        req = json.load(f)
    answer = open(req["answer"], "a", encoding="utf-8")

    def write(item):
        answer.write(json.dumps(item) + "\n")
        answer.flush()

    try:
        found = {}
        for directory in sys.argv[1:]:
            found.update(_expanded(directory))
    except Exception:
        sys.stderr.write(traceback.format_exc())
        return 2
    if req["mode"] == "collect":
        for name, (kind, _, unit) in found.items():
            write({"nodeid": name, "kind": kind, **({"unit": unit} if unit else {})})
        return 0
    clock = CLOCKS[req.get("clock") or "wall"]
    for name, spec in req.get("tests", {}).items():
        if name not in found:
            write({"nodeid": name, "ok": False, "error": "not found in the suite under this variant"})
            continue
        try:
            op, finish = _prepare(*found[name][1])
        except NotImplementedError:
            write({"nodeid": name, "ok": False, "error": "skipped: setup raised NotImplementedError"})
            continue
        except Exception as exc:
            write({"nodeid": name, "ok": False, "error": "in setup: " + _describe(exc)})
            continue
        try:
            run = lambda loops: _timed(op, loops, clock)  # noqa: E731
            if found[name][0] == "track":  # one value per process: what the benchmark returns
                value = op() if req["mode"] == "time" else 0.0
                item = {"nodeid": name, "ok": True, "loops": 1, "time": 0.0, "value": float(value)}
            elif req["mode"] == "calibrate":
                item = dict(_calibrate(run, float(req.get("target", 0.1))), nodeid=name, ok=True)
            else:
                loops = int(spec["loops"])
                warm = [run(loops) for _ in range(int(req.get("warmup", 1)))]
                samples = [run(loops) for _ in range(int(req.get("samples", 5)))]
                item = {"nodeid": name, "ok": True, "loops": loops, "warmup": warm, "samples": samples}
            finish()
        except Exception as exc:
            item = {"nodeid": name, "ok": False, "error": _describe(exc)}
        write(item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
