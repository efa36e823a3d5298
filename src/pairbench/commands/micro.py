"""`pairbench micro`: a snippet or benchmark file timed inside each variant's own interpreter.

    pairbench micro bench_dicts.py --python python3.11 --python /usr/bin/python3 --python pypy3
    pairbench micro benchmark/object_new.yml --ruby ruby --ruby 'ruby --yjit'
    pairbench micro benchmark/app_fib.rb --ruby ruby --ruby 'ruby --yjit'
    pairbench micro benchmark/ --ruby ruby --ruby 'ruby --yjit'
    pairbench micro -s 'd = {}' 'd["a"] = 1' --python python3.11 --python pypy3

Top-level imports stay light (`pairbench --help` must not import numpy or scipy).
"""

from __future__ import annotations

import argparse
import fnmatch

TYPE_CHECKING = False  # not typing's: importing typing costs start-up (`pairbench --help`)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

from pairbench.commands.common import add_run_options

__all__ = ["register", "build_run", "variants_from_args"]

FLAG_NAMES = {"samples": "--samples", "warmup": "--warmup-samples", "target_time": "--target-time",
              "loops": "--loops", "clock": "--clock", "measure": "--measure", "setup": "-s/--setup", "stmt": "STMT"}
"""The flag that sets each micro option, for error messages."""
PY_SUFFIXES = (".py",)
RB_SUFFIXES = (".yml", ".yaml")
RB_SCRIPT_SUFFIXES = (".rb",)
"""A whole Ruby script: one run per process is one sample (benchmark_driver's benchmark/*.rb)."""
LOOPS_FROM_FILE = "file"
"""`--loops file`: each Ruby benchmark runs its YAML `loop_count` per sample."""


def _loops_arg(text: str) -> int | str:
    """`--loops N` (a whole number >= 1) or `--loops file` (loop_count of benchmark_driver files)."""
    if text.strip() == LOOPS_FROM_FILE:
        return LOOPS_FROM_FILE
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number >= 1, or 'file' for the "
                                         "loop_count of benchmark_driver .yml files")
    return value


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "micro",
        help="micro-benchmarks inside each variant's interpreter (Python, PyPy, Ruby)",
        description="Time a snippet (-s SETUP STMT) or the bench_* functions of a .py file / the "
        "benchmarks of a benchmark_driver .yml file in each variant's own interpreter, in worker "
        "processes interleaved across variants, with allocations per operation.",
    )
    p.add_argument("targets", nargs="*", metavar="FILE|DIR|STMT",
                   help="benchmark files (.py with bench_* functions or a pyperf script, .yml in "
                   "benchmark_driver format, .rb scripts), pyperformance bm_* directories, a directory or "
                   "quoted glob of them (Ruby's benchmark/, 'benchmark/vm_*.yml'), or statements to time")
    p.add_argument("-s", "--setup", action="append", default=[], metavar="SETUP",
                   help="setup code for the statements (repeatable, joined by newlines)")
    p.add_argument("--python", action="append", default=[], metavar="EXE",
                   help="a Python interpreter with its flags, e.g. 'python3.11 -X dev' (repeatable; first is the baseline)")
    p.add_argument("--ruby", action="append", default=[], metavar="'EXE FLAGS'",
                   help="a Ruby interpreter with its flags, e.g. 'ruby --yjit' (repeatable; first is the baseline)")
    p.add_argument("-n", "--name", action="append", default=[], metavar="NAME",
                   help="names of the variants, in the order given (default: the interpreter command)")
    p.add_argument("-b", "--bench", action="append", default=[], metavar="PATTERN",
                   help="only benchmarks whose name matches this glob or substring (repeatable)")
    p.add_argument("--samples", type=int, default=5, help="measured samples per process (default 5)")
    p.add_argument("--warmup-samples", type=int, default=2,
                   help="warm-up samples per process, discarded (default 2; raise for JITs)")
    p.add_argument("--target-time", type=float, default=0.1,
                   help="seconds per sample used to calibrate the loop count (default 0.1)")
    p.add_argument("--loops", type=_loops_arg, default=None, metavar="N|file",
                   help="fixed loop count per sample (skips calibration); 'file': each Ruby benchmark's "
                   "loop_count from its .yml file (calibrated where it has none)")
    p.add_argument("--no-alloc", action="store_true", help="skip the allocation-counting pass")
    p.add_argument("--clock", choices=("auto", "cpu", "wall"), default="auto",
                   help="cpu: the worker's CPU time, blind to other processes on a shared machine; "
                   "wall: for operations that sleep, wait or use threads; auto (default): wall for "
                   "async functions and pyperf benchmarks, cpu otherwise")
    p.add_argument("--measure", default=None, metavar="WHAT",
                   help="time (default), instructions (per operation, counted exactly under perf or valgrind: "
                   "N against 2N ops), or both: instructions,time (the first is the primary metric)")
    # In-process warm-up samples absorb JIT and cache warm-up; a whole warm-up process would time
    # nothing the measured ones do not, so none by default.
    add_run_options(p, warmup=0)
    p.set_defaults(handler=run_micro)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return out


def variants_from_args(args: argparse.Namespace, language: str) -> list[Any]:
    """Variants from --python/--ruby and --name; the first is the baseline."""
    from pairbench.errors import UserError
    from pairbench.model import Variant

    flag = "--ruby" if language == "ruby" else "--python"
    commands = list(args.ruby if language == "ruby" else args.python)
    if any(not c.strip() for c in commands):
        raise UserError(f"{flag} {commands[[c.strip() for c in commands].index('')]!r}: empty interpreter command; "
                        f"give one such as {'ruby' if language == 'ruby' else 'python3'}")
    if any(not n.strip() for n in args.name):
        raise UserError("--name '': a variant's name cannot be empty")
    if not commands:
        commands = ["ruby"] if language == "ruby" else ["python3"]
    if len(args.name) > len(commands):
        raise UserError(f"--name given {len(args.name)} times for {len(commands)} interpreters; "
                        "give one --name per --python/--ruby")
    names = _unique([args.name[i] if i < len(args.name) else c for i, c in enumerate(commands)])
    return [Variant(name=n, command=c, baseline=(i == 0), meta={"language": language})
            for i, (n, c) in enumerate(zip(names, commands))]


def _language(args: argparse.Namespace, files: list[Path]) -> str:
    from pairbench.errors import UserError

    if args.python and args.ruby:
        raise UserError("give either --python or --ruby interpreters, not both: a micro run compares one language")
    kinds = {"ruby" if f.suffix in RB_SUFFIXES + RB_SCRIPT_SUFFIXES else "python" for f in files}
    if args.ruby:
        kinds.add("ruby")
    if args.python:
        kinds.add("python")
    if len(kinds) > 1:
        raise UserError("mixed Python (.py, --python) and Ruby (.yml, --ruby) benchmarks; run them separately")
    return kinds.pop() if kinds else "python"


def _split_targets(args: argparse.Namespace) -> tuple[list[Path], list[str], list[Any]]:
    """(benchmark files, statements, pyperformance benchmarks) among the targets."""
    from pathlib import Path

    from pairbench.errors import UserError
    from pairbench.suite.pyperformance import expand_pyperformance
    from pairbench.suite.ruby_benchmarks import expand_ruby_target

    files: list[Path] = []
    stmts: list[str] = []
    pyperf: list[Any] = []
    for t in args.targets:
        ruby_files = expand_ruby_target(t, bool(args.ruby))  # a benchmark/ directory or 'benchmark/*.yml'
        found = expand_pyperformance(t) if "\n" not in t and ruby_files is None else None
        if ruby_files is not None:
            files.extend(ruby_files)
        elif found is not None:
            pyperf.extend(found)
        elif t.endswith(PY_SUFFIXES + RB_SUFFIXES + RB_SCRIPT_SUFFIXES) and "\n" not in t and " " not in t.strip():
            path = Path(t)
            if not path.is_file():
                raise UserError(f"benchmark file {t!r} not found")
            files.append(path.resolve())
        else:
            stmts.append(t)
    if not files and not stmts and not pyperf:
        raise UserError("nothing to time: give a benchmark file (.py, .yml or .rb), a pyperformance bm_* "
                        "directory or a statement, "
                        "e.g. pairbench micro -s 'd = {}' 'd[\"a\"] = 1'")
    if args.setup and not stmts:
        raise UserError("-s/--setup applies to statements, but only benchmark files were given")
    return files, stmts, pyperf


def _pyperf_benchmarks(targets: list[Any], runner: Any, variants: list[Any], common: dict[str, Any],
                       micro: Any, notices: list[Any]) -> list[Any]:
    """The benchmarks of pyperformance directories, named as pyperformance names them.

    A target whose script registers one benchmark takes pyperformance's name for it (the
    metafile's: `argparse_subparsers`, where the script says `subparsers`); one that registers
    several keeps the script's names (deepcopy: deepcopy, deepcopy_reduce, deepcopy_memo)."""
    from pairbench.model import Notice

    out = []
    for t in targets:
        items, error = runner.list_benchmarks(str(t.script), "python", variants, t.argv)
        if error:
            notices.append(Notice("benchmark-failed", f"pyperformance benchmark {t.name}: {error}",
                                  "fix it; the other benchmarks still run", t.name, ""))
            continue
        for item in items:
            name = t.name if len(items) == 1 else str(item["name"])
            requires = {"requires_python": t.requires_python, "requires_from": t.requires_from} if t.requires_python else {}
            out.append(micro(name, {**common, "file": str(t.script), "func": item["func"], "argv": list(t.argv),
                                    **requires}))
    return out


def _selected(name: str, patterns: list[str]) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(name, p) or p in name for p in patterns)


def _probed(runner: Any, variants: list[Any], language: str) -> list[Any]:
    """The variants with what probing their interpreter found (version, or the error) in meta."""
    from pairbench.model import Variant

    probed = []
    for v in variants:
        info, error = runner.probe(v, language)
        meta = dict(v.meta)
        meta.update(info)
        if error:
            meta["error"] = error
        probed.append(Variant(name=v.name, command=v.command, baseline=v.baseline, meta=meta))
    return probed


def _fixed_loops(args: argparse.Namespace, language: str) -> dict[str, Any]:
    """The `loops` option every benchmark gets from --loops N (none for --loops file)."""
    from pairbench.errors import UserError

    if args.loops == LOOPS_FROM_FILE and language != "ruby":
        raise UserError("--loops file reads loop_count from benchmark_driver .yml files (Ruby); "
                        "give a number, or leave --loops out to calibrate")
    return {"loops": args.loops} if args.loops and args.loops != LOOPS_FROM_FILE else {}


def _ruby_options(item: dict[str, Any], path: Path, common: dict[str, Any], loops_from_file: bool) -> dict[str, Any]:
    """Options of one benchmark of a benchmark_driver file; its loop_count is the loop count if asked."""
    opts = {**common, "file": str(path), "index": item["index"]}
    if item.get("loop_count"):
        opts["loop_count"] = item["loop_count"]
        if loops_from_file or item["loop_count"] == 1:  # 1: work that happens once per process (require)
            opts["loops"] = item["loop_count"]
    return opts


def build_run(args: argparse.Namespace, runner: Any) -> Any:
    """The Run to execute: variants probed, benchmarks listed and calibrated, problems as notices."""
    from pairbench.commands.common import new_run
    from pairbench.errors import UserError
    from pairbench.model import Benchmark, Notice, Run, Variant
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    files, stmts, pyperf = _split_targets(args)
    language = _language(args, files + [t.script for t in pyperf])
    variants: list[Variant] = variants_from_args(args, language)
    notices: list[Notice] = []
    variants = _probed(runner, variants, language)
    baseline = variants[0]
    if baseline.meta.get("error"):
        raise UserError(f"the baseline {baseline.name!r} cannot run ({baseline.meta['error']}), so nothing can be "
                        "compared; fix it, or give a working interpreter first")
    kind = get_kind("micro")
    where = Flags(FLAG_NAMES)

    def micro(name: str, options: dict[str, Any]) -> Benchmark:
        typed = kind.parse_options(options, where)
        return Benchmark(name, "micro", kind.metrics(typed, ()), as_mapping(typed))

    common = {"language": language, "samples": args.samples, "warmup": args.warmup_samples,
              "target_time": args.target_time, "clock": args.clock, "alloc": not args.no_alloc,
              **_fixed_loops(args, language), **({"measure": args.measure} if args.measure else {})}
    benchmarks: list[Benchmark] = []
    prefix_files = len(files) > 1
    for path in files:
        if path.suffix in RB_SCRIPT_SUFFIXES:
            benchmarks.append(micro(path.stem, {**common, "file": str(path), "script": True, "loops": 1}))
            continue
        items, error = runner.list_benchmarks(str(path), language, variants)
        if error:
            notices.append(Notice("benchmark-failed", f"benchmark file {path.name}: {error}",
                                  "fix the file; the other benchmarks still run", path.name, ""))
            continue
        for item in items:
            # pyperf scripts name their own benchmarks (run_benchmark.py says nothing)
            base = (f"{path.stem}:{item['name']}" if prefix_files and not item.get("pyperf")
                    else str(item["name"]))
            if language == "ruby":
                benchmarks.append(micro(base, _ruby_options(item, path, common, args.loops == LOOPS_FROM_FILE)))
            elif item.get("params") is None:
                benchmarks.append(micro(base, {**common, "file": str(path), "func": item["func"]}))
            else:
                for i, rep in enumerate(item["params"]):
                    benchmarks.append(micro(f"{base}[{rep}]", {**common, "file": str(path), "func": item["func"],
                                                               "param": i, "param_repr": rep}))
    benchmarks.extend(_pyperf_benchmarks(pyperf, runner, variants, common, micro, notices))
    setup = "\n".join(args.setup)
    for stmt in stmts:
        name = " ".join(stmt.split())
        name = name if len(name) <= 40 else name[:39] + "…"
        benchmarks.append(micro(name, {**common, "setup": setup, "stmt": stmt}))
    benchmarks = _checked([b for b in benchmarks if _selected(b.name, args.bench)], notices)
    run: Run = new_run(variants, _calibrated(runner, benchmarks, variants, notices))
    run.metadata.update({"command": "micro", "language": language})
    run.notices.extend(notices)
    return run


def _checked(benchmarks: list[Any], notices: list[Any]) -> list[Any]:
    """The selected benchmarks, refused when their names repeat or none is left."""
    from pairbench.errors import UserError

    names = [b.name for b in benchmarks]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UserError(f"benchmark names repeat ({', '.join(dupes)}); rename them or use -b to pick one")
    if not benchmarks:
        detail = "; ".join(n.message for n in notices) or "none matched -b"
        raise UserError(f"no micro benchmark can run: {detail}")
    return benchmarks


def _calibrated(runner: Any, benchmarks: list[Any], variants: list[Any], notices: list[Any]) -> list[Any]:
    """Each benchmark with its loop count, calibrated once on the baseline, so the run file says how
    much work each sample did; preparation problems are added to `notices`."""
    from pairbench.errors import UserError
    from pairbench.model import Benchmark

    calibrated = []
    runner.calibrate_files(benchmarks, variants)  # a Ruby file's benchmarks in one worker
    for b in benchmarks:
        notices.extend(runner.prepare(b, variants))
        loops = runner.loops(b)
        calibrated.append(Benchmark(b.name, b.kind, b.metrics, {**b.options, "loops": loops}) if loops else b)
    if not any(runner.loops(b) for b in benchmarks):
        detail = "; ".join(dict.fromkeys(n.message for n in notices))
        raise UserError(f"no micro benchmark can run on any variant: {detail}")
    return calibrated


def run_micro(args: argparse.Namespace) -> int:
    from pairbench.commands.common import options_from_args, reports_from, run_measured
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.micro import MicroOptions

    settings = MicroOptions(samples=args.samples, warmup=args.warmup_samples, target_time=args.target_time,
                            clock=args.clock, alloc=not args.no_alloc)
    runner = get_kind("micro").make(args.seed, settings)
    try:
        run = build_run(args, runner)
        # several benchmarks get a suite summary (geometric mean with its CI), as pyperformance compare
        reports = reports_from(args, suite_summary=len(run.benchmarks) > 1)
        return run_measured(run, options_from_args(args), args, reports, runners={"micro": runner})
    finally:
        runner.close()
