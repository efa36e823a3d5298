"""Typed run builders: a Run (variants and benchmarks, validated) from typed values, one module per kind.

The commands parse their flags into these values, the flows and the Python API build the same
values themselves; all of them call the same builders, so a run is described one way only:
`command_run` (commands.py), `micro_run` (micro.py), `pytest_run` (pytest.py), `http_run` (http.py), `demo_run` and
`demo_http_run` (demo.py), `suite_run` (suite.py), `new_run` (common.py).
"""
