"""Runners measure one replicate of one benchmark under one variant; they never do statistics.

    kinds.py         the table of kinds: name, metrics, options parser, runner factory
    base.py          the Runner protocol every kind implements
    options.py       what every kind's options share (Flags, as_mapping) and the fake kind's
    option_fields.py the readers of one option field
    instructions.py  instruction counting (perf or valgrind), for command and micro
    shims.py         version managers' shims (pyenv, rbenv, asdf...), for command and micro
    fake.py          scripted timings without processes (`--debug-fake`, tests)
    samplers.py      the profilers of `--profile` (py-spy, perf, callgrind); profiling.py its blocks
    command/  http/  micro/   one folder per kind: its runner, helpers, options.py and kind.py
"""
