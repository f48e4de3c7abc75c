#!/usr/bin/env bash
# `make test-busy`: the whole suite (`make test`) while another process keeps both cores busy,
# as on a shared CI machine. The load is stress-ng's CPU stressors, one per core (Debian
# package, installed when missing); they stop with the suite, or by themselves after an hour.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v stress-ng >/dev/null; then
  apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null || { echo "could not install stress-ng"; exit 1; }
fi
CORES="${BUSY_CORES:-$(nproc)}"
stress-ng --cpu "$CORES" --cpu-method matrixprod --timeout 3600s --quiet &
LOAD=$!
trap 'kill "$LOAD" 2>/dev/null; wait "$LOAD" 2>/dev/null' EXIT
started=$(date +%s)
make test TESTS="${TESTS:-}"
status=$?
echo "test-busy: make test exited $status after $(( $(date +%s) - started )) s with stress-ng --cpu $CORES running"
exit $status
