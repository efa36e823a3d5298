"""The HTML report in a real browser (Debian's chromium, headless): it renders, draws the plots,
runs its script without errors, and shows a benchmark called <script>alert(1)</script> as text."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.unit.runs_by_hand import make_run

from pairbench.store.runfile import write_run

CHROMIUM = "/usr/bin/chromium"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed (.ci/run installs it)"),
]
EVIL = "<script>alert(1)</script>"


def _browse(page: Path, profile: Path) -> tuple[str, str]:
    """The DOM after scripts ran, and the browser's log."""
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def _console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line
            or "Content Security Policy" in line]


def test_console_errors_are_detected(tmp_path: Path) -> None:
    """The check below is meaningful: a page with a broken script is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>undefinedFn();</script></body></html>")
    _, log = _browse(bad, tmp_path / "profile")
    assert any("undefinedFn" in e for e in _console_errors(log))


def test_report_renders_plots_without_errors_and_escapes_names(tmp_path: Path, run_cli) -> None:
    run_file = tmp_path / "run.json"
    write_run(run_file, make_run(bench_name=EVIL))
    out = tmp_path / "report.html"
    proc = run_cli("report", str(run_file), "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    dom, log = _browse(out, tmp_path / "profile")
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
    assert _console_errors(log) == []
    assert 'data-ready="1"' in dom  # the page's own script ran to the end
    n = len(re.findall(r'<svg class="plot', dom))
    assert n == 10 and f"{n} plots" in dom
    assert "<circle" in dom and "<polygon" in dom and "<polyline" in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert len(re.findall(r"<script", dom)) == 1  # the name never became an element
