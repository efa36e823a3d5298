"""Which way peak RSS is measured when the exec helper cannot be built (no process is started)."""

from pairbench.model import Variant
from pairbench.runners.command import resolve_command
from pairbench.runners.command.rss import LAUNCHER, rss_method


def test_without_a_compiler_the_launcher_is_used_and_the_reason_given():
    method = rss_method()
    assert method.name == LAUNCHER and method.helper is None
    assert "no C compiler (/nonexistent/cc-for-unit-tests)" in method.reason


def test_the_run_file_says_which_method_measured_rss():
    assert resolve_command(Variant("x", command="true"))["rss_method"] == LAUNCHER
