"""The engine's C step (runners/http/_fastpath.c), built when a C compiler and Python's headers
are there; without them the build goes on and the engine's Python step runs instead."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pairbench.runners.http._fastpath",
            ["src/pairbench/runners/http/_fastpath.c"],
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        )
    ]
)
