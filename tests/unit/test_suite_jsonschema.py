"""The published JSON Schema of the suite file: generated from the readers' tables, so it cannot
drift from them, and it accepts the repository's suites and refuses what the readers refuse."""

from __future__ import annotations

import json
import textwrap
import tomllib
from pathlib import Path

import jsonschema
import pytest

from pairbench.commands.init import EXAMPLE_SUITE
from pairbench.errors import UserError
from pairbench.suite import parse_suite, validation
from pairbench.suite.jsonschema import dumps_schema, suite_json_schema

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "schema" / "pairbench.schema.json"

GOOD = {
    "sweep": """\
        [defaults]
        runs = 8
        profile = true
        [variants.app]
        command = "true"
        [[sweeps]]
        name = "WORK"
        range = { start = 1, stop = 4 }
        as = "arg"
        arg = "--work={value}"
        [benchmarks.loop]
        command = "{variant}"
        metrics = { ops = 'ops: ([\\d.]+)', t = { regex = 't: ([\\d.]+)', unit = "s", direction = "lower" } }
        """,
    "http": """\
        [variants.a]
        command = "python3 -m http.server {port}"
        [variants.b]
        command = "python3 -m http.server {port}"
        [benchmarks.page]
        kind = "http"
        url = "/"
        duration = 1
        concurrency = 4
        headers = { Accept = "text/html" }
        """,
    "micro": """\
        [variants.py]
        command = "python3"
        [variants.nosite]
        command = "python3"
        args = "-S"
        [benchmarks.add]
        kind = "micro"
        stmt = "x + 1"
        setup = "x = 1"
        """,
}

BAD = {
    "variant key": ('[variants.a]\ncomand = "true"\n[benchmarks.x]\ncommand = "{variant}"\n', "comand"),
    "http option": ('[variants.a]\ncommand = "x {port}"\n[benchmarks.p]\nkind = "http"\nurl = "/"\n'
                    'duration = 1\nconections = 4\n', "conections"),
    "default key": ('[defaults]\nrun = 3\n[variants.a]\ncommand = "true"\n[benchmarks.x]\ncommand = "{variant}"\n', "run"),
    "sweep mode": ('[variants.a]\ncommand = "true"\n[[sweeps]]\nname = "N"\nvalues = [1, 2]\nas = "envv"\n'
                   '[benchmarks.x]\ncommand = "{variant}"\n', "envv"),
    "profile": ('[defaults]\nprofile = "yes"\n[variants.a]\ncommand = "true"\n[benchmarks.x]\ncommand = "{variant}"\n',
                "profile"),
    "kind": ('[variants.a]\ncommand = "true"\n[benchmarks.x]\nkind = "htp"\nurl = "/"\n', "htp"),
    "metric direction": ('[variants.a]\ncommand = "true"\n[benchmarks.x]\ncommand = "{variant}"\n'
                         'metrics = { m = { regex = "m: (\\\\d+)", direction = "up" } }\n', "up"),
}


def _validator() -> jsonschema.Draft7Validator:
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_the_published_schema_is_the_generated_one() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == dumps_schema(), (
        "schema/pairbench.schema.json is stale: python -m pairbench.suite.jsonschema > schema/pairbench.schema.json")


def test_a_key_the_readers_accept_without_a_schema_type_fails_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validation, "_VARIANT_KEYS", (*validation._VARIANT_KEYS, "nice"))
    with pytest.raises(RuntimeError, match="variant key\\(s\\) nice"):
        suite_json_schema()


def test_the_repository_suites_are_valid() -> None:
    v = _validator()
    examples = sorted((ROOT / "examples").glob("*.toml"))
    assert len(examples) >= 2
    for path in examples:
        errors = [e.message for e in v.iter_errors(tomllib.loads(path.read_text(encoding="utf-8")))]
        assert errors == [], (path.name, errors)
    assert [e.message for e in v.iter_errors(tomllib.loads(EXAMPLE_SUITE))] == []  # what `pairbench init` writes


@pytest.mark.parametrize("name", sorted(GOOD))
def test_suites_the_readers_accept_are_valid(name: str) -> None:
    text = textwrap.dedent(GOOD[name])
    parse_suite(text, f"<{name}>")  # the readers accept it
    assert [e.message for e in _validator().iter_errors(tomllib.loads(text))] == []


@pytest.mark.parametrize("name", sorted(BAD))
def test_mistakes_the_readers_refuse_are_refused_by_the_schema(name: str) -> None:
    text, word = BAD[name]
    with pytest.raises(UserError, match=word):
        parse_suite(text, f"<{name}>")
    errors = [e.message for e in _validator().iter_errors(tomllib.loads(text))]
    assert errors, name
