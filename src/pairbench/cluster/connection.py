"""Connecting to a Dask cluster: a scheduler's address, or `local:N` processes started here.

Why apart from the client's flow: what can go wrong before anything runs (Dask missing, nothing
listening, no worker, no `bench` resource) is said here in one line each, and Dask's own log
lines are kept off the user's terminal while connected.
"""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit

from pairbench.cluster.local import LocalProcesses
from pairbench.errors import UserError

__all__ = ["connect", "cluster_workers", "first_line", "CONNECT_TIMEOUT_S", "WORKERS_TIMEOUT_S", "RESOURCE"]

CONNECT_TIMEOUT_S = 10.0
WORKERS_TIMEOUT_S = 60.0
RESOURCE = "bench"
"""The worker resource each unit asks one of: a machine runs one unit at a time."""


class _Connection:
    """Client (and the local processes of `local:N`) closed on exit, quietly.

    Dask's own log lines (a cancelled task, a closed connection) stay off the user's terminal: what
    matters reaches the user as pairbench's lines and its run file.
    """

    def __init__(self, address: str) -> None:
        self.address = address
        self.local: LocalProcesses | None = None
        self.client: Any = None
        self._quiet = _QuietDask()

    def __enter__(self) -> Any:
        try:
            from distributed import Client
        except ImportError:
            raise UserError("--cluster needs Dask distributed: pip install 'pairbench[dask]'") from None
        self._quiet.__enter__()
        try:
            return self._open(Client)
        except BaseException:
            self.__exit__()
            raise

    def _open(self, client_class: Any) -> Any:
        if self.address.startswith("local:"):
            self.local = LocalProcesses(_local_size(self.address), RESOURCE)
            self.client = client_class(self.local.start(), timeout=CONNECT_TIMEOUT_S)
            return self.client
        refused = _refused(self.address)
        if refused:
            raise UserError(f"cannot reach the Dask scheduler at {self.address}: {refused}; nothing was run")
        try:
            self.client = client_class(self.address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UserError(f"cannot reach the Dask scheduler at {self.address}: {first_line(exc)}; nothing was run") from None
        return self.client

    def __exit__(self, *exc: object) -> None:
        try:
            if self.client is not None:
                try:
                    self.client.close()
                except Exception:  # noqa: BLE001 - closing must not hide the run's own outcome
                    pass
        finally:  # a signal while closing still stops the local processes
            try:
                if self.local is not None:
                    self.local.stop()
            finally:
                self._quiet.__exit__()


class _QuietDask:
    """Dask's loggers in this process silenced inside the block, as they were after it.

    Each logger is disabled (Dask sets levels on its sub-loggers, so a parent's level would not
    do), and the handler Dask puts on `distributed` drops what a logger made later sends it.
    """

    PREFIXES = ("distributed", "tornado", "asyncio")

    def __enter__(self) -> None:
        import logging

        names = [n for n in list(logging.root.manager.loggerDict) if n.split(".")[0] in self.PREFIXES]
        self._loggers = [logging.getLogger(n) for n in {*names, *self.PREFIXES}]
        self._saved = [(logger, logger.disabled) for logger in self._loggers]
        for logger in self._loggers:
            logger.disabled = True
        self._handlers = list(logging.getLogger("distributed").handlers)
        for handler in self._handlers:
            handler.addFilter(_drop)

    def __exit__(self, *exc: object) -> None:
        for logger, disabled in getattr(self, "_saved", []):
            logger.disabled = disabled
        for handler in getattr(self, "_handlers", []):
            handler.removeFilter(_drop)


def _drop(record: object) -> bool:
    return False


def connect(address: str) -> _Connection:
    """A context: the connected Client inside, everything closed (and Dask quiet) after."""
    return _Connection(address)


def _local_size(address: str) -> int:
    try:
        n = int(address.partition(":")[2])
    except ValueError:
        n = 0
    if n < 1:
        raise UserError(f"--cluster {address!r}: write local:N with N workers, such as local:2")
    return n


def _refused(address: str) -> str | None:
    """"connection refused" when nothing listens at a tcp:// scheduler address, else None.

    Why: Dask's Client retries a refused connect until its timeout (10 s), and a refusal is final:
    the user hears at once that no scheduler runs there. Any other outcome is Dask's to judge.
    """
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "tcp" or not parts.hostname or port is None:
        return None
    try:
        with socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S):
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except OSError:
        return None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def cluster_workers(client: Any, address: str) -> dict[str, str]:
    """Worker address -> name, after waiting for one (all of `local:N`); refuse a cluster with no `bench` resource."""
    try:
        client.wait_for_workers(_local_size(address) if address.startswith("local:") else 1, timeout=WORKERS_TIMEOUT_S)
    except (TimeoutError, OSError):
        raise UserError(f"the Dask scheduler at {address} has no worker after {WORKERS_TIMEOUT_S:g} s; "
                        f"start one with `dask worker {address} --nthreads 1 --resources {RESOURCE}=1`") from None
    info = client.scheduler_info()["workers"]
    offered = {a: w for a, w in info.items() if w.get("resources", {}).get(RESOURCE)}
    if not offered:
        raise UserError(f"no worker of {address} offers the resource {RESOURCE}=1, which keeps two benchmarks off one "
                        f"machine's cores; start workers with `--nthreads 1 --resources {RESOURCE}=1`")
    return {a: str(w.get("name", a)) for a, w in offered.items()}
