"""The JSON Schema of the suite file (pairbench.toml), generated from the readers' own tables.

Editors complete and check a TOML file against a JSON Schema (taplo, VS Code's Even Better TOML:
a `#:schema ./schema/pairbench.schema.json` first line). The schema is built here from the key
tuples the validators enforce (suite/load.py, suite/validation.py), the sweep modes of
suite/schema.py and each kind's typed options (runners/<kind>/options.py through the kinds table), so a
key added to a reader is in the schema or the build fails; `schema/pairbench.schema.json` is this
output, and a unit test fails when the two differ (regenerate with
`python -m pairbench.suite.jsonschema > schema/pairbench.schema.json`).

The validators stay the authority: they also check what a schema cannot say well (a regex
compiles, one baseline, placeholders defined). The schema is draft-07, which taplo reads.
"""

from __future__ import annotations

import ast
import collections.abc
import dataclasses
import inspect
import json
import sys
import types
import typing
from collections.abc import Mapping
from typing import Any

from pairbench.runners.http import HTTP_ALIASES
from pairbench.runners.kinds import KINDS
from pairbench.suite import load, validation
from pairbench.suite.schema import RESERVED_METRICS, SWEEP_AS

__all__ = ["suite_json_schema", "dumps_schema", "SCHEMA_ID"]

SCHEMA_ID = "https://pairbench.invalid/schema/pairbench.schema.json"
"""An identifier, not a download: the schema ships in the repository."""

_Schema = dict[str, Any]
_SCALAR: _Schema = {"type": ["string", "number", "boolean"]}
_STRINGS: _Schema = {"type": "array", "items": {"type": "string"}}
_NAME = "^[A-Za-z0-9_.+-]+$"

_METRIC: _Schema = {
    "description": "A number the program prints: a regex with one group, or a table with its unit and direction.",
    "oneOf": [
        {"type": "string", "description": "regex with one group around the number"},
        {"type": "object", "required": ["regex"], "additionalProperties": False, "properties": {
            "regex": {"type": "string", "description": "regex with one group around the number"},
            "unit": {"type": "string"},
            "direction": {"enum": list(validation._DIRECTIONS), "description": "which way is better"},
            "exact": {"type": "boolean", "description": "a count compared exactly, never tested"},
            "description": {"type": "string"},
        }},
    ],
}
_METRICS: _Schema = {"type": "object", "propertyNames": {"pattern": _NAME}, "additionalProperties": _METRIC,
                     "description": f"metric name -> regex (or a table); {', '.join(RESERVED_METRICS)} are taken"}

# Every key the readers accept, with its JSON type and what it means. A key missing here makes
# suite_json_schema() raise, so a new key cannot reach the readers without reaching the schema.
_DEFAULTS: Mapping[str, _Schema] = {
    "runs": {"type": "integer", "minimum": 1, "description": "blocks; each runs every variant once, in random order"},
    "warmup": {"type": "integer", "minimum": 0, "description": "warm-up runs per variant, discarded"},
    "threshold": {"type": "number", "minimum": 0, "exclusiveMaximum": 100,
                  "description": "noise band in percent: smaller differences read as \"same\""},
    "max_time": {"type": "number", "exclusiveMinimum": 0, "description": "seconds for the whole suite"},
    "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "seed": {"type": "integer", "minimum": 0},
    "profile": {"oneOf": [{"type": "boolean"}, {"type": "integer", "minimum": 0}],
                "description": "profiling blocks (true: 3), apart from the timed ones: where the difference is"},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "seconds per command, for benchmarks that set none"},
    "metrics": _METRICS,
}
_GIT: Mapping[str, _Schema] = {
    "repo": {"type": "string", "description": "the repository (relative to the suite file's folder)"},
    "ref": {"type": "string", "description": "branch, tag or commit"},
    "build": {"type": "string", "description": "shell command run once in the worktree (cached)"},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "seconds the build may take"},
}
_VARIANT: Mapping[str, _Schema] = {
    "command": {"type": "string", "description": "what {variant} stands for in benchmark commands"},
    "args": {"oneOf": [{"type": "string"}, _STRINGS], "description": "arguments after the command"},
    "env": {"type": "object", "additionalProperties": _SCALAR,
            "description": "environment variables; NAME = false removes one from the inherited environment"},
    "unset_env": {**_STRINGS, "description": "variables removed from the inherited environment"},
    "cwd": {"type": "string"},
    "baseline": {"type": "boolean", "description": "the variant the others are compared with (one only)"},
    "params": {"type": "object", "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
               "additionalProperties": _SCALAR, "description": "values for {name} placeholders"},
    "git": {"type": "object", "required": ["repo", "ref"], "additionalProperties": False, "properties": {}},
    "description": {"type": "string"},
}
_SWEEP: Mapping[str, _Schema] = {
    "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_-]*$",
             "description": "the parameter: an environment variable, an argument or a {placeholder}"},
    "values": {"type": "array", "minItems": 1, "items": _SCALAR,
               "description": "in the order of the report rows; the first is the baseline's"},
    "range": {"type": "object", "required": ["start", "stop"], "additionalProperties": False, "properties": {}},
    "as": {"enum": list(SWEEP_AS), "description": "env, arg (after the variant's command) or placeholder only"},
    "arg": {"oneOf": [{"type": "string"}, {"type": "object", "additionalProperties": {"type": "string"}}],
            "description": "for as = \"arg\": a template such as --{name}={value}, or value -> argument(s)"},
    "variants": {**_STRINGS, "description": "the variants it multiplies (all when none are named)"},
}
_RANGE: Mapping[str, _Schema] = {k: {"type": "number"} for k in ("start", "stop", "step")}
_TOP: Mapping[str, _Schema] = {
    "name": {"type": "string"},
    "description": {"type": "string"},
    "baseline": {"type": "string", "description": "the baseline variant (or baseline = true on one)"},
}
_COMMAND_EXTRA: Mapping[str, _Schema] = {
    "kind": {"const": "command"},
    "metrics": _METRICS,
    "output": {"type": "string", "description": "auto, null, pipe, inherit, or a file's path"},
}


# Option values a suite file writes in another form than the typed option holds.
_INPUT_FORMS: Mapping[tuple[str, str], _Schema] = {
    ("http", "headers"): {"type": ["object", "array"], "description": "a table of name = value, or [[name, value], ...]"},
    ("http", "mix"): {"type": "array", "minItems": 1, "description": "several URLs loaded as one weighted mix",
                      "items": {"type": "object", "required": ["url"], "additionalProperties": False,
                                                 "properties": {"url": {"type": "string"}, "weight": {"type": "number"}}}},
}
ALIASES: Mapping[str, Mapping[str, str]] = {"http": HTTP_ALIASES}
"""Other spellings a kind's parser accepts, per kind."""


def _typed(keys: tuple[str, ...], table: Mapping[str, _Schema], where: str) -> dict[str, _Schema]:
    missing = [k for k in keys if k not in table]
    if missing:
        raise RuntimeError(f"the JSON Schema has no type for {where} key(s) {', '.join(missing)}")
    return {k: table[k] for k in keys}


def _closed(properties: dict[str, _Schema], **extra: Any) -> _Schema:
    return {"type": "object", "additionalProperties": False, "properties": properties, **extra}


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings of a dataclass (the string under a field), by field name."""
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for prev, node in zip(body, body[1:]):
        if (isinstance(prev, ast.AnnAssign) and isinstance(prev.target, ast.Name) and isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            docs[prev.target.id] = " ".join(node.value.value.split())
    return docs


def _json_type(hint: Any) -> _Schema:
    """The JSON Schema of one typed-option annotation (`int | None`, `tuple[str, ...]`...)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _json_type(args[0]) if len(args) == 1 else {"anyOf": [_json_type(a) for a in args]}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint in simple:
        return {"type": simple[hint]}
    if origin in (tuple, list):
        return {"type": "array"}
    if origin in (dict, collections.abc.Mapping):
        return {"type": "object"}
    return {}


def _kind_options(name: str) -> dict[str, _Schema]:
    """The options of a kind, from the fields of the dataclass its parser returns."""
    parse = inspect.unwrap(KINDS[name].parse_options)  # the kind's parser itself (kinds.py loads it lazily)
    cls = typing.get_type_hints(parse)["return"]
    hints = typing.get_type_hints(cls)
    docs = _field_docs(cls)
    props: dict[str, _Schema] = {}
    for f in dataclasses.fields(cls):
        schema = _INPUT_FORMS.get((name, f.name)) or _json_type(hints[f.name])
        if f.name in docs:
            schema = {**schema, "description": docs[f.name]}
        props[f.name] = schema
    for alias, target in ALIASES.get(name, {}).items():
        props[alias] = {**props[target], "description": f"another spelling of {target}"}
    return props


def _benchmark() -> _Schema:
    """A benchmark: a command one unless `kind` names another, each kind with its own keys."""
    command = {k: v for k, v in _kind_options("command").items() if k in validation._COMMAND_KEYS}
    command.update(_COMMAND_EXTRA)
    _typed(validation._COMMAND_KEYS, command, "command benchmark")
    branches: list[_Schema] = [{
        "if": {"not": {"required": ["kind"]}},
        "then": _closed(command, required=["command"]),
    }]
    kinds = [k for k in KINDS if k != "fake"]  # the fake kind is for tests, not suite files
    for kind in kinds:
        props = dict(_kind_options(kind)) if kind != "command" else dict(command)
        props["kind"] = {"const": kind}
        branches.append({"if": {"required": ["kind"], "properties": {"kind": {"const": kind}}},
                         "then": _closed(props, required=["command"] if kind == "command" else [])})
    return {"type": "object", "properties": {"kind": {"enum": kinds, "description": "command (default), "
                                                       + ", ".join(k for k in kinds if k != "command")}},
            "allOf": branches}


def suite_json_schema() -> _Schema:
    """The JSON Schema (draft-07) of a suite file, as a JSON-ready dict."""
    variant = _typed(validation._VARIANT_KEYS, _VARIANT, "variant")
    variant["git"] = {**variant["git"], "properties": _typed(validation._GIT_KEYS, _GIT, "git")}
    sweep = _typed(validation._SWEEP_KEYS, _SWEEP, "sweep")
    sweep["range"] = {**sweep["range"], "properties": _typed(validation._RANGE_KEYS, _RANGE, "range")}
    top = dict(_TOP)
    top.update({
        "defaults": _closed(_typed(validation._DEFAULT_KEYS, _DEFAULTS, "[defaults]")),
        "variants": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": _NAME},
                     "additionalProperties": _closed(variant), "description": "[variants.NAME]: what is compared"},
        "sweeps": {"type": "array", "description": "[[sweeps]]: parameters that multiply the variants",
                   "items": _closed(sweep, required=["name"],
                                    oneOf=[{"required": ["values"]}, {"required": ["range"]}])},
        "exclude": {"description": "matrix points left out: { variant = ..., SWEEP = value or [values] }",
                    "oneOf": [{"type": "object", "minProperties": 1},
                              {"type": "array", "items": {"type": "object", "minProperties": 1}}]},
        "benchmarks": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": _NAME},
                       "additionalProperties": _benchmark(), "description": "[benchmarks.NAME]: what is measured"},
    })
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "pairbench suite (pairbench.toml)",
        "description": "Variants, sweeps and benchmarks for `pairbench run`; see docs/suite.md.",
        "type": "object",
        "required": ["variants", "benchmarks"],
        "additionalProperties": False,
        "properties": _typed(load._TOP_KEYS, top, "top-level"),
    }


def dumps_schema() -> str:
    """The schema as the published file holds it (sorted keys, two-space indent, final newline)."""
    return json.dumps(suite_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dumps_schema())
