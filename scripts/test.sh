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
python3 -m pytest -q -p no:cacheprovider --durations=25 "$@"
