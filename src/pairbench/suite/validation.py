"""Validation: each part of a parsed suite document checked and turned into the schema's types.

Every mistake is one SuiteError naming the file, the line (tomlcheck.Reader) and the valid
choices. Benchmark options go through their kind's parser (runners/<kind>/options.py), the same one the
subcommands' flags use.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pairbench.errors import SuiteError, UserError
from pairbench.model import Benchmark, Metric, Variant
from pairbench.run_settings import DEFAULT_PROFILE_BLOCKS
from pairbench.runners.kinds import KindSpec, get_kind, kind_names
from pairbench.runners.options import as_mapping
from pairbench.suite.record import json_safe
from pairbench.suite.schema import RESERVED_METRICS, SWEEP_AS, MAX_RANGE, Defaults, GitSource, Sweep, VariantSpec
from pairbench.suite.tomlcheck import KeyPath, Reader, choices, number_text, suggest, type_name

__all__ = ["read_defaults", "read_metrics", "read_variants", "read_sweeps", "read_benchmarks", "read_exclude",
           "check_placeholders"]

_DEFAULT_KEYS = ("runs", "warmup", "threshold", "max_time", "confidence", "seed", "profile", "timeout",
                 "metrics")
_VARIANT_KEYS = ("command", "args", "env", "unset_env", "cwd", "baseline", "params", "git", "description")
_GIT_KEYS = ("repo", "ref", "build", "timeout")
_SWEEP_KEYS = ("name", "values", "range", "as", "arg", "variants")
_RANGE_KEYS = ("start", "stop", "step")
_COMMAND_KEYS = ("kind", "command", "metrics", "setup", "prepare", "conclude", "cleanup", "shell", "timeout",
                 "ignore_failure", "output", "input", "description", "measure", "duet")
_METRIC_KEYS = ("regex", "unit", "direction", "exact", "description")
_DIRECTIONS = ("lower", "higher", "none")

_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SWEEP_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# `{name}` placeholders in commands; `${name}` is the shell's, not ours.
_PLACEHOLDER_RE = re.compile(r"(?<![$\\{])\{([A-Za-z_][A-Za-z0-9_-]*)\}(?!\})")


def read_defaults(r: Reader, value: Any) -> Defaults:
    where: KeyPath = ("defaults",)
    d = r.table(value, where)
    r.keys(d, _DEFAULT_KEYS, where, "[defaults]")
    out: dict[str, Any] = {}
    if "runs" in d:
        out["runs"] = r.integer(d["runs"], (*where, "runs"), 1)
    if "warmup" in d:
        out["warmup"] = r.integer(d["warmup"], (*where, "warmup"), 0)
    if "threshold" in d:
        out["threshold"] = r.number(d["threshold"], (*where, "threshold"), minimum=0.0, below=100.0)
    if "max_time" in d:
        out["max_time"] = r.number(d["max_time"], (*where, "max_time"), positive=True)
    if "confidence" in d:
        c = r.number(d["confidence"], (*where, "confidence"), positive=True, below=1.0)
        out["confidence"] = c
    if "seed" in d:
        out["seed"] = r.integer(d["seed"], (*where, "seed"), 0)
    if "profile" in d:
        out["profile"] = _profile_blocks(r, d["profile"], (*where, "profile"))
    if "timeout" in d:
        out["timeout"] = r.number(d["timeout"], (*where, "timeout"), positive=True)
    if "metrics" in d:
        metrics, regexes = read_metrics(r, d["metrics"], (*where, "metrics"))
        out["metrics"], out["metric_regexes"] = metrics, regexes
    return Defaults(**out)


def _profile_blocks(r: Reader, value: Any, where: KeyPath) -> int:
    """`profile = true` (the default count of profiling blocks), false (none), or a count."""
    if isinstance(value, bool):
        return DEFAULT_PROFILE_BLOCKS if value else 0
    if not isinstance(value, int):
        raise r.fail(where, f"{r.dotted(where)} must be true, false or a count of profiling blocks, "
                     f"not {type_name(value)}")
    return r.integer(value, where, 0)


def read_metrics(r: Reader, value: Any, where: KeyPath) -> tuple[dict[str, Metric], dict[str, str]]:
    table = r.table(value, where)
    metrics: dict[str, Metric] = {}
    regexes: dict[str, str] = {}
    for mname, spec in table.items():
        w = (*where, mname)
        if not _NAME_RE.match(mname):
            raise r.fail(w, f"metric name {mname!r} may hold only letters, digits and . _ + -")
        if mname in RESERVED_METRICS:
            raise r.fail(w, f"metric name {mname!r} is taken by a metric every command gets "
                            f"({', '.join(RESERVED_METRICS)}); choose another name")
        unit, direction, exact, desc = "", "lower", False, ""
        if isinstance(spec, dict):
            r.keys(spec, _METRIC_KEYS, w, f"metric {mname!r}")
            if "regex" not in spec:
                raise r.fail(w, f"metric {mname!r} needs a regex (a table with regex = '...')")
            regex = r.string(spec["regex"], (*w, "regex"))
            if "unit" in spec:
                unit = r.string(spec["unit"], (*w, "unit"), empty=True)
            if "direction" in spec:
                direction = r.string(spec["direction"], (*w, "direction"))
                if direction not in _DIRECTIONS:
                    raise r.fail((*w, "direction"), f"direction {direction!r} is not one of: {', '.join(_DIRECTIONS)}")
            if "exact" in spec:
                exact = r.boolean(spec["exact"], (*w, "exact"))
            if "description" in spec:
                desc = r.string(spec["description"], (*w, "description"), empty=True)
        else:
            regex = r.string(spec, w)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # FutureWarning for "[[": a valid regex all the same
                compiled = re.compile(regex)
        except (re.error, RecursionError, OverflowError) as exc:
            raise r.fail(w, f"metric {mname!r}: invalid regex {regex!r}: {exc}") from None
        if compiled.groups < 1:
            raise r.fail(w, f"metric {mname!r}: regex {regex!r} needs a group around the number, like ([\\d.]+)")
        metrics[mname] = Metric(mname, unit, direction, exact, desc)  # type: ignore[arg-type]
        regexes[mname] = regex
    return metrics, regexes


def read_variants(r: Reader, doc: dict[str, Any], path: str) -> tuple[VariantSpec, ...]:
    if "variants" not in doc:
        raise r.fail((), "the suite declares no variants; add at least one [variants.NAME] with a command")
    table = r.table(doc["variants"], ("variants",))
    if not table:
        raise r.fail(("variants",), "[variants] is empty; add at least one [variants.NAME] with a command")
    out = []
    base_dir = Path(path).parent if path and not path.startswith("<") else Path(".")
    for vname, spec in table.items():
        w: KeyPath = ("variants", vname)
        if not _NAME_RE.match(vname):
            raise r.fail(w, f"variant name {vname!r} may hold only letters, digits and . _ + - (no '/' or spaces)")
        spec = r.table(spec, w)
        r.keys(spec, _VARIANT_KEYS, w, f"variant {vname!r}")
        git = None
        if "git" in spec:
            g = r.table(spec["git"], (*w, "git"))
            r.keys(g, _GIT_KEYS, (*w, "git"), f"the git source of variant {vname!r}")
            for k in ("repo", "ref"):
                if k not in g:
                    raise r.fail((*w, "git"), f"variant {vname!r}: git needs {k!r} (git = {{ repo = ..., ref = ..., build = ... }})")
            repo = r.string(g["repo"], (*w, "git", "repo"))
            rp = Path(repo).expanduser()
            if not rp.is_absolute():
                rp = base_dir / rp
            git = GitSource(str(rp), r.string(g["ref"], (*w, "git", "ref")),
                            r.string(g.get("build", ""), (*w, "git", "build"), empty=True),
                            r.number(g["timeout"], (*w, "git", "timeout"), positive=True) if "timeout" in g else None)
        command = r.string(spec["command"], (*w, "command")) if "command" in spec else ""
        args = r.strings(spec["args"], (*w, "args"), split=True) if "args" in spec else ()
        if not command and not args:
            raise r.fail(w, f"variant {vname!r} needs a command (the prefix that {{variant}} stands for)")
        if git is None and "{worktree}" in " ".join((command, *args)):
            raise r.fail((*w, "command"), f"variant {vname!r} uses {{worktree}} but has no git source; "
                                          "add git = { repo = ..., ref = ..., build = ... }")
        env: dict[str, str] = {}
        unset: list[str] = []
        if "env" in spec:
            for k, v in r.table(spec["env"], (*w, "env")).items():
                if not k or "=" in k or "\0" in k:
                    raise r.fail((*w, "env", k), f"variant {vname!r}: {k!r} is not a valid environment variable name")
                if v is False:
                    unset.append(k)  # `NAME = false` removes it from the inherited environment
                else:
                    env[k] = r.scalar(v, (*w, "env", k))
        if "unset_env" in spec:
            unset.extend(r.strings(spec["unset_env"], (*w, "unset_env")))
        params = {}
        if "params" in spec:
            for k, v in r.table(spec["params"], (*w, "params")).items():
                if not _IDENT_RE.match(k):
                    raise r.fail((*w, "params", k), f"param name {k!r} must be an identifier (letters, digits, _)")
                params[k] = r.scalar(v, (*w, "params", k))
        out.append(VariantSpec(
            name=vname,
            command=command,
            args=args,
            env=env,
            unset_env=tuple(unset),
            cwd=r.string(spec["cwd"], (*w, "cwd")) if "cwd" in spec else None,
            baseline=r.boolean(spec["baseline"], (*w, "baseline")) if "baseline" in spec else False,
            params=params,
            git=git,
        ))
        if "description" in spec:
            r.string(spec["description"], (*w, "description"), empty=True)
    flagged = [v.name for v in out if v.baseline]
    if len(flagged) > 1:
        raise r.fail(("variants", flagged[1], "baseline"),
                     f"more than one variant says baseline = true ({', '.join(flagged)}); keep one")
    return tuple(out)


def read_sweeps(r: Reader, value: Any, variants: tuple[VariantSpec, ...]) -> tuple[Sweep, ...]:
    if isinstance(value, dict):
        raise r.fail(("sweeps",), "sweeps are written as [[sweeps]] (an array of tables), not [sweeps]")
    if not isinstance(value, list):
        raise r.fail(("sweeps",), f"sweeps must be an array of tables ([[sweeps]]), not {type_name(value)}")
    base_names = [v.name for v in variants]
    out: list[Sweep] = []
    for i, spec in enumerate(value):
        w: KeyPath = ("sweeps", i)
        spec = r.table(spec, w)
        r.keys(spec, _SWEEP_KEYS, w, f"sweep #{i + 1}")
        if "name" not in spec:
            raise r.fail(w, f"sweep #{i + 1} needs a name (the env var, argument or placeholder it sets)")
        name = r.string(spec["name"], (*w, "name"))
        if not _SWEEP_NAME_RE.match(name):
            raise r.fail((*w, "name"), f"sweep name {name!r} must start with a letter or _ and hold only letters, digits, _ and -")
        if name in ("variant", "worktree"):
            raise r.fail((*w, "name"), f"sweep name {name!r} is reserved; choose another")
        if any(s.name == name for s in out):
            raise r.fail((*w, "name"), f"duplicated sweep name {name!r}; each sweep needs its own name")
        as_ = r.string(spec.get("as", "env"), (*w, "as"))
        if as_ not in SWEEP_AS:
            raise r.fail((*w, "as"), f"sweep {name!r}: as = {as_!r} is not one of: {', '.join(SWEEP_AS)}")
        if as_ in ("env", "placeholder") and not _IDENT_RE.match(name):
            raise r.fail((*w, "name"), f"sweep {name!r} with as = {as_!r} needs a name of letters, digits and _ only")
        if ("values" in spec) == ("range" in spec):
            raise r.fail(w, f"sweep {name!r} needs either values = [...] or range = {{ start, stop, step }}, "
                            "exactly one of them")
        raw_values: list[Any]
        if "values" in spec:
            vw = (*w, "values")
            if not isinstance(spec["values"], list):
                raise r.fail(vw, f"sweep {name!r}: values must be a list, not {type_name(spec['values'])}")
            raw_values = spec["values"]
            if not raw_values:
                raise r.fail(vw, f"sweep {name!r} has no values; list at least one")
            values = tuple(r.scalar(v, (*vw, j)) for j, v in enumerate(raw_values))
        else:
            raw_values, values = _range(r, spec["range"], (*w, "range"), name)
        seen: set[str] = set()
        for j, v in enumerate(values):
            if v in seen:
                raise r.fail((*w, "values"), f"sweep {name!r}: value {v!r} is listed twice")
            if as_ == "env" and "\0" in v:
                raise r.fail((*w, "values"), f"sweep {name!r}: value {v!r} cannot be an environment value")
            seen.add(v)
        arg = _sweep_arg(r, spec, w, name, as_, values)
        targets: tuple[str, ...] = tuple(base_names)
        if "variants" in spec:
            targets = r.strings(spec["variants"], (*w, "variants"))
            if not targets:
                raise r.fail((*w, "variants"), f"sweep {name!r}: variants is empty; name at least one or leave it out for all")
            for t in targets:
                if t not in base_names:
                    raise r.fail((*w, "variants"), f"sweep {name!r}: unknown variant {t!r}{suggest(t, base_names)}; "
                                                   f"valid: {choices(base_names)}")
            if len(set(targets)) != len(targets):
                raise r.fail((*w, "variants"), f"sweep {name!r}: a variant is listed twice in variants")
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw_values)
        out.append(Sweep(name, values, as_, arg, targets, numeric))
    return tuple(out)


def _sweep_arg(r: Reader, spec: Mapping[str, Any], w: KeyPath, name: str, as_: str,
               values: tuple[str, ...]) -> str | dict[str, str]:
    """The argument template (or value -> argument table) of an `as = "arg"` sweep, checked."""
    arg: str | dict[str, str] = "--{name}={value}"
    if "arg" in spec:
        aw = (*w, "arg")
        if as_ != "arg":
            raise r.fail(aw, f"sweep {name!r}: arg only applies with as = \"arg\"")
        if isinstance(spec["arg"], dict):
            arg = {}
            for k, v in spec["arg"].items():
                if k not in values:
                    raise r.fail((*aw, k), f"sweep {name!r}: arg names value {k!r}, which is not one of its values: {choices(list(values))}")
                arg[k] = r.string(v, (*aw, k), empty=True)
            missing = [v for v in values if v not in arg]
            if missing:
                raise r.fail(aw, f"sweep {name!r}: arg gives no argument for {', '.join(map(repr, missing))}; "
                                 "map every value (\"\" for none)")
        else:
            arg = r.string(spec["arg"], aw)
    if as_ == "arg":
        probe = Sweep(name, values, as_, arg)
        for v in values:
            try:
                probe.args_for(v)
            except ValueError as exc:
                raise r.fail((*w, "arg"), f"sweep {name!r}: the argument for {v!r} cannot be split: {exc}") from None
    return arg


def _range(r: Reader, value: Any, where: KeyPath, name: str) -> tuple[list[Any], tuple[str, ...]]:
    t = r.table(value, where)
    r.keys(t, _RANGE_KEYS, where, f"the range of sweep {name!r}")
    for k in ("start", "stop"):
        if k not in t:
            raise r.fail(where, f"sweep {name!r}: range needs {k!r} (range = {{ start = 0, stop = 42, step = 3 }})")
    start = r.number(t["start"], (*where, "start"))
    stop = r.number(t["stop"], (*where, "stop"))
    step = r.number(t.get("step", 1), (*where, "step"), positive=True)
    if stop < start:
        raise r.fail(where, f"sweep {name!r}: range stop {stop:g} is below start {start:g}")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    if count > MAX_RANGE:
        raise r.fail(where, f"sweep {name!r}: the range has {count} values, more than {MAX_RANGE}; use a larger step")
    all_int = all(isinstance(t.get(k, 1), int) and not isinstance(t.get(k, 1), bool) for k in ("start", "stop", "step"))
    raw: list[Any] = []
    for i in range(count):
        x = start + i * step
        raw.append(int(round(x)) if all_int else round(x, 10))
    return raw, tuple(str(x) if isinstance(x, int) else number_text(x) for x in raw)


def read_benchmarks(r: Reader, doc: dict[str, Any], defaults: Defaults) -> tuple[Benchmark, ...]:
    if "benchmarks" not in doc:
        raise r.fail((), "the suite declares no benchmarks; add at least one [benchmarks.NAME] with a command")
    table = r.table(doc["benchmarks"], ("benchmarks",))
    if not table:
        raise r.fail(("benchmarks",), "[benchmarks] is empty; add at least one [benchmarks.NAME]")
    out = []
    for bname, spec in table.items():
        w: KeyPath = ("benchmarks", bname)
        if not _NAME_RE.match(bname):
            raise r.fail(w, f"benchmark name {bname!r} may hold only letters, digits and . _ + -")
        spec = r.table(spec, w)
        kind = r.string(spec.get("kind", "command"), (*w, "kind"))
        try:
            kind_spec = get_kind(kind)
        except UserError:
            names = kind_names()
            raise r.fail((*w, "kind"), f"benchmark {bname!r}: unknown kind {kind!r}{suggest(kind, names)}; "
                                       f"valid: {', '.join(names)}") from None
        if kind == "command":
            out.append(_command_benchmark(r, bname, spec, w, defaults))
        else:
            options = {k: v for k, v in spec.items() if k != "kind"}
            out.append(_kind_benchmark(kind_spec, bname, json_safe(options), _InSuite(r, w, bname), ()))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _InSuite:
    """Where a benchmark's options were written: errors name the file, the key's line and the benchmark."""

    reader: Reader
    where: KeyPath
    benchmark: str

    def fail(self, key: str | None, message: str) -> SuiteError:
        return self.reader.fail((*self.where, key) if key else self.where, f"benchmark {self.benchmark!r}: {message}")


def _kind_benchmark(kind: KindSpec, name: str, options: Mapping[str, Any], where: _InSuite,
                    declared: tuple[Metric, ...]) -> Benchmark:
    """A benchmark whose options went through its kind's parser, with the metrics the kind yields."""
    typed = kind.parse_options(options, where)
    return Benchmark(name, kind.name, kind.metrics(typed, declared), as_mapping(typed))


def _command_benchmark(r: Reader, bname: str, spec: dict[str, Any], w: KeyPath, defaults: Defaults) -> Benchmark:
    r.keys(spec, _COMMAND_KEYS, w, f"command benchmark {bname!r}")
    if "command" not in spec:
        raise r.fail(w, f"benchmark {bname!r} needs a command, e.g. command = \"{{variant}} script.rb\"")
    options: dict[str, Any] = {"command": r.string(spec["command"], (*w, "command"))}
    for k in ("setup", "prepare", "conclude", "cleanup", "output", "input", "description"):
        if k in spec:
            options[k] = r.string(spec[k], (*w, k), empty=(k == "description"))
    for k in ("shell", "ignore_failure"):
        if k in spec:  # a shell may also be named: shell = "bash"
            options[k] = r.string(spec[k], (*w, k)) if k == "shell" and isinstance(spec[k], str) \
                else spec[k] if k == "ignore_failure" and isinstance(spec[k], list) \
                else r.boolean(spec[k], (*w, k))  # ignore_failure = [1, 2]: checked by the kind's parser
    if "duet" in spec:
        options["duet"] = r.boolean(spec["duet"], (*w, "duet"))
    if "measure" in spec:  # "instructions,time" or ["instructions", "time"]: checked by the kind's parser
        options["measure"] = spec["measure"]
    if "timeout" in spec:
        options["timeout"] = r.number(spec["timeout"], (*w, "timeout"), positive=True)
    elif defaults.timeout is not None:
        options["timeout"] = defaults.timeout
    metrics = dict(defaults.metrics)
    regexes = dict(defaults.metric_regexes)
    if "metrics" in spec:
        ms, rs = read_metrics(r, spec["metrics"], (*w, "metrics"))
        metrics.update(ms)
        regexes.update(rs)
    if regexes:
        options["metrics"] = regexes
    return _kind_benchmark(get_kind("command"), bname, options, _InSuite(r, w, bname), tuple(metrics.values()))


def read_exclude(r: Reader, value: Any, sweeps: tuple[Sweep, ...]) -> list[tuple[int, dict[str, tuple[str, ...]]]]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise r.fail(("exclude",), f"exclude must be a list of tables like {{ variant = \"head\", jit = \"on\" }}, not {type_name(value)}")
    valid = ["variant", *(s.name for s in sweeps)]
    out = []
    for i, spec in enumerate(value):
        w: KeyPath = ("exclude", i)
        spec = r.table(spec, w)
        if not spec:
            raise r.fail(w, "an empty exclude would remove every point of the matrix; name a variant or sweep values")
        r.keys(spec, valid, w, f"exclude #{i + 1}")
        cond: dict[str, tuple[str, ...]] = {}
        for k, v in spec.items():
            vals = v if isinstance(v, list) else [v]
            if not vals:
                raise r.fail((*w, k), f"exclude #{i + 1}: {k} = [] lists no values; name at least one")
            cond[k] = tuple(r.scalar(x, (*w, k)) for x in vals)
        out.append((i, cond))
    return out


def check_placeholders(r: Reader, benchmarks: tuple[Benchmark, ...], matrix: list[Variant]) -> None:
    everywhere = set.intersection(*(set(v.params) for v in matrix))
    anywhere = set.union(*(set(v.params) for v in matrix))
    # {worktree} is filled by builds.resolve_builds for variants built from git refs.
    built = [v for v in matrix if v.meta.get("git")]
    if built:
        anywhere.add("worktree")
        if len(built) == len(matrix):
            everywhere.add("worktree")
    for b in benchmarks:
        for key in ("command", "setup", "prepare", "conclude", "cleanup"):
            text = b.options.get(key)
            if not isinstance(text, str):
                continue
            for m in _PLACEHOLDER_RE.finditer(text):
                ph = m.group(1)
                if ph == "variant":
                    continue
                if ph in everywhere:
                    continue
                w = ("benchmarks", b.name, key)
                if ph == "worktree":
                    lacking = next(v.name for v in matrix if not v.meta.get("git"))
                    raise r.fail(w, f"benchmark {b.name!r} uses {{worktree}} but variant {lacking!r} is not built "
                                    "from a git ref; use {worktree} only when every variant has git = {...}")
                if ph in anywhere:
                    lacking = next(v.name for v in matrix if ph not in v.params)
                    raise r.fail(w, f"benchmark {b.name!r} uses {{{ph}}} but variant {lacking!r} has no value for it; "
                                    f"apply the sweep to every variant or give {lacking!r} params = {{ {ph} = ... }}")
                valid = ["variant", *sorted(everywhere)]
                raise r.fail(w, f"benchmark {b.name!r}: unknown placeholder {{{ph}}}{suggest(ph, valid)}; "
                                f"valid: {', '.join('{' + v + '}' for v in valid)}")
