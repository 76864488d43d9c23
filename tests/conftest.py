import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# tests compute every verdict (the on-disk verdict cache is tested on its own, in a temporary directory); the
# variable is inherited by the CLI subprocesses the tests start
os.environ["DEEPINIT_NO_CACHE"] = "1"
# one intra-op thread in every simulator (numerics.threads): two xdist workers share the two cores
os.environ.setdefault("DEEPINIT_THREADS", "1")

import torch  # noqa: E402
from hypothesis import settings  # noqa: E402

# the per-layer work of the tests is small: intra-op threads only contend (with each other and with the other xdist
# worker), so one thread per test process
torch.set_num_threads(1)

settings.register_profile("ci", max_examples=60, deadline=None)
settings.load_profile("ci")


def assert_controls(v):
    """A verdict's controls demonstrate power: a claim that holds has its negative control flagged (every declared
    quantity perturbed by ±δ — 5% at every budget — turns it), one reported violated has a positive control that
    holds; and the check consumed exactly the quantities the claim declares."""
    from verify import quantities as Q
    from verify.core import HOLDS, VIOLATED
    from verify.registry import resolve
    claim = resolve(v.claim_id)
    # the quantities the check consumed are exactly those the claim declares (none unperturbable, none idle)
    assert set(v.consumed) == {Q.canonical(q) for q in claim.depends_on}, (v.claim_id, v.consumed)
    if v.status == HOLDS:
        assert v.negative_control is not None, "a claim that holds has a negative control"
        assert v.negative_control.status == VIOLATED, v.negative_control.summary
    elif v.status == VIOLATED:
        assert v.positive_control is not None, "a claim reported violated has a positive control"
        assert v.positive_control.status == HOLDS, v.positive_control.summary
