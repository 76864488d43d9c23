"""The run's store of shared simulations (verify.store): keys, bounds, the contract, and sharing across claims."""
import numpy as np
import pytest

from verify import api
from verify import quantities as Q
from verify.store import STORE, SharedComputationError, Store, nbytes, shared


def test_one_value_per_full_set_of_arguments():
    calls = []

    @shared
    def sim(act: str, n: int, seed: int = 0, method: str = "exact"):
        calls.append((act, n, seed, method))
        return np.full(n, float(seed))

    a = sim("relu", 4, 1)
    b = sim("relu", 4, seed=1, method="exact")        # the same arguments once the defaults are filled in
    c = sim("relu", 4, 2)                             # another seed: another ensemble
    d = sim("relu", 4, 1, method="dense")
    assert a is b and calls == [("relu", 4, 1, "exact"), ("relu", 4, 2, "exact"), ("relu", 4, 1, "dense")]
    assert c.tolist() == [2.0] * 4 and d is not a
    s = api.store_stats()[sim.store_name]
    assert (s["computed"], s["reused"]) == (3, 1)
    sim.cache_clear()
    sim("relu", 4, 1)
    assert len(calls) == 4                            # forgotten: computed again


def test_the_store_is_bounded_in_bytes_least_recently_used_first_out():
    store = Store(max_entries=100, max_bytes=3 * 800)
    for k in range(3):
        store.get(("f", k), lambda k=k: np.zeros(100) + k)     # 800 bytes each
    store.get(("f", 0), lambda: pytest.fail("entry 0 is stored"))  # touch 0: now 1 is the oldest
    store.get(("f", 3), lambda: np.zeros(100))
    assert len(store) == 3 and store.bytes == 2400
    recomputed = []
    store.get(("f", 1), lambda: recomputed.append(1) or np.zeros(100))
    assert recomputed == [1]                          # 1 was evicted, 0 was kept
    store.get(("f", "big"), lambda: np.zeros(1000))   # larger than the whole store: returned, not kept
    assert ("f", "big") not in store._entries


def test_nbytes_counts_arrays_through_containers_and_dataclasses():
    import dataclasses
    import torch

    @dataclasses.dataclass
    class Run:
        a: np.ndarray
        t: object
        meta: dict
    run = Run(np.zeros((10, 10)), torch.zeros(5, dtype=torch.float32), {"x": [np.zeros(3)], "n": 3})
    assert nbytes(run) == 800 + 20 + 24
    assert nbytes((run, run)) == 844                  # one object counted once


def test_the_contract_is_enforced():
    @shared
    def consumes(act: str):
        return Q.scaled("beta", 1.0)                  # a perturbable quantity: its stored value would hide ±δ

    with Q.perturbed({"beta": 0.05}):
        with pytest.raises(SharedComputationError, match="beta"):
            consumes("relu")

    @shared
    def plain(arr):
        return arr
    with pytest.raises(SharedComputationError, match="not plain data"):
        plain(np.zeros(2))
    assert plain((1, 2.0, "a", None)) == (1, 2.0, "a", None)


def test_a_substituted_simulator_is_seen_once_its_values_are_cleared(monkeypatch):
    """What the mutation tests rely on: clearing a shared function's values makes the claim call the (substituted)
    simulator again, never a stored value of the real one."""
    from verify.papers.bn_mean_field import _common as bnmf_common
    real = bnmf_common._fw_run("relu", 8, 16, 2, 6, 0, "exact", "cpu")
    assert bnmf_common._fw_run("relu", 8, 16, 2, 6, 0, "exact", "cpu") is real
    monkeypatch.setattr(bnmf_common.nbm, "simulate_bn_gradients", lambda *a, **k: "substituted")
    bnmf_common._fw_run.cache_clear()
    assert bnmf_common._fw_run("relu", 8, 16, 2, 6, 0, "exact", "cpu") == "substituted"
    bnmf_common._fw_run.cache_clear()


def test_claims_of_a_paper_share_their_ensembles_in_a_run():
    """bn-mean-field's Theorems 8 and 7 read the same ReLU gradient ensemble at B = 8 (quick: N = 1000, 24 seeds):
    the second claim reuses the first one's, and its verdict is the one it has alone."""
    from verify.core import Context
    from verify.registry import resolve
    from verify.runner import run_claim
    from verify.papers.bn_mean_field import _common as bnmf_common
    bnmf_common._fw_run.cache_clear()
    ctx = Context(budget="quick", seed=0)
    run_claim(resolve("bn-mean-field:theorem8"), ctx, with_control=False)
    before = dict(STORE.stats()[bnmf_common._fw_run.store_name])
    v7 = run_claim(resolve("bn-mean-field:theorem7"), ctx, with_control=False)
    after = STORE.stats()[bnmf_common._fw_run.store_name]
    assert after["reused"] > before["reused"] and after["seconds_saved"] > before["seconds_saved"]
    bnmf_common._fw_run.cache_clear()
    alone = run_claim(resolve("bn-mean-field:theorem7"), ctx, with_control=False)
    assert v7.status == alone.status == "holds"
    assert [(e.name, e.numeric, e.observed) for e in v7.evidence] == [(e.name, e.numeric, e.observed)
                                                                     for e in alone.evidence]
