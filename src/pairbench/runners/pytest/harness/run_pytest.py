"""Start pytest in a variant's interpreter with pairbench's `benchmark` plugin (runners/pytest).

Run as a script (never `python -m pytest`), so that sys.path[0] is this folder and not the current
directory: a project's checked-out source must not shadow the version installed in the variant's
environment. The plugin beside it is loaded with `-p pairbench_pytest_plugin`; this file imports
nothing of pairbench.
"""

import sys

import pytest

if __name__ == "__main__":
    sys.exit(pytest.console_main())
