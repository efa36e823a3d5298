"""Generated argument lists and files never give the user a traceback, and the exit code is documented.

`pairbench.cli.main` is called in-process (stdout and stderr captured) with argument lists drawn
per subcommand from its own flags, values that break things (empty, negative, NaN, control
characters, missing paths) and positionals, and with generated run files, suite files and
importable results: valid documents cut short or with a part replaced, and noise. Any exception
that leaves `main` (other than argparse's SystemExit) is what a user would see as a traceback.

What is bounded, so that the whole file takes well under a minute: commands come from a pool that
finishes at once (`true`, `false`, missing programs), servers exit at start, URLs point at a
closed local port, measuring commands get `-r 2` and a short --max-time last (flags given earlier
are still parsed and checked), `run` gets --check and `demo` is left out (it measures for half a
minute by design). Derandomized: CI runs the same examples every time.

Known and left to their owners: `import -o` into a missing directory (the store's writer).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pairbench.cli import main
from pairbench.store.runfile import dumps_run
from tests.unit.runs_by_hand import make_run

pytestmark = pytest.mark.slow

# The exit codes cli.py documents.
DOCUMENTED = {0, 1, 2, 3, 129, 130, 141, 143}

NASTY = ["", " ", "-", "--", "0", "-3", "1e999", "nan", "inf", "x", "{x}", "{port}", "é", "a\nb",
         "\x1b]0;pwned\x07", "\x1b[31mred", "/nonexistent/dir/f", "r.json", "bad.json", "suite.toml"]
VALUE = st.sampled_from(NASTY) | st.text(max_size=6)
NUMBER = st.sampled_from(["0", "1", "2", "-1", "-3", "0.5", "nan", "inf", "x", "1e999", ""])
FILES = st.sampled_from(["r.json", "bad.json", "suite.toml", "imp.json", "missing.json", "", "-", "."])
COMMANDS = st.sampled_from(["true", "false", "", "  ", "exit 3", "no-such-program-xyz", "echo {x}", "true {x}",
                            "\x1b]0;t\x07true", "'unbalanced", "true # b"])
SERVERS = st.sampled_from(["true {port}", "false", "", "no-such-server-xyz {port}", "'unbalanced"])
URLS = st.sampled_from(["/", "/a b", "http://127.0.0.1:9/", "https://127.0.0.1:9/x", "ftp://127.0.0.1/", "",
                        "http://[::1", "\x1b]0;t\x07", "http://127.0.0.1:0/"])
PYTHONS = st.sampled_from([sys.executable, "", " ", "no-such-python-xyz", f"{sys.executable} -E"])
STATEMENTS = st.sampled_from(["x = 1", "1/0", "", "pass", "import sys; sys.exit(3)", "\x1b[2J", "x +", "bench.py"])


def _flags(table: dict[str, Any]) -> st.SearchStrategy[list[str]]:
    """A list of flags from `table` (flag -> value strategy, or None for a switch), each with its value."""
    def one(flag: str) -> st.SearchStrategy[list[str]]:
        value = table[flag]
        return st.just([flag]) if value is None else value.map(lambda v: [flag, v])

    return st.lists(st.sampled_from(sorted(table)).flatmap(one), max_size=5).map(lambda xs: [a for x in xs for a in x])


RUN_FLAGS = {"-r": NUMBER, "-w": NUMBER, "--max-time": NUMBER, "--max-runs": NUMBER, "--seed": NUMBER,
             "--threshold": NUMBER, "--confidence": NUMBER, "--correction": VALUE, "--export-json": FILES,
             "--fail-on-regression": None, "--history": FILES, "--no-history": None}
BOUNDED = ["-r", "2", "-w", "0", "--max-time", "1", "--no-progress"]
"""A pair of `true`s never settles and spends all of --max-time: 1 s, not 3, gives the same exit
code in every example (27 s -> 11 s for `cmd`'s), each still measuring past its -r minimum."""


def _cmd() -> st.SearchStrategy[list[str]]:
    flags = _flags({**RUN_FLAGS, "-n": VALUE, "--name": VALUE, "--reference": COMMANDS, "-N": None,
                    "--shell": st.sampled_from(["sh", "none", "bash", ""]), "--timeout": NUMBER, "-i": None,
                    "--metric": st.sampled_from(["m=([\\d.]+)", "m=(", "=x", "m", "m=x"]),
                    "--setup": COMMANDS, "--prepare": COMMANDS, "--cleanup": COMMANDS})
    params = st.lists(st.tuples(st.sampled_from(["x", "", "1x", "x y"]), st.sampled_from(["1,2", "", "1,,2", "a"])),
                      max_size=1).map(lambda ps: [a for p in ps for a in ("-L", *p)])
    return st.tuples(flags, params, st.lists(COMMANDS, min_size=1, max_size=3)).map(
        lambda t: ["cmd", *t[0], *t[1], "--", *t[2]] if t[2][0].startswith("-") else ["cmd", *t[0], *t[1], *t[2]])


def _micro() -> st.SearchStrategy[list[str]]:
    flags = _flags({**RUN_FLAGS, "-n": VALUE, "-s": STATEMENTS, "-b": VALUE, "--samples": NUMBER,
                    "--warmup-samples": NUMBER, "--target-time": NUMBER, "--loops": NUMBER, "--clock": VALUE})
    pythons = st.lists(PYTHONS, max_size=2).map(lambda ps: [a for p in ps for a in ("--python", p)])
    return st.tuples(flags, pythons, st.lists(STATEMENTS, min_size=1, max_size=2)).map(
        lambda t: ["micro", *t[0], *t[1], *t[2], "--samples", "2", "--warmup-samples", "0", "--target-time", "0.002",
                   "--no-alloc"])


def _http() -> st.SearchStrategy[list[str]]:
    flags = _flags({**RUN_FLAGS, "--server": SERVERS, "--name": VALUE, "--url": URLS, "-n": NUMBER, "-c": NUMBER,
                    "--duration": NUMBER, "--rate": NUMBER, "--mix": st.sampled_from(["1", "1,2", "x", "0,1"]),
                    "-H": VALUE, "--env": VALUE, "--port": NUMBER, "--engine": st.sampled_from(["builtin", "wrk"]),
                    "--timeout": NUMBER, "--no-keepalive": None, "--body": VALUE, "--body-file": FILES,
                    "-L": st.just("x").flatmap(lambda _: VALUE.map(lambda v: f"{v}")), "--method": VALUE})
    return flags.map(lambda f: ["http", *f, "--ready-timeout", "2", "--grace", "1"])


def _reading() -> st.SearchStrategy[list[str]]:
    report = st.tuples(_flags({"--markdown": FILES, "--html": FILES, "--title": VALUE}),
                       st.lists(FILES, max_size=2)).map(lambda t: ["report", *t[1], *t[0]])
    compare = st.tuples(_flags({"--variant": VALUE, "--threshold": NUMBER, "--confidence": NUMBER,
                                "--markdown": FILES, "--html": FILES}),
                        st.lists(FILES, max_size=3)).map(lambda t: ["compare", *t[1], *t[0]])
    history = _flags({"--history": FILES, "--benchmark": VALUE, "--metric": VALUE, "--variant": VALUE,
                      "--limit": NUMBER, "--threshold": NUMBER, "--csv": st.sampled_from(["-", "out.csv", ""])}
                     ).map(lambda f: ["history", *f])
    import_ = st.tuples(_flags({"-o": st.sampled_from(["out.json", "r.json", "", "-"]),
                                "--format": st.sampled_from(["auto", "pyperf", "hyperfine", "x"]),
                                "--name": VALUE, "--benchmark": VALUE, "--force": None, "--history": FILES,
                                "--no-history": None}),
                        st.lists(FILES, max_size=2)).map(lambda t: ["import", *t[1], *t[0]])
    run = st.tuples(_flags({"--only": VALUE, "--variants": VALUE, "--set": VALUE, "-r": NUMBER}),
                    st.lists(FILES, max_size=1)).map(lambda t: ["run", *t[1], *t[0], "--check"])
    init = st.tuples(st.lists(st.sampled_from(["new.toml", "suite.toml", "", "/nonexistent/dir/x.toml"]), max_size=1),
                     st.sampled_from([[], ["--force"]])).map(lambda t: ["init", *t[0], *t[1]])
    top = st.sampled_from([[], ["--help"], ["--version"], ["nope"], ["cmd"], ["demo", "-r", "-3"]])
    return st.one_of(report, compare, history, import_, run, init, top)


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(8 if depth < 2 else 5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 3, 1e300, -0.0, 2**70])
    if pick in (3, 4):
        return rng.choice(NASTY)
    if pick == 5:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(NASTY): _json_value(rng, depth + 1) for _ in range(rng.randrange(3))}


def _mutated(doc: Any, rng: random.Random) -> Any:
    """`doc` with one value somewhere inside it replaced or removed."""
    if isinstance(doc, dict) and doc and rng.random() < 0.8:
        key = rng.choice(sorted(doc))
        out = dict(doc)
        action = rng.randrange(3)
        if action == 0:
            out[key] = _mutated(doc[key], rng)
        elif action == 1:
            del out[key]
        else:
            out[key] = _json_value(rng)
        return out
    if isinstance(doc, list) and doc and rng.random() < 0.8:
        i = rng.randrange(len(doc))
        return doc[:i] + [_mutated(doc[i], rng)] + doc[i + 1:]
    return _json_value(rng)


VALID_RUN = dumps_run(make_run(blocks=6))
VALID_IMPORT = json.dumps({"results": [{"command": "a", "mean": 0.2, "times": [0.1, 0.2, 0.3]},
                                       {"command": "b", "mean": 0.2, "times": [0.1, 0.2, 0.3]}]})
VALID_SUITE = """[defaults]
runs = 10
threshold = 1.0
[variants.a]
command = "true"
baseline = true
[variants.b]
command = "true"
args = ["-x"]
[[sweeps]]
name = "N"
values = [1, 2]
as = "env"
[benchmarks.one]
command = "{variant} {N}"
metrics = { m = { regex = 'm: ([\\d.]+)', unit = "s" } }
[benchmarks.page]
kind = "http"
urls = ["/"]
"""

# A file is drawn as a small recipe (how, seed), applied when the workspace is made, so that a
# failing example prints in a line and replays exactly.
RECIPE = st.tuples(st.sampled_from(["mutate", "mutate", "cut", "noise", "valid"]), st.integers(0, 2**32))


def _document(valid: str, recipe: tuple[str, int]) -> str:
    how, seed = recipe
    rng = random.Random(seed)
    if how == "valid":
        return valid
    if how == "cut":
        return valid[: rng.randrange(len(valid) + 1)]
    if how == "noise":
        return "".join(rng.choice(NASTY + ["{", "}", "[", "]", '"', "=", "\n"]) for _ in range(rng.randrange(12)))
    if valid.lstrip().startswith("{"):
        return json.dumps(_mutated(json.loads(valid), rng))
    lines = valid.splitlines()
    lines[rng.randrange(len(lines))] = rng.choice(NASTY + ['x = "', "[variants.a]", "kind = 3", "runs = -1"])
    return "\n".join(lines)


FILES_RECIPES = st.fixed_dictionaries({"bad.json": RECIPE, "suite.toml": RECIPE, "imp.json": RECIPE})


def _files(recipes: dict[str, tuple[str, int]]) -> dict[str, str]:
    valid = {"bad.json": VALID_RUN, "suite.toml": VALID_SUITE, "imp.json": VALID_IMPORT}
    return {"r.json": VALID_RUN, **{name: _document(valid[name], r) for name, r in recipes.items()}}


@contextlib.contextmanager
def _workspace(files: dict[str, str]) -> Iterator[Path]:
    """A fresh directory as cwd, holding `files`, with the history and run files kept inside it."""
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        os.chdir(root)
        os.environ.update({"PAIRBENCH_HISTORY": str(root / "history.sqlite"), "XDG_DATA_HOME": str(root / "data"),
                           "PAIRBENCH_CACHE_DIR": str(root / "cache"), "COLUMNS": "80", "NO_COLOR": "1"})
        try:
            yield root
        finally:
            os.chdir(old_cwd)
            os.environ.clear()
            os.environ.update(old_env)


def _check(argv: list[str], files: dict[str, str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    with _workspace(files), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help and --version (0), usage errors (2)
            code = exc.code if isinstance(exc.code, int) else 0
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue())
    assert code in DOCUMENTED, (argv, code, err.getvalue())
    if code == 1:
        lines = [line for line in err.getvalue().splitlines() if line.startswith("error: ")]
        assert len(lines) == 1, (argv, err.getvalue())


SETTINGS = dict(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=250, **SETTINGS)  # type: ignore[arg-type]
@given(argv=_reading(), recipes=FILES_RECIPES)
def test_reading_commands_with_generated_files(argv: list[str], recipes: dict[str, tuple[str, int]]) -> None:
    _check(argv, _files(recipes))


@settings(max_examples=40, **SETTINGS)  # type: ignore[arg-type]
@given(argv=_cmd())
@example(argv=["cmd", "", "true"])  # the reproductions in the issue, always tried first
@example(argv=["cmd", "-n", "", "true", "false"])
@example(argv=["cmd", "true", ""])
def test_cmd_with_generated_arguments(argv: list[str]) -> None:
    _check(argv + BOUNDED, {})


@settings(max_examples=30, **SETTINGS)  # type: ignore[arg-type]
@given(argv=_http())
def test_http_with_generated_arguments(argv: list[str]) -> None:
    _check(argv + BOUNDED, {})


@settings(max_examples=12, **SETTINGS)  # type: ignore[arg-type]
@given(argv=_micro())
@example(argv=["micro", "--python", "", "x = 1"])
def test_micro_with_generated_arguments(argv: list[str]) -> None:
    _check(argv + BOUNDED, {"bench.py": "def bench_x():\n    pass\n"})
