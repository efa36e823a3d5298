"""One module per subcommand. Each exposes `register(subparsers)`; top-level imports stay light
(no numpy, scipy or plotting) so that `pairbench --help` starts fast."""

from __future__ import annotations

# Subcommand modules in the order `--help` lists them. A missing module is skipped so that
# commands can land one at a time.
COMMAND_MODULES: tuple[str, ...] = (
    "cmd",
    "run",
    "http",
    "micro",
    "report",
    "compare",
    "history",
    "calibrate",
    "bisect",
    "import_",
    "init",
    "demo",
    "completions",
)
