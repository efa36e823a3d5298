"""What `pairbench cmd` runs and measures, on real processes: assignments, shims, output, RSS."""

import json
import sys

import pytest

PY = sys.executable
PRINT_X = "import os,json; print(json.dumps({'pairbench': {'x': int(os.environ['PB_X'])}}))"


@pytest.mark.slow
def test_assignments_before_the_command_set_its_environment_without_a_shell(run_cli, tmp_path):
    run_file = tmp_path / "r.json"
    out = run_cli(
        "cmd", "-N", "-r", "2", "-w", "0", f'PB_X=3 {PY} -c "{PRINT_X}"', f'PB_X=5 {PY} -c "{PRINT_X}"',
        "-n", "three", "-n", "five", "--export-json", str(run_file), "--no-history", "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    xs = {(s["variant"], s["value"]) for s in doc["samples"] if s["metric"] == "x"}
    assert xs == {("three", 3.0), ("five", 5.0)}
    executables = {v["meta"]["executable"] for v in doc["variants"]}
    assert all(not e.startswith("PB_X") for e in executables), executables


def _median(doc, variant, metric="time"):
    import statistics

    return statistics.median(s["value"] for s in doc["samples"]
                             if s["variant"] == variant and s["metric"] == metric and not s.get("warmup"))


@pytest.mark.slow
def test_the_real_pyenv_shim_is_resolved_as_pyenv_which_does_and_not_measured(run_cli, tmp_path, monkeypatch):
    import os
    import shutil
    import subprocess

    from pairbench.runners.shims import resolve_shim

    # pytest itself may run under `pyenv exec`, which put the version's bin first on PATH: the
    # user's PATH is the one without it
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if not d.startswith(os.path.join(root, "versions") + os.sep))
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    env = {**os.environ, "PATH": path}
    if shutil.which("pyenv", path=path) is None or "/shims/" not in (shutil.which("python3", path=path) or ""):
        pytest.skip("python3 on PATH is not a pyenv shim on this machine")
    expected = subprocess.run(["pyenv", "which", "python3"], capture_output=True, text=True, check=True,
                              env=env, cwd=tmp_path).stdout.strip()
    shim = resolve_shim("python3", env, str(tmp_path))
    assert shim is not None and shim.manager == "pyenv" and shim.executable == expected

    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "-r", "5", "python3 -c pass", "python3 -S -c pass", "--export-json", str(run_file),
                  "--no-history", "--no-progress", env={"PATH": path})
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    for v in doc["variants"]:
        assert v["meta"]["executable"] == expected and v["meta"]["shim_manager"] == "pyenv"
    text = " ".join((out.stdout + out.stderr).split())
    assert f"is a pyenv shim: running {expected}" in text
    assert f"{doc['variants'][0]['name']}: {expected} (" in text  # the header names the executable
    # Through the shim, bash and pyenv cost ~150 ms a run; `python3 -S -c pass` alone ~10-30 ms (without
    # -S, site's .pth files can cost as much as the shim, too close a margin on a loaded machine).
    import time

    through_shim = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(["python3", "-S", "-c", "pass"], env=env, check=True)
        through_shim.append(time.perf_counter() - t)
    assert _median(doc, doc["variants"][1]["name"]) < 0.5 * sorted(through_shim)[2]


@pytest.mark.slow
def test_a_shim_tree_made_here_runs_its_version_and_never_the_shim(run_cli, tmp_path, monkeypatch):
    import os

    monkeypatch.delenv("PYENV_VERSION", raising=False)  # set when pytest runs under `pyenv exec`

    root = tmp_path / "pyenv"
    (root / "shims").mkdir(parents=True)
    # pyenv 2.6's shim text; its libexec/pyenv does not exist here, so running the shim would fail.
    shim = root / "shims" / "pbpython"
    shim.write_text(
        '#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="${0##*/}"\n\n'
        f'export PYENV_ROOT="{root}"\nexec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    shim.chmod(0o755)
    bin_dir = root / "versions" / "9.9" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pbpython").symlink_to(os.path.realpath(sys.executable))
    (root / "version").write_text("9.9\n")
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "-r", "2", "-w", "0", "pbpython -c pass", "pbpython -S -c pass",
                  "--export-json", str(run_file), "--no-history", "--no-progress",
                  env={"PATH": f"{root / 'shims'}{os.pathsep}{os.environ['PATH']}"})
    assert out.returncode == 0, out.stdout + out.stderr
    doc = json.loads(run_file.read_text())
    assert [v["meta"]["executable"] for v in doc["variants"]] == [str(bin_dir / "pbpython")] * 2
    assert [v["meta"]["version"] for v in doc["variants"]] == ["9.9", "9.9"]
    text = " ".join((out.stdout + out.stderr).split())
    # the same note for both variants is said once (each variant's, under -v and in the run file)
    assert text.count(f"`pbpython` is a pyenv shim: running {bin_dir / 'pbpython'} (9.9)") == 1
    assert sum(n["message"].startswith("`pbpython` is a pyenv shim") for n in doc["notices"]) == 2
    assert f"pbpython -c pass: {bin_dir / 'pbpython'} (9.9, pyenv shim resolved)" in text


def _time_maxrss_bytes(argv):
    import statistics
    import subprocess

    readings = []
    for _ in range(3):
        done = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, text=True, check=True)
        readings.append(int(done.stderr.split()[-1]) * 1024)
    return statistics.median(readings)


@pytest.mark.slow
def test_peak_rss_is_the_commands_own_as_usr_bin_time_reads_it(run_cli, tmp_path):
    import os

    if not os.path.exists("/usr/bin/time"):
        pytest.skip("/usr/bin/time is not installed (Debian package `time`)")
    data = tmp_path / "data"
    data.write_bytes(b"x" * 4096)
    alloc = "x = bytearray(100 * 2**20)"
    commands = {"true": ["/bin/true"], "head": ["head", "-c1", str(data)], "alloc": [PY, "-c", alloc]}
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "-N", "-r", "3", "-w", "0", "/bin/true", f"head -c1 {data}", f'{PY} -c "{alloc}"',
                  "-n", "true", "-n", "head", "-n", "alloc", "--export-json", str(run_file), "--no-history",
                  "--no-progress", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    assert {v["meta"]["rss_method"] for v in doc["variants"]} == {"exec-helper"}
    for name, argv in commands.items():
        ours, theirs = _median(doc, name, "rss"), _time_maxrss_bytes(argv)
        assert abs(ours / theirs - 1) < 0.2, (name, ours, theirs)


@pytest.mark.slow
def test_without_a_compiler_rss_falls_back_to_the_launcher_and_says_so(run_cli, tmp_path):
    run_file = tmp_path / "r.json"
    out = run_cli("cmd", "-N", "-r", "2", "-w", "0", "/bin/true", "/bin/false", "-i", "--export-json", str(run_file),
                  "--no-history", "--no-progress",
                  env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "CC": str(tmp_path / "no-cc")})
    assert out.returncode == 0, out.stderr
    doc = json.loads(run_file.read_text())
    assert {v["meta"]["rss_method"] for v in doc["variants"]} == {"launcher-rusage"}
    assert any(n["kind"] == "rss-floor" for n in doc["notices"])
    assert "rss includes the launcher's own" in " ".join(out.stderr.split())


STDOUT_KIND = ("import os, sys; open(sys.argv[1], 'a').write(os.readlink('/proc/self/fd/1') + chr(10)); "
               "print(sys.argv[2])")


@pytest.mark.slow
def test_stdout_is_discarded_after_each_variants_first_run_unless_it_holds_metrics(run_cli, tmp_path):
    quiet, loud = tmp_path / "quiet.log", tmp_path / "loud.log"
    metric = '{"pairbench": {"n": 1}}'
    out = run_cli("cmd", "-N", "-r", "3", "-w", "1",
                  f"{PY} -c \"{STDOUT_KIND}\" {quiet} hello", f"{PY} -c \"{STDOUT_KIND}\" {quiet} hi",
                  "--no-history", "--no-progress", "--export-json", str(tmp_path / "q.json"))
    assert out.returncode == 0, out.stderr
    kinds = quiet.read_text().split()
    assert len(kinds) == 8 and all(k != "/dev/null" for k in kinds[:2]) and set(kinds[2:]) == {"/dev/null"}
    out = run_cli("cmd", "-N", "-r", "3", "-w", "1",
                  f"{PY} -c \"{STDOUT_KIND}\" {loud} '{metric}'", f"{PY} -c \"{STDOUT_KIND}\" {loud} hi",
                  "--no-history", "--no-progress", "--export-json", str(tmp_path / "l.json"))
    assert out.returncode == 0, out.stderr
    assert "/dev/null" not in loud.read_text().split()
    doc = json.loads((tmp_path / "l.json").read_text())
    assert len([s for s in doc["samples"] if s["metric"] == "n" and not s["warmup"]]) == 3


@pytest.mark.slow
def test_pairbench_memory_stays_flat_in_the_commands_output_size(tmp_path):
    import subprocess

    from tests.conftest import cli_env

    def peak_kib(size):
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", PY, "-m", "pairbench", "cmd", "-r", "2", "-w", "1",
             f"head -c {size} /dev/zero; echo x=1", "echo x=2", "--metric", "x=x=(\\d+)",
             "--no-history", "--no-progress", "--export-json", str(tmp_path / f"{size}.json")],
            capture_output=True, text=True, env=cli_env(), cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return int(done.stderr.split()[-1])

    if not __import__("os").path.exists("/usr/bin/time"):
        pytest.skip("/usr/bin/time is not installed (Debian package `time`)")
    # the --metric regex needs the output, so every run's 200 MB is scanned (read whole, it grew
    # pairbench by ~400 MB)
    small, large = peak_kib(1_000_000), peak_kib(200_000_000)
    assert large < small + 20 * 1024, (small, large)
