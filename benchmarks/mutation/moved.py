"""How far each survivor of a sampled report moved the outputs: the measurement behind "below resolution".

    python benchmarks/mutation/moved.py --report results/sampled-<commit>.json --out results/moved-<commit>.json
                                        [--jobs 2] [--limit K] [--ids ID,ID] [--null CLAIM]

A mutant that ``verify`` did not kill left every status as shipped; that alone does not say whether the claims saw no
change at all (an equivalent mutant, or one on a path the claims do not take with these inputs), a change below what
any check resolves (a rounding-level move), or a change the checks should have flagged and did not (missed). Each
survivor of ``--report`` (``sample.py``) is applied to the report's commit again — its recorded one-line change, located
by ``sample.replay_block`` — and the claims whose own runs execute its line (the claims its verify run selected) are
run with ``--json`` at the quick budget, each in a fresh process, ``--no-cache``, one thread, as the oracle ran them.
Every number of every verdict (evidence rows, tables, controls, resolution) is compared with the unmutated run's,
which is computed once per claim and kept in ``--out``:

* ``max_rel`` — the largest |a − b| / max(|a|, |b|) over the numbers at the same place (∞ where one is not finite and
  the other differs), and ``where`` it is;
* ``numbers_changed`` of ``numbers`` — how many differ at all;
* ``texts_changed`` — strings that differ (a summary, a method's name, a note with a number in it).

The run is deterministic (same seed, same numbers: every claim draws from its own seeded generators), so an
unmutated rerun moves nothing; ``--null CLAIM`` checks that on this machine (the tool's own known answer: it must
report ``max_rel`` 0 and no text changed). Volatile fields — seconds, the time a verdict was computed, provenance
— are left out. A survivor reached only by the self-test has no claim to compare (``claims`` empty).

Resumable: ``--out`` is rewritten after each mutant and a rerun skips the ids in it. The reading of the survivors
(equivalent, below resolution, missed) goes into ``survivors.toml`` with these numbers; it is not decided here.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_mutants as rm  # noqa: E402
import sample as S  # noqa: E402

#: verdict fields that change from run to run without any change of the code: left out of the comparison
VOLATILE = frozenset({"seconds", "computed", "provenance", "started", "finished", "pid", "code", "artefacts"})


def leaves(obj, path: str = "") -> dict:
    """``{path: value}`` for every number and string inside a verdict (dicts by key, lists by index), booleans kept as
    strings, the :data:`VOLATILE` keys left out."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in VOLATILE:
                out.update(leaves(v, f"{path}.{k}" if path else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(leaves(v, f"{path}[{i}]"))
    elif isinstance(obj, bool) or obj is None:
        out[path] = str(obj)
    elif isinstance(obj, (int, float)):
        out[path] = float(obj)
    else:
        out[path] = str(obj)
    return out


def relative(a: float, b: float) -> float:
    """|a − b| / max(|a|, |b|): 0 when equal (NaN equals NaN here), ∞ when one is not finite and they differ."""
    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def compare(base: dict, mutant: dict) -> dict:
    """How far the verdicts ``mutant`` ({claim: verdict dict}) moved from ``base``: ``max_rel`` and ``where``,
    ``numbers_changed`` of ``numbers``, ``texts_changed`` (a place that holds a number in one and a string in the
    other, or exists in only one, counts as a text change) and one ``text_example``."""
    a, b = {}, {}
    for claim in sorted(set(base) | set(mutant)):
        a.update(leaves(base.get(claim, {}), claim))
        b.update(leaves(mutant.get(claim, {}), claim))
    worst, where, changed, numbers, texts, example = 0.0, None, 0, 0, 0, None
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if isinstance(x, float) and isinstance(y, float):
            numbers += 1
            r = relative(x, y)
            if r > 0:
                changed += 1
                if r > worst or where is None:
                    worst, where = r, key
        elif x != y:
            texts += 1
            example = example or key
    return {"max_rel": worst, "where": where, "numbers_changed": changed, "numbers": numbers, "texts_changed": texts,
            "text_example": example}


def run_claims(tree: str, claims: list[str], timeout: float) -> tuple[dict, str]:
    """The claims' verdicts ({claim: verdict dict}) from ``verify C1 C2 ... --json`` in ``tree`` as the oracle runs
    them (quick budget, ``--no-cache``, one job, one thread), and a one-line outcome ("ok", "timeout", "exit N")."""
    cache_dir = tempfile.mkdtemp(prefix="deepinit-cache-")
    fd, out = tempfile.mkstemp(prefix="moved-", suffix=".json")
    os.close(fd)
    os.unlink(out)
    cmd = [sys.executable, "-m", "verify", *claims, "--budget", "quick", "--no-cache", "--jobs", "1", "-q",
           "--json", out]
    try:
        proc = subprocess.run(cmd, cwd=tree, env=rm.environment(tree, cache_dir), capture_output=True, text=True,
                              timeout=timeout)
        what = "ok" if proc.returncode in (0, 1) else f"exit {proc.returncode}"
        try:
            with open(out) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return {}, what if what != "ok" else "no report"
        return {v["claim"]: v for v in doc.get("verdicts", [])}, what
    except subprocess.TimeoutExpired:
        return {}, "timeout"
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)


def survivor_claims(rec: dict) -> list[str]:
    """The claims a survivor's verify run selected (the self-test is not a claim)."""
    out = []
    for run in rec.get("verify", []):
        if run.get("paper") != "self-test" and isinstance(run.get("claims"), list):
            out += [c for c in run["claims"] if c not in out]
    return out


def mutated_source(base: str, commit: str, rec: dict) -> tuple[str, str] | None:
    """(path, mutated text) of a report's mutant in the extracted tree at its own commit; None if its change cannot be
    located (it can: the tree is the report's commit)."""
    path = os.path.join(base, rec["file"])
    with open(path, encoding="utf-8") as f:
        source = f.read()
    minus, plus = (part[1:] for part in rec["diff"].split("\n"))
    line = int(re.search(r"\(line (\d+)\)", rec["description"]).group(1))
    got = S.replay_block(source.splitlines(), source, line, minus, plus)
    if got is None:
        return None
    block, changed, _ = got
    return path, source.replace(block, changed, 1)


def measure(rec: dict, base: str, commit: str, baselines: dict, timeout: float) -> dict:
    """One survivor: its claims rerun with the mutant in a copy of the tree, compared with their baselines."""
    claims = survivor_claims(rec)
    row = {"id": rec["id"], "file": rec["file"], "diff": rec["diff"], "claims": claims}
    if not claims:
        row.update(outcome="no claim (self-test only)")
        return row
    work = tempfile.mkdtemp(prefix="deepinit-moved-")
    tree = os.path.join(work, "tree")
    try:
        rm.copy_tree(base, tree)
        got = mutated_source(tree, commit, rec)
        if got is None:
            row.update(outcome="not located")
            return row
        with open(got[0], "w", encoding="utf-8") as f:
            f.write(got[1])
        start = time.monotonic()
        verdicts, what = run_claims(tree, claims, timeout)
        row.update(outcome=what, seconds=round(time.monotonic() - start, 1),
                   statuses={c: v.get("status") for c, v in verdicts.items()})
        if verdicts:
            row["moved"] = compare({c: baselines[c] for c in claims}, verdicts)
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--report", required=True, help="a sampled report (sample.py)")
    ap.add_argument("--out", required=True, help="the measurements (JSON; resumed when it exists)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="measure at most K survivors not yet in --out")
    ap.add_argument("--ids", help="only these comma-separated mutant ids")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds for one claims run")
    ap.add_argument("--null", metavar="CLAIM", help="run CLAIM twice on the unmutated tree and print how far it moved "
                    "(must be 0: the measurement's own known answer), then exit")
    args = ap.parse_args(argv)
    with open(args.report) as f:
        report = json.load(f)
    commit = report["commit"]
    doc = {"report": os.path.relpath(args.report, rm.REPO) if os.path.isabs(args.report) else args.report,
           "commit": commit, "baselines": {}, "mutants": []}
    if os.path.exists(args.out):
        with open(args.out) as f:
            doc = json.load(f)
        if doc.get("commit") != commit:
            raise SystemExit(f"{args.out} measures another commit ({doc.get('commit', '?')[:12]})")
    wanted = set(args.ids.split(",")) if args.ids else None
    done = {r["id"] for r in doc["mutants"]}
    todo = [r for r in report["mutants"] if r.get("status") == "run" and not r.get("killed_by_verify")
            and r["id"] not in done and (wanted is None or r["id"] in wanted)][:args.limit]
    top = tempfile.mkdtemp(prefix="deepinit-moved-base-")
    base = os.path.join(top, "base")
    try:
        rm.extract(commit, base)
        rm.install_plugins(base, rm.PAPERS, os.path.join(top, "plugins"))
        if args.null:
            first, what1 = run_claims(base, [args.null], args.timeout)
            second, what2 = run_claims(base, [args.null], args.timeout)
            print(json.dumps({"claim": args.null, "runs": [what1, what2], "moved": compare(first, second)}))
            return 0
        need = sorted({c for r in todo for c in survivor_claims(r)} - set(doc["baselines"]))
        for claim in need:   # the unmutated verdicts, once per claim
            verdicts, what = run_claims(base, [claim], args.timeout)
            if claim not in verdicts:
                raise SystemExit(f"the unmutated run of {claim} gave no verdict ({what})")
            doc["baselines"][claim] = verdicts[claim]
            print(f"baseline {claim}: {verdicts[claim]['status']}", flush=True)

        def write():
            tmp = args.out + ".tmp"
            with open(tmp, "w") as f:
                json.dump(doc, f, indent=1)
            os.replace(tmp, args.out)
        write()
        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(measure, r, base, commit, doc["baselines"], args.timeout) for r in todo]
            for fut in cf.as_completed(futures):
                row = fut.result()
                doc["mutants"].append(row)
                m = row.get("moved")
                print(f"{row['id']}: {row['outcome']}" + (f", max_rel {m['max_rel']:.3g} at {m['where']}, "
                                                          f"{m['numbers_changed']}/{m['numbers']} numbers, "
                                                          f"{m['texts_changed']} texts" if m else ""), flush=True)
                write()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
