#!/usr/bin/env bash
# Launch ntkviz (sets up Debian libraries and ./.venv on first use).
# Extra arguments go to the app, e.g. ./run.sh export kernel --name ntk --grid 201 --out k.csv
set -euo pipefail
cd "$(dirname "$0")"
. scripts/_setup.sh
export LANG="${LANG:-C.UTF-8}"
ntkviz_setup gif 1
exec .venv/bin/python -m ntkviz "$@"
