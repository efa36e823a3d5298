"""The builder of a micro run (`pairbench micro`): snippets and benchmark files timed inside each
variant's own interpreter.

`micro_run(MicroSettings(...), runner)` probes the interpreters, lists the benchmarks of each file
(Python bench_* functions, pyperf scripts, pyperformance directories, benchmark_driver .yml files,
Ruby scripts), selects and calibrates them; problems become notices, and what cannot run at all a
UserError.
"""

from __future__ import annotations

import contextlib
import fnmatch
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from pairbench.flows.builders.common import new_run
from pairbench.model import Run

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MicroSettings", "micro_run", "micro_runner", "FLAG_NAMES", "LOOPS_FROM_FILE"]

FLAG_NAMES = {"samples": "--samples", "warmup": "--warmup-samples", "target_time": "--target-time",
              "loops": "--loops", "clock": "--clock", "measure": "--measure", "setup": "-s/--setup", "stmt": "STMT"}
"""The flag that sets each micro option, for error messages."""
PY_SUFFIXES = (".py",)
RB_SUFFIXES = (".yml", ".yaml")
RB_SCRIPT_SUFFIXES = (".rb",)
"""A whole Ruby script: one run per process is one sample (benchmark_driver's benchmark/*.rb)."""
LOOPS_FROM_FILE = "file"
"""`--loops file`: each Ruby benchmark runs its YAML `loop_count` per sample."""


@dataclass(frozen=True, slots=True)
class MicroSettings:
    """What `micro`'s flags say (defaults: `micro` without the flag)."""

    targets: tuple[str, ...] = ()
    """Benchmark files, directories, globs, pyperformance bm_* directories or statements."""
    setup: tuple[str, ...] = ()
    """Setup code of the statements, joined by newlines."""
    python: tuple[str, ...] = ()
    """Python interpreters with their flags, the first the baseline."""
    ruby: tuple[str, ...] = ()
    """Ruby interpreters with their flags, the first the baseline."""
    names: tuple[str, ...] = ()
    """The variants' names, in the order given (default: the interpreter command)."""
    bench: tuple[str, ...] = ()
    """Only the benchmarks whose name matches one of these globs or substrings."""
    samples: int | None = None
    """Measured samples per process; None: planned from the run's spreads and costs."""
    warmup_samples: int | None = None
    """Warm-up samples per process; None: by interpreter (1 on CPython, 2 where a JIT warms up)."""
    target_time: float = 0.1
    loops: int | str | None = None
    """A fixed loop count, `LOOPS_FROM_FILE`, or None to calibrate."""
    alloc: bool = True
    """The allocation-counting pass (False: --no-alloc)."""
    clock: str = "auto"
    measure: str | None = None


@contextlib.contextmanager
def micro_runner(settings: MicroSettings, seed: int | None) -> Iterator[Any]:
    """The micro runner these settings measure with, closed on the way out."""
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.micro import MicroOptions

    options = MicroOptions(samples=settings.samples, warmup=settings.warmup_samples,
                           target_time=settings.target_time, clock=settings.clock, alloc=settings.alloc)
    runner = get_kind("micro").make(seed, options)
    try:
        yield runner
    finally:
        runner.close()


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return out


def _variants(s: MicroSettings, language: str) -> list[Any]:
    """Variants from --python/--ruby and --name; the first is the baseline."""
    from pairbench.errors import UserError
    from pairbench.model import Variant

    flag = "--ruby" if language == "ruby" else "--python"
    commands = list(s.ruby if language == "ruby" else s.python)
    if any(not c.strip() for c in commands):
        raise UserError(f"{flag} {commands[[c.strip() for c in commands].index('')]!r}: empty interpreter command; "
                        f"give one such as {'ruby' if language == 'ruby' else 'python3'}")
    if any(not n.strip() for n in s.names):
        raise UserError("--name '': a variant's name cannot be empty")
    if not commands:
        commands = ["ruby"] if language == "ruby" else ["python3"]
    if len(s.names) > len(commands):
        raise UserError(f"--name given {len(s.names)} times for {len(commands)} interpreters; "
                        "give one --name per --python/--ruby")
    names = _unique([s.names[i] if i < len(s.names) else c for i, c in enumerate(commands)])
    return [Variant(name=n, command=c, baseline=(i == 0), meta={"language": language})
            for i, (n, c) in enumerate(zip(names, commands))]


def _language(s: MicroSettings, files: list[Path]) -> str:
    from pairbench.errors import UserError

    if s.python and s.ruby:
        raise UserError("give either --python or --ruby interpreters, not both: a micro run compares one language")
    kinds = {"ruby" if f.suffix in RB_SUFFIXES + RB_SCRIPT_SUFFIXES else "python" for f in files}
    if s.ruby:
        kinds.add("ruby")
    if s.python:
        kinds.add("python")
    if len(kinds) > 1:
        raise UserError("mixed Python (.py, --python) and Ruby (.yml, --ruby) benchmarks; run them separately")
    return kinds.pop() if kinds else "python"


def _split_targets(s: MicroSettings) -> tuple[list[Path], list[str], list[Any]]:
    """(benchmark files, statements, pyperformance benchmarks) among the targets."""
    from pathlib import Path

    from pairbench.errors import UserError
    from pairbench.suite.pyperformance import expand_pyperformance
    from pairbench.suite.ruby_benchmarks import expand_ruby_target

    files: list[Path] = []
    stmts: list[str] = []
    pyperf: list[Any] = []
    for t in s.targets:
        ruby_files = expand_ruby_target(t, bool(s.ruby))  # a benchmark/ directory or 'benchmark/*.yml'
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
    if s.setup and not stmts:
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
    """The variants with what probing their interpreter found (version, or the error) in meta, and
    the warm-up samples each of its processes takes (by interpreter unless --warmup-samples)."""
    from pairbench.model import Variant

    probed = []
    for v in variants:
        info, error = runner.probe(v, language)
        meta = dict(v.meta)
        meta.update(info)
        if error:
            meta["error"] = error
        else:
            meta["warmup_samples"] = runner.variant_warmup(v, language)
        probed.append(Variant(name=v.name, command=v.command, baseline=v.baseline, meta=meta))
    return probed


def _fixed_loops(s: MicroSettings, language: str) -> dict[str, Any]:
    """The `loops` option every benchmark gets from --loops N (none for --loops file)."""
    from pairbench.errors import UserError

    if s.loops == LOOPS_FROM_FILE and language != "ruby":
        raise UserError("--loops file reads loop_count from benchmark_driver .yml files (Ruby); "
                        "give a number, or leave --loops out to calibrate")
    return {"loops": s.loops} if s.loops and s.loops != LOOPS_FROM_FILE else {}


def _ruby_options(item: dict[str, Any], path: Path, common: dict[str, Any], loops_from_file: bool) -> dict[str, Any]:
    """Options of one benchmark of a benchmark_driver file; its loop_count is the loop count if asked."""
    opts = {**common, "file": str(path), "index": item["index"]}
    if item.get("loop_count"):
        opts["loop_count"] = item["loop_count"]
        if loops_from_file or item["loop_count"] == 1:  # 1: work that happens once per process (require)
            opts["loops"] = item["loop_count"]
    return opts


def micro_run(settings: MicroSettings, runner: Any) -> Run:
    """The Run to execute: variants probed, benchmarks listed and calibrated, problems as notices.

    `runner` is the micro runner the run is measured with (`micro_runner`): it probes the
    interpreters, lists the benchmarks of each file and calibrates their loop counts.
    """
    from pairbench.errors import UserError
    from pairbench.model import Benchmark, Notice, Variant
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    s = settings
    files, stmts, pyperf = _split_targets(s)
    language = _language(s, files + [t.script for t in pyperf])
    variants: list[Variant] = _variants(s, language)
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

    common = {"language": language, "samples": s.samples, "warmup": s.warmup_samples,
              "target_time": s.target_time, "clock": s.clock, "alloc": s.alloc,
              **_fixed_loops(s, language), **({"measure": s.measure} if s.measure else {})}
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
                benchmarks.append(micro(base, _ruby_options(item, path, common, s.loops == LOOPS_FROM_FILE)))
            elif item.get("params") is None:
                benchmarks.append(micro(base, {**common, "file": str(path), "func": item["func"]}))
            else:
                for i, rep in enumerate(item["params"]):
                    benchmarks.append(micro(f"{base}[{rep}]", {**common, "file": str(path), "func": item["func"],
                                                               "param": i, "param_repr": rep}))
    benchmarks.extend(_pyperf_benchmarks(pyperf, runner, variants, common, micro, notices))
    setup = "\n".join(s.setup)
    for stmt in stmts:
        name = " ".join(stmt.split())
        name = name if len(name) <= 40 else name[:39] + "…"
        benchmarks.append(micro(name, {**common, "setup": setup, "stmt": stmt}))
    benchmarks = _checked([b for b in benchmarks if _selected(b.name, s.bench)], notices)
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
