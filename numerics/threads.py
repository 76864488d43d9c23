"""The simulators' intra-op thread policy.

Per-layer work of a few 10⁴–10⁶ numbers gains nothing from torch's intra-op threads, and loses badly when another
process competes for the cores: the exact BN chain (d = 1000, n = 10, depth 60, 4 seeds) takes 0.09 s with one
thread but 0.9–4.8 s with torch's default two threads while one other process is busy (docs/benchmarks.md measures
this quiet and contended). Every simulator therefore runs its layer loop under :func:`intra_op_threads`, which
chooses the thread count from the work per layer:

* ``DEEPINIT_THREADS=N`` (the CLI's ``--threads N``): exactly N threads for every simulator;
* unset or ``auto``: one thread below :data:`WORK_PER_THREAD` numbers per layer, else one more thread per
  :data:`WORK_PER_THREAD`, up to the cores this process may use (``os.sched_getaffinity``) and at most
  :data:`MAX_AUTO_THREADS`.

The choice depends on the problem size and the setting only — never on how many ``--jobs`` or Dask workers run — so a
seed gives the same numbers whatever the scheduler: torch's elementwise ops and matrix products are bitwise the same
for any thread count, but its full reductions are not (a sum over 4·10⁶ numbers differs by 3e-12 between one and
two threads, measured with torch 2.13 on 2 cores). Two machines with different core counts may choose differently
for large widths; ``--threads N`` pins it.
"""
from __future__ import annotations

import contextlib
import os

import torch

from theory import validate

ENV = "DEEPINIT_THREADS"
#: numbers handled per layer (e.g. seeds × width × batch) that justify one intra-op thread
WORK_PER_THREAD = 1 << 22
MAX_AUTO_THREADS = 8


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def setting() -> int | None:
    """The thread count pinned by ``DEEPINIT_THREADS`` (None for ``auto``/unset); a bad value is a clear error."""
    return validate.thread_setting(os.environ.get(ENV, ""), ENV + "=")


def threads_for(work_per_layer: float) -> int:
    """Intra-op threads for a loop whose layers each handle ``work_per_layer`` numbers (module docstring)."""
    pinned = setting()
    if pinned is not None:
        return pinned
    want = 1 + int(max(0.0, float(work_per_layer)) // WORK_PER_THREAD)
    return max(1, min(want, available_cores(), MAX_AUTO_THREADS))


@contextlib.contextmanager
def intra_op_threads(work_per_layer: float | None = None, *, threads: int | None = None, blas: bool = False):
    """Run the block with torch's intra-op thread count set by the policy (or to ``threads``), then restore it.

    ``blas=True`` also sets numpy's BLAS (OpenBLAS/MKL, through threadpoolctl) to the same count: the theory side's
    numpy products then give the same bits in any process (a Dask worker starts with OMP_NUM_THREADS=1, a shell
    with one BLAS thread per core, and BLAS reductions depend on the thread count)."""
    n = int(threads) if threads is not None else threads_for(work_per_layer or 0)
    old = torch.get_num_threads()
    if n != old:
        torch.set_num_threads(n)
    limits = contextlib.nullcontext()
    if blas:
        from threadpoolctl import threadpool_limits
        limits = threadpool_limits(limits=n, user_api="blas")
    try:
        with limits:
            yield n
    finally:
        if n != old:
            torch.set_num_threads(old)
