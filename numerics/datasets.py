"""Real inputs for the training-based claims, with nothing downloaded at run time.

* ``"digits"`` — scikit-learn's 8×8 handwritten digits (1797 images, 10 classes, 64 features), shipped inside the
  scikit-learn wheel. It stands in for MNIST/CIFAR10 in the papers' training experiments: the same task type
  (10-way image classification), but 64 input features instead of 784/3072 and 1348 training images instead of
  50–60k, so absolute accuracies and step counts differ; the depth effects the claims test (gradient explosion
  through BN layers) do not depend on the input dimension.
* ``"PATH.npz"`` — your own data (e.g. MNIST exported with numpy): arrays ``x_train, y_train, x_test, y_test``, or
  ``x, y`` split here (``test_fraction``, seeded). Images of any shape are flattened.
* an in-memory ``(x, y)`` pair, split the same way.

Features are standardised with the training set's mean and standard deviation (constant features become 0); labels
must be integers 0..K−1. :func:`load_dataset` returns a :class:`Dataset` of float32 arrays.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

from theory import validate
from theory.errors import DeepinitError

REGISTERED = {
    "digits": "scikit-learn's 8×8 handwritten digits (1797 images, 10 classes, 64 features) — a substitute for "
              "MNIST/CIFAR10: same task type, far fewer features and images",
}


@dataclass(frozen=True)
class Dataset:
    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int
    description: str

    @property
    def features(self) -> int:
        return int(self.x_train.shape[1])


def _split(x: np.ndarray, y: np.ndarray, test_fraction: float, seed: int):
    if len(x) != len(y):   # before the permutation: it would drop extra labels or index past the end
        raise DeepinitError(f"as many labels as inputs are needed (x {len(x)} vs y {len(y)})")
    if not 0.05 <= test_fraction <= 0.5:
        raise DeepinitError(f"test_fraction = {test_fraction!r} must be in [0.05, 0.5]")
    rng = np.random.default_rng(validate.seed(seed))
    idx = rng.permutation(len(x))
    n_test = max(1, int(round(test_fraction * len(x))))
    return x[idx[n_test:]], y[idx[n_test:]], x[idx[:n_test]], y[idx[:n_test]]


def _labels(y, name: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise DeepinitError(f"{name}: labels must be a non-empty 1-D array")
    if y.dtype.kind not in "iufb":   # complex, text, objects: not labels
        raise DeepinitError(f"{name}: labels must be integers 0..K−1 (found dtype {y.dtype})")
    if not np.issubdtype(y.dtype, np.integer):
        if not (np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y)) and np.all(y == np.round(y))):
            raise DeepinitError(f"{name}: labels must be integers 0..K−1")
    if y.min() < 0:
        raise DeepinitError(f"{name}: labels must be integers 0..K−1 (found {y.min():.0f})")
    if y.max() >= y.size:   # K classes need at least K samples; a huge label would size every one-hot array
        raise DeepinitError(f"{name}: labels must be integers 0..K−1 with K at most the number of samples "
                            f"({y.size}); found the label {y.max():.0f}")
    return y.astype(np.int64)   # after the checks: a float label like 1e300 has no int64


def _features(x, name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2 or x.shape[0] == 0:
        raise DeepinitError(f"{name}: inputs must be an array of shape (samples, features…)")
    if x.dtype.kind not in "iufb":   # complex would lose its imaginary part silently; text and objects are no inputs
        raise DeepinitError(f"{name}: inputs must be real numbers (found dtype {x.dtype})")
    x = x.reshape(x.shape[0], -1).astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise DeepinitError(f"{name}: inputs contain NaN or infinite values")
    return x


def _finish(name, xtr, ytr, xte, yte, description) -> Dataset:
    xtr, xte = _features(xtr, name), _features(xte, name)
    ytr, yte = _labels(ytr, name), _labels(yte, name)
    if len(xtr) != len(ytr) or len(xte) != len(yte):
        raise DeepinitError(f"{name}: as many labels as inputs are needed (train {len(xtr)} vs {len(ytr)}, "
                            f"test {len(xte)} vs {len(yte)})")
    if xtr.shape[1] != xte.shape[1]:
        raise DeepinitError(f"{name}: train and test inputs have different feature counts")
    classes = int(max(ytr.max(), yte.max())) + 1
    if classes < 2 or len(np.unique(ytr)) < 2:
        raise DeepinitError(f"{name}: at least two classes are needed in the training set")
    scale = float(np.max(np.abs(xtr)))   # standardising is scale-free; this keeps x² finite for |x| near 1e308
    if scale > 1e150:
        xtr, xte = xtr / scale, xte / scale
    mu, sd = xtr.mean(axis=0), xtr.std(axis=0)
    if not np.any(sd > 0):
        raise DeepinitError(f"{name}: every input feature is constant over the training set: the standardised "
                            "inputs would all be zero")
    sd = np.where(sd > 0, sd, 1.0)   # a constant feature becomes 0 (stated in the module docstring)
    f32 = np.float32
    return Dataset(name, ((xtr - mu) / sd).astype(f32), ytr, ((xte - mu) / sd).astype(f32), yte, classes,
                   description)


@functools.lru_cache(maxsize=8)
def _digits(test_fraction: float, seed: int) -> Dataset:
    x, y = raw_arrays("digits")
    return _finish("digits", *_split(x, y, test_fraction, seed), REGISTERED["digits"])


def raw_arrays(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The unsplit, unstandardised (x, y) of a registered dataset (``None`` for anything else): what a researcher
    would export to an .npz file."""
    if name != "digits":
        return None
    try:
        from sklearn.datasets import load_digits
    except ImportError:  # pragma: no cover - a declared dependency
        raise DeepinitError("the 'digits' dataset needs scikit-learn (pip install scikit-learn)") from None
    d = load_digits()
    return d.data, d.target


def _check_sizes(npz, name: str) -> None:
    """Read each array's header (shape, dtype) without loading it, and refuse before any allocation what would not
    fit in memory once converted to float64 (theory.validate.memory)."""
    total = 0
    for key in npz.files:
        with npz.zip.open(key + ".npy") as member:
            version = np.lib.format.read_magic(member)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, _, dtype = read_header(member, max_header_size=100_000)
        if dtype.hasobject:
            raise DeepinitError(f"dataset {name!r}: array {key!r} holds Python objects; arrays of numbers only")
        total += int(np.prod(shape, dtype=np.float64)) * max(dtype.itemsize, 8)
    validate.memory(2 * total, f"dataset {name!r} ({total / 2 ** 20:.0f} MiB as float64)")


def check_file(path: str) -> None:
    """Validate a dataset file as a run would read it (``DeepinitError`` with the reason): its arrays' names, dtypes
    (real numbers), shapes, sizes, finiteness and labels. The command line calls it before any work."""
    load_dataset(path)


def load_dataset(spec, *, test_fraction: float = 0.25, seed: int = 0) -> Dataset:
    """A registered name (``"digits"``), a path to a ``.npz`` file, or an ``(x, y)`` pair → :class:`Dataset`."""
    if isinstance(spec, Dataset):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2:
        x, y = spec
        return _finish("arrays", *_split(_features(x, "arrays"), _labels(y, "arrays"), test_fraction, seed),
                       "user arrays")
    if not isinstance(spec, str) or not spec:
        raise DeepinitError("dataset: give a registered name (digits), a path to an .npz file, or (x, y) arrays")
    if spec in REGISTERED:
        return _digits(float(test_fraction), int(seed))
    if not spec.endswith(".npz"):
        raise DeepinitError(f"dataset {spec!r}: not a registered name ({', '.join(REGISTERED)}) nor an .npz path")
    if not os.path.isfile(spec):
        raise DeepinitError(f"dataset {spec!r}: no such file")
    try:
        with np.load(spec, allow_pickle=False) as f:
            keys = set(f.files)
            _check_sizes(f, spec)
            if {"x_train", "y_train", "x_test", "y_test"} <= keys:
                parts = [f[k] for k in ("x_train", "y_train", "x_test", "y_test")]
            elif {"x", "y"} <= keys:
                parts = list(_split(_features(f["x"], spec), _labels(f["y"], spec), test_fraction, seed))
            else:
                raise DeepinitError(f"dataset {spec!r}: needs arrays x_train, y_train, x_test, y_test (or x, y); "
                                    f"found {sorted(keys)}")
    except DeepinitError:
        raise
    except Exception as exc:
        raise DeepinitError(f"dataset {spec!r}: cannot be read as .npz ({type(exc).__name__}: {exc})") from None
    return _finish(os.path.basename(spec), *parts, f"user data from {spec}")


def describe_dataset(name: str, substitute_for: str, what_differs: str,
                     caption_for: str | None = None) -> tuple[str, str]:
    """(note, caption) for the dataset ``name`` (:func:`load_dataset`) as a training check states it: the digits are
    named a substitute for ``substitute_for`` with ``what_differs`` (in the caption, for ``caption_for``, default the
    same); other data by their name, classes, features and split."""
    ds = load_dataset(name)
    n_train, n_test = len(ds.y_train), len(ds.y_test)
    if ds.name == "digits":
        return (f"data: scikit-learn digits (8×8, {ds.classes} classes, {n_train} train / {n_test} test), a substitute "
                f"for {substitute_for} — {what_differs}",
                f"scikit-learn digits (a substitute for {caption_for or substitute_for})")
    return (f"data: {ds.name} ({ds.classes} classes, {ds.features} features, {n_train} train / {n_test} test; "
            f"{ds.description})", f"{ds.name} ({n_train} training images)")


def steps_per_epoch(name: str, batch: int) -> int:
    """Optimiser steps in one pass over the training split of ``name`` in batches of ``batch`` (at least 1)."""
    return max(1, len(load_dataset(name).y_train) // batch)
