"""The HTML report in a real browser (Debian's chromium, headless): it renders, draws the plots
without console errors, refuses any script under its policy, labels sweep variants apart, and shows
a benchmark called <script>alert(1)</script> as text."""

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
    n = len(re.findall(r'<svg class="plot', dom))
    assert n == 10 and f"{n} plots" in dom
    assert "<circle" in dom and "<polygon" in dom and "<polyline" in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert len(re.findall(r"<script", dom)) == 0  # the name never became an element


def test_the_policy_refuses_a_script_planted_in_the_page(tmp_path: Path, run_cli) -> None:
    """The check of the policy is meaningful: a script added to a report is blocked and logged."""
    run_file = tmp_path / "run.json"
    write_run(run_file, make_run())
    out = tmp_path / "report.html"
    assert run_cli("report", str(run_file), "--html", str(out)).returncode == 0
    out.write_text(out.read_text().replace("</body>", "<script>document.title='ran'</script></body>"))
    dom, log = _browse(out, tmp_path / "profile")
    assert "<title>ran</title>" not in dom
    assert any("Content Security Policy" in e for e in _console_errors(log))


SWEEP_SUITE = """\
[defaults]
runs = 8
warmup = 0

[variants.app]
command = "true"

[[sweeps]]
name = "PAIRBENCH_DEMO_WORK"
values = [2, 1, 4, 16]
as = "env"

[benchmarks.loop]
command = "{variant}"

[benchmarks.other]
command = "{variant}"
"""


def test_sweep_variants_are_labelled_apart_in_the_browser(tmp_path: Path, run_cli) -> None:
    (tmp_path / "s.toml").write_text(SWEEP_SUITE)
    proc = run_cli("run", "s.toml", "--no-history", "--no-progress", "--debug-fake=1,0.5,2,8",
                   "--export-html", "sweep.html")
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "sweep.html"
    dom, log = _browse(page, tmp_path / "profile")
    assert _console_errors(log) == []
    assert "<script" not in dom
    assert "Plots name each variant by the part that differs" in dom
    distribution = dom[dom.index('plot-distribution'):]
    distribution = distribution[: distribution.index("</svg>")]
    labels = [re.sub(r"<title>.*?</title>", "", t) for t in
              re.findall(r'<text[^>]*font-size="11"[^>]*>(.*?)</text>', distribution)]
    assert labels[:4] == ["2", "1", "4", "16"], labels  # distinct, and the values themselves
    assert "PAIRBENCH_DEM…" not in dom
    shot = tmp_path / "sweep.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    f"--user-data-dir={tmp_path / 'profile2'}", "--window-size=1100,1800",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_estimated_label_widths_cover_the_widths_the_browser_draws(tmp_path: Path) -> None:
    """labels.text_width lays the plots out without a browser: it must not be narrower than what
    Chromium draws in the report's own font (else labels overlap), nor wildly wider."""
    from pairbench.report.html import render_html
    from pairbench.report.labels import text_width

    style = re.search(r"<style>.*?</style>", render_html(make_run()), re.S)
    assert style is not None
    labels = ["2", "16", "app/PAIRBENCH_DEMO_WORK=4", "WWWWMMMM", "iiiilll", "startup · time · patched",
              "median 49.87 ms (n=8)", "RUBY_MAX_PACKED_HASH=12", "feature/very-long-branch-name"]
    texts = "".join(f'<text x="0" y="{20 * (i + 1)}" font-size="11">{t}</text>' for i, t in enumerate(labels))
    page = tmp_path / "measure.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{style.group(0)}</head><body>"
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="800" height="400">{texts}</svg>'
        "<pre id='w'></pre><script>document.getElementById('w').textContent = Array.from("
        "document.querySelectorAll('text')).map(t => t.getComputedTextLength()).join(' ');</script></body></html>",
        encoding="utf-8")
    dom, _ = _browse(page, tmp_path / "profile")
    measured = [float(x) for x in re.search(r"<pre id=\"w\">([^<]*)</pre>", dom).group(1).split()]  # type: ignore[union-attr]
    assert len(measured) == len(labels)
    for label, drawn in zip(labels, measured):
        estimate = text_width(label, 11)
        assert drawn <= estimate + 0.5, (label, drawn, estimate)
        assert estimate <= 1.6 * drawn + 2, (label, drawn, estimate)
