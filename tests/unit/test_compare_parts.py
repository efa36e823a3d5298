"""Pieces of `compare` that need no files: which metadata differences count as a different machine."""

from __future__ import annotations

from pairbench.commands.compare import machine_differences


def test_machine_facts_differ_but_volatile_ones_do_not_count() -> None:
    a = {"hostname": "a", "cpu_model": "EPYC", "kernel": "Linux 6.1", "load_average": [1, 1, 1],
         "started": "x", "started_unix": 1.0, "cwd": "/a", "pyperf": {"cpu_model_name": "EPYC", "uptime": 3}}
    b = {"hostname": "b", "cpu_model": "EPYC", "kernel": "Linux 6.2", "load_average": [5, 5, 5],
         "started": "y", "started_unix": 2.0, "cwd": "/b", "pyperf": {"cpu_model_name": "Xeon", "uptime": 9}}
    assert machine_differences(a, b) == [
        ("hostname", "a", "b"), ("kernel", "Linux 6.1", "Linux 6.2"), ("pyperf.cpu_model_name", "EPYC", "Xeon")]


def test_facts_stated_by_one_side_only_are_not_differences() -> None:
    assert machine_differences({"hostname": "a"}, {"cpu_model": "x"}) == []
