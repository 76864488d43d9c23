"""``python -m verify render REPORT.json``: every output regenerated from a saved report, nothing recomputed."""
from __future__ import annotations

import collections
import json
import os

from .. import expectations as expect
from ..core import Verdict
from ..files import write_atomic
from ..junit import render_junit
from ..registry import UsageError, all_claims, failures, paper_keys
from ..report import check_output_dir, check_output_path, render_latex
from .common import read_report


def run(args) -> int:
    """``python -m verify render REPORT.json --latex t.tex [--latex-standalone] [--markdown m.md] [--csv DIR]``:
    every output regenerated from a saved report, nothing recomputed."""
    if len(args.claims) != 2:
        raise UsageError("usage: python -m verify render REPORT.json [--latex PATH] [--markdown PATH] [--csv DIR]")
    path = args.claims[1]
    if not os.path.isfile(path):
        raise UsageError(f"render: no report file {path!r}")
    verdicts = read_report(path)
    if not verdicts:
        raise UsageError(f"render: {path!r} holds no verdicts")
    if not (args.latex or args.markdown or args.csv or args.junit):
        raise UsageError("render: say what to write: --latex PATH, --markdown PATH, --junit PATH and/or --csv DIR")
    for out, what in ((args.latex, "--latex"), (args.markdown, "--markdown"), (args.junit, "--junit")):
        if out:
            check_output_path(out, what)
    if args.csv:
        check_output_dir(args.csv, "--csv")
    claims = {c.id: c for c in all_claims()}
    known = [v for v in verdicts if v.claim_id in claims]
    unknown = [v.claim_id for v in verdicts if v.claim_id not in claims]
    if unknown:  # a verdict of a paper that is not installed here: never dropped silently
        cause = {k: c for k, c in failures().items() if any(u.startswith(k + ":") for u in unknown)}
        raise UsageError(f"render: {path!r} holds verdicts of claims not known here: {', '.join(unknown[:5])}"
                         + (" …" if len(unknown) > 5 else "")
                         + ("; " + "; ".join(f"plugin {k} failed to load: {c}" for k, c in cause.items()) if cause
                            else "; install the plugin that declares them"))
    if args.latex:
        write_atomic(args.latex, render_latex(known, claims, standalone=args.latex_standalone, digits=args.digits,
                                              prose=args.latex_prose, cites=dict(args.latex_cite or ()),
                                              label_prefix=args.latex_label))
    if args.markdown:
        from ..docs import render_paper_page
        budgets = {v.settings.get("budget", "?") for v in known}
        pages = [render_paper_page(p, {v.claim_id: v for v in known if v.claim_id.startswith(p + ":")},
                                   "/".join(sorted(budgets)))
                 for p in paper_keys() if any(v.claim_id.startswith(p + ":") for v in known)]
        write_atomic(args.markdown, "\n\n".join(pages))
    if args.csv:
        write_csv(known, args.csv)
    if args.junit:
        write_atomic(args.junit, render_junit(known, _report_comparisons(path, known, args)))
    print(f"rendered {len(known)} verdicts from {path}")
    return 0


def _report_comparisons(path: str, verdicts: list[Verdict], args) -> list:
    """The expectation outcomes for ``render --junit``: by the ``--expect`` files given to ``render``, else those the
    report recorded (its run's ``--expect``), else every claim expected to hold."""
    if args.expect:
        return expect.compare(verdicts, expect.load_many(args.expect, replace=args.expect_replace))
    with open(path, encoding="utf-8") as f:
        recorded = {c.get("claim"): c for c in json.load(f).get("expectations") or [] if isinstance(c, dict)}
    if not recorded:
        return expect.compare(verdicts, {})
    try:
        return [expect.Comparison(**{k: recorded[v.claim_id][k] for k in expect.Comparison.__dataclass_fields__
                                     if k in recorded[v.claim_id]}) for v in verdicts]
    except (KeyError, TypeError) as exc:
        raise UsageError(f"render: {path!r}: its expectations do not match its verdicts ({exc})") from None


def write_csv(verdicts: list[Verdict], directory: str) -> None:
    import csv
    import io
    import hashlib
    import re as _re
    stems = {v.claim_id: _re.sub(r"[^A-Za-z0-9-]+", "_", v.claim_id) for v in verdicts}
    taken = collections.Counter(stems.values())
    for cid, stem in stems.items():   # two ids on one file name ('a.b', 'a..b'): each gets its id's hash
        if taken[stem] > 1:
            stems[cid] = f"{stem}_{hashlib.sha256(cid.encode()).hexdigest()[:8]}"
    for v in verdicts:
        stem = stems[v.claim_id]
        tables = [(f"{stem}_table{k}.csv", list(t[1]), [list(r) for r in t[2]]) for k, t in enumerate(v.tables, 1)]
        if v.evidence:
            fields = ["name", "theory", "numeric", "bound", "observed", "slack", "ci_low", "ci_high", "confidence",
                      "samples", "passed", "note"]
            rows = [[e.name, e.theory, e.numeric, e.bound, e.observed, e.slack,
                     e.ci[0] if e.ci else "", e.ci[1] if e.ci else "", e.confidence, e.samples, e.passed, e.note]
                    for e in v.evidence]
            tables.append((f"{stem}_evidence.csv", fields, rows))
        for name, header, rows in tables:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(header)
            w.writerows([["" if c is None else c for c in r] for r in rows])
            write_atomic(os.path.join(directory, name), buf.getvalue())
