"""Variants built from git refs: one worktree per (commit, build command), built once, then cached.

For a variant with `git = { repo, ref, build }`, pairbench resolves the ref to a commit, checks that
commit out in its own worktree under the cache folder (`git worktree add --detach`), runs the build
command there with its output sent to a log file, and records success in a stamp file. The next run
finds the stamp and skips the build, so an unchanged ref is not rebuilt; a moved ref or a changed
build command gets a new worktree. A failed build becomes a Notice carrying the log's tail and the
variant is dropped, so the other variants still run. A missing ref or a repository whose
uncommitted changes the build would silently leave out is a UserError before anything runs.

Cache folder: $PAIRBENCH_CACHE_DIR, else $XDG_CACHE_HOME/pairbench, else ~/.cache/pairbench.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Callable, Sequence

from pairbench.errors import UserError
from pairbench.model import Notice, Variant

__all__ = ["Build", "cache_dir", "resolve_commit", "ensure_build", "resolve_builds", "LOG_TAIL_LINES"]

LOG_TAIL_LINES = 20
"""How much of a failed build's log goes into the notice."""

BUILD_STOP_GRACE_S = 5.0
"""How long a stopped build's processes get between SIGTERM and SIGKILL."""

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Build:
    """A built (or failed) checkout of one commit."""

    repo: str
    ref: str
    commit: str
    build: str
    worktree: str
    log: str
    ok: bool
    cached: bool
    """True when an earlier build was reused."""
    seconds: float = 0.0
    """How long the build took (0 when cached)."""


def cache_dir() -> Path:
    env = os.environ.get("PAIRBENCH_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "pairbench"


def _git(repo: str, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        raise UserError("git is not installed (needed for variants with git = {...}); install git") from None


def resolve_commit(repo: str, ref: str) -> str:
    """The full commit id that `ref` names in `repo`, or a UserError saying what is wrong."""
    if not Path(repo).is_dir():
        raise UserError(f"git repository {repo} does not exist; fix git.repo in the suite")
    top = _git(repo, "rev-parse", "--git-dir")
    if top.returncode != 0:
        raise UserError(f"{repo} is not a git repository; fix git.repo in the suite")
    out = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if out.returncode != 0 or not out.stdout.strip():
        refs = _git(repo, "for-each-ref", "--format=%(refname:short)", "--count=15", "refs/heads", "refs/tags")
        known = ", ".join(refs.stdout.split()) or "(none)"
        raise UserError(f"git ref {ref!r} does not exist in {repo}; branches and tags: {known}")
    commit = out.stdout.strip()
    _refuse_dirty(repo, ref, commit)
    return commit


def _refuse_dirty(repo: str, ref: str, commit: str) -> None:
    """Building the checked-out commit of a dirty repository would silently leave the edits out."""
    head = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD")
    if head.returncode != 0 or head.stdout.strip() != commit:
        return
    status = _git(repo, "status", "--porcelain", "--untracked-files=no")
    if status.returncode == 0 and status.stdout.strip():
        files = ", ".join(line[3:] for line in status.stdout.splitlines()[:5])
        raise UserError(
            f"git repository {repo} has uncommitted changes ({files}) and ref {ref!r} is its checked-out "
            f"commit, so the build would not include them; commit or stash them, or name another ref"
        )


def _key(commit: str, build: str) -> str:
    return commit[:12] + "-" + hashlib.sha256(f"{commit}\0{build}".encode()).hexdigest()[:10]


def ensure_build(repo: str, ref: str, build: str, *, cache: Path | None = None,
                 progress: Progress | None = None, timeout: float | None = None) -> Build:
    """Check out `ref` in its own worktree and build it there once.

    Raises UserError for a missing ref or a dirty repository; a failing build returns ok=False
    (its log holds the output) so that the caller can go on with the other variants.
    """
    say = progress or (lambda _m: None)
    commit = resolve_commit(repo, ref)
    root = (cache or cache_dir()) / "builds"
    key = _key(commit, build)
    worktree = root / key / "src"
    log = root / key / "build.log"
    stamp = root / key / "done.json"
    if stamp.is_file() and worktree.is_dir():
        return Build(repo, ref, commit, build, str(worktree), str(log), ok=True, cached=True)
    try:
        (root / key).mkdir(parents=True, exist_ok=True)
        lock = open(root / key / "lock", "w")
    except OSError as exc:
        raise UserError(f"cannot use the build cache {root}: {exc.strerror}; set PAIRBENCH_CACHE_DIR or "
                        "--cache-dir to a writable folder") from None
    # Two pairbench runs building the same commit at once: the second waits, then finds the stamp.
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and worktree.is_dir():
            return Build(repo, ref, commit, build, str(worktree), str(log), ok=True, cached=True)
        return _build(repo, ref, commit, build, worktree, log, stamp, say, timeout)


def _build(repo: str, ref: str, commit: str, build: str, worktree: Path, log: Path, stamp: Path,
           say: Progress, timeout: float | None) -> Build:
    if worktree.exists():
        # A build that died half-way: start again from a clean checkout.
        _git(repo, "worktree", "remove", "--force", str(worktree))
        if worktree.exists():
            import shutil

            shutil.rmtree(worktree, ignore_errors=True)
        _git(repo, "worktree", "prune")
    add = _git(repo, "worktree", "add", "--detach", "--force", str(worktree), commit)
    if add.returncode != 0:
        raise UserError(f"cannot check out {ref!r} ({commit[:12]}) of {repo} in {worktree}: "
                        f"{add.stderr.strip().splitlines()[-1] if add.stderr.strip() else 'git worktree add failed'}")
    start = time.monotonic()
    ok = True
    with open(log, "w", encoding="utf-8") as fh:
        fh.write(f"# pairbench build of {ref} ({commit}) from {repo}\n# in {worktree}\n# $ {build or '(no build command)'}\n")
        fh.flush()
        if build.strip():
            say(f"building {ref} ({commit[:12]}): {build}  (log: {log})")
            code = _run_build(build, worktree, fh, timeout)
            ok = code == 0
            if code is None:
                fh.write(f"\n# build timed out after {timeout:g} s and was stopped\n")
            elif not ok:
                fh.write(f"\n# build failed with exit code {code}\n")
    seconds = time.monotonic() - start
    if ok:
        stamp.write_text(json.dumps({"repo": repo, "ref": ref, "commit": commit, "build": build,
                                     "seconds": round(seconds, 3), "time": time.time()}), encoding="utf-8")
    return Build(repo, ref, commit, build, str(worktree), str(log), ok=ok, cached=False, seconds=seconds)


def _run_build(build: str, worktree: Path, log: IO[str], timeout: float | None) -> int | None:
    """Run the build in its own process group; its exit code, or None when it timed out.

    A build spawns compilers, linkers and `make -j` jobs: on a timeout, Ctrl-C or any error the whole
    group is stopped (SIGTERM, then SIGKILL), so that no part of a build outlives pairbench.
    """
    proc = subprocess.Popen(build, shell=True, cwd=worktree, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _stop_group(proc)


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the build's process group, SIGKILL what is left after a grace period, reap the shell."""
    for sig, grace in ((signal.SIGTERM, BUILD_STOP_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break  # the group is gone: every process of the build has exited
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and _group_alive(proc.pid):
            proc.poll()
            time.sleep(0.02)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _tail(path: str, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _fill(text: str, worktree: str) -> str:
    return text.replace("{worktree}", worktree)


def resolve_builds(variants: Sequence[Variant], *, cache: Path | None = None,
                   progress: Progress | None = None) -> tuple[list[Variant], list[Notice]]:
    """Build every variant whose meta holds a git source; fill `{worktree}` and record the commit.

    Returns the variants that can run (failed builds dropped) and a Notice per failed build. Each
    (repo, ref, build) is built at most once, however many matrix points share it.
    """
    done: dict[tuple[str, str, str], Build] = {}
    out: list[Variant] = []
    notices: list[Notice] = []
    # Every ref is checked (exists, repository clean) before the first build starts, so a typo in
    # the last variant does not surface after an hour of building the first.
    for ref_repo, ref in sorted({(v.meta["git"]["repo"], v.meta["git"]["ref"]) for v in variants if v.meta.get("git")}):
        resolve_commit(ref_repo, ref)
    for v in variants:
        git = v.meta.get("git")
        if not git:
            out.append(v)
            continue
        ident = (git["repo"], git["ref"], git.get("build", ""))
        if ident not in done:
            done[ident] = ensure_build(*ident, cache=cache, progress=progress, timeout=git.get("timeout"))
            b = done[ident]
            if not b.ok:
                notices.append(Notice(
                    kind="build_failed",
                    message=f"the build of {b.ref} ({b.commit[:12]}) failed; variants built from it are left out. "
                            f"Last lines of {b.log}:\n{_tail(b.log)}",
                    hint=f"fix the build command or the ref; the full log is {b.log}",
                    variant=v.meta.get("base", v.name),
                ))
        b = done[ident]
        if not b.ok:
            continue
        wt = b.worktree
        out.append(replace(
            v,
            command=_fill(v.command, wt),
            args=tuple(_fill(a, wt) for a in v.args),
            env={k: _fill(x, wt) for k, x in v.env.items()},
            cwd=_fill(v.cwd, wt) if v.cwd else v.cwd,
            params={**v.params, "worktree": wt},  # for {worktree} in benchmark commands
            meta={**v.meta, "git_commit": b.commit, "build_log": b.log, "worktree": wt, "build_cached": b.cached},
        ))
    return out, notices
