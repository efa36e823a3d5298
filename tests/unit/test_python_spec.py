"""requires-python clauses as pyperformance's metafiles write them (PEP 440 comparison clauses)."""

from __future__ import annotations

import pytest

from pairbench.runners.micro.python_spec import check_requires_python, satisfies


@pytest.mark.parametrize(("version", "spec", "expected"), [
    ("3.11.2", ">=3.12", False),
    ("3.12.0", ">=3.12", True),
    ("3.11.7", ">=3.11", True),
    ("3.11.7", ">=3.8", True),
    ("3.13.0rc1", ">=3.13", True),       # a pre-release counts by its release numbers
    ("3.11.7", ">=3.8, <3.11", False),
    ("3.10.4", ">=3.8, <3.11", True),
    ("3.11.7", "==3.11.*", True),
    ("3.12.1", "==3.11.*", False),
    ("3.11.7", "!=3.11.*", False),
    ("3.11.7", "~=3.9", True),
    ("4.0.0", "~=3.9", False),
    ("3.11.7", "> 3.11", True),
    ("3.11.0", "<=3.11", True),
])
def test_a_version_meets_every_clause_or_not(version: str, spec: str, expected: bool) -> None:
    assert satisfies(version, spec) is expected


@pytest.mark.parametrize("spec", ["three point twelve", ">=", "3.8", ">=3.8,", ">=3.*"])
def test_a_spec_that_is_not_version_clauses_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="is not a version clause"):
        check_requires_python(spec)
