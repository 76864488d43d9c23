#!/usr/bin/env bash
# Build the wheel and the sdist, install the wheel — not the checkout — into a fresh virtual environment, and run the
# smoke test there, outside the checkout: the package data (expected verdicts, timing hints), the entry points (the
# console script, the pytest plugin, the papers) and the README's quickstart commands.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
python -m build --no-isolation --outdir "$work/dist" . > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/*.whl)"
ls "$work"/dist/*.tar.gz > /dev/null
python -m venv "$work/venv"
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
pip install --quiet --disable-pip-version-check --no-warn-script-location torch==2.13.0
pip install --quiet --disable-pip-version-check --no-warn-script-location "$wheel[test]"
cd "$work"   # away from the checkout: only the installed wheel can answer
python - <<'PY'
import os, verify
here = os.path.dirname(verify.__file__)
assert "site-packages" in here, here
for f in ("papers/bn_finite_width/expected.toml", "papers/bn_mean_field/expected.toml", "papers/isometry/expected.toml",
          "papers/covariance_sde/expected.toml", "data/claim_seconds.json", "data/report.schema.json"):
    assert os.path.isfile(os.path.join(here, f)), f
PY
python -m verify list > list.txt; grep "^isometry:theorem1 " list.txt > /dev/null
grep "^covariance-sde:figure1 " list.txt > /dev/null
deepinit-verify list isometry > /dev/null
python -m verify isometry:theorem1 --budget quick
python -m verify profile relu --batch-sizes 4,8 > /dev/null
python -m verify isometry:theorem1 isometry:figure6 isometry:definition3 --budget quick --expect shipped -q \
    --json smoke.json || { echo "the shipped expectations (a data file of the wheel) do not hold"; exit 1; }
# the report validates against the schema the wheel ships
python - <<'PY'
import json
from importlib.resources import files
import jsonschema
schema = json.loads((files("verify") / "data" / "report.schema.json").read_text(encoding="utf-8"))
jsonschema.validate(json.load(open("smoke.json", encoding="utf-8")), schema)
PY
python -m pytest -p no:cacheprovider -q --verify-claims=isometry:theorem1,isometry:definition3 --verify-budget=quick
# the CI commands of the README and of docs/ci.md's ready job, exactly as written, in a scratch paper repository
python "$root/.ci/ci_commands.py" "$root"
echo "wheel smoke test: passed ($(basename "$wheel"))"
