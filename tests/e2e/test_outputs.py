"""Files the CLI writes (import -o, report FILE, --export-json) keep what sits at the path: FIFOs,
devices and symlinks stay what they are, a replaced file keeps its mode, a missing directory is one line."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import cli_env
from tests.unit.runs_by_hand import make_run

from pairbench.store.runfile import write_run

HYPERFINE = {"results": [{"command": "sleep 0.01", "times": [0.011, 0.012, 0.010, 0.011]},
                         {"command": "sleep 0.02", "times": [0.021, 0.022, 0.020, 0.021]}]}


class _FifoReader(threading.Thread):
    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.data = b""

    def run(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()


def _hyperfine_file(tmp_path: Path) -> Path:
    path = tmp_path / "hf.json"
    path.write_text(json.dumps(HYPERFINE))
    return path


def test_import_into_a_missing_directory_is_one_line(tmp_path: Path, run_cli) -> None:
    _hyperfine_file(tmp_path)
    proc = run_cli("import", "hf.json", "-o", "missing/dir/x.json", "--no-history")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "missing/dir/x.json" in proc.stderr and "does not exist" in proc.stderr


def test_import_keeps_an_old_file_mode_and_gives_a_new_one_the_umask_default(tmp_path: Path, run_cli) -> None:
    _hyperfine_file(tmp_path)
    old = tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o644)
    assert run_cli("import", "hf.json", "-o", "old.json", "--force", "--no-history").returncode == 0
    assert stat.S_IMODE(old.stat().st_mode) == 0o644
    assert json.loads(old.read_text())["schema"] == "pairbench.run"
    assert run_cli("import", "hf.json", "-o", "new.json", "--no-history").returncode == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o666 & ~mask


def test_import_through_a_symlink_replaces_its_target(tmp_path: Path, run_cli) -> None:
    _hyperfine_file(tmp_path)
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "r.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "store" / "r.json")
    proc = run_cli("import", "hf.json", "-o", "link.json", "--force", "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "store" / "r.json").read_text())["schema"] == "pairbench.run"


def test_import_and_report_write_through_a_fifo(tmp_path: Path, run_cli) -> None:
    _hyperfine_file(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = _FifoReader(fifo)
    reader.start()
    proc = run_cli("import", "hf.json", "-o", "pipe", "--force", "--no-history", timeout=60)
    reader.join(timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(reader.data)["schema"] == "pairbench.run"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    write_run(tmp_path / "run.json", make_run())
    reader = _FifoReader(fifo)
    reader.start()
    proc = run_cli("report", "run.json", "--html", "pipe", timeout=60)
    reader.join(timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert reader.data.startswith(b"<!DOCTYPE html>") or b"<html" in reader.data[:200]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_import_to_a_character_device_leaves_the_device(tmp_path: Path, run_cli) -> None:
    _hyperfine_file(tmp_path)
    node = tmp_path / "null"  # the null device's numbers, inside the temporary directory
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    proc = run_cli("import", "hf.json", "-o", "null", "--force", "--no-history")
    assert proc.returncode == 0, proc.stderr
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def _cmd(tmp_path: Path, export: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pairbench", "cmd", "true", "true # b", "-r", "3", "-w", "0",
         "--export-json", export, "--no-history", "--no-progress"],
        capture_output=True, text=True, env=cli_env(), cwd=tmp_path, timeout=120,
    )


@pytest.mark.slow
def test_cmd_exports_once_through_a_fifo_and_through_symlinks(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = _FifoReader(fifo)
    reader.start()
    proc = _cmd(tmp_path, "pipe")
    reader.join(timeout=30)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(reader.data)  # one whole document, not one per save
    assert doc["status"] == "complete" and len(doc["samples"]) > 0
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r.json").write_text("")
    (tmp_path / "runs" / "r.json").chmod(0o604)
    (tmp_path / "last.json").symlink_to(tmp_path / "runs" / "r.json")
    proc = _cmd(tmp_path, "last.json")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "last.json").is_symlink()
    assert stat.S_IMODE((tmp_path / "runs" / "r.json").stat().st_mode) == 0o604
    assert json.loads((tmp_path / "runs" / "r.json").read_text())["status"] == "complete"


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_cmd_export_to_a_character_device_leaves_the_device(tmp_path: Path) -> None:
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    proc = _cmd(tmp_path, "null")
    assert proc.returncode == 0, proc.stderr
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert sorted(os.listdir(tmp_path)) == ["null"]


def test_import_salvages_a_cut_run_file_as_report_does(tmp_path: Path, run_cli) -> None:
    from pairbench.store.runfile import dumps_run, load_run

    text = dumps_run(make_run())
    (tmp_path / "cut.json").write_text(text[: len(text) // 2])
    proc = run_cli("import", "cut.json", "-o", "whole.json")
    assert proc.returncode == 0, proc.stderr
    assert "warning: cut.json: the file is cut short;" in proc.stderr
    assert "recorded in the history" in proc.stdout
    salvaged = load_run(tmp_path / "whole.json")  # a plain, whole run file now
    assert salvaged.status == "interrupted" and 0 < len(salvaged.samples) < len(make_run().samples)


@pytest.mark.slow
def test_export_json_dash_sends_the_run_file_to_stdout_and_the_report_to_stderr(tmp_path: Path) -> None:
    proc = _cmd(tmp_path, "-")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # nothing but the run file on standard output
    assert doc["schema"] == "pairbench.run" and doc["status"] == "complete"
    assert doc["metadata"]["run_file"] == "standard output"
    assert "run file: standard output" in proc.stderr and "time" in proc.stderr
    assert not (tmp_path / "-").exists()


def test_import_to_stdout_prints_the_run_file_alone(tmp_path: Path, run_cli) -> None:
    """`import -o -` is for piping: stdout holds one JSON document, the summary line goes to stderr."""
    out = run_cli("import", str(_hyperfine_file(tmp_path)), "-o", "-", "--no-history")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert len(doc["variants"]) == 2
    assert "wrote standard output: 2 variants, 1 benchmark," in out.stderr
