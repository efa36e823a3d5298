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
    "pytest",
    "asv",
    "report",
    "compare",
    "history",
    "calibrate",
    "bisect",
    "ci",
    "import_",
    "init",
    "demo",
    "completions",
)

# Name and one-line help of a subcommand module's command, so that `pairbench --help` and the
# other subcommands list it without importing the module (a tenth of the start-up). Must say what
# its `register` says (tests/unit/test_cli_startup.py checks); a module left out is imported.
COMMAND_SUMMARIES: dict[str, tuple[str, str]] = {
    "cmd": ("cmd", "compare whole commands (the first is the baseline)"),
    "run": ("run", "run a suite file: variants, sweeps, builds from git refs, benchmarks (default ./pairbench.toml)"),
    "http": ("http", "compare web servers: a server per variant, loaded in interleaved rounds"),
    "micro": ("micro", "micro-benchmarks inside each variant's interpreter (Python, PyPy, Ruby)"),
    "pytest": ("pytest", "run a pytest-benchmark suite unchanged under each variant (interpreters, virtualenvs, env)"),
    "asv": ("asv", "run an asv benchmark suite unchanged under each variant (interpreters, virtualenvs, env)"),
    "report": ("report", "render a saved run as Markdown (for trackers) or HTML (with plots)"),
    "compare": ("compare", "compare saved runs, or the commands of one hyperfine file (unpaired; not interleaved)"),
    "history": ("history", "list recorded runs; trend of a benchmark with change points; CSV export"),
    "calibrate": ("calibrate", "measure a command against itself: the smallest change this machine can tell from noise"),
    "bisect": ("bisect", "find the commit that made a benchmark slower (each step a paired verdict)"),
    "ci": ("ci", "compare a pull request's head with its merge-base, built and measured here; comment and gate"),
    "import_": ("import", "turn other tools' results (pyperf, hyperfine, pytest-benchmark, Google Benchmark, "
                         "criterion, go test -bench, asv, Bencher) into run files and record them in the history"),
    "init": ("init", "write a commented example suite file (./pairbench.toml)"),
    "demo": ("demo", "run a bundled comparison (a real difference and a real non-difference)"),
    "completions": ("completions", "print a shell completion script (bash, zsh, fish)"),
}
