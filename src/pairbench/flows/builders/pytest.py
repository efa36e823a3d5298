"""The builder of a pytest run (`pairbench pytest`): a pytest-benchmark suite, unchanged, timed in
each variant's interpreter or virtual environment.

`pytest_run(PytestSettings(...), runner)` collects the suite once per variant, makes one benchmark
per test that uses the `benchmark` fixture (or carries pytest-codspeed's `@pytest.mark.benchmark`),
named by its node id, and calibrates their loop counts on the baseline; tests without it are
counted and skipped, problems become notices, and what cannot run at all a UserError. With
`harness="asv"` (`pairbench asv`) the same for asv benchmark directories: one benchmark per
`time_*` function or method and combination of its params, named as asv names it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shlex
from dataclasses import dataclass
from typing import Any, Iterator

from pairbench.flows.builders.common import new_run
from pairbench.model import Run

__all__ = ["PytestSettings", "pytest_run", "pytest_runner", "FLAG_NAMES", "SKIPPED"]

FLAG_NAMES = {"samples": "--samples", "warmup": "--warmup-samples", "target_time": "--target-time",
              "loops": "--loops", "clock": "--clock", "paths": "PATH", "args": "-- ARGS"}
"""The flag that sets each pytest option, for error messages."""
SKIPPED = {"pytest": "tests collected do not use the benchmark fixture: not benchmarks, skipped",
           "asv": "benchmarks collected are of no kind pairbench runs: not run"}
"""What the collected items that are not timed benchmarks are, by harness."""
BENCHMARK_IS = {"pytest": "a test that uses the benchmark fixture or is marked @pytest.mark.benchmark",
                "asv": "no function or method named time_*, timeraw_*, track_*, mem_* or peakmem_* "
                       "(or TimeX, TrackX...) in a module of the directory"}
"""What a benchmark is, for the error of a suite that collects none, by harness."""
VALUE_KINDS = ("track", "mem", "peakmem")
"""asv's kinds that yield one number per process (compared like a time: larger is worse, as asv reads them)."""


@dataclass(frozen=True, slots=True)
class PytestSettings:
    """What `pytest`'s flags say (defaults: `pytest` without the flag)."""

    paths: tuple[str, ...] = ()
    """What pytest collects: test files or directories."""
    args: tuple[str, ...] = ()
    """More pytest arguments (after `--`), for every variant."""
    python: tuple[str, ...] = ()
    """Interpreters (with flags) or virtual environments; once for every variant, or one per variant."""
    env: tuple[str, ...] = ()
    """`NAME=VALUE ...` per variant (once for every variant, or one per variant; '' for none)."""
    names: tuple[str, ...] = ()
    """The variants' names, in order (default: what differs between them)."""
    bench: tuple[str, ...] = ()
    """Only the tests whose node id matches one of these globs or substrings."""
    samples: int = 5
    warmup_samples: int = 1
    target_time: float = 0.1
    loops: int | None = None
    clock: str = "wall"
    harness: str = "pytest"
    """pytest (a pytest-benchmark suite; the kind "pytest") or asv (asv benchmark directories; kind "asv")."""
    git: tuple[str, ...] = ()
    """Git refs of `repo`, each built and installed into its own environment (once for every variant, or one per variant)."""
    repo: str = "."
    """The git repository the refs are in."""
    build: str | None = None
    """The build command run in each ref's worktree (None: an environment made by `--python`, the project installed in it)."""
    cache_dir: str | None = None
    """Where the builds are kept (None: $PAIRBENCH_CACHE_DIR or ~/.cache/pairbench)."""
    build_timeout: float | None = None
    """Seconds a build may take."""


@contextlib.contextmanager
def pytest_runner(settings: PytestSettings, seed: int | None) -> Iterator[Any]:
    """The pytest runner these settings measure with, closed on the way out."""
    from pairbench.runners.kinds import get_kind

    runner = get_kind(settings.harness).make(seed, None)
    try:
        yield runner
    finally:
        runner.close()


def interpreter(text: str) -> str:
    """An interpreter command; a virtual environment's directory stands for its Python."""
    from pairbench.errors import UserError

    if not text.strip():
        raise UserError("--python '': empty interpreter; give one such as python3, or a virtual environment")
    if os.path.isdir(text):
        for candidate in ("bin/python", "Scripts/python.exe"):
            exe = os.path.join(text, candidate)
            if os.path.exists(exe):
                return shlex.quote(os.path.abspath(exe))
        raise UserError(f"--python {text!r}: a directory without bin/python; give an interpreter or a virtual environment")
    return text


def _environment(text: str) -> dict[str, str]:
    from pairbench.errors import UserError

    env = {}
    for item in shlex.split(text):
        if "=" not in item or item.startswith("="):
            raise UserError(f"--env {text!r}: expected NAME=VALUE pairs, e.g. --env 'MYLIB_FAST=1 OTHER=x'")
        key, value = item.split("=", 1)
        env[key] = value
    return env


def _each(values: tuple[str, ...], count: int, flag: str, default: str) -> list[str]:
    from pairbench.errors import UserError

    if not values:
        return [default] * count
    if len(values) == 1:
        return list(values) * count
    if len(values) != count:
        raise UserError(f"{flag} given {len(values)} times for {count} variants; give it once for all, or once per variant")
    return list(values)


def _variants(s: PytestSettings) -> list[Any]:
    """One variant per --python or --env (a flag given once applies to all); the first is the baseline."""
    from pairbench.errors import UserError
    from pairbench.model import Variant

    count = max(len(s.python), len(s.env), len(s.git), 1)
    pythons = _each(s.python, count, "--python", "python3")
    envs = _each(s.env, count, "--env", "")
    refs = _each(s.git, count, "--git", "")
    if len(s.names) > count:
        raise UserError(f"--name given {len(s.names)} times for {count} variants; give one --name per variant")
    if any(not n.strip() for n in s.names):
        raise UserError("--name '': a variant's name cannot be empty")
    variants = []
    for i, (python, env, ref) in enumerate(zip(pythons, envs, refs)):
        parts = (([ref] if len(set(refs)) > 1 else []) + ([python] if len(set(pythons)) > 1 else [])
                 + ([env or "no env"] if len(set(envs)) > 1 else []))
        name = s.names[i] if i < len(s.names) else " ".join(parts) or ref or python
        command, git = _from_git(s, python, ref) if ref else (interpreter(python), {})
        variants.append(Variant(name=name, command=command, env=_environment(env), baseline=(i == 0),
                                meta={"language": "python", "python": python, **git}))
    return variants


def _from_git(s: PytestSettings, python: str, ref: str) -> tuple[str, dict[str, Any]]:
    """A ref's variant: its interpreter (in the ref's worktree, `{worktree}`) and the build that makes it.

    Without --build, `python` makes an environment in the worktree that sees its packages (pytest, the
    project's dependencies) and installs the ref's project there; with --build, `python` is the
    variant's interpreter as the build leaves it (`{worktree}/env/bin/python`).
    """
    from pairbench.runners.pytest.runner import ENV_DIR, env_build

    git = {"repo": os.path.abspath(os.path.expanduser(s.repo)), "ref": ref, "build": s.build,
           **({"timeout": s.build_timeout} if s.build_timeout else {})}
    if s.build is not None:
        return python, {"git": git}
    flags = shlex.split(python)[1:]
    command = shlex.join([f"{{worktree}}/{ENV_DIR}/bin/python", *flags])
    return command, {"git": {**git, "build": env_build(python)}}


def _built(variants: list[Any], s: PytestSettings, say: Any) -> tuple[list[Any], list[Any]]:
    """The variants with their git refs built (builds.resolve_builds); a failed baseline is an error."""
    from pathlib import Path

    from pairbench.builds import resolve_builds
    from pairbench.errors import UserError

    if not any(v.meta.get("git") for v in variants):
        return variants, []
    _check_repo(s.repo)
    cache = Path(s.cache_dir).expanduser() if s.cache_dir else None
    built, notices = resolve_builds(variants, cache=cache, progress=say)
    if not built or not built[0].baseline:
        raise UserError(f"the baseline {variants[0].name!r} could not be built, so nothing can be compared: "
                        + "; ".join(n.message for n in notices))
    if len(built) < 2 <= len(variants):
        raise UserError("every candidate failed to build; nothing to compare:\n" + "\n".join(n.message for n in notices))
    return built, notices


def _check_repo(repo: str) -> None:
    """--repo is a git repository, or a UserError that names the flag (builds.py words it for a suite's git.repo)."""
    import subprocess

    from pairbench.errors import UserError

    path = os.path.abspath(os.path.expanduser(repo))
    if not os.path.isdir(path):
        raise UserError(f"--repo {repo}: no such folder")
    try:
        found = subprocess.run(["git", "-C", path, "rev-parse", "--git-dir"], capture_output=True, timeout=60)
    except FileNotFoundError:
        raise UserError("git is not installed (needed for --git); install git") from None
    if found.returncode != 0:
        raise UserError(f"{path} is not a git repository: --git takes refs of --repo DIR (default: the current folder)")


def _selected(name: str, patterns: tuple[str, ...]) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(name, p) or p in name for p in patterns)


def _nothing_collected(s: PytestSettings) -> str:
    """The error of a suite in which the baseline found no test at all: what a benchmark is, and
    for asv, the benchmark_dir of an asv.conf.json found in a directory given in its place."""
    if s.harness == "pytest":
        return (f"no pytest benchmark to run: pytest collected no test under {' '.join(s.paths)}"
                + (f" with {' '.join(s.args)}" if s.args else "") + f"; a benchmark is {BENCHMARK_IS['pytest']}")
    text = f"no asv benchmark to run: {BENCHMARK_IS['asv']} {' '.join(s.paths)}"
    for path in s.paths:
        conf = os.path.join(path, "asv.conf.json")
        if os.path.isfile(conf):
            where = _benchmark_dir(conf)
            text += (f"; {path} holds asv.conf.json, whose benchmark_dir is {where!r}: "
                     f"pairbench asv {os.path.normpath(os.path.join(path, where))}")
    return text


def _none_to_time(s: PytestSettings, base: list[dict[str, Any]], plain: list[dict[str, Any]]) -> str:
    """The error of a suite that collects tests but no benchmark to time: none matches -b, or none is one."""
    timed = [str(i["nodeid"]) for i in base if i.get("kind")]
    if timed:
        shown = ", ".join(timed[:3]) + (", ..." if len(timed) > 3 else "")
        which = "the 1 benchmark collected does not match" if len(timed) == 1 else \
            f"none of the {len(timed)} benchmarks collected matches"
        return f"no {s.harness} benchmark to run: {which} -b {' -b '.join(s.bench)} ({shown})"
    if s.harness == "pytest":
        n = len(plain)
        return (f"no pytest benchmark to run: {'the 1 test' if n == 1 else f'the {n} tests'} collected "
                f"{'does' if n == 1 else 'do'} not use the benchmark fixture; a benchmark is {BENCHMARK_IS['pytest']}")
    return f"no asv benchmark to run: the {len(plain)} collected are of no kind pairbench runs"


def _benchmark_dir(conf: str) -> str:
    """asv.conf.json's benchmark_dir (asv's default `benchmarks`); asv allows // comment lines."""
    import json

    with contextlib.suppress(OSError, ValueError, AttributeError):
        with open(conf, encoding="utf-8") as f:
            lines = [line for line in f if not line.lstrip().startswith("//")]
        return str(json.loads("".join(lines)).get("benchmark_dir", "benchmarks"))
    return "benchmarks"


def pytest_run(settings: PytestSettings, runner: Any, variants: list[Any] | None = None, say: Any = None) -> Run:
    """The Run to execute: git refs built, the suite collected under each variant, a benchmark per
    test using the fixture, loop counts calibrated on the baseline, problems as notices (`say` hears
    the builds' progress).

    `variants` replace the ones the settings describe (`pairbench ci`: the base's and the head's
    checkouts, each running pytest in its own folder, where the paths are looked for)."""
    from pairbench.errors import UserError
    from pairbench.model import Benchmark, Notice
    from pairbench.runners.kinds import get_kind
    from pairbench.runners.options import Flags, as_mapping

    s = settings
    given = variants is not None
    if not s.paths:
        raise UserError(f"nothing to run: give the {s.harness} benchmarks to run (a file or directory), "
                        f"e.g. pairbench {s.harness} benchmarks --python venv-old --python venv-new")
    variants = variants or _variants(s)
    for path in s.paths:
        for v in variants:
            if not os.path.exists(os.path.join(v.cwd or "", path.split("::")[0])):
                where = f" in {v.name!r} ({v.cwd})" if v.cwd else ""
                raise UserError(f"{s.harness} path {path!r} not found{where}")
    variants, notices = _built(variants, s, say)
    suite = (tuple(s.paths), tuple(s.args), None)
    collected: dict[str, list[dict[str, Any]]] = {}
    for v in variants:
        items, error = runner.collect(v, suite)
        if error:
            if v.baseline:
                raise UserError(f"{s.harness} cannot collect {' '.join(s.paths)} under the baseline {v.name!r}: {error}")
            notices.append(Notice("benchmark-failed", f"{s.harness} cannot collect the tests under {v.name!r}: {error}",
                                  "its tests fail; the other variants still run", "", v.name))
        collected[v.name] = items
    unable = [n for n in notices
              if n.kind == "benchmark-failed" and n.message.startswith(f"{s.harness} cannot collect")]
    if not given and len(variants) > 1 and len(unable) == len(variants) - 1:
        raise UserError(f"no candidate can run the {s.harness} suite; nothing to compare: "
                        + "; ".join(n.message for n in unable))
    base = collected[variants[0].name]
    plain = [i for i in base if not i.get("kind")]
    kind = get_kind(s.harness)
    where = Flags(FLAG_NAMES)
    common = {"paths": list(s.paths), "args": list(s.args), "samples": s.samples, "warmup": s.warmup_samples,
              "target_time": s.target_time, "clock": s.clock, **({"loops": s.loops} if s.loops else {})}
    benchmarks = []
    for item in base:
        nodeid = str(item["nodeid"])
        if item.get("kind") and _selected(nodeid, s.bench):
            track = ({"measure": "track", "unit": str(item.get("unit") or ""), "loops": 1}
                     if item["kind"] in VALUE_KINDS else {})
            typed = kind.parse_options({**common, "nodeid": nodeid, **track}, where)
            benchmarks.append(Benchmark(nodeid, s.harness, kind.metrics(typed, ()), as_mapping(typed)))
    what = SKIPPED[s.harness]
    if plain:
        notices.append(Notice("skipped", f"{len(plain)} of {len(base)} {what}", "", "", ""))
    if not base:
        raise UserError(_nothing_collected(s))
    if not benchmarks:
        raise UserError(_none_to_time(s, base, plain))
    for v in variants[1:]:
        have = {str(i["nodeid"]) for i in collected[v.name]}
        missing = [b.name for b in benchmarks if b.name not in have]
        if missing and have:
            notices.append(Notice("benchmark-failed", f"{len(missing)} tests not collected under {v.name!r} "
                                  f"(first: {missing[0]})", "they are compared on the other variants", "", v.name))
    notices.extend(runner.calibrate(benchmarks, variants))
    if not any(runner.loops(b) for b in benchmarks):
        detail = "; ".join(dict.fromkeys(n.message for n in notices))
        raise UserError(f"no pytest benchmark can run on any variant: {detail}")
    calibrated = [Benchmark(b.name, b.kind, b.metrics, {**b.options, "loops": runner.loops(b)}) if runner.loops(b) else b
                  for b in benchmarks]
    run: Run = new_run(variants, calibrated)
    run.metadata.update({"command": s.harness, s.harness: {"paths": list(s.paths), "args": list(s.args),
                                                         "collected": len(base), "skipped": len(plain)}})
    run.notices.extend(notices)
    return run
