"""``python -m verify profile ACTIVATION [...]``: everything the four theories say about an activation, side by side.

:func:`profile_activation` returns one :class:`ActivationProfile`: a list of :class:`ProfileQuantity` rows, each
with its value, its error (certified, or the stated error of the route that computed it) and how it was obtained,
or ``undefined`` with the reason when a hypothesis fails (never a silent NaN). Every number comes from the same
``theory`` functions the claims consume:

* Hermite coefficients c_0…c_K (Definition 2 of the isometry paper; ``theory.hermite_coefficients``: exact where
  sympy has closed forms, else the float route, ±1e-14 absolute) and the tail mass E σ² − Σ_{k≤K} c_k²;
* β_σ (Definition 3; exact where sympy finds a closed form, else 30-digit mpmath) and the layer-norm mean-field
  contraction: Theorem 4's rate log β_σ per layer, the asymptotic decay −2 log(2 − β_σ) of the isometry gap, and
  the depth at which eq (12)'s bound reaches a target gap (n = 10, equicorrelated ρ₀ = 0.5 by default);
* per batch size B: the BSB1 fixed point q*, c* (Theorem 4 of the BN mean-field paper), λ_𝔾, λ_𝕃, λ_𝕄 (Theorems
  1 and 6) and the fixed point's stability (max(λ_𝕃, λ_𝕄) < 1), λ_max and 16ξ (eq 24 and Fig 2);
* the distortion γ(n) of the BN finite-width paper (eq 10), as a certified enclosure;
* the covariance-SDE explosion criterion ¾φ″(0)² + φ‴(0) (Proposition 3.7) after the recentring of Section 3.2,
  and whether the SDE is stable (criterion ≤ 0).

Several activations give a comparison table (:func:`comparison_rows`) rendered as text, JSON, CSV or LaTeX with the
claims' table machinery (``verify.latex.latex_table``), and figures (:func:`write_profile_figures`).
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np

DEFAULT_BATCH_SIZES = (4, 8, 16, 32, 64, 128)
HERMITE_FLOAT_ERROR = 1e-14  # theory.hermite_coefficients(kind="float"): "good to ~1e-14 absolute"


@dataclass
class ProfileQuantity:
    """One profiled number: ``value`` ± ``error`` (``how`` says what the error means), or ``undefined`` (why)."""

    key: str                 # machine name: "beta", "lambda_max@B=32", "c_3", ...
    label: str               # what it is, in the papers' notation
    value: float | None = None
    error: float | None = None
    how: str = ""
    undefined: str = ""
    exact: str = ""          # a closed form, when there is one

    @property
    def defined(self) -> bool:
        return self.value is not None and not self.undefined

    def text(self, digits: int = 6) -> str:
        """The value with its error, ``0.457696 ±2e-12``; an exact zero (|value| within its error, or below 1e-15
        of the quantity's scale) reads ``0``."""
        if not self.defined:
            return "undefined"
        v = self.value
        if isinstance(v, float) and math.isinf(v):
            return "∞"
        if self.is_zero:
            return "0" + (f" ±{self.error:.1g}" if self.error else "")
        return f"{v:.{digits}g}" + (f" ±{self.error:.1g}" if self.error else "")

    @property
    def is_zero(self) -> bool:
        """Zero within the stated error (a Hermite coefficient of the wrong parity, λ_𝔾)."""
        if not self.defined or not isinstance(self.value, (int, float)):
            return False
        return self.value == 0 or (self.error is not None and abs(self.value) <= self.error)


#: the papers' symbols (bn-mean-field Theorem 6), as in the constants table and the figures
_SYMBOL = {"lambda_G": "λ_𝔾", "lambda_L": "λ_𝕃", "lambda_M": "λ_𝕄"}


@dataclass
class ActivationProfile:
    activation: str
    formula: str
    batch_sizes: tuple
    quantities: list = field(default_factory=list)
    seconds: float = 0.0

    def get(self, key: str) -> ProfileQuantity:
        for q in self.quantities:
            if q.key == key:
                return q
        raise KeyError(f"no quantity {key!r} in the profile of {self.activation}; keys: "
                       + ", ".join(q.key for q in self.quantities))

    def value(self, key: str) -> float | None:
        q = self.get(key)
        return q.value if q.defined else None

    def to_dict(self) -> dict:
        return {"activation": self.activation, "formula": self.formula, "batch_sizes": list(self.batch_sizes),
                "seconds": self.seconds, "quantities": [asdict(q) for q in self.quantities]}


def _undefined(key: str, label: str, exc: Exception) -> ProfileQuantity:
    return ProfileQuantity(key, label, undefined=f"undefined because {exc}")


def profile_activation(act, batch_sizes=DEFAULT_BATCH_SIZES, hermite_degree: int = 8, gap: float = 1e-3,
                       n: int = 10, rho0: float = 0.5) -> ActivationProfile:
    """The :class:`ActivationProfile` of one activation (a registry name, a whitelisted formula or an Activation)."""
    import time

    import theory
    from theory import bn_meanfield as tbm
    from theory import validate
    from theory.errors import DeepinitError

    start = time.monotonic()
    a = theory.activation(act)
    Bs = tuple(validate.integer(B, "batch size B", 4, validate.MAX_BATCH, "the BSB1 fixed point needs B ≥ 4")
               for B in batch_sizes)
    K = validate.integer(hermite_degree, "Hermite degree K", 0, 200)
    gap = float(gap)
    if not (0 < gap < 1):
        raise DeepinitError(f"the target isometry gap must be in (0, 1), got {gap!r}")
    n = validate.integer(n, "batch size n", 2, 1000)
    prof = ActivationProfile(a.name, str(a.expr), Bs)
    Qs = prof.quantities

    # --- Hermite spectrum (isometry paper, Definition 2)
    try:
        c = np.asarray(theory.hermite_coefficients(a, K, kind="float"), dtype=float)
        try:  # closed forms where sympy has them (relu, sin, selu, polynomials…): exact, error 0
            exact = theory.hermite_coefficients(a, K, kind="exact") if K <= 40 else None
        except DeepinitError:
            exact = None
        for k, ck in enumerate(c):
            if exact is not None:
                Qs.append(ProfileQuantity(f"c_{k}", f"Hermite coefficient c_{k}", float(exact[k]), 0.0,
                                          "exact (sympy)", exact=str(exact[k])))
            else:
                Qs.append(ProfileQuantity(f"c_{k}", f"Hermite coefficient c_{k}", float(ck), HERMITE_FLOAT_ERROR,
                                          "Gauss–Hermite quadrature (float route, absolute error ~1e-14)"))
        if exact is not None:
            c = np.array([float(v) for v in exact])
    except DeepinitError as exc:
        c = None
        Qs.append(_undefined("c_0", "Hermite coefficients", exc))

    # --- β_σ and the layer-norm mean-field contraction (isometry paper, Definition 3, Theorem 4)
    beta = None
    try:
        b = theory.isometry_strength(a)
        beta = float(b.value)
        exact = "" if b.exact is None else str(b.exact)
        err = 0.0 if b.exact is not None else b.error   # a closed form is exact; its float is not the point here
        Qs.append(ProfileQuantity("beta", "isometry strength β_σ", beta, err, b.method, exact=exact))
        if c is not None:
            total = float(b.variance) + float(c[0]) ** 2   # E σ² = Var σ + (E σ)²
            label = f"Hermite tail mass E σ² − Σ_(k≤{K}) c_k²"
            with np.errstate(over="ignore", invalid="ignore"):
                tail = total - float(np.sum(c * c))
            if math.isfinite(tail):
                Qs.append(ProfileQuantity(f"hermite_tail@K={K}", label, max(tail, 0.0),
                                          2 * (K + 1) * HERMITE_FLOAT_ERROR * max(1.0, math.sqrt(total)),
                                          "E σ² by quadrature minus the float coefficients"))
            else:
                Qs.append(ProfileQuantity(f"hermite_tail@K={K}", label, undefined=(
                    f"undefined because E σ² = {total:.3g} or Σ c_k² overflows float64 (the tail is their difference)")))
    except DeepinitError as exc:
        Qs.append(_undefined("beta", "isometry strength β_σ", exc))
    if beta is not None:
        if beta <= 1.0 + 1e-15:
            why = "undefined because β_σ = 1 (σ affine): Theorem 4 predicts no decay"
            for key, label in (("ln_rate", "Theorem 4 rate log β_σ per layer"),
                               ("ln_gap_rate", "asymptotic gap decay −2 log(2 − β_σ)"),
                               (f"ln_depth@gap={gap:g}", f"depth where eq (12)'s bound reaches gap {gap:g}")):
                Qs.append(ProfileQuantity(key, label, undefined=why))
        else:
            G0 = (1 - rho0) * np.eye(n) + rho0
            C = -n * float(theory.log_isometry(G0)) + math.log(4 * n)
            Qs.append(ProfileQuantity("ln_rate", "Theorem 4 rate log β_σ per layer", math.log(beta), 1e-15,
                                      "from β_σ"))
            Qs.append(ProfileQuantity("ln_gap_rate", "asymptotic gap decay −2 log(2 − β_σ) per layer",
                                      -2 * math.log(2 - beta) if beta < 2 else math.inf, 1e-15,
                                      "linearisation of the mean-field map at G = I"))
            depth = (C - math.log(gap)) / math.log(beta)
            Qs.append(ProfileQuantity(f"ln_depth@gap={gap:g}",
                                      f"depth where eq (12)'s bound reaches gap {gap:g} (n = {n}, ρ₀ = {rho0:g})",
                                      depth, 1e-12 * depth,
                                      "(−n log 𝓘(G0) + log 4n − log gap)/log β_σ (the corrected depth condition)"))

    # --- BN mean field per batch size (bn-mean-field Theorems 1, 4, 6, 7)
    for B in Bs:
        tag = f"@B={B}"
        try:
            fp = theory.bsb1_fixed_point(a, B)
            Qs.append(ProfileQuantity("q*" + tag, f"BSB1 q* (B = {B})", fp.q, fp.error, "sphere quadrature, two sizes"))
            Qs.append(ProfileQuantity("c*" + tag, f"BSB1 c* (B = {B})", fp.c, fp.error / max(fp.q, 1e-300),
                                      "sphere quadrature, two sizes"))
        except DeepinitError as exc:
            Qs.append(_undefined("q*" + tag, f"BSB1 q* (B = {B})", exc))
            continue
        try:
            ev = theory.bn_jacobian_eigenvalues(a, B)
            for k, v in (("lambda_G", ev.G), ("lambda_L", ev.L), ("lambda_M", ev.M)):
                Qs.append(ProfileQuantity(k + tag, f"{_SYMBOL[k]} (B = {B})", float(v), ev.error,
                                          "Jacobian quadrature, two sizes"))
            worst = max(ev.L, ev.M)
            Qs.append(ProfileQuantity("bsb1_stable" + tag, f"BSB1 stable: max(λ_𝕃, λ_𝕄) < 1 (B = {B})",
                                      1.0 if worst < 1 else 0.0, None,
                                      f"max(λ_𝕃, λ_𝕄) = {worst:.6g}" + (" (within the error of 1: undecided)"
                                                                          if abs(worst - 1) <= ev.error else "")))
        except DeepinitError as exc:
            Qs.append(_undefined("lambda_L" + tag, f"λ_L (B = {B})", exc))
        try:
            lam, err = tbm.gradient_explosion_rate_error(a, B)
            unstable = any(q.key == "bsb1_stable" + tag and q.value == 0.0 for q in Qs)
            caveat = (" — BSB1 is unstable at this B: the network does not converge to the fixed point λ_max is "
                      "computed at, so λ_max and 16ξ do not describe it (as bn-mean-field:constants says)"
                      if unstable else "")
            Qs.append(ProfileQuantity("lambda_max" + tag, f"λ_max (B = {B})" + (" [BSB1 unstable]" if unstable else ""),
                                      lam, err, "eq (24) quadrature, two sizes" + caveat))
            xi = math.inf if lam <= 1 else 16.0 / math.log(lam)
            xerr = 0.0 if math.isinf(xi) else 16.0 * err / (lam * math.log(lam) ** 2)
            Qs.append(ProfileQuantity("16xi" + tag, f"16ξ, the maximal trainable depth (B = {B})"
                                      + (" [BSB1 unstable]" if unstable else ""), xi, xerr,
                                      "16/log λ_max (∞ when λ_max ≤ 1)" + caveat))
        except DeepinitError as exc:
            Qs.append(_undefined("lambda_max" + tag, f"λ_max (B = {B})", exc))

    # --- distortion γ(n) (bn-finite-width eq 10): certified enclosure
    for B in Bs:
        try:
            d = theory.distortion(a, B)
            Qs.append(ProfileQuantity(f"gamma@n={B}", f"distortion γ(n = {B})", 0.5 * (d.lower + d.upper),
                                      0.5 * (d.upper - d.lower), "certified enclosure [lower, upper]"))
        except DeepinitError as exc:
            Qs.append(_undefined(f"gamma@n={B}", f"distortion γ(n = {B})", exc))

    # --- covariance SDE (Proposition 3.7)
    try:
        crit = theory.explosion_criterion(a)
        Qs.append(ProfileQuantity("sde_criterion", "SDE criterion ¾φ″(0)² + φ‴(0)", float(crit.value), 0.0,
                                  "sympy, exact" + (f"; {crit.recentred}" if crit.recentred else ""),
                                  exact=str(crit.value)))
        Qs.append(ProfileQuantity("sde_stable", "covariance SDE stable (criterion ≤ 0)", 1.0 if crit.stable else 0.0,
                                  None, "Proposition 3.7"))
    except DeepinitError as exc:
        Qs.append(_undefined("sde_criterion", "SDE criterion ¾φ″(0)² + φ‴(0)", exc))
    prof.seconds = time.monotonic() - start
    return prof


def terminal_rows(profiles: list[ActivationProfile], digits: int = 6) -> tuple[list[str], list[list[str]]]:
    """:func:`comparison_rows` as text for the terminal: every value with its error (``±``), exact zeros as 0."""
    header, rows = comparison_rows(profiles, digits)
    out = []
    for row in rows:
        label, cells = row[0], []
        key = next(q.key for p in profiles for q in p.quantities if q.label == label)
        for p, cell in zip(profiles, row[1:]):
            try:
                q = p.get(key)
            except KeyError:
                cells.append("")
                continue
            cells.append(q.text(digits) if isinstance(cell, float) else str(cell))
        out.append([label, *cells])
    return header, out


def comparison_rows(profiles: list[ActivationProfile], digits: int = 6) -> tuple[list[str], list[list]]:
    """One row per quantity, one column per activation (the union of the keys, in first-seen order)."""
    keys, labels = [], {}
    for p in profiles:
        for q in p.quantities:
            if q.key not in labels:
                keys.append(q.key)
                labels[q.key] = q.label
    header = ["quantity"] + [p.activation for p in profiles]
    rows = []
    for k in keys:
        row = [labels[k]]
        for p in profiles:
            try:
                q = p.get(k)
            except KeyError:
                row.append("")
                continue
            if not q.defined:
                row.append("undefined")
            elif k.startswith(("bsb1_stable", "sde_stable")):
                row.append("yes" if q.value else "no")
            elif isinstance(q.value, float) and math.isinf(q.value):
                row.append("inf")
            else:
                row.append(float(f"{q.value:.{digits}g}"))
        rows.append(row)
    return header, rows


def undefined_notes(profiles: list[ActivationProfile]) -> list[str]:
    out = []
    for p in profiles:
        for q in p.quantities:
            if q.undefined:
                out.append(f"{p.activation}: {q.label}: {q.undefined}")
    return out


def write_profile_figures(profiles: list[ActivationProfile], directory: str, style: str | None = None) -> dict:
    """σ̂(ρ) and σ̄(ρ)/σ̄(1), λ_max and 16ξ against B, and the Hermite spectrum (PNG + PDF + CSV), in the figure
    ``style`` (``default``, ``neurips``, ``icml``, ``iclr``: verify.figures.make_figure; ``profile --figure-style``)."""
    import theory

    from .figures import Panel, Series, write_figure
    rho = np.linspace(-1, 1, 201)
    dual, reduced, lam, xi, herm = [], [], [], [], []
    for p in profiles:
        try:
            dual.append(Series(p.activation, rho, np.asarray(theory.dual_activation(p.activation, rho), float),
                               "theory", p.activation))
            sb = np.asarray(theory.mean_reduced_dual(p.activation, rho), float)
            if sb[-1] > 0:
                reduced.append(Series(p.activation, rho, sb / sb[-1], "theory", p.activation))
        except Exception:  # noqa: BLE001 — a dual that cannot be computed is left out of the plot, not fatal
            pass
        Bs = [B for B in p.batch_sizes if p.value(f"lambda_max@B={B}") is not None]
        if Bs:
            lam.append(Series(p.activation, np.array(Bs, float), np.array([p.value(f"lambda_max@B={B}") for B in Bs]),
                              "theory", p.activation))
            xs = [p.value(f"16xi@B={B}") for B in Bs]
            xi.append(Series(p.activation, np.array(Bs, float),
                             np.array([x if x is not None and math.isfinite(x) else np.nan for x in xs]),
                             "theory", p.activation))
        ks = [q for q in p.quantities if q.key.startswith("c_") and q.defined]
        if ks:
            # |c_k| within the float route's error (1e-14) of 0 is a zero: not drawn on the log axis
            herm.append(Series(p.activation, np.arange(len(ks), dtype=float),
                               np.array([q.value ** 2 if abs(q.value) > 10 * HERMITE_FLOAT_ERROR else 0.0
                                         for q in ks]), "simulation", p.activation, draw="points"))
    panels = [Panel("dual activation", r"$\rho$", r"$\hat\sigma(\rho)$", dual),
              Panel("mean-reduced dual, normalised", r"$\rho$", r"$\bar\sigma(\rho)/\bar\sigma(1)$", reduced),
              Panel("gradient explosion rate", r"batch size $B$", r"$\lambda_{\max}$", lam, logx=True),
              Panel("maximal trainable depth", r"batch size $B$", r"$16\xi$", xi, logx=True),
              Panel("Hermite spectrum", r"$k$", r"$c_k^2$", herm, logy=True)]
    return write_figure(directory, "activation_profile", [p for p in panels if p.series],
                        "activation profile: " + ", ".join(p.activation for p in profiles), style=style)


# --------------------------------------------------------------------------------------------
# LaTeX (``profile --latex``): three tables whose columns are each one quantity
# --------------------------------------------------------------------------------------------

#: the most Hermite coefficients in one table when each activation is a row (ten columns do not fit a page)
HERMITE_COLUMNS = 5


def _table_kind(key: str) -> str:
    """Which of :func:`latex_tables`' tables shows the quantity ``key``: the Hermite coefficients, the per-activation
    strength table, or the per-batch-size one."""
    if key.startswith("c_"):
        return "hermite"
    return "batch" if "@B=" in key else "distortion" if "@n=" in key else "strength"


def interval_text(lower: float, upper: float) -> str:
    """A certified enclosure as ``[lower, upper]``, its ends rounded outwards at the second significant digit of
    its width, without padding zeros: ``interval_text(1.0, 1.0002009798)`` is ``'[1, 1.00021]'``."""
    width = upper - lower
    if not width > 0:
        return f"[{lower:.15g}, {upper:.15g}]"
    place = math.floor(math.log10(width)) - 1
    step = 10.0 ** place
    # outwards, but an end already on the grid (to rounding: midpoint ± half-width) stays where it is
    lo, hi = lower / step, upper / step
    lo = round(lo) if abs(lo - round(lo)) < 1e-6 else math.floor(lo)
    hi = round(hi) if abs(hi - round(hi)) < 1e-6 else math.ceil(hi)
    lo, hi = lo * step, hi * step
    decimals = max(0, -place)

    def text(x: float) -> str:
        t = f"{x:.{decimals}f}"
        return t.rstrip("0").rstrip(".") if "." in t else t
    return f"[{text(lo)}, {text(hi)}]"


def _cell(p: ActivationProfile, key: str) -> tuple:
    """(value, error) of ``key`` for the LaTeX tables: ``None`` where undefined or absent, ``inf`` kept."""
    try:
        q = p.get(key)
    except KeyError:
        return None, None
    if not q.defined:
        return None, None
    return q.value, q.error


def _key(p: ActivationProfile, prefix: str) -> str | None:
    return next((q.key for q in p.quantities if q.key.startswith(prefix)), None)


def latex_tables(profiles: list[ActivationProfile]) -> list[tuple]:
    """The profile as ``tables`` entries (:func:`verify.latex.table_options`): the Hermite coefficients (one column
    per activation), the per-activation constants (one row per activation, one column per quantity) and the BN
    mean-field constants and distortion per batch size (one row per activation and B) — each column one quantity
    in one notation, errors merged as ``value(error)``, exact zeros as 0, the papers' symbols and names."""
    from .latex import activation_name
    names = [activation_name(p.activation) for p in profiles]
    tables = []
    # 1. Hermite coefficients c_k: one column (and a hidden error column) per activation
    K = max((sum(q.key.startswith("c_") for q in p.quantities) for p in profiles), default=0)
    hermite = ("Hermite coefficients c_k (Definition 2 of [cite:isometry]): exact where sympy has a closed form, else "
               "by quadrature (error below 1e-14); 0 where a coefficient vanishes by parity")
    if K and len(profiles) <= 4:  # a column per activation
        header, rows, errors = ["k"], [[k] for k in range(K)], {}
        for p, nm in zip(profiles, names):
            header += [nm, f"error ({nm})"]
            errors[len(header) - 2] = len(header) - 1
            for k in range(K):
                rows[k] += list(_cell(p, f"c_{k}"))
        tables.append((hermite, header, rows, {"error": errors, "kind": "hermite"}))
    elif K:  # many activations: a row each (the table grows down the page, not off it), five c_k per table
        for first in range(0, K, HERMITE_COLUMNS):
            ks = range(first, min(K, first + HERMITE_COLUMNS))
            header, rows, errors = ["σ"], [[nm] for nm in names], {}
            for k in ks:
                header += [f"c_{k}", f"error (c_{k})"]
                errors[len(header) - 2] = len(header) - 1
                for r, p in zip(rows, profiles):
                    r += list(_cell(p, f"c_{k}"))
            cap = hermite + (f" (k = {ks[0]}–{ks[-1]})" if K > HERMITE_COLUMNS else "")
            tables.append((cap, header, rows, {"error": errors, "kind": "hermite"}))
    # 2. one row per activation: isometry strength, its consequences, the Hermite tail and the SDE criterion
    p0 = profiles[0]
    depth_key, tail_key = _key(p0, "ln_depth@gap="), _key(p0, "hermite_tail@K=")
    gap = depth_key.split("=", 1)[1] if depth_key else ""
    Kt = tail_key.split("=", 1)[1] if tail_key else ""
    cols = [("beta", "β_σ"), ("ln_rate", "log β_σ"), ("ln_gap_rate", "−2 log(2 − β_σ)"), (depth_key, "depth"),
            (tail_key, "tail"), ("sde_criterion", "¾φ″(0)² + φ‴(0)"), ("sde_stable", "SDE stable")]
    cols = [(k, h) for k, h in cols if k]
    header, rows, errors = ["σ"], [[nm] for nm in names], {}
    for key, head in cols:
        if key == "sde_stable":
            header.append(head)
            for r, p in zip(rows, profiles):
                v, _ = _cell(p, key)
                r.append("—" if v is None else "yes" if v else "no")
            continue
        header += [head, f"error ({head})"]
        errors[len(header) - 2] = len(header) - 1
        for r, p in zip(rows, profiles):
            r += list(_cell(p, key))
    tables.append((f"Isometry strength β_σ (Definition 3 of [cite:isometry]) and the layer-norm contraction of "
                   f"its Theorem 4 — the rate log(β_σ) and the asymptotic gap decay −2 log(2 − β_σ) per layer, the "
                   f"depth at which the bound of eq (12) reaches the gap {gap} (n = 10, ρ₀ = 0.5); the Hermite tail "
                   f"E σ² − Σ_(k≤{Kt}) c_k²; the covariance-SDE criterion of Proposition 3.7 of [cite:covariance-sde] "
                   "(stable when ≤ 0)",
                   header, rows, {"error": errors, "kind": "strength"}))
    # 3. per batch size: BSB1 fixed point, Jacobian eigenvalues, gradient explosion and distortion
    Bs = list(dict.fromkeys(B for p in profiles for B in p.batch_sizes))
    quantities = [("q*@B=", "q*"), ("c*@B=", "c*"), ("lambda_G@B=", "λ_𝔾"), ("lambda_L@B=", "λ_𝕃"),
                  ("lambda_M@B=", "λ_𝕄"), ("bsb1_stable@B=", "stable"), ("lambda_max@B=", "λ_max"),
                  ("16xi@B=", "16ξ")]
    zero_g = all((_cell(p, f"lambda_G@B={B}")[0] or 0.0) == 0.0 or
                 abs(_cell(p, f"lambda_G@B={B}")[0]) <= (_cell(p, f"lambda_G@B={B}")[1] or 0.0)
                 for p in profiles for B in p.batch_sizes)
    if zero_g:
        quantities = [q for q in quantities if q[1] != "λ_𝔾"]
    header, rows, errors = ["φ", "B"], [], {}  # the BN mean-field paper's letter, as bn-mean-field:constants
    for prefix, head in quantities:
        if head == "stable":
            header.append(head)
        else:
            header += [head, f"error ({head})"]
            errors[len(header) - 2] = len(header) - 1
    for p, nm in zip(profiles, names):
        for B in p.batch_sizes:
            r = [nm, B]
            for prefix, head in quantities:
                v, e = _cell(p, f"{prefix}{B}")
                if head == "stable":
                    r.append("—" if v is None else "yes" if v else "no")
                else:
                    r += [v, e]
            rows.append(r)
    tables.append((f"Constants of the BN mean-field theory [cite:bn-mean-field] at B ∈ {{{', '.join(map(str, Bs))}}}: "
                   "the BSB1 fixed point q*, c*, the Jacobian eigenvalues λ_𝕃, λ_𝕄 (BSB1 stable when max(λ_𝕃, λ_𝕄) "
                   "< 1), the gradient explosion rate λ_max and the trainable depth 16ξ = 16/log(λ_max), meaningful "
                   "where BSB1 is stable"
                   + ("; λ_𝔾 = 0 throughout (batch norm is scale invariant), not shown" if zero_g else ""),
                   header, rows, {"error": errors, "group": 0, "kind": "batch"}))
    # 4. the distortion γ of the BN finite-width paper: a certified enclosure, its two ends (never a midpoint:
    # ReLU's γ = 1 is the lower end); a column per activation for a few, else a row per activation and n
    cap = "Distortion γ of eq (10) of [cite:bn-finite-width] at batch size n, as a certified enclosure"
    if len(profiles) <= 4:
        header = ["n", *names]
        rows = [[B] + [_interval_cell(p, B) for p in profiles] for B in Bs]
        tables.append((cap, header, rows, {"kind": "distortion"}))
    else:
        rows = [[nm, B, _interval_cell(p, B)] for p, nm in zip(profiles, names) for B in p.batch_sizes]
        tables.append((cap, ["φ", "n", "γ"], rows, {"group": 0, "kind": "distortion"}))
    return tables


def _interval_cell(p: ActivationProfile, B: int) -> str:
    """γ(n = B) of ``p`` as ``[lower, upper]`` (:func:`interval_text`), or — where undefined."""
    v, e = _cell(p, f"gamma@n={B}")
    return "—" if v is None else interval_text(v - e, v + e)


def render_latex(profiles: list[ActivationProfile], digits: int | None = None, standalone: bool = False,
                 cites: dict | None = None, label_prefix: str | None = None) -> str:
    """``profile --latex``: :func:`latex_tables` as booktabs tables (``verify.latex.latex_table``; ``digits``
    ``None``: each value to its error's place, ``verify.latex.format_column``), the undefined quantities and why in
    a note inside each table's float; captions cite the papers (``cites``: {paper key: BibTeX key}, default each
    paper's ``cite_key``); labels ``tab:profile:<activations>:<k>`` or ``<label_prefix>:<k>``; a fragment to
    ``\\input`` or, with ``standalone``, a document."""
    from .latex import _label, activation_name, document, latex_table
    from .registry import papers
    keys = {k: p.cite_key for k, p in papers().items()}
    keys.update(cites or {})
    names = "-".join(p.activation for p in profiles)
    tables = latex_tables(profiles)
    body = []
    for k, (cap, header, rows, opts) in enumerate(tables, 1):
        kind = opts.get("kind")
        # each table's undefined quantities, and why, in a note inside its float
        # one note per reason, naming the activations it holds for (the reason says "φ" for each of them)
        reasons: dict[tuple[str, str], tuple[list[str], str]] = {}
        for p in profiles:
            for q in p.quantities:
                if q.undefined and _table_kind(q.key) == kind:
                    why = re.sub(rf"\b{re.escape(p.activation)}\b", "φ", q.undefined)
                    label = re.sub(r"\s*\((?:B|n) = \d+\)", "", q.label)
                    # one reason whatever its numbers (a degenerate q*(1 − c*) of 2.2e-16 or 4.4e-16): the first's text
                    key = (label, re.sub(r"\d+(?:\.\d+)?(?:e-?\d+)?", "#", why))
                    names_, _ = reasons.setdefault(key, ([], why))
                    if activation_name(p.activation) not in names_:
                        names_.append(activation_name(p.activation))
        if reasons:
            notes = [f"— {label} of {(('; ' if any('=' in n for n in who) else ', ').join(who))}: {why}."
                     for (label, _), (who, why) in reasons.items()]
            opts = {**opts, "notes": list(opts.get("notes") or ()) + notes}
        label = f"{label_prefix}:{k}" if label_prefix else _label("profile", names[:80], k)
        body.append(latex_table(cap, header, rows, label, opts, digits, cite=keys))
    return document(body, standalone)
