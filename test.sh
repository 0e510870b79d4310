#!/usr/bin/env bash
# Run the whole test suite headless (sets up Debian libraries and ./.venv on first use).
# Extra arguments go to pytest, e.g. ./test.sh tests/core -k mercer
set -euo pipefail
cd "$(dirname "$0")"
. scripts/_setup.sh
export QT_QPA_PLATFORM=offscreen
export LANG=C.UTF-8 LC_ALL=C.UTF-8
ntkviz_setup test 0
# A fresh numba cache per run: numba does not invalidate a cached function when a
# helper in another module changes (see README, "Numba cache").
NUMBA_CACHE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ntkviz-numba-XXXXXX")"
export NUMBA_CACHE_DIR
trap 'rm -rf "$NUMBA_CACHE_DIR"' EXIT
# pytest exits 5 when no test ran: that fails this script, as it should.
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
