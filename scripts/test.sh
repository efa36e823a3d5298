#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh Debian machine (as root), then run all tests,
# the slow ones with real interpreters and servers included.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        ruby ruby-rack ruby-webrick ruby-stackprof puma pypy3 nginx-light wrk apache2-utils nghttp2-client hyperfine valgrind \
        git time chromium postgresql zsh fish golang-go g++ libbenchmark-dev linux-perf >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
# Byte-compile the package once: the suite starts pairbench (and its micro harness) in hundreds
# of subprocesses, and where PYTHONDONTWRITEBYTECODE is set (it is on the shared test machine)
# each one compiles every module it imports again: ~0.08 s of CPU a CLI call, 15-25% of the time
# of a test file that calls the CLI often.
python3 -m compileall -q src >/dev/null
python3 -m pytest -q -p no:cacheprovider --durations=25 "$@"
