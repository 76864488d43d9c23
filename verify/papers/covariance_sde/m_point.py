"""Beyond the printed text — the m-point covariance SDE (m = 3)."""
from __future__ import annotations

import math

import numpy as np

from ...api import Context, Evidence, shared, Verdict
from ._common import _control, _ks_row, _mean_row, ncs, PAPER, stats

# =============================================================================================
# Beyond the printed text: the m-point covariance SDE (m = 3) and the network-to-SDE distance as width grows
# =============================================================================================

MPOINT_V0 = np.array([[1.0, 0.3, 0.6], [0.3, 1.0, -0.2], [0.6, -0.2, 1.0]])


def _correlations(V: np.ndarray) -> np.ndarray:
    """[samples, m, m] covariances → correlation matrices."""
    d = np.sqrt(np.clip(np.einsum("pii->pi", V), 1e-300, None))
    return np.clip(V / (d[:, :, None] * d[:, None, :]), -1, 1)


@shared
def _mpoint_network(n: int, samples: int, seed: int):
    shape = ncs.Shape("relu", n, c_plus=0.0, c_minus=-1.0)
    return ncs.simulate_shaped_network(shape, n, MPOINT_V0, samples, seed=seed, layers=[0, n])


def _mpoint_rows(ctx: Context, omit_nu: bool = False) -> list[Evidence]:
    samples = ctx.pick(2048, 8192, 16384)
    widths = ctx.pick((50, 150), (50, 100, 200), (50, 100, 200, 400))
    # ν unperturbed: at these sample sizes the means resolve ≈0.1 in a correlation, far more than ±5% of ν moves them;
    # the control removes the drift (δ = −100%), the resolution this claim has
    drift = ncs.covariance_drift("none" if omit_nu else "relu", c_plus=0.0, c_minus=-1.0)
    sde = ncs.simulate_covariance_sde(drift, MPOINT_V0, 1.0, 1e-2, samples, scheme="wishart", seed=ctx.seed + 41,
                                      keep="last")
    R_sde = _correlations(sde.values[:, -1])
    tag = " (ν omitted)" if omit_nu else ""
    rows = []
    n = widths[-1]
    net = _mpoint_network(n, samples, ctx.seed + 43)
    R_net = _correlations(net.V[:, -1])
    for i, j in ((0, 1), (0, 2), (1, 2)):
        name = f"ρ^{{{i + 1}{j + 1}}}"
        rows.append(_mean_row(f"m = 3, mean of {name} at T = 1: network (n = d = {n}) vs the 3-point covariance SDE{tag}",
                              R_net[:, i, j], R_sde[:, i, j], n))
        rows.append(_ks_row(f"m = 3, law of {name} at T = 1: network vs SDE{tag}", R_net[:, i, j], R_sde[:, i, j]))
    det_net, det_sde = np.linalg.det(R_net), np.linalg.det(R_sde)
    rows.append(_mean_row(f"m = 3, mean of det(correlation matrix) at T = 1 (a joint statistic of the three inputs): "
                          f"network vs SDE{tag}", det_net, det_sde, n))
    rows.append(_ks_row(f"m = 3, law of det(correlation matrix) at T = 1: network vs SDE{tag}", det_net, det_sde))
    # the distance between network and SDE as the width grows (the KS-vs-width study): informational, the limit
    # itself is judged at the largest width above
    ds = []
    for w in widths:
        Rw = _correlations(_mpoint_network(w, samples, ctx.seed + 43 + w).V[:, -1]) if w != n else R_net
        ds.append(float(stats.ks_2samp(Rw[:, 0, 1], R_sde[:, 0, 1]).statistic))
    floor = 1.36 * math.sqrt(2.0 / samples)
    rows.append(Evidence(f"KS distance of ρ^{{12}} (network vs SDE) as width grows, n = d ∈ {list(widths)}{tag}",
                         numeric=ds[-1], samples=samples, passed=None,
                         note="D = " + ", ".join(f"{d:.4f} (n = {w})" for w, d in zip(widths, ds))
                              + f"; the two-sample sampling floor (95%) is {floor:.4f}"))
    return rows


def control_m_point(ctx: Context) -> Verdict:
    return _control(ctx, _mpoint_rows(ctx, omit_nu=True), "the SDE without its drift ν")


@PAPER.claim(
    "m-point",
    title="The covariance SDE for m = 3 inputs (beyond the printed text: the appendix is missing)",
    statement="Theorem 3.2 is stated for any number m of inputs: V_⌊tn⌋ → the m×m covariance SDE dV = b(V)dt + Σ(V)^{1/2}dB. "
        "The paper shows only m = 2 (its appendices, with the m-point proof, are not in the text); checked here for m = 3, "
        "including a joint statistic no pair determines, and the network–SDE distance as the width grows.",
    hypotheses="Definition 3.1 shaping (c₊ = 0, c₋ = −1), d/n = T = 1",
    how="Networks (exact-in-law, n = d) with three inputs of correlations 0.3, 0.6, −0.2 against the 3×3 covariance SDE "
        "(PSD-preserving Wishart scheme, dt = 1e-2): means of the three correlations and of det(correlation matrix) by "
        "a two-sample 99.9% interval, their laws by KS (α = 0.001), at the largest width; the KS distance of ρ¹² at every "
        "width is informational. Control: the same with ν omitted (the linear-network SDE) must be rejected — the resolution "
        "of this claim is the drift's presence; ±5% of ν moves the means far less than the 99.9% intervals (≈0.1).",
    negative_control=control_m_point,
    control_description="the SDE without its drift ν (the linear-network limit) must be rejected",
    uses=("numerics.covariance_sde.simulate_shaped_network", "numerics.covariance_sde.simulate_covariance_sde",
              "numerics.covariance_sde.covariance_drift"),
    depends_on=())
def check_m_point(ctx: Context) -> Verdict:
    return Verdict.judged(ctx.claim_id, _mpoint_rows(ctx),
                          "three inputs: the shaped ReLU network's correlations and their joint law match the 3-point "
                          "covariance SDE; the KS distance is reported against width", "the m = 3 SDE does not match")


