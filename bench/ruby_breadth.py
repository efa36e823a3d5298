"""Run every file of a Ruby benchmark directory through `pairbench micro` at the smallest settings
and count the outcomes: how much of ruby/ruby's benchmark/ runs unchanged.

    PYTHONPATH=src python3 bench/ruby_breadth.py DIR [--ruby ruby] [--ruby 'ruby --yjit'] [--timeout 120]
        [--only yml|rb] [--match GLOB] [--jsonl results.jsonl]

DIR is a checkout's benchmark/ directory (ruby/ruby's, or the one in Debian's ruby source package:
`apt-get source ruby3.3` with a deb-src line for sid, or just its ruby3.3_3.3.8.orig.tar.xz, then
ruby-3.3.8/benchmark). Each `*.yml` and `*.rb` file at its top level
is one `pairbench micro FILE --ruby ... --runs 1` call (one process per variant and benchmark,
2 samples of 1 ms, no allocation pass; a .rb script runs once per process). Outcomes per file:

  ran        every benchmark of the file measured on every variant
  partial    some benchmark failed on some variant (its error is in the notices), the rest ran
  refused    pairbench declined the file in one line (another benchmark_driver runner: type:, ractor:)
  failed     nothing could run (exit 1 with one error line)
  timeout    the call did not finish within --timeout seconds
  crashed    a traceback (a bug in pairbench)

The counts, and per outcome the first lines of the reasons, are printed; --jsonl keeps one line per
file. The figures in docs/micro.md (Ruby part) come from this script.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALLEST = ["--runs", "1", "--samples", "2", "--warmup-samples", "0", "--target-time", "0.001", "--no-alloc",
            "--no-history", "--no-progress"]


def run_file(path: Path, rubies: list[str], timeout: float) -> dict[str, object]:
    """One file through pairbench micro: its outcome, benchmark count, reasons and seconds taken."""
    with tempfile.TemporaryDirectory(prefix="pb-breadth-") as tmp:
        out = Path(tmp) / "run.json"
        argv = [sys.executable, "-m", "pairbench", "micro", str(path), *SMALLEST, "--export-json", str(out)]
        for ruby in rubies:
            argv += ["--ruby", ruby]
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1")
        started = time.monotonic()
        # the benchmark's own cwd is a scratch directory: files it makes there are removed with it;
        # a session of its own, so a timeout stops pairbench and its Ruby workers together
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp, env=env,
                                 start_new_session=True)
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            return {"file": path.name, "outcome": "timeout", "benchmarks": 0, "reasons": [f"over {timeout:g} s"],
                    "seconds": timeout}
        proc = subprocess.CompletedProcess(argv, child.returncode, stdout, stderr)
        seconds = time.monotonic() - started
        if "Traceback" in proc.stderr:
            reasons = [proc.stderr.strip().splitlines()[-1]]
            return {"file": path.name, "outcome": "crashed", "benchmarks": 0, "reasons": reasons, "seconds": seconds}
        if proc.returncode != 0 or not out.is_file():
            line = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
            outcome = "refused" if "is not supported" in line else "failed"
            return {"file": path.name, "outcome": outcome, "benchmarks": 0, "reasons": [line[:300]],
                    "seconds": seconds}
        doc = json.loads(out.read_text())
        failed = [n["message"] for n in doc.get("notices", []) if n.get("kind") == "benchmark-failed"]
        return {"file": path.name, "outcome": "partial" if failed else "ran",
                "benchmarks": len(doc.get("benchmarks", [])), "reasons": [m[:300] for m in failed],
                "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--ruby", action="append", default=[], help="a variant (default: ruby, ruby --yjit)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per file (default 120)")
    parser.add_argument("--only", choices=("yml", "rb"), help="only .yml or only .rb files")
    parser.add_argument("--jsonl", type=Path, help="write one JSON line per file here")
    parser.add_argument("--match", default="*", metavar="GLOB",
                        help="only files whose name matches this glob, e.g. '[a-h]*' (to run a directory in chunks)")
    args = parser.parse_args()
    if not args.directory.is_dir():
        parser.error(f"{args.directory}: not a directory (give a benchmark/ directory)")
    rubies = args.ruby or ["ruby", "ruby --yjit"]
    suffixes = {"yml": (".yml",), "rb": (".rb",)}.get(args.only or "", (".yml", ".rb"))
    files = sorted(p for p in args.directory.iterdir()
                   if p.is_file() and p.suffix in suffixes and fnmatch.fnmatchcase(p.name, args.match))
    counts: dict[str, collections.Counter[str]] = {s: collections.Counter() for s in suffixes}
    reasons: dict[str, list[str]] = collections.defaultdict(list)
    sink = args.jsonl.open("w") if args.jsonl else None
    started = time.monotonic()
    for i, path in enumerate(files, 1):
        result = run_file(path, rubies, args.timeout)
        counts[path.suffix][str(result["outcome"])] += 1
        reasons[str(result["outcome"])].extend(f"{path.name}: {r}" for r in result["reasons"])  # type: ignore[union-attr]
        print(f"[{i}/{len(files)}] {path.name}: {result['outcome']} ({result['seconds']:.1f} s)", file=sys.stderr)
        if sink:
            sink.write(json.dumps(result) + "\n")
            sink.flush()
    if sink:
        sink.close()
    outcomes = ("ran", "partial", "refused", "failed", "timeout", "crashed")
    print(f"{len(files)} files of {args.directory} with {', '.join(rubies)} "
          f"in {time.monotonic() - started:.0f} s")
    print(f"{'':6}" + "".join(f"{o:>9}" for o in outcomes))
    for suffix, counter in counts.items():
        print(f"{suffix:6}" + "".join(f"{counter[o]:>9}" for o in outcomes))
    for outcome in outcomes[1:]:
        for line in reasons.get(outcome, [])[:40]:
            print(f"  {outcome}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
