"""The suite loader: valid files expand into the right matrix; bad ones give one file:line error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pairbench.errors import SuiteError
from pairbench.suite import load_suite, parse_suite, select_benchmarks, suite_record

ISSUE_EXAMPLE = r'''
[defaults]
runs = 10            # blocks
warmup = 1
threshold = 1.0      # the noise band, in percent
max_time = 300

[variants.head]
command = "ruby-head"
baseline = true

[variants.patched]
command = "ruby-hash"
env = { RUBY_GC_MALLOC_LIMIT = "60000000", RAILS_ENV = "production" }

[variants.patched-git]
git = { repo = "~/src/ruby", ref = "packed-hash", build = "./configure && make -j2" }
command = "{worktree}/ruby"

[[sweeps]]
name = "RUBY_MAX_PACKED_HASH"
values = [0, 3, 6, 9, 12, 18, 22, 32, 42]
as = "env"
variants = ["patched"]

[benchmarks.fibers]
kind = "command"
command = "{variant} fiber_benchmark.rb 10000 1000"
metrics = { setup = 'setup time for \d+ fibers: ([\d.]+)', exec = 'execution time for \d+ messages: ([\d.]+)' }
'''


def test_issue_example_loads_and_expands() -> None:
    s = parse_suite(ISSUE_EXAMPLE, "bench.toml")
    names = [v.name for v in s.matrix]
    assert names[0] == "head" and names[-1] == "patched-git"
    assert "patched/RUBY_MAX_PACKED_HASH=9" in names
    assert len(names) == 1 + 9 + 1
    assert s.baseline.name == "head"
    p9 = next(v for v in s.matrix if v.name == "patched/RUBY_MAX_PACKED_HASH=9")
    assert p9.env["RUBY_MAX_PACKED_HASH"] == "9" and p9.env["RAILS_ENV"] == "production"
    assert p9.params == {"RUBY_MAX_PACKED_HASH": "9"}
    git = next(v for v in s.matrix if v.name == "patched-git")
    assert git.meta["git"]["ref"] == "packed-hash" and git.command == "{worktree}/ruby"
    assert "timeout" not in git.meta["git"]  # no limit unless the suite sets one
    timed = parse_suite(ISSUE_EXAMPLE.replace('make -j2" }', 'make -j2", timeout = 3600 }'), "bench.toml")
    assert next(v for v in timed.matrix if v.name == "patched-git").meta["git"]["timeout"] == 3600
    assert s.defaults.runs == 10 and s.defaults.threshold == 1.0 and s.defaults.max_time == 300
    (b,) = s.benchmarks
    assert [m.name for m in b.metrics] == ["time", "setup", "exec", "user", "sys", "rss", "exit_code"]
    assert b.options["command"] == "{variant} fiber_benchmark.rb 10000 1000"
    assert set(b.options["metrics"]) == {"setup", "exec"}


def test_matrix_of_two_sweeps_with_args_and_exclude() -> None:
    s = parse_suite('''
[variants.trunk]
command = "ruby"
[variants.patched]
command = "./ruby"
args = "-W0"

[[sweeps]]
name = "jit"
values = ["on", "off"]
as = "arg"
arg = { on = "--jit", off = "" }

[[sweeps]]
name = "SIZE"
range = { start = 10, stop = 30, step = 10 }
as = "placeholder"

[[exclude]]
variant = "trunk"
SIZE = [20, 30]

[benchmarks.b]
command = "{variant} bench.rb {SIZE}"
''', "m.toml")
    names = [v.name for v in s.matrix]
    assert names == [
        "trunk/jit=on/SIZE=10", "trunk/jit=off/SIZE=10",
        "patched/jit=on/SIZE=10", "patched/jit=on/SIZE=20", "patched/jit=on/SIZE=30",
        "patched/jit=off/SIZE=10", "patched/jit=off/SIZE=20", "patched/jit=off/SIZE=30",
    ]
    assert s.baseline.name == "trunk/jit=on/SIZE=10"
    on = s.matrix[2]
    assert on.args == ("-W0", "--jit") and on.params == {"jit": "on", "SIZE": "10"} and on.env == {}
    assert s.matrix[5].args == ("-W0",)
    assert next(sw for sw in s.sweeps if sw.name == "SIZE").numeric
    assert not next(sw for sw in s.sweeps if sw.name == "jit").numeric


def test_default_arg_template_and_top_level_baseline() -> None:
    s = parse_suite('''
baseline = "py/level=2"
[variants.py]
command = "python3"
[[sweeps]]
name = "level"
values = [1, 2, 3]
as = "arg"
[benchmarks.b]
command = "{variant} x.py"
''')
    assert s.baseline.name == "py/level=2"
    assert s.matrix[0].args == ("--level=1",)


def test_env_false_unsets_and_float_range() -> None:
    s = parse_suite('''
[variants.a]
command = "a"
env = { KEEP = 1, DROP = false }
[[sweeps]]
name = "F"
range = { start = 0.1, stop = 0.3, step = 0.1 }
[benchmarks.b]
command = "{variant}"
''')
    assert [v.params["F"] for v in s.matrix] == ["0.1", "0.2", "0.3"]
    assert s.matrix[0].env["KEEP"] == "1" and s.matrix[0].unset_env == ("DROP",)


def test_select_benchmarks_and_record() -> None:
    s = parse_suite(ISSUE_EXAMPLE.replace("[benchmarks.fibers]", "[benchmarks.issues]") + '''
[benchmarks.issue]
command = "{variant} x"
''', "f.toml")
    assert [b.name for b in select_benchmarks(s, "issues*").benchmarks] == ["issues"]
    with pytest.raises(SuiteError, match="matches no benchmark.*issues, issue"):
        select_benchmarks(s, "nope*")
    rec = suite_record(s)
    assert rec["text"] == s.text and len(rec["matrix"]) == 11
    assert rec["document"]["variants"]["head"]["command"] == "ruby-head"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "needle", "message"),
    [
        ('command = "ruby-hash"', 'comand = "ruby-hash"', "comand", r"unknown key 'comand'.*did you mean 'command'.*valid keys: command, args"),
        ("warmup = 1", "warmups = 1", "warmups", r"unknown key 'warmups' in \[defaults\].*valid keys: runs, warmup"),
        ('variants = ["patched"]', 'variants = ["pached"]', 'variants = ["pached"]', r"unknown variant 'pached'.*valid: head, patched, patched-git"),
        ("values = [0, 3, 6, 9, 12, 18, 22, 32, 42]", "values = []", "values = []", r"has no values"),
        ('kind = "command"', 'kind = "comand"', 'kind = "comand"', r"unknown kind 'comand'.*valid: command, http, micro"),
        ('as = "env"', 'as = "envv"', 'as = "envv"', r"not one of: env, arg, placeholder"),
        ("runs = 10", "runs = 0", "runs = 0", r"runs must be at least 1"),
        ("runs = 10", 'runs = "ten"', 'runs = "ten"', r"runs must be an integer"),
        ("[variants.patched-git]", "[variants.patched-git]\nbaseline = true  # second", "# second", r"more than one variant says baseline"),
        ('build = "./configure && make -j2" }', 'build = "./configure && make -j2", timeout = -5 }', "timeout = -5",
         r"timeout must be greater than 0"),
        ('build = "./configure && make -j2" }', 'build = "make", timout = 60 }', "timout",
         r"unknown key 'timout'.*did you mean 'timeout'.*valid keys: repo, ref, build, timeout"),
        ("setup = 'setup time", "setup = '(setup time", "setup = '(setup", r"invalid regex"),
        ("{variant} fiber", "{variant} {RUBY_MAX_PACKED_HASH} fiber", "{RUBY_MAX_PACKED_HASH}", r"variant 'head' has no value for it"),
        ("{variant} fiber", "{varaint} fiber", "{varaint}", r"unknown placeholder \{varaint\}.*valid: \{variant\}"),
    ],
)
def test_bad_input_names_file_line_and_choices(old: str, new: str, needle: str, message: str) -> None:
    assert old in ISSUE_EXAMPLE
    text = ISSUE_EXAMPLE.replace(old, new, 1)
    with pytest.raises(SuiteError) as info:
        parse_suite(text, "bench.toml")
    text_msg = str(info.value)
    first = needle.split("\n")[0]
    assert text_msg.startswith(f"bench.toml:{_line_of(text, first)}: "), text_msg
    assert re.search(message, text_msg), text_msg


def test_unknown_top_level_key_and_duplicate_name() -> None:
    with pytest.raises(SuiteError, match=r"^s.toml:2: unknown key 'variant' in the suite.*valid keys: name"):
        parse_suite('\n[variant.a]\ncommand = "x"\n', "s.toml")
    with pytest.raises(SuiteError, match=r"^s.toml:3: not valid TOML: Cannot overwrite"):
        parse_suite('[variants.a]\ncommand = "x"\ncommand = "y"\n', "s.toml")
    with pytest.raises(SuiteError, match=r"duplicated sweep name 'N'"):
        parse_suite('[variants.a]\ncommand="x"\n[[sweeps]]\nname="N"\nvalues=[1,2]\n[[sweeps]]\nname="N"\nvalues=[3]\n'
                    '[benchmarks.b]\ncommand="{variant}"\n', "s.toml")


def test_unknown_baseline_lists_variants() -> None:
    text = 'baseline = "hed"\n' + ISSUE_EXAMPLE.replace("baseline = true\n", "")
    with pytest.raises(SuiteError, match=r"^b.toml:1: baseline 'hed' is not a variant \(did you mean 'head'\?\); valid: head, patched, patched-git"):
        parse_suite(text, "b.toml")


def test_nothing_to_compare_and_exclude_that_matches_nothing() -> None:
    with pytest.raises(SuiteError, match="nothing to compare"):
        parse_suite('[variants.a]\ncommand = "x"\n[benchmarks.b]\ncommand = "{variant}"\n')
    with pytest.raises(SuiteError, match=r"<suite>:5: exclude #1 .* matches no point"):
        parse_suite('[variants.a]\ncommand = "x"\n[variants.b]\ncommand = "y"\n[[exclude]]\nvariant = "c"\n'
                    '[benchmarks.b]\ncommand = "{variant}"\n')


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"missing.toml:1: cannot read the suite file"):
        load_suite(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[variants.a]\ncommand = "\xff"\n')
    with pytest.raises(SuiteError, match=r"bad.toml:2: the suite file is not UTF-8"):
        load_suite(bad)


def test_examples_load() -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    files = sorted(root.glob("*.toml"))
    assert len(files) >= 2
    for f in files:
        s = load_suite(f)
        assert s.benchmarks and len(s.matrix) >= 2


def test_worktree_placeholder_in_benchmarks_needs_every_variant_built() -> None:
    built = '''
[variants.a]
git = { repo = "/r", ref = "a" }
command = "{worktree}/ruby"
[variants.b]
git = { repo = "/r", ref = "b" }
command = "{worktree}/ruby"
[benchmarks.x]
command = "{variant} {worktree}/benchmark/bm_fib.rb"
'''
    assert len(parse_suite(built).matrix) == 2
    mixed = built.replace('git = { repo = "/r", ref = "b" }\ncommand = "{worktree}/ruby"', 'command = "ruby"')
    with pytest.raises(SuiteError, match=r"<suite>:8: benchmark 'x' uses \{worktree\} but variant 'b' is not built"):
        parse_suite(mixed)
