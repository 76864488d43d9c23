"""Tables of the covariance-SDE constants."""
from __future__ import annotations

import mpmath
import sympy as sp
from theory import covariance_sde as tcs
from theory.errors import DeepinitError

from ...api import activation_name, Context, Evidence, sympy_latex, Verdict
from ._common import explosion_criterion, PAPER

# =============================================================================================
# Tables
# =============================================================================================

def _smooth_table_names():
    """Every registered activation (those not C⁴ at 0 or with σ′(0) = 0 are listed with the reason), then the
    paper's examples: 4σ − 2, arctan, and softplus shifted to [38]'s 0.41, to the threshold log(7/4), and to 1."""
    from theory import registered_names
    return tuple(registered_names()) + ("4*sigmoid(x)-2", "atan(x)", "log(1 + exp(x + 0.41))",
                                        "log(1 + exp(x + log(7/4)))", "log(1 + exp(x + 1))")


def _tables_rows(ctx: Context, perturb: bool = False):
    import theory

    body, bad = [], []
    groups: dict[str, list[str]] = {}  # one row per function, named as the papers name it (He_1(x) = x, not he1)
    for act in _smooth_table_names():
        groups.setdefault(str(theory.activation(act).expr), []).append(act)
    for members in groups.values():
        act, name = members[0], activation_name(members)
        try:
            c = explosion_criterion(act)
        except DeepinitError as exc:
            why = "not C⁴ at 0" if "C⁴" in str(exc) else "φ′(0) = 0" if "σ′" in str(exc) else str(exc)[:30]
            body.append([name, None, None, None, why, None])   # undefined: ---, the last column says why
            bad.append(act)
            continue
        tex = lambda e: sympy_latex(e) if len(str(e)) < 30 else f"{float(e):.6g}"  # noqa: E731
        body.append([name, tex(c.phi2), tex(c.phi3), float(c.value), "stable" if c.stable else "explodes", 0.0])
    nu = tcs.sde_drift_relu_like()
    relu_rows = []
    for sm in (0, sp.Rational(1, 10), sp.Rational(1, 2), 1):
        cc, s2 = tcs.relu_like_constants(1, sm)
        relu_rows.append([f"s₊ = 1, s₋ = {sm}", sp.latex(cc), sp.latex(s2)])
    shapes = [["ν(ρ)", sp.latex(nu)], ["μ(ρ)", sp.latex(-tcs.rho * (1 - tcs.rho ** 2) / 2)],
              ["σ(ρ)", sp.latex(1 - tcs.rho ** 2)],
              ["Σ(V)", r"V^{\alpha\gamma}V^{\beta\delta} + V^{\alpha\delta}V^{\beta\gamma}"]]
    # cross-check: criterion from sympy vs finite differences of the recentred activation
    worst = 0.0
    for act in ("tanh", "softplus", "gelu", "sin"):
        c = explosion_criterion(act)
        f = sp.lambdify(tcs.X, c.phi, "mpmath")
        d2 = float(mpmath.diff(f, 0, 2))
        d3 = float(mpmath.diff(f, 0, 3))
        worst = max(worst, abs(0.75 * d2 ** 2 + d3 - float(c.value)) + (1e-3 if perturb else 0.0))
    rows = [Evidence("criterion ¾φ″(0)² + φ‴(0): sympy vs mpmath numerical differentiation (tanh, softplus, gelu, sin)",
                     observed=worst, bound=1e-10, passed=worst < 1e-10)]
    tables = [("The explosion criterion ¾φ″(0)² + φ‴(0) of eq (4.1) of [cite] (stable when ≤ 0) for smooth "
               "activations, recentred to φ(0) = 0, φ′(0) = 1 when needed",
               ["φ", "φ″(0)", "φ‴(0)", "¾φ″(0)² + φ‴(0)", "verdict", "error"], body,
               {"math": [1, 2], "error": {3: 5},  # the criterion is exact (sympy): error 0
                "notes": ["verdict: what eq (4.1) says of the SDE, stable when the criterion is ≤ 0; — where "
                          "Assumption 3.5 fails (the verdict column says how: not C⁴ at 0, or φ′(0) = 0 so that "
                          "φ cannot be recentred)."]}),
              ("ReLU-like φ = s₊max(x,0) + s₋min(x,0) of [cite]: c and σ² of eq (2.6)", ["shape", "c", "σ²"],
               relu_rows, (1, 2)),
              ("Shaped ReLU-like drift and diffusion (Theorems 3.2, 3.3 of [cite])", ["coefficient", "expression"],
               shapes, (1,))]
    return rows, tables


@PAPER.claim(
    "constants",
    title="Tables: φ″(0), φ‴(0), the explosion criterion, and the ReLU-like coefficients",
    statement="For each smooth activation the quantities of eq (4.1) and whether (4.1) explodes; for ReLU-like shapes c, σ² "
        "(eq 2.6) and ν, μ, σ, Σ.",
    hypotheses="Assumption 3.5 (after recentring)",
    how="sympy derivatives, cross-checked by mpmath numerical differentiation.",
    negative_control=None,
    control_description="",
    uses=("theory.covariance_sde.explosion_criterion",
                                                      "theory.covariance_sde.relu_like_constants"),
    depends_on=('criterion',))
def check_constants(ctx: Context) -> Verdict:
    rows, tables = _tables_rows(ctx)
    return Verdict.judged(ctx.claim_id, rows, "tables of φ″(0), φ‴(0), the criterion and the ReLU-like "
                          "coefficients (--latex)", "the tabulated criterion disagrees with numerical derivatives",
                          tables=tables)


