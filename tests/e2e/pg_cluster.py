"""A throw-away PostgreSQL cluster for history tests: initdb as `postgres`, loopback only, stopped by pg_ctl.

Used by tests/e2e/test_history_backends.py through the `postgres_url` fixture defined there.
Skips (with the reason) when Debian's postgresql binaries are missing; `.ci/run` installs them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runner = shutil.which("runuser")
    return [runner, "-u", "postgres", "--", *cmd] if runner else ["su", "postgres", "-c", " ".join(cmd)]


def unavailable() -> str | None:
    """Why a cluster cannot be started here, or None."""
    if _bindir() is None:
        return "PostgreSQL binaries not installed (/usr/lib/postgresql/*/bin)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "no postgres system user to run initdb as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg not installed"
    return None


@contextmanager
def temporary_cluster() -> Iterator[str]:
    """Yield the URL of a fresh database on 127.0.0.1; the cluster is stopped and removed after."""
    bindir = _bindir()
    assert bindir is not None
    # Not under the suite's own temp dir (mode 700, root's): the postgres user must reach it. The
    # cluster's directory is removed after.
    root = Path(tempfile.mkdtemp(prefix="pairbench-pg-", dir="/tmp" if os.geteuid() == 0 else None))
    data = root / "data"
    port = _free_port()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    os.chmod(root, 0o755)
    run = lambda cmd: subprocess.run(_as_postgres(cmd), check=True, capture_output=True, text=True, timeout=120)  # noqa: E731
    started = False
    try:
        run([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        opts = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={root} -c fsync=off"
        run([str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "-t", "60", "start"])
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "-t", "60", "stop"]),
                           capture_output=True, timeout=120)
        shutil.rmtree(root, ignore_errors=True)
