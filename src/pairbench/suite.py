"""Suite files: a whole experiment (variants, sweeps, builds, benchmarks, defaults) in one TOML file.

`load_suite(path)` reads and validates the file and expands the sweeps into the variant matrix, so
that every mistake (a typo in a key, an unknown variant, an empty sweep, an unknown kind, a
duplicated name) is refused before anything runs, as one SuiteError naming the file, the line and
the valid choices. The format is documented in docs/suite.md.

tomlcheck.Locator finds the line of a key, since tomllib gives none.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import math
import re
import shlex
import sys
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from pairbench.errors import SuiteError, UserError
from pairbench.model import Benchmark, Metric, Variant
from pairbench.runners.kinds import KindSpec, get_kind, kind_names
from pairbench.runners.options import as_mapping
from pairbench.tomlcheck import KeyPath, Reader, choices, number_text, suggest, type_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 needs the backport
    import tomli as tomllib

__all__ = [
    "Defaults",
    "GitSource",
    "VariantSpec",
    "Sweep",
    "Suite",
    "SWEEP_AS",
    "load_suite",
    "parse_suite",
    "expand_matrix",
    "select_benchmarks",
    "suite_record",
    "DEFAULT_COMMAND_METRIC",
]

SWEEP_AS: tuple[str, ...] = ("env", "arg", "placeholder")
MAX_MATRIX = 5000
"""More points than this is almost surely a mistake (and would run for days)."""
MAX_RANGE = 10000

DEFAULT_COMMAND_METRIC = Metric("time", "s", "lower", description="wall-clock time of the command")
"""What every command benchmark measures; regex metrics are added after it."""
RESERVED_METRICS: tuple[str, ...] = ("time", "user", "sys", "rss", "exit_code")
"""Names the command runner measures by itself (runners.command.BUILTIN_METRICS)."""

_TOP_KEYS = ("name", "description", "baseline", "defaults", "variants", "sweeps", "exclude", "benchmarks")
_DEFAULT_KEYS = ("runs", "warmup", "threshold", "max_time", "confidence", "seed", "timeout", "metrics")
_VARIANT_KEYS = ("command", "args", "env", "unset_env", "cwd", "baseline", "params", "git", "description")
_GIT_KEYS = ("repo", "ref", "build", "timeout")
_SWEEP_KEYS = ("name", "values", "range", "as", "arg", "variants")
_RANGE_KEYS = ("start", "stop", "step")
_COMMAND_KEYS = ("kind", "command", "metrics", "setup", "prepare", "cleanup", "shell", "timeout",
                 "ignore_failure", "description")
_METRIC_KEYS = ("regex", "unit", "direction", "exact", "description")
_DIRECTIONS = ("lower", "higher", "none")

_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SWEEP_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# `{name}` placeholders in commands; `${name}` is the shell's, not ours.
_PLACEHOLDER_RE = re.compile(r"(?<![$\\{])\{([A-Za-z_][A-Za-z0-9_-]*)\}(?!\})")



@dataclass(frozen=True, slots=True)
class Defaults:
    """Run settings from `[defaults]`; None means "not said here" (the CLI or built-in default wins)."""

    runs: int | None = None
    """Blocks."""
    warmup: int | None = None
    threshold: float | None = None
    """The noise band δ in percent (1.0 = ±1%)."""
    max_time: float | None = None
    """Seconds for the whole suite."""
    confidence: float | None = None
    seed: int | None = None
    timeout: float | None = None
    """Per-command timeout in seconds, for benchmarks that set none."""
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    """Regex metrics every command benchmark gets (a benchmark's own of the same name win)."""
    metric_regexes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GitSource:
    """A variant built from a git ref in its own worktree."""

    repo: str
    """Path of the repository (`~` expanded, relative to the suite file's folder)."""
    ref: str
    build: str = ""
    """Shell command run once in the worktree (cached by commit and command); empty = no build."""
    timeout: float | None = None
    """Seconds the build may take before it is stopped and reported failed (None: no limit)."""


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """A variant as written, before sweeps multiply it."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    cwd: str | None = None
    baseline: bool = False
    params: Mapping[str, str] = field(default_factory=dict)
    git: GitSource | None = None


@dataclass(frozen=True, slots=True)
class Sweep:
    """A parameter and its values; multiplies the variants it applies to."""

    name: str
    values: tuple[str, ...]
    """Values as strings, in the order written (that is the order of report rows)."""
    as_: str = "env"
    """`env` (an environment variable), `arg` (arguments after the variant's command) or
    `placeholder` (only `{name}` in commands)."""
    arg: str | Mapping[str, str] = "--{name}={value}"
    """For `as = "arg"`: a template, or a table from value to the argument(s) it means."""
    variants: tuple[str, ...] = ()
    """Base variants it applies to (all when the file names none)."""
    numeric: bool = False
    """Every value is a number: the report fits a trend over it."""

    def args_for(self, value: str) -> tuple[str, ...]:
        if isinstance(self.arg, str):
            text = self.arg.replace("{name}", self.name).replace("{value}", value)
        else:
            text = self.arg.get(value, "")
        return tuple(shlex.split(text))


@dataclass(frozen=True, slots=True)
class Suite:
    """A validated suite file with its matrix expanded."""

    path: str
    defaults: Defaults
    variants: tuple[VariantSpec, ...]
    sweeps: tuple[Sweep, ...]
    benchmarks: tuple[Benchmark, ...]
    matrix: tuple[Variant, ...]
    """Every point of the matrix as a Variant (`patched/RUBY_MAX_PACKED_HASH=9/jit=on`); exactly one
    is the baseline. Built variants still hold `{worktree}` until builds.resolve_builds fills it."""
    document: Mapping[str, Any] = field(default_factory=dict)
    """The parsed file, as written."""
    text: str = ""
    name: str = ""

    @property
    def baseline(self) -> Variant:
        return next(v for v in self.matrix if v.baseline)

    def spec(self, base: str) -> VariantSpec:
        return next(s for s in self.variants if s.name == base)


# --- parsing --------------------------------------------------------------------------------------


def apply_overrides(doc: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Merge `--set KEY=VALUE` flags into a parsed suite document (the flags win).

    KEY is a dotted TOML key (`variants.head.command`, `defaults.runs`), VALUE a TOML value
    (`"ruby-head"`, `10`, `[0, 3, 6]`, `{ RAILS_ENV = "production" }`, or an array of inline tables
    for `sweeps`); a bare word that is not valid TOML is taken as a string. Tables merge key by key;
    anything else replaces what the file said.
    """
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SuiteError(f"--set {item!r}: expected KEY=VALUE, e.g. --set 'variants.head.command=\"ruby\"'")
        try:
            piece = tomllib.loads(f"{key} = {value.strip()}")
        except tomllib.TOMLDecodeError:
            try:
                piece = tomllib.loads(f"{key} = {json.dumps(value.strip())}")
            except tomllib.TOMLDecodeError as exc:
                raise SuiteError(f"--set {item!r}: {key!r} is not a TOML key ({exc})") from None
        _merge(doc, piece)
    return doc


def _merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v


def load_suite(path: str | Path, overrides: Sequence[str] = ()) -> Suite:
    """Read, validate and expand a suite file; every problem is one SuiteError with file:line."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}:1: cannot read the suite file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SuiteError(f"{path}:{line}: the suite file is not UTF-8 text") from None
    return parse_suite(text, str(path), overrides)


def parse_suite(text: str, path: str = "<suite>", overrides: Sequence[str] = ()) -> Suite:
    """Validate TOML text as a suite (`path` is used in messages and to resolve relative repos)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = m.group(1) if m else "1"
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", msg)
        raise SuiteError(f"{path}:{line}: not valid TOML: {msg}") from None
    except (ValueError, RecursionError) as exc:  # pragma: no cover - tomllib edge cases
        raise SuiteError(f"{path}:1: not valid TOML: {exc}") from None
    return _build(apply_overrides(doc, overrides), text, path)


def _build(doc: dict[str, Any], text: str, path: str) -> Suite:
    r = Reader(path, text)
    r.keys(doc, _TOP_KEYS, (), "the suite (top level)")
    name = r.string(doc["name"], ("name",)) if "name" in doc else ""
    if "description" in doc:
        r.string(doc["description"], ("description",), empty=True)
    defaults = _defaults(r, doc.get("defaults", {}))
    variants = _variants(r, doc, path)
    sweeps = _sweeps(r, doc.get("sweeps", []), variants)
    benchmarks = _benchmarks(r, doc, defaults)
    exclude = _exclude(r, doc.get("exclude", []), sweeps)
    matrix = _expand(r, variants, sweeps, exclude)
    matrix = _pick_baseline(r, doc, variants, matrix)
    _check_placeholders(r, benchmarks, matrix)
    return Suite(path=path, defaults=defaults, variants=variants, sweeps=sweeps, benchmarks=benchmarks,
                 matrix=tuple(matrix), document=doc, text=text, name=name)


def _defaults(r: Reader, value: Any) -> Defaults:
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
    if "timeout" in d:
        out["timeout"] = r.number(d["timeout"], (*where, "timeout"), positive=True)
    if "metrics" in d:
        metrics, regexes = _metrics(r, d["metrics"], (*where, "metrics"))
        out["metrics"], out["metric_regexes"] = metrics, regexes
    return Defaults(**out)


def _metrics(r: Reader, value: Any, where: KeyPath) -> tuple[dict[str, Metric], dict[str, str]]:
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


def _variants(r: Reader, doc: dict[str, Any], path: str) -> tuple[VariantSpec, ...]:
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


def _sweeps(r: Reader, value: Any, variants: tuple[VariantSpec, ...]) -> tuple[Sweep, ...]:
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


def _benchmarks(r: Reader, doc: dict[str, Any], defaults: Defaults) -> tuple[Benchmark, ...]:
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
            out.append(_kind_benchmark(kind_spec, bname, _json_safe(options), _InSuite(r, w, bname), ()))
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
    for k in ("setup", "prepare", "cleanup", "description"):
        if k in spec:
            options[k] = r.string(spec[k], (*w, k), empty=(k == "description"))
    for k in ("shell", "ignore_failure"):
        if k in spec:
            options[k] = r.boolean(spec[k], (*w, k))
    if "timeout" in spec:
        options["timeout"] = r.number(spec["timeout"], (*w, "timeout"), positive=True)
    elif defaults.timeout is not None:
        options["timeout"] = defaults.timeout
    metrics = dict(defaults.metrics)
    regexes = dict(defaults.metric_regexes)
    if "metrics" in spec:
        ms, rs = _metrics(r, spec["metrics"], (*w, "metrics"))
        metrics.update(ms)
        regexes.update(rs)
    if regexes:
        options["metrics"] = regexes
    return _kind_benchmark(get_kind("command"), bname, options, _InSuite(r, w, bname), tuple(metrics.values()))


def _exclude(r: Reader, value: Any, sweeps: tuple[Sweep, ...]) -> list[tuple[int, dict[str, tuple[str, ...]]]]:
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


def _expand(r: Reader, variants: tuple[VariantSpec, ...], sweeps: tuple[Sweep, ...],
            exclude: list[tuple[int, dict[str, tuple[str, ...]]]]) -> list[Variant]:
    total = sum(math.prod(len(s.values) for s in sweeps if v.name in s.variants) for v in variants)
    if total > MAX_MATRIX:
        raise r.fail(("sweeps",), f"the matrix has {total} points, more than {MAX_MATRIX}; "
                                  "narrow the sweeps or exclude combinations")
    used = [False] * len(exclude)
    points: list[Variant] = []
    for spec in variants:
        mine = [s for s in sweeps if spec.name in s.variants]
        for combo in itertools.product(*(s.values for s in mine)):
            coords = {"variant": spec.name, **{s.name: val for s, val in zip(mine, combo)}}
            hit = False
            for j, (_, cond) in enumerate(exclude):
                if all(coords.get(k) is not None and any(fnmatch.fnmatchcase(coords[k], pat) for pat in pats)
                       for k, pats in cond.items()):
                    used[j] = hit = True
            if hit:
                continue
            points.append(expand_point(spec, mine, combo))
    for j, (i, cond) in enumerate(exclude):
        if not used[j]:
            shown = ", ".join(f"{k} = {list(v) if len(v) > 1 else v[0]!r}" for k, v in cond.items())
            raise r.fail(("exclude", i), f"exclude #{i + 1} ({shown}) matches no point of the matrix; check the names and values")
    if not points:
        raise r.fail(("exclude",), "exclude removes every point of the matrix; nothing is left to run")
    names = [p.name for p in points]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise r.fail(("variants",), f"duplicated variant name {dup!r} in the matrix")
    return points


def expand_point(spec: VariantSpec, sweeps: Sequence[Sweep], combo: Sequence[str]) -> Variant:
    """One point of the matrix: the base variant with each sweep's value applied."""
    env = dict(spec.env)
    args = list(spec.args)
    params = dict(spec.params)
    name = spec.name
    for s, value in zip(sweeps, combo):
        name += f"/{s.name}={value}"
        params[s.name] = value
        if s.as_ == "env":
            env[s.name] = value
        elif s.as_ == "arg":
            args.extend(s.args_for(value))
    meta: dict[str, Any] = {"base": spec.name}
    if spec.git:
        meta["git"] = {"repo": spec.git.repo, "ref": spec.git.ref, "build": spec.git.build,
                       **({"timeout": spec.git.timeout} if spec.git.timeout is not None else {})}
    return Variant(name=name, command=spec.command, args=tuple(args), env=env,
                   unset_env=tuple(u for u in spec.unset_env if u not in env), cwd=spec.cwd, baseline=False,
                   params=params, meta=meta)


def expand_matrix(variants: Sequence[VariantSpec], sweeps: Sequence[Sweep]) -> list[Variant]:
    """Every point of variants × sweeps (no exclusions, first point of the first variant as baseline)."""
    r = Reader("<matrix>", "")
    points = _expand(r, tuple(variants), tuple(sweeps), [])
    return _pick_baseline(r, {}, tuple(variants), points)


def _pick_baseline(r: Reader, doc: Mapping[str, Any], variants: tuple[VariantSpec, ...],
                   points: list[Variant]) -> list[Variant]:
    names = [p.name for p in points]
    if "baseline" in doc:
        wanted = r.string(doc["baseline"], ("baseline",))
        chosen = next((p for p in points if p.name == wanted), None) or next(
            (p for p in points if p.meta.get("base") == wanted), None)
        if chosen is None:
            valid = [v.name for v in variants] + [n for n in names if "/" in n]
            raise r.fail(("baseline",), f"baseline {wanted!r} is not a variant{suggest(wanted, valid)}; "
                                        f"valid: {choices(valid)}")
        flagged = [v.name for v in variants if v.baseline]
        if flagged and chosen.meta.get("base") != flagged[0]:
            raise r.fail(("baseline",), f"baseline = {wanted!r} disagrees with variant {flagged[0]!r}, "
                                        "which says baseline = true; keep one of them")
    else:
        flagged = [v.name for v in variants if v.baseline]
        base = flagged[0] if flagged else variants[0].name
        chosen = next((p for p in points if p.meta.get("base") == base), None)
        if chosen is None:
            raise r.fail(("variants", base), f"every point of baseline variant {base!r} is excluded; "
                                              "set baseline = \"...\" at the top of the file to another variant")
    if len(points) < 2:
        raise r.fail(("variants",), f"the suite has one variant ({points[0].name}) and nothing to compare it with; "
                                    "add a variant or a sweep")
    return [replace(p, baseline=(p is chosen)) for p in points]


def _check_placeholders(r: Reader, benchmarks: tuple[Benchmark, ...], matrix: list[Variant]) -> None:
    everywhere = set.intersection(*(set(v.params) for v in matrix))
    anywhere = set.union(*(set(v.params) for v in matrix))
    # {worktree} is filled by builds.resolve_builds for variants built from git refs.
    built = [v for v in matrix if v.meta.get("git")]
    if built:
        anywhere.add("worktree")
        if len(built) == len(matrix):
            everywhere.add("worktree")
    for b in benchmarks:
        for key in ("command", "setup", "prepare", "cleanup"):
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


def _json_safe(value: Any) -> Any:
    """TOML dates and times become strings, so the document can go into the run file."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


# --- after loading --------------------------------------------------------------------------------


def select_benchmarks(suite: Suite, pattern: str | None) -> Suite:
    """Keep the benchmarks whose name matches the glob (`--only 'issues*'`); several globs split by commas."""
    if not pattern:
        return suite
    globs = [g.strip() for g in pattern.split(",") if g.strip()]
    kept = tuple(b for b in suite.benchmarks if any(fnmatch.fnmatchcase(b.name, g) for g in globs))
    if not kept:
        raise SuiteError(f"--only {pattern!r} matches no benchmark of {suite.path}; "
                         f"benchmarks: {choices([b.name for b in suite.benchmarks])}")
    return replace(suite, benchmarks=kept)


def suite_record(suite: Suite, variants: Sequence[Variant] | None = None) -> dict[str, Any]:
    """What the run file keeps of the suite: the file as written, its parsed form and the matrix."""
    matrix = variants if variants is not None else suite.matrix
    return {
        "path": suite.path,
        "name": suite.name,
        "text": suite.text,
        "document": _json_safe(dict(suite.document)),
        "sweeps": [{"name": s.name, "values": list(s.values), "as": s.as_, "variants": list(s.variants),
                    "numeric": s.numeric} for s in suite.sweeps],
        "matrix": [{"name": v.name, "base": v.meta.get("base", v.name), "params": dict(v.params),
                    "baseline": v.baseline, **({"git_commit": v.meta["git_commit"], "build_log": v.meta.get("build_log")}
                                              if "git_commit" in v.meta else {})}
                   for v in matrix],
    }
