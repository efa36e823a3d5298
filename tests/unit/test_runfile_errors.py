"""Run-file errors are typed, so readers choose a fallback by type, never by the wording of a message."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.commands.reading import load_results
from pairbench.errors import NewerRunFile, NotARunFile, RunFileError, TruncatedRunFile, UserError
from pairbench.store.runfile import VERSION, dumps_run, load_run, run_to_dict
from pairbench.store.salvage import load_run_salvaging

HYPERFINE = {"results": [{"command": "a", "times": [0.010, 0.011, 0.012]}, {"command": "b", "times": [0.02, 0.021, 0.022]}]}


def test_the_three_kinds_are_run_file_errors_under_the_user_error_root() -> None:
    for cls in (NotARunFile, TruncatedRunFile, NewerRunFile):
        assert issubclass(cls, RunFileError) and issubclass(cls, UserError)
    assert len({NotARunFile, TruncatedRunFile, NewerRunFile}) == 3


@pytest.mark.parametrize("content", [b"{}", b"[1, 2]", b"hello", b'{"schema": "other"}',
                                     gzip.compress(json.dumps(HYPERFINE).encode())])
def test_something_else_is_not_a_run_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(NotARunFile):
        load_run(path)
    with pytest.raises(NotARunFile):
        load_run_salvaging(path)


def test_a_cut_document_is_truncated_and_salvage_reads_it(tmp_path: Path) -> None:
    text = dumps_run(make_run())
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) * 2 // 3])
    with pytest.raises(TruncatedRunFile):
        load_run(path)
    assert load_run_salvaging(path).missing
    path.write_text(text[:40])  # before the variants: nothing to recover, still the same kind
    with pytest.raises(TruncatedRunFile):
        load_run_salvaging(path)


def test_a_newer_version_is_its_own_kind(tmp_path: Path) -> None:
    doc = run_to_dict(make_run())
    doc["version"] = VERSION + 1
    path = tmp_path / "new.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(NewerRunFile, match="upgrade pairbench"):
        load_run(path)
    with pytest.raises(NewerRunFile):
        load_results(str(path))


def test_readers_fall_back_by_type_to_other_formats_gzipped_too(tmp_path: Path) -> None:
    plain = tmp_path / "hf.json"
    plain.write_text(json.dumps(HYPERFINE))
    packed = tmp_path / "hf.json.gz"
    packed.write_bytes(gzip.compress(json.dumps(HYPERFINE).encode()))
    for path in (plain, packed):
        run = load_results(str(path))
        assert [v.name for v in run.variants] == ["a", "b"]
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    with pytest.raises(NotARunFile, match="is not a pairbench run file"):
        load_results(str(tmp_path / "other.json"))
