"""A command's output is scanned in chunks: metrics found anywhere, memory bounded by the chunk."""

import re
import tracemalloc

from pairbench.runners.command.output import CHUNK_BYTES, TAIL_BYTES, scan_output


def test_metric_lines_and_regex_matches_across_chunk_boundaries(tmp_path):
    path = tmp_path / "out"
    filler = b"." * 99 + b"\n"
    with open(path, "wb") as fh:
        fh.write(filler * (CHUNK_BYTES // 100) + b"." * 49 + b"\n")  # 26 bytes short of the first chunk's end
        fh.write(b'{"pairbench": {"a": 1.5, "flag": true, "bad": "x"}}\n')  # so this line straddles it
        assert fh.tell() > CHUNK_BYTES > fh.tell() - 52
        fh.write(filler * (CHUNK_BYTES // 50))
        fh.write(b"execution time: 12.25 s\nexecution time: 99 s\n")
        fh.write(b'{"pairbench": {"a": 2.5, "b": 3}}\nthe end\n')
    scan = scan_output(str(path), [("exec", re.compile(r"execution time: ([\d.]+)", re.M))], want_json=True)
    assert scan.json_values == {"a": 2.5, "b": 3.0}   # a later line wins; booleans and text ignored
    assert scan.matches == {"exec": "12.25"}           # the first match, as re.search
    assert scan.tail.endswith("the end\n") and len(scan.tail) <= TAIL_BYTES
    assert scan.size == path.stat().st_size


def test_scanning_a_large_output_keeps_memory_within_a_few_chunks(tmp_path):
    path = tmp_path / "out"
    with open(path, "wb") as fh:
        for _ in range(40):
            fh.write(b"\0" * CHUNK_BYTES)  # no line ends at all, like head -c N /dev/zero
    tracemalloc.start()
    try:
        scan = scan_output(str(path), [("x", re.compile(r"x=(\d+)"))], want_json=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scan.matches == {} and scan.size == 40 * CHUNK_BYTES
    assert peak < 8 * CHUNK_BYTES, peak  # the whole file would be 40 chunks (80 decoded)


def test_discarded_or_missing_output_is_empty(tmp_path):
    assert scan_output(None, want_json=True).json_values == {}
    assert scan_output(str(tmp_path / "missing")).tail == ""
