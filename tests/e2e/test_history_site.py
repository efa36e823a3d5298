"""`pairbench history publish DIR`: the static history site, rendered in headless Chromium."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pairbench.model import Benchmark, Metric, Run, Sample, Variant
from pairbench.store.history import open_history
from pairbench.store.runfile import write_run

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed (.ci/run installs it)"),
]
EVIL = "<script>alert(1)</script>"
COMMITS = [f"{i:02x}" * 20 for i in range(12)]
STEP_AT = 6
"""Commits from this one on take twice the time under variant `main`."""


def _run(commit_index: int, machine: str, seed: int) -> Run:
    rng = random.Random(seed)
    variants = [Variant("main", "app", baseline=True), Variant(EVIL, "app --fast")]
    time_metric = Metric("time", "s", "lower")
    samples = []
    for block in range(8):
        for v, level in (("main", 0.010 * (2 if commit_index >= STEP_AT else 1)), (EVIL, 0.008)):
            samples.append(Sample("parse", v, "time", level * rng.uniform(0.98, 1.02), block, time=float(block)))
    return Run(metadata={"hostname": machine, "git_commit": COMMITS[commit_index], "started": "2026-12-01T10:00:00Z"},
               variants=variants, benchmarks=[Benchmark("parse", "command", (time_metric,))], samples=samples,
               status="complete")


def make_history(tmp_path: Path) -> Path:
    """36 runs across 12 commits: two runs per commit on ci-1, one on ci-2, each with its run file."""
    store = tmp_path / "history.sqlite"
    with open_history(str(store)) as history:
        n = 0
        for c in range(len(COMMITS)):
            for machine in ("ci-1", "ci-1", "ci-2"):
                run = _run(c, machine, n)
                path = tmp_path / "runs" / f"{n}.json"
                path.parent.mkdir(exist_ok=True)
                run.metadata["run_file"] = str(path)
                write_run(path, run)
                history.record(run)
                n += 1
    return store


def _browse(page: Path, profile: Path, *extra: str) -> tuple[str, str]:
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra, page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def _console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line
            or "Content Security Policy" in line or "net::ERR" in line]


def _plot(dom: str, view: str, heading: str) -> str:
    """The SVG after `heading` inside the view with id `view`."""
    start = dom.index(f'id="{view}"')
    at = dom.index(f"<h2>{heading}</h2>", start)
    return dom[at:dom.index("</svg>", at)]


def test_site_renders_trends_with_change_points_in_chromium(tmp_path: Path, run_cli) -> None:
    store = make_history(tmp_path)
    site = tmp_path / "site"
    proc = run_cli("history", "publish", str(site), "--history", str(store))
    assert proc.returncode == 0, proc.stderr
    assert "36 run reports" in proc.stdout
    index_dom, log = _browse(site / "index.html", tmp_path / "profile", "--dump-dom")
    assert _console_errors(log) == []
    assert "<script>alert" not in index_dom and "&lt;script&gt;alert(1)&lt;/script&gt;" in index_dom
    # The index names the latest change of main on ci-1: the 2x step at commit 6, a regression.
    row = re.search(r"<td>ci-1</td><td>main</td><td>24</td>.*?</tr>", index_dom)
    change = re.search(r"\+(\d+\.\d)% slower</span> at (\w+)", row.group(0)) if row else None
    assert change and 90 < float(change.group(1)) < 110 and change.group(2) == COMMITS[STEP_AT][:12], index_dom
    page = site / re.search(r'href="(series/\d+\.html)"', index_dom).group(1)  # type: ignore[union-attr]
    dom, log = _browse(page, tmp_path / "profile", "--dump-dom")
    assert _console_errors(log) == []
    plot = _plot(dom, "all", "main on ci-1")
    assert plot.count('class="pt"') == 24  # one point per run
    assert plot.count("<line") > 24  # each point's CI
    cps = re.findall(r'class="cp" data-index="(\d+)" data-change="([-\d.]+)"', plot)
    assert [(int(i), round(float(c), 1)) for i, c in cps] == [(2 * STEP_AT, 1.0)]
    assert _plot(dom, "all", "main on ci-2").count('class="pt"') == 12
    # The machine filter: a view with ci-2's plots only.
    ci2 = dom[dom.index('id="m1"'):dom.index('id="all"')]
    assert "on ci-2</h2>" in ci2 and "on ci-1</h2>" not in ci2.split('id="v0"')[0]
    # Every point links to its run's report, which loads too.
    link = re.search(r'<a href="\.\./(runs/\d+\.html)">', plot).group(1)  # type: ignore[union-attr]
    _, log = _browse(site / link, tmp_path / "profile", "--dump-dom")
    assert _console_errors(log) == []
    shot = tmp_path / "trend.png"
    _browse(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1000,1500", "--hide-scrollbars")
    assert shot.stat().st_size > 10_000
    shutil.copy(shot, Path("/tmp") / "pairbench-history-site.png")
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)


def test_publish_bad_input_is_one_line(tmp_path: Path, run_cli) -> None:
    missing = run_cli("history", "publish", str(tmp_path / "site"), "--history", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 1 and "no history database" in missing.stderr
    store = make_history(tmp_path)
    (tmp_path / "file").write_text("")
    not_dir = run_cli("history", "publish", str(tmp_path / "file"), "--history", str(store))
    assert not_dir.returncode == 1 and "is not a folder" in not_dir.stderr
    for proc in (missing, not_dir):
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
