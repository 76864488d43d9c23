"""The CI commands the documentation gives a user, run exactly as written against the installed package.

    python .ci/ci_commands.py CHECKOUT

Reads the README's "In CI" block and the `run:` steps of the ready GitHub Actions job in docs/ci.md that call
deepinit-verify, and runs each one, unchanged, in a scratch git repository outside the checkout (a paper repository:
its own `expected.toml` with one entry, layered over the shipped expectations as the docs say). Every command must
exit 0 and write what it names; then the user's file gets a wrong expectation and the job's command must exit 1.
The commands share one verdict cache (a fresh directory), so the claims are computed once, by the first command
(the job's, with --jobs 2). .ci/wheel_smoke.sh runs this in the wheel's virtual environment.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def readme_commands(checkout: str) -> list[str]:
    text = open(os.path.join(checkout, "README.md"), encoding="utf-8").read()
    block = re.search(r"## In CI\n\n```sh\n(.*?)```", text, re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def job_commands(checkout: str) -> list[str]:
    text = open(os.path.join(checkout, "docs", "ci.md"), encoding="utf-8").read()
    job = re.search(r"## A ready job.*?```yaml\n(.*?)```", text, re.S).group(1)
    runs = [m.group(1).strip() for m in re.finditer(r"^\s*- run: (.*)$", job, re.M)]
    return [r for r in runs if r.startswith(("python -m verify", "pytest", "python -m pytest"))]


def run(command: str, cwd: str, env: dict) -> subprocess.CompletedProcess:
    print(f"$ {command}", flush=True)
    r = subprocess.run(shlex.split(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    print("\n".join(r.stdout.strip().splitlines()[-3:]))
    return r


def main(checkout: str) -> int:
    job, readme = job_commands(checkout), readme_commands(checkout)
    assert job and len(readme) == 2, (job, readme)
    repo = tempfile.mkdtemp(prefix="paper-repo-")
    env = {**os.environ, "DEEPINIT_CACHE": os.path.join(repo, ".verdict-cache"), "OMP_NUM_THREADS": "1"}
    env.pop("DEEPINIT_NO_CACHE", None)
    subprocess.run(["git", "init", "-q", repo], check=True)
    user = os.path.join(repo, "expected.toml")
    with open(user, "w", encoding="utf-8") as f:
        f.write('["isometry:figure6"]\nstatus = "violated"\nkind = "erratum"\n'
                'reason = "Fig 6 is not reproduced for relu; the paper\'s Section 7 says ReLU needs layer norm"\n')
    failures = []
    for command in job + readme:
        r = run(command, repo, env)
        if r.returncode != 0:
            failures.append(f"{command}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    for name in ("claims.json", "claims.xml", "report.json"):
        if not os.path.isfile(os.path.join(repo, name)):
            failures.append(f"{name} was not written")
    if os.path.isfile(os.path.join(repo, "claims.xml")):
        suite = ET.parse(os.path.join(repo, "claims.xml")).getroot()
        cases = list(suite.iter("testcase"))
        if not cases or any(c.find("failure") is not None or c.find("error") is not None for c in cases):
            failures.append("claims.xml: no test cases, or a failed one")
    with open(user, "a", encoding="utf-8") as f:        # a broken expectation: theorem1 holds
        f.write('\n["isometry:theorem1"]\nstatus = "violated"\nreason = "wrong on purpose"\n')
    r = run(job[0], repo, env)
    if r.returncode != 1 or "isometry:theorem1" not in r.stdout:
        failures.append(f"a broken expectation: {job[0]} exited {r.returncode}, not 1\n{r.stdout[-1500:]}")
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print(f"CI commands of the docs: {len(job) + len(readme)} run as written, "
          + ("all as documented" if not failures else f"{len(failures)} problems"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
