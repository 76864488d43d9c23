"""Generate ``docs/papers/<paper>.md`` from the registry and fresh verdicts.

    python -m verify.docs isometry [--budget standard]
    python -m verify.docs isometry --from-report ci-artefacts/standard.json

The page lists each claim (checked or not yet), how it is checked, its verdict with the numbers,
its negative control, and every erratum found — generated, never written by hand. ``--from-report`` takes the
verdicts of a saved ``--json`` report (CI's standard-budget report, say) instead of computing them again; the
report's figures are embedded where its run wrote them (``--artefacts``).
"""
from __future__ import annotations

import argparse
import os
import sys

from .core import VIOLATED, Context
from .registry import all_claims, coverage_items, paper as declared_paper, paper_keys
from .files import write_atomic
from .report import fmt, resolution_text
from .runner import control_description, run_claim


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _figure_lines(v, page_dir: str | None) -> list[str]:
    """Markdown embedding each figure the claim wrote (PNG inline, PDF and CSV linked), paths relative to the page."""
    if page_dir is None:
        return []
    out = []
    for key in sorted(k for k in v.artefacts if k.endswith("_png")):
        stem = key[:-len("_png")]
        links = {kind: os.path.relpath(v.artefacts[f"{stem}_{kind}"], page_dir).replace(os.sep, "/")
                 for kind in ("png", "pdf", "csv") if f"{stem}_{kind}" in v.artefacts}
        out += [f"![{v.claim_id} {stem}]({links['png']})", "",
                " · ".join(f"[{kind.upper()}]({path})" for kind, path in links.items()), ""]
    return out


COVERAGE_HEADING = "## Coverage of the numbered items"


def _coverage_source(paper: str) -> str:
    module = declared_paper(paper).module
    return "`verify/coverage.py`" if module.startswith("verify.") else f"declared by the plugin `{module}`"


def coverage_section(paper: str) -> list[str]:
    """The page's coverage table (verify/coverage.py): it does not depend on any run.

    Each row says which claims are named for the item and, in the *audit* column, what they do with it as printed
    (:class:`verify.coverage.Item`): only an *as printed* claim makes the row *checked*.
    """
    from .coverage import AUDIT_DATE
    rows = coverage_items(paper)
    audited = any(it.audited for it in rows)
    how = (f"The rows were audited on {AUDIT_DATE} by reading each named claim's code — its statement, how it is "
           "checked, its check function and the theory function that computes its reference — against the printed "
           "item." if audited else "The rows of this paper are *not audited*: a named claim is counted as checking "
           "its item.")
    lines = [COVERAGE_HEADING, "",
             "Every numbered equation, theorem, lemma, corollary, proposition, definition, table and figure of the "
             f"paper ({_coverage_source(paper)}), with the claims that check it or why none does: *no claim* (a definition, "
             "notation, a remark or a proof step), *vacuous* (cannot fail), *text lost* (its content is not in the text "
             "copy), *offline* (needs data or weights that cannot exist offline).", "",
             "An item counts as **checked** only when a named claim checks its printed statement *as printed* — "
             "normalising constants, exponents and prefactors included; *derived* means the claims check an "
             "equivalent or derived form, or only part of the statement (the audit says which), and *uses only* that "
             f"they use the item without checking it: neither counts as checked. {how}", "",
             "| item | checked by | audit | note |", "|---|---|---|---|"]
    for it in rows:
        if it.claims:
            by = ", ".join(f"`{paper}:{n}`" for n in it.claims)
            if it.status != "checked":
                by += f" (**{it.status}**)"
        else:
            by = f"**{it.status}**"
        audit = it.audit_text if it.audited else ("*not audited*" if it.claims else "—")
        lines.append(f"| {_md(it.item)} | {by} | {_md(audit)} | {_md(it.note)} |")
    lines.append("")
    return lines


def replace_coverage_section(page: str, paper: str) -> str:
    """``page`` with its coverage section regenerated (the verdicts, which need runs, are kept as they are)."""
    start = page.find(COVERAGE_HEADING)
    if start < 0:
        raise ValueError("the page has no coverage section")
    end = page.find("\n## ", start + len(COVERAGE_HEADING))
    end = len(page) if end < 0 else end + 1
    return page[:start] + "\n".join(coverage_section(paper)) + "\n" + page[end:]


def render_paper_page(paper: str, verdicts: dict, budget: str, page_dir: str | None = None) -> str:
    from .expectations import load_many
    claims = [c for c in all_claims() if c.paper == paper]
    kinds = {k: e.kind for k, e in load_many(["shipped"]).items() if e.kind}
    decl = declared_paper(paper)
    where = "`verify/papers/`" if decl.module.startswith("verify.papers") else f"the plugin `{decl.module}`"
    lines = [f"# `{paper}` — {decl.citation}", "",
             f"Generated by `python -m verify.docs {paper} --budget {budget}` from the claim registry "
             f"({where}); do not edit by hand.", "",
             "| claim | status | verdict | depends on | resolution (this run) | controls |", "|---|---|---|---|---|---|"]
    for c in claims:
        v = verdicts.get(c.id)
        if v is None:
            lines.append(f"| `{c.id}` | {c.pending_kind} | {_md(c.pending_reason)} | | | |")
            continue
        nc, pc = v.negative_control, v.positive_control
        ctl = "; ".join(([f"negative → {nc.status}"] if nc else []) + ([f"positive → {pc.status}"] if pc else []))
        kind = f" ({kinds[c.id]})" if v.status != "holds" and c.id in kinds else ""
        lines.append(f"| `{c.id}` | **{v.status}**{kind} | {_md(v.summary)} | {', '.join(c.depends_on) or '—'} | "
                     f"{_md(resolution_text(v)) or '—'} | {ctl or '—'} |")
    lines.append("")
    lines += ["Resolution: the relative error δ in each declared theory quantity (scaled by 1 ± δ inside the package, "
              "where the check consumes it) that this run showed the check flags — the negative control. "
              "`python -m verify CLAIM --sensitivity` measures the smallest such δ on the ladder 0.5%…50%.", ""]
    lines += ["Status in parentheses: *erratum* — the printed statement is false in the paper's own setting; *not "
              "reproduced* — an experiment not reproduced in a substitute setting (other data, a parameter lost from "
              "the text, an assumed learning rate), which is not evidence that the paper is wrong; *undecided* — the "
              "budget is too small to decide.", ""]
    lines += coverage_section(paper)
    errata = [(c, e) for c in claims if c.id in verdicts for e in verdicts[c.id].errata
              if kinds.get(c.id) != "not reproduced"]
    # a violated claim that records no itemised erratum is a finding all the same (unless it is a substitute
    # experiment that was not reproduced)
    bare = [c for c in claims if c.id in verdicts and verdicts[c.id].status == VIOLATED
            and not verdicts[c.id].errata and kinds.get(c.id) != "not reproduced"]
    lines += ["## Errata found", ""]
    if not errata and not bare:
        lines.append("None.")
    for c, e in errata:
        lines.append(f"- **{e.location}** ({e.severity}; `{c.id}`): printed “{_md(e.printed)}”; found "
                     f"“{_md(e.found)}”. Evidence: {_md(e.evidence)}")
    for c in bare:
        lines.append(f"- **{_md(c.title)}** (`{c.id}`, violated): {_md(verdicts[c.id].summary)}")
    lines += ["", "## Claims in detail", ""]
    for c in claims:
        v = verdicts.get(c.id)
        if v is None:
            continue
        lines += [f"### `{c.id}` — {c.title}", "", f"*Statement.* {c.statement}", ""]
        if c.hypotheses:
            lines += [f"*Hypotheses.* {c.hypotheses}", ""]
        if c.how:
            lines += [f"*How it is checked.* {c.how}", ""]
        if c.uses:
            lines += [f"*Uses.* {', '.join(f'`{u}`' for u in c.uses)}", ""]
        lines += [f"*Verdict ({budget} budget, seed 0, {v.seconds:.1f} s): {v.status}.* {v.summary}", ""]
        lines += _figure_lines(v, page_dir)
        if v.evidence:
            lines += ["| quantity | theory | numeric | bound | observed | slack | CI | samples | ok |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for e in v.evidence:
                ok = {True: "✓", False: "✗", None: ""}[e.passed]
                ci = fmt(e.ci, 4) if e.ci else ""
                conf = f" ({100 * e.confidence:g}%)" if e.confidence and ci else ""
                lines.append(f"| {_md(e.name)} | {fmt(e.theory)} | {fmt(e.numeric)} | {fmt(e.bound)} | {fmt(e.observed)} "
                             f"| {fmt(e.slack, 4)} | {ci}{conf} | {fmt(e.samples)} | {ok} |")
            lines.append("")
            for e in v.evidence:
                if e.note:
                    lines.append(f"- {_md(e.name)}: {_md(e.note)}")
            lines.append("")
        if v.resolution:
            lines += [f"*Resolution.* {_md(resolution_text(v))}", ""]
        if v.negative_control is not None:
            lines += [f"*Negative control* ({_md(control_description(c))}): **{v.negative_control.status}** — "
                      f"{_md(v.negative_control.summary)}", ""]
        if v.positive_control is not None:
            lines += [f"*Positive control* ({_md(c.positive_control_description)}): **{v.positive_control.status}** — "
                      f"{_md(v.positive_control.summary)}", ""]
    return "\n".join(lines) + "\n"


def _fail(message: str):
    from .core import error_line
    sys.stderr.write(error_line(message))
    raise SystemExit(2)


def _verdicts_from_report(path: str, paper: str) -> tuple[dict, str]:
    """The paper's verdicts of a saved report and their budget; exits 2 (one line) when the report lacks a checked
    claim of the paper, mixes budgets or cannot be read."""
    import json
    from .core import Verdict
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        found = {d["claim"]: Verdict.from_dict(d) for d in doc["verdicts"] if str(d.get("claim", "")).startswith(paper + ":")}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _fail(f"--from-report {path!r}: not a readable deepinit-verify JSON report ({exc})")
    missing = [c.id for c in all_claims() if c.paper == paper and c.checked and c.id not in found]
    if missing:
        _fail(f"--from-report {path!r} has no verdict of {', '.join(missing[:5])}" + (" …" if len(missing) > 5 else ""))
    budgets = {v.settings.get("budget") for v in found.values()}
    if len(budgets) != 1 or None in budgets:
        _fail(f"--from-report {path!r}: the verdicts of {paper} are of budgets {sorted(map(str, budgets))}, not one")
    return found, budgets.pop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m verify.docs")
    p.add_argument("paper", choices=tuple(paper_keys()))
    p.add_argument("--budget", default="standard", choices=("quick", "standard", "full"))
    p.add_argument("--out", default=None)
    p.add_argument("--coverage-only", action="store_true",
                   help="rewrite only the page's coverage table (no claim is run; the verdicts stay as generated)")
    p.add_argument("--from-report", metavar="REPORT", default=None,
                   help="take the paper's verdicts from a saved --json report instead of computing them (its budget "
                        "is the page's budget)")
    p.add_argument("--figures", default=os.path.join("docs", "figures"),
                   help="directory for the figure claims' PNG/PDF/CSV, embedded in the page (default docs/figures)")
    args = p.parse_args(argv)
    out = args.out or os.path.join("docs", "papers", f"{args.paper}.md")
    if args.coverage_only:
        with open(out, encoding="utf-8") as fh:
            page = fh.read()
        write_atomic(out, replace_coverage_section(page, args.paper))
        print(out)
        return 0
    if args.from_report:
        verdicts, budget = _verdicts_from_report(args.from_report, args.paper)
        write_atomic(out, render_paper_page(args.paper, verdicts, budget, os.path.dirname(os.path.abspath(out))))
        print(out)
        return 0
    os.makedirs(args.figures, exist_ok=True)
    verdicts = {}
    for c in all_claims():
        if c.paper == args.paper and c.checked:
            sys.stderr.write(f"running {c.id} …\n")
            verdicts[c.id] = run_claim(c, Context(budget=args.budget, seed=0, artefact_dir=args.figures))
    write_atomic(out, render_paper_page(args.paper, verdicts, args.budget, os.path.dirname(os.path.abspath(out))))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
