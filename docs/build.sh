#!/usr/bin/env bash
# The documentation site as CI builds it (.ci/run calls this): Sphinx's HTML build with warnings as errors, the
# tutorials executed, then a check of every internal link of the built pages. Needs the docs extra:
#     pip install -e ".[docs]"
# Usage: docs/build.sh [OUTDIR]   (default docs/_build/html; the notebooks' execution cache is docs/_build/.jupyter_cache)
#
# Sphinx's own `-b linkcheck` is not run: with external links ignored (no network) it reports every internal link as
# "unchecked", so it would check nothing; the -W build fails on a MyST link to a missing page or heading, and
# docs/check_links.py checks every href/src of the built HTML (files and #anchors) offline.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/_build/html}"
# small per-cell work: one BLAS/OpenMP thread in Sphinx and in the notebook kernels
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
# the verdict cache of the command line is not used by the tutorials (verify.api.run), but keep builds hermetic
export DEEPINIT_NO_CACHE=1
start=$(date +%s)
python -m sphinx -W --keep-going -b html -d docs/_build/doctrees docs "$out"
python docs/check_links.py "$out"
echo "docs/build.sh: site built in $(( $(date +%s) - start )) s → $out"
