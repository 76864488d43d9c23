"""``python -m verify profile ACT [ACT ...]``: every theory quantity of activations, each with its error (a tool on
``theory``: :mod:`verify.profile`)."""
from __future__ import annotations

import json
import os
import sys

from .. import provenance
from ..core import _clean
from ..files import write_atomic
from ..latex import PLAIN_DIGITS
from ..registry import UsageError
from ..report import check_output_dir, check_output_path


def batch_sizes(text: str) -> tuple[int, ...]:
    out = []
    for part in str(text).split(","):
        try:
            B = int(part.strip())
        except ValueError:
            raise UsageError(f"--batch-sizes takes comma-separated integers, not {text[:60]!r}") from None
        if not 4 <= B <= 4096:
            raise UsageError(f"--batch-sizes: B = {B} must be in [4, 4096] (the BSB1 fixed point needs B ≥ 4)")
        out.append(B)
    if not out or len(out) > 32:
        raise UsageError("--batch-sizes: between 1 and 32 batch sizes")
    return tuple(dict.fromkeys(out))


def run(args) -> int:
    """``python -m verify profile ACT [ACT ...]``: the comparison table of verify.profile (text, --json, --csv DIR,
    --latex PATH [--latex-standalone], --artefacts DIR for the figures)."""
    import theory
    from theory.errors import DeepinitError
    from .. import profile as PR
    names = args.claims[1:]
    if not names:
        raise UsageError("usage: python -m verify profile ACTIVATION [ACTIVATION ...] (registry names or formulas)")
    if len(names) > 50:
        raise UsageError("profile: at most 50 activations at a time")
    Bs = batch_sizes(args.batch_sizes)
    for out, what in ((args.latex, "--latex"),) + (((args.json, "--json"),) if args.json not in (None, "-") else ()):
        if out:
            check_output_path(out, what)
    for d, what in ((args.csv, "--csv"), (args.artefacts, "--artefacts")):
        if d:
            check_output_dir(d, what)
    acts = []
    for nm in names:
        try:
            acts.append(theory.activation(nm))
        except DeepinitError as exc:
            raise UsageError(f"profile: {exc}") from None
    profiles = []
    for a in acts:
        if args.json != "-" and not args.quiet:
            sys.stderr.write(f"profiling {a.name} …\n")
        try:
            profiles.append(PR.profile_activation(a, Bs))
        except DeepinitError as exc:
            raise UsageError(f"profile {a.name}: {exc}") from None
    text_digits = args.digits or PLAIN_DIGITS  # the terminal and the CSV: 6 digits unless --digits N
    header, rows = PR.comparison_rows(profiles, text_digits)
    notes = PR.undefined_notes(profiles)
    if args.json == "-":
        sys.stdout.write(json.dumps(_profile_document(args, profiles), ensure_ascii=False, indent=1,
                                    allow_nan=False) + "\n")
    else:
        _print_table(*PR.terminal_rows(profiles, text_digits))
        for nt in notes:
            print("  · " + nt)
        print(f"({', '.join(f'{p.activation} {p.seconds:.1f} s' for p in profiles)})")
        if args.json:
            write_atomic(args.json, json.dumps(_profile_document(args, profiles), ensure_ascii=False,
                                               indent=1, allow_nan=False) + "\n")
    if args.csv:
        import csv
        import io
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        write_atomic(os.path.join(args.csv, "profile_table.csv"), buf.getvalue())
    if args.latex:
        write_atomic(args.latex, PR.render_latex(profiles, args.digits, standalone=args.latex_standalone,
                                                 cites=dict(args.latex_cite or ()), label_prefix=args.latex_label))
    if args.artefacts:
        files = PR.write_profile_figures(profiles, args.artefacts, style=args.figure_style)
        if args.json != "-":
            print("figures: " + ", ".join(v for k, v in files.items() if k != "caption"))
    return 0


def _profile_document(args, profiles) -> dict:
    """``profile --json``: the profiles with the provenance every report carries; a non-finite number is written as
    the string "inf", "-inf" or "nan", as in every report (JSON has no literal for them)."""
    started = provenance.now()
    return {"profiles": [_clean(p.to_dict()) for p in profiles],
            "provenance": provenance.collect("cpu", args.budget, args.seed, args.dtype, started, args.argv)}


def _print_table(header: list, rows: list[list]) -> None:
    from rich.console import Console
    from rich.table import Table
    t = Table(*header, show_lines=False, header_style="bold")
    for r in rows:
        t.add_row(*["" if c is None else (f"{c:.6g}" if isinstance(c, float) else str(c)) for c in r])
    import shutil
    # at least 100 columns: a tiny terminal width (COLUMNS=1) would fold every cell away to nothing
    Console(soft_wrap=False, width=max(100, shutil.get_terminal_size((140, 24)).columns)).print(t)
