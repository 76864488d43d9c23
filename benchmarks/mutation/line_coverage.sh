#!/usr/bin/env bash
# Line coverage of theory/ and numerics/ by `python -m verify all --budget quick` (docs/mutation.md): the four
# built-in papers and the example plugin (examples/deepinfo-propagation, installed into a temporary directory for the
# run, so that the general engine its claims use is measured too). One process (--jobs 1: coverage.py does not
# follow worker processes), no verdict cache. Extra arguments go to `coverage report` (e.g. -m, --include=...).
#
#     bash benchmarks/mutation/line_coverage.sh [-m]
set -euo pipefail
cd "$(dirname "$0")/../.."
site=$(mktemp -d)
trap 'rm -rf "$site" examples/deepinfo-propagation/build' EXIT
python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --target "$site" \
    ./examples/deepinfo-propagation
data=${COVERAGE_FILE:-.coverage.verify}
cache=$(mktemp -d)
OMP_NUM_THREADS=1 DEEPINIT_CACHE="$cache" PYTHONPATH="$PWD:$site" python -m coverage run --data-file="$data" \
    --source=theory,numerics -m verify all --budget quick --expect shipped --no-cache --jobs 1 -q
rm -rf "$cache"
python -m coverage report --data-file="$data" "$@"
