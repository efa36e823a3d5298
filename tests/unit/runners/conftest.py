"""Unit tests start no process: the command runner's exec helper is never built here."""

import pytest


@pytest.fixture(autouse=True)
def _no_helper_build(monkeypatch, tmp_path):
    monkeypatch.setenv("CC", "/nonexistent/cc-for-unit-tests")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
