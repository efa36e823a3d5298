# mypy: ignore-errors
# (part of the standalone Python worker: standard library only, no annotations, Python 3.8+)
"""What every part of the Python micro worker shares: its one error type and how it names a fault."""

import traceback

HARNESS_FILES = tuple("/" + name for name in (
    "py_harness.py", "py_base.py", "py_alloc.py", "py_async.py", "py_pyperf.py", "pyperf/__init__.py"))
"""The worker's own files: a fault's location is the innermost frame outside them."""


class BenchError(Exception):
    def __init__(self, stage, message):
        Exception.__init__(self, message)
        self.stage = stage
        self.message = message


def _describe(exc):
    """`TypeName: message (file:line)` naming the innermost frame in user code."""
    where = ""
    tb = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    user = [f for f in tb if not f.filename.replace("\\", "/").endswith(HARNESS_FILES)]
    if isinstance(exc, SyntaxError):
        return "SyntaxError: %s (%s:%s)" % (exc.msg, exc.filename, exc.lineno)
    elif user:
        where = " (%s:%s)" % (user[-1].filename, user[-1].lineno)
    return "%s: %s%s" % (type(exc).__name__, exc, where)


def _empty0():
    pass


def _empty1(arg):
    pass


def _indent(code, width):
    lines = code.splitlines() or ["pass"]
    return "\n".join(" " * width + line for line in lines)
