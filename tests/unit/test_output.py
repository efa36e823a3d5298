"""store.output: every user-named file is written by one rule, whatever sits at the path."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from pairbench.errors import UserError
from pairbench.store.output import open_output, resolve_target, write_output


class _FifoReader(threading.Thread):
    """Reads a FIFO to its end in a thread, as `cat fifo` would."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.data = b""

    def run(self) -> None:
        with open(self.path, "rb") as fh:
            self.data = fh.read()


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def test_a_regular_file_is_replaced_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    path.chmod(0o640)
    inode = path.stat().st_ino
    write_output(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino != inode  # replaced by a rename, not rewritten in place
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_new_file_gets_the_umask_default(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_output(tmp_path / "new.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_a_symlink_chain_is_followed_and_its_target_replaced(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "data.json"
    target.write_text("old")
    (tmp_path / "link1").symlink_to(target)
    (tmp_path / "link2").symlink_to(tmp_path / "link1")
    write_output(tmp_path / "link2", "new")
    assert (tmp_path / "link2").is_symlink() and (tmp_path / "link1").is_symlink()
    assert target.read_text() == "new"


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "made.json")
    write_output(tmp_path / "link", "x")
    assert (tmp_path / "link").is_symlink() and (tmp_path / "made.json").read_text() == "x"
    assert stat.S_IMODE((tmp_path / "made.json").stat().st_mode) == 0o666 & ~_umask()


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = _FifoReader(fifo)
    reader.start()
    write_output(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert reader.data == b"through the pipe\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not resolve_target(fifo).replace


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_a_character_device_is_written_through_and_stays_a_device(tmp_path: Path) -> None:
    node = tmp_path / "null"  # the null device's numbers, made inside the temporary directory
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    write_output(node, "discarded")
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert os.listdir(tmp_path) == ["null"]


def test_dash_is_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_output("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert resolve_target("-").is_stdout
    assert not (tmp_path / "-").exists() and not Path("-").exists()


def test_a_missing_directory_is_one_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"cannot write .*missing/dir/x.json: directory .* does not exist"):
        write_output(tmp_path / "missing" / "dir" / "x.json", "x")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="it is a directory"):
        write_output(tmp_path, "x")


def test_an_error_while_writing_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with open_output(path) as fh:
            fh.write("half")
            raise RuntimeError("the writer failed")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
