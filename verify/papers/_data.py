"""The data a training claim ran on, as its notes and figure captions state it.

The training claims run on scikit-learn's digits, a stated substitute for the papers' MNIST/CIFAR data, or on the
user's own (``--param dataset=PATH.npz``): the notes, captions and the length of an epoch come from the data that ran,
never from the digits' sizes.
"""
from __future__ import annotations

from ..lazy import lazy_module as _lazy

datasets = _lazy("numerics.datasets")


def describe(name: str, substitute_for: str, what_differs: str, caption_for: str | None = None) -> tuple[str, str]:
    """(note, caption) for the dataset ``name`` (:func:`numerics.datasets.load_dataset`): the digits are named a
    substitute for ``substitute_for`` with ``what_differs`` (in the caption, for ``caption_for``, default the same);
    other data by their name, classes, features and split."""
    ds = datasets.load_dataset(name)
    n_train, n_test = len(ds.y_train), len(ds.y_test)
    if ds.name == "digits":
        return (f"data: scikit-learn digits (8×8, {ds.classes} classes, {n_train} train / {n_test} test), a substitute "
                f"for {substitute_for} — {what_differs}", f"scikit-learn digits (a substitute for {caption_for or substitute_for})")
    return (f"data: {ds.name} ({ds.classes} classes, {ds.features} features, {n_train} train / {n_test} test; "
            f"{ds.description})", f"{ds.name} ({n_train} training images)")


def steps_per_epoch(name: str, batch: int) -> int:
    """Optimiser steps in one pass over the training split of ``name`` in batches of ``batch`` (at least 1)."""
    return max(1, len(datasets.load_dataset(name).y_train) // batch)
