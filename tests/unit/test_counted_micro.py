"""`micro --measure instructions`: the metrics it yields, what it refuses, the knobs of a counted worker."""

from __future__ import annotations

import pytest

from pairbench.errors import UserError
from pairbench.runners.instructions import InstructionCounter, vary_notice
from pairbench.runners.kinds import get_kind
from pairbench.runners.options import Flags

WHERE = Flags({"measure": "--measure"})


def _names(language: str, measure: str | None, **extra: object) -> list[tuple[str, bool]]:
    kind = get_kind("micro")
    typed = kind.parse_options({"language": language, "stmt": "x = 1", "measure": measure, **extra}, WHERE)
    return [(m.name, m.exact) for m in kind.metrics(typed, ())]


def test_the_count_per_op_is_an_exact_metric_primary_when_named_first() -> None:
    plain = _names("python", None)
    assert plain[0] == ("time_per_op", False) and ("instructions_per_op", True) not in plain
    assert _names("python", "instructions") == [("instructions_per_op", True)]  # no timed worker, no alloc pass
    both = _names("ruby", "instructions,time")
    assert both[:3] == [("instructions_per_op", True), ("time_per_op", False), ("ops_per_s", False)]
    assert [n for n, _ in both[3:]] == [n for n, _ in _names("ruby", None)[2:]]  # the allocation counts follow
    assert _names("python", "time,instructions")[:3] == [("time_per_op", False), ("ops_per_s", False),
                                                         ("instructions_per_op", True)]


def test_counters_per_op_leave_the_processes_rusage_out() -> None:
    names = [n for n, _ in _names("python", "counters")]
    assert names[:2] == ["time_per_op", "ops_per_s"] and "instructions_per_op" in names
    assert "ipc" in names and not any("page-faults" in n or "task-clock" in n for n in names)


def test_a_bad_measure_and_a_whole_script_are_refused_naming_the_flag() -> None:
    with pytest.raises(UserError, match="--measure 'page-faults'"):
        _names("python", "page-faults")  # a process's rusage is not per operation
    kind = get_kind("micro")
    with pytest.raises(UserError, match="--measure: a whole Ruby script .* `pairbench cmd --measure instructions"):
        kind.parse_options({"language": "ruby", "file": "/x/app.rb", "script": True, "measure": "instructions"}, WHERE)


def test_a_counted_worker_preloads_the_fixed_random_library_before_the_users_own(tmp_path) -> None:
    counter = InstructionCounter("valgrind", "", False, preload="/c/fixed.so", out_dir=str(tmp_path))
    _, env = counter.wrap(["ruby", "h.rb"], {"LD_PRELOAD": "/u/mine.so"})
    assert env["LD_PRELOAD"] == "/c/fixed.so /u/mine.so"
    assert "getrandom() fixed (LD_PRELOAD)" in counter.describe()
    assert "(setarch -R is not available here)" in counter.describe()
    _, plain = InstructionCounter("valgrind", "", True, out_dir=str(tmp_path)).wrap(["x"], {})
    assert "LD_PRELOAD" not in plain


def test_a_count_that_moves_is_noticed_once_with_its_range_and_the_knobs(tmp_path) -> None:
    counter = InstructionCounter("valgrind", "", True, out_dir=str(tmp_path))
    seen: set[float] = set()
    assert vary_notice(counter, seen, 120.5, "b", "v") is None
    assert vary_notice(counter, seen, 120.5, "b", "v") is None
    notice = vary_notice(counter, seen, 121.25, "b", "v")
    assert notice is not None and notice.kind == "instructions-vary" and "(120.5000..121.2500)" in notice.message
    assert "setarch -R" in notice.hint and "PYTHONHASHSEED=0" in notice.hint
    assert vary_notice(counter, seen, 122.0, "b", "v") is None  # once per variant
    ints: set[float] = set()
    vary_notice(counter, ints, 40126721.0, "b", "v")
    assert "(40126721..40126722)" in vary_notice(counter, ints, 40126722.0, "b", "v").message  # type: ignore[union-attr]


def test_a_count_that_moves_by_a_few_instructions_in_millions_names_the_process_id_not_the_workload(tmp_path) -> None:
    """Ruby 3.1 executes a few more instructions when its process id has one more digit (30,581,709
    against 30,581,713 under valgrind here): a workload that is deterministic is not told to remove
    clocks and seeds it does not have."""
    counter = InstructionCounter("valgrind", "", True, out_dir=str(tmp_path))
    seen: set[float] = set()
    vary_notice(counter, seen, 30595294.0, "b", "v")
    notice = vary_notice(counter, seen, 30595296.0, "b", "v")
    assert notice is not None and notice.kind == "instructions-vary"
    assert "(30595294..30595296)" in notice.message and "by 2 instructions" in notice.message
    assert "process id" in notice.hint and "remove clocks" not in notice.hint
    wide: set[float] = set()
    vary_notice(counter, wide, 30595294.0, "b", "v")
    assert "remove clocks" in vary_notice(counter, wide, 30599294.0, "b", "v").hint  # type: ignore[union-attr]
