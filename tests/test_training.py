"""Datasets without downloads and the BN-MLP trainer behind bn-mean-field Figs 2–3 (issue 12): loading, validation,
determinism, and that training does what the claims rely on (a shallow network learns the digits, a 3·16ξ-deep one
does not)."""
import math

import numpy as np
import pytest

from numerics.datasets import Dataset, load_dataset
from numerics.training import train_bn_mlp
from theory import gradient_explosion_rate
from theory.errors import DeepinitError
from verify import params as P


def test_digits_ship_with_scikit_learn_and_are_standardised():
    d = load_dataset("digits")
    assert isinstance(d, Dataset) and d.classes == 10 and d.features == 64
    assert len(d.x_train) + len(d.x_test) == 1797 and len(d.x_test) == 449
    assert d.x_train.dtype == np.float32 and np.allclose(d.x_train.mean(axis=0), 0, atol=1e-5)
    sd = d.x_train.std(axis=0)
    assert np.all((np.abs(sd - 1) < 1e-4) | (sd == 0))          # constant pixels become 0
    again = load_dataset("digits")
    assert np.array_equal(again.y_test, d.y_test)                 # a seed gives the same split


def test_npz_files_and_arrays(tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((200, 3, 4)), rng.integers(0, 3, 200)
    p = tmp_path / "mine.npz"
    np.savez(p, x=x, y=y)
    d = load_dataset(str(p))
    assert d.features == 12 and d.classes == 3 and len(d.x_test) == 50
    q = tmp_path / "split.npz"
    np.savez(q, x_train=x[:150], y_train=y[:150], x_test=x[150:], y_test=y[150:])
    assert len(load_dataset(str(q)).x_test) == 50
    assert load_dataset((x, y)).features == 12


@pytest.mark.parametrize("bad,match", [
    ("mnist", "registered"), ("/nonexistent/x.npz", "no such file"),
])
def test_bad_dataset_names(bad, match):
    with pytest.raises(DeepinitError, match=match):
        load_dataset(bad)
    with pytest.raises(ValueError):
        P.dataset(bad)


def test_bad_dataset_contents(tmp_path):
    x = np.ones((20, 4))
    for name, arrays, match in [("nan", dict(x=np.full((20, 4), np.nan), y=np.zeros(20, int)), "NaN"),
                                ("keys", dict(a=x), "needs arrays"),
                                ("labels", dict(x=x, y=np.linspace(0, 1, 20)), "integers"),
                                ("count", dict(x_train=x, y_train=np.zeros(5, int), x_test=x, y_test=np.zeros(20, int)),
                                 "as many labels")]:
        p = tmp_path / f"{name}.npz"
        np.savez(p, **arrays)
        with pytest.raises(DeepinitError, match=match):
            load_dataset(str(p))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(DeepinitError, match="cannot be read"):
        load_dataset(str(tmp_path / "junk.npz"))


def test_training_is_deterministic_and_a_shallow_network_learns():
    a = train_bn_mlp("digits", "relu", 3, 64, 32, 150, lr=0.05, seed=1)
    b = train_bn_mlp("digits", "relu", 3, 64, 32, 150, lr=0.05, seed=1)
    assert a.test_accuracy == b.test_accuracy and np.array_equal(a.loss, b.loss)
    assert a.test_accuracy > 0.85 and not a.diverged and a.loss[-1] < a.loss[0]


def test_a_network_far_deeper_than_16_xi_does_not_train():
    """The trainer reproduces the effect Fig 2 is about, at small cost: 3·16ξ layers stay near chance."""
    B = 16
    L = round(3 * 16 / math.log(gradient_explosion_rate("relu", B)))
    r = train_bn_mlp("digits", "relu", L, 64, B, 150, lr=0.01, seed=0)
    assert r.test_accuracy < 0.3


def test_recorded_first_steps_show_the_initial_explosion():
    r = train_bn_mlp("digits", "relu", 20, 64, 32, 3, lr=0.01, seed=0, record_steps=3)
    g = np.log(r.preact_grad_norm[0])
    assert r.preact_grad_norm.shape == (3, 20) and g[0] > g[-1] + 2   # larger towards the input
    assert np.allclose(r.weight_norm[0], r.weight_norm[0].mean(), rtol=0.05)


def test_trainer_input_errors():
    with pytest.raises(DeepinitError, match="divide"):
        train_bn_mlp("digits", "relu", 2, 16, 32, 1, lr=0.01, sub_batch=5)
    with pytest.raises(DeepinitError, match="learning rate"):
        train_bn_mlp("digits", "relu", 2, 16, 32, 1, lr=float("nan"))
    with pytest.raises(DeepinitError, match="optimizer"):
        train_bn_mlp("digits", "relu", 2, 16, 32, 1, lr=0.01, optimizer="adam")
    with pytest.raises(ValueError):
        P.learning_rate("inf")
