"""The infinite-width NNGP kernel and NTK of :func:`theory.network_kernels`, with the layers run by torch on a device.

The mathematics and the error estimate are those of :mod:`theory.kernels` — the same route objects, written once for
any array-API namespace (``array_api_compat``); here they receive torch tensors. Cost per layer: n(n+1)/2 pairs, each
O(1) for the closed forms and 16² atan2 for the tanh/sigmoid mixture, so a GPU pays off for large input sets
(n in the thousands: 8·10⁶ pairs per layer at n = 4096); on a CPU numpy is as fast or faster for small sets (torch's
per-call overhead; docs/benchmarks.md). The pair-by-pair quadrature route (activations without a closed form or
mixture) runs on the host whatever the device.

Precision: float64 on every device; a kernel computed on CUDA equals the numpy one within the stated errors (the
transcendental functions of the two libraries differ by an ulp or so, which the error runs measure).
"""
from __future__ import annotations

import array_api_compat.torch as torch_namespace

from theory import kernels as _kernels

from .isometry_mlp import default_device
from .threads import intra_op_threads

__all__ = ["network_kernels_on_device"]


def network_kernels_on_device(act, inputs=None, depth: int = 1, sigma_w2: float = 1.0, sigma_b2: float = 0.0,
                              keep: float = 1.0, *, input_gram=None, ntk: bool = True, device=None):
    """:func:`theory.network_kernels` with every layer's pairs evaluated by torch on ``device``.

    Parameters
    ----------
    act, inputs, depth, sigma_w2, sigma_b2, keep, input_gram, ntk
        As :func:`theory.network_kernels`.
    device : str, optional
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``, … or ``None``/``"auto"`` (CUDA when available).

    Returns
    -------
    theory.NetworkKernels
        The kernels as numpy arrays on the host, with their errors; the same object as the numpy route returns.

    Examples
    --------
    >>> import numpy as np
    >>> from theory import network_kernels
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> on_cpu = network_kernels_on_device("erf", X, depth=10, sigma_w2=2.0, device="cpu")
    >>> ref = network_kernels("erf", X, depth=10, sigma_w2=2.0)
    >>> bool(np.all(np.abs(on_cpu.ntk.value - ref.ntk.value) <= ref.ntk.error))
    True
    """
    dev = default_device(device)
    given = inputs if inputs is not None else input_gram
    n = len(given) if hasattr(given, "__len__") else 1
    # one intra-op thread for small sets (torch's per-op threading costs more than it gains there): about 16
    # numbers per pair and layer
    with intra_op_threads(16 * n * (n + 1) / 2):
        return _kernels.network_kernels(act, inputs, depth, sigma_w2, sigma_b2, keep, input_gram=input_gram, ntk=ntk,
                                        xp=torch_namespace, device=dev)
