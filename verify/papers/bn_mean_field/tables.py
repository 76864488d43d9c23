"""Tables of q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max and 16ξ for the registered activations."""
from __future__ import annotations

import math

import numpy as np
import theory
from theory import bn_meanfield as tbm
from theory.errors import DeepinitError

from ...api import activation_name, Context, Evidence, kinds as P, memo, Parameter, Verdict
from ._common import _control, _rel, bn_jacobian_eigenvalues, bsb1_fixed_point, gradient_explosion_rate, PAPER, TABLE_B
from ._common import forward_eigenvalue_rows

# =============================================================================================
# Tables: q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ for the registered activations
# =============================================================================================

def constants_cells(act: str, B: int) -> tuple[list, list]:
    """One table row — φ, q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ as numbers (``None`` where undefined) and a note — and
    the numbers' errors (q*, c*: the fixed point's relative error times q*; the eigenvalues': theirs times the
    larger; λ_max: its own; 16ξ = 16/log λ_max: propagated from λ_max's, 16 δλ/(λ log²λ))."""
    try:
        fp = bsb1_fixed_point(act, B)
    except DeepinitError as exc:
        return [act, None, None, None, None, None, None, None, str(exc).split(":")[0][:30]], [None] * 9
    err = float(fp.error) * abs(float(fp.q))  # the relative disagreement of the q*, q*c* integrals, as an error
    cells, errors = [act, float(fp.q), float(fp.c)], [None, err, err]
    try:
        ev = bn_jacobian_eigenvalues(act, B)
        cells += [float(ev.G), float(ev.L), float(ev.M)]
        errors += [float(ev.error) * max(abs(float(ev.L)), abs(float(ev.M)))] * 3
    except DeepinitError:
        return cells + [None, None, None, None, None, "degenerate Σ*"], errors + [None] * 6
    note = "" if ev.bsb1_stable else "BSB1 unstable"
    try:
        lam = gradient_explosion_rate(act, B)
        err = float(getattr(lam, "error", 0.0) or 0.0)
        cells += [float(lam), 16 / math.log(lam)]
        errors += [err, 16 * err / (float(lam) * math.log(lam) ** 2)]
    except DeepinitError:
        cells += [None, None]
        errors += [None, None]
        note = note or "φ discontinuous"
    return cells + [note], errors + [None]


def constants_row(act: str, B: int) -> list:
    """One table row: q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ as numbers (``None`` where undefined) and a note."""
    return constants_cells(act, B)[0]


#: the marks of the table's rows (a paper's footnote marks), and what each means
_MARKS = {"BSB1 unstable": ("†", "† BSB1 fixed point not attracting (max(|λ_𝕃|, |λ_𝕄|) ≥ 1; = 1: marginal): its "
                                 "λ_max is not a gradient rate.")}


def distinct_activations(names) -> list[tuple[str, list[str]]]:
    """Registered names grouped by the function they denote (swish = silu, linear = identity, elu = celu: equal on
    a grid of [−6, 6] to 1e-13), each group once: [(first name, [all names])]."""
    grid = np.linspace(-6, 6, 241)
    groups: list[tuple[np.ndarray, list[str]]] = []
    for nm in names:
        vals = theory.activation(nm).numpy(grid)
        for ref, members in groups:
            if np.allclose(vals, ref, rtol=1e-13, atol=1e-13):
                members.append(nm)
                break
        else:
            groups.append((vals, [nm]))
    return [(members[0], members) for _, members in groups]


def _batch_sizes(text: str) -> tuple[int, ...]:
    kind = P.batch_size(4, 1024)
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts or len(parts) > 16:
        raise ValueError("batch_sizes: 1 to 16 comma-separated batch sizes")
    return tuple(kind(p) for p in parts)


def _constants_rows(ctx: Context, perturb: float = 0.0) -> tuple[list[Evidence], list]:
    rows, tables = [], []
    requested = P.as_names(ctx.params.get("activations"))
    groups = distinct_activations(requested or theory.registered_names())
    Bs = ctx.params.get("batch_sizes") or ctx.pick((4, 8, 32), TABLE_B, TABLE_B)
    if isinstance(Bs, str):
        Bs = _batch_sizes(Bs)
    worst = 0.0
    header = ["φ", "q*", "c*", "λ_𝔾", "λ_𝕃", "λ_𝕄", "λ_max", "16ξ", "note"]
    if ctx.params.get("batch_sizes"):
        computed = f"the batch sizes asked for: B = {', '.join(map(str, Bs))}"
    elif tuple(Bs) != TABLE_B:
        computed = (f"{ctx.budget} budget: B = {', '.join(map(str, Bs))} of the {len(TABLE_B)} batch sizes of the "
                    f"standard budget, B ∈ {{{', '.join(map(str, TABLE_B))}}}")
    else:
        computed = f"{ctx.budget} budget: all {len(TABLE_B)} batch sizes"
    for B in Bs:
        body, marks, undefined = [], {}, []
        for first, members in groups:
            row, errs = constants_cells(first, B)
            name = activation_name(members)
            mark = _MARKS.get(row[-1])
            if mark:
                marks[mark[0]] = mark[1]
            elif row[-1]:
                undefined.append(f"{name} ({row[-1]})")
            row[0] = name + (mark[0] if mark else "")
            body.append(row + errs[1:8])
        # λ_𝔾 = 0 for every φ (BN is scale-invariant): said once in a note instead of an all-zero column
        zero_g = all(r[3] is None or abs(r[3]) <= max(1e-12, r[8 + 3] or 0.0) for r in body)  # r[8 + i]: i's error
        cap = (f"Constants of the BN mean-field theory [cite] at batch size B = {B}: the BSB1 fixed point q*, c*, "
               "the Jacobian eigenvalues λ_𝕃, λ_𝕄 (Theorem 6), the gradient explosion rate λ_max (Theorem 7) and "
               "the trainable depth 16ξ = 16/log(λ_max)")
        notes = ["λ_𝔾 = 0 for every φ (batch norm is scale invariant): not shown."] if zero_g else []
        notes += list(marks.values())
        if undefined:
            notes.append("— undefined: " + "; ".join(undefined) + ".")
        keep = [i for i in range(len(header)) if not (zero_g and i == 3) and header[i] != "note"]
        errcol = {keep.index(i): len(keep) + n for n, i in enumerate(k for k in keep if 1 <= k <= 7)}
        rows_out = [[r[i] for i in keep] + [r[8 + i] for i in keep if 1 <= i <= 7] for r in body]
        hdr = [header[i] for i in keep] + [f"error ({header[i]})" for i in keep if 1 <= i <= 7]
        tables.append((cap, hdr, rows_out, {"error": errcol, "notes": notes, "comment": computed}))
        for a in ("relu", "tanh", "sin", "identity"):
            fp = bsb1_fixed_point(a, B)
            q4, qc4 = memo(("theorem4_fixed_point", a, B), lambda: tbm.theorem4_fixed_point(a, B))
            worst = max(worst, _rel(q4, fp.q * (1 + perturb)), abs(qc4 - fp.q * fp.c) / fp.q)
    rows.append(Evidence("table entries q*, c*: two quadratures (θ-integrals vs sphere marginals) agree",
                         observed=worst, bound=1e-9, passed=worst < 1e-9))
    # λ_𝕃, λ_𝕄: finite differences of the Laplace map (α-ReLU); λ_max: eq (24) integrated over its ellipse
    rows += forward_eigenvalue_rows([(B, 1.0) for B in Bs] + [(8, 1.5)], label="table entries: ")
    worst_rate = 0.0
    for a in ("relu", "tanh", "sin", "gelu", "identity"):
        for B in Bs:
            printed = memo(("theorem7_rate", a, B), lambda: tbm.theorem7_rate(a, B))
            worst_rate = max(worst_rate, _rel(gradient_explosion_rate(a, B), printed))
    rows.append(Evidence("table entries λ_max: backward-map reduction vs eq (24) integrated over its ellipse "
                         f"(relu, tanh, sin, gelu, identity; B ∈ {list(Bs)})", observed=worst_rate, bound=1e-10,
                         passed=worst_rate < 1e-10))
    unstable = [f"{r[0].rstrip('†')}@{B}" for B, t in zip(Bs, tables) for r in t[2] if r[0].endswith("†")]
    rows.append(Evidence("activations whose BSB1 point is unstable (their λ_max is not a gradient rate)",
                         numeric=len(unstable), passed=None, note=", ".join(unstable) or "none"))
    return rows, tables


def control_constants(ctx: Context) -> Verdict:
    rows, _ = _constants_rows(ctx, perturb=1e-6)
    return _control(ctx, [r for r in rows if r.name.startswith("table entries q*")],
                    "q* perturbed by 1e-6 relative")


@PAPER.claim(
    "constants",
    title="Tables: BSB1 constants, Jacobian eigenvalues, λ_max and 16ξ for every registered activation",
    statement="q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max and the trainable depth 16ξ = 16/log λ_max for B ∈ {4, 5, 8, 16, 32, 64, 128}.",
    hypotheses="B ≥ 4",
    how="Computed by theory.bn_meanfield (12+ digits, each checked at two rule sizes); q*, c* cross-checked against the "
        "θ-integrals of Theorem 4. Activations with an unstable BSB1 point or a discontinuity are marked.",
    negative_control=control_constants,
    control_description="a q* perturbed by one part in a million must be caught",
    uses=("theory.bn_meanfield.bsb1_fixed_point", "theory.bn_meanfield.bn_jacobian_eigenvalues",
              "theory.bn_meanfield.gradient_explosion_rate"),
    parameters=(Parameter("activations", P.activation_names, "every registered activation (aliases once)",
                              "comma-separated activation names or formulas (kinks at 0 only)"),
                    Parameter("batch_sizes", _batch_sizes, "4,5,8,16,32,64,128",
                              "comma-separated batch sizes B (4 to 1024)")),
    depends_on=('q*', 'c*', 'lambda_L', 'lambda_M', 'lambda_max'))
def check_constants(ctx: Context) -> Verdict:
    rows, tables = _constants_rows(ctx)
    return Verdict.judged(ctx.claim_id, rows, "tables of q*, c*, λ_𝔾, λ_𝕃, λ_𝕄, λ_max, 16ξ (--latex)",
                          "the tabulated constants disagree between routes", tables=tables)

# the training claims (Theorem 9's trainability, Figs 2 and 4) and the two-batch claim are declared in their own modules
