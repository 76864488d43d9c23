"""The training runs shared by the training claims of bn-mean-field (Figs 2, 3, 4 and A.2; the protocol is in the
docstring of :mod:`.training`): the data a run trains on, one network trained by numerics.training.train_bn_mlp, the
seeds of one setting as one batched ensemble (numerics.ensembles), and the ensemble's run-integrity row."""
from __future__ import annotations

from ...api import Context, Evidence, lazy_module as _lazy, member_row, memo, shared, sweep_point

training = _lazy("numerics.training")
ensembles = _lazy("numerics.ensembles")
datasets = _lazy("numerics.datasets")

TRAINABLE = 0.5   # test accuracy that counts as trained (decided from the statement: midway chance → shallow)
WIDTH = 128


def _data(ctx: Context) -> tuple[str, str]:
    """(note, caption) of the data this run trains on."""
    return datasets.describe_dataset(_dataset(ctx), "MNIST/CIFAR10", "same task type, far fewer features and images; absolute "
                    "accuracies differ, the depth effect is the point", caption_for="MNIST")


def _dataset(ctx: Context) -> str:
    return str(ctx.params.get("dataset") or "digits")


@sweep_point
@shared
def _trained(dataset: str, depth: int, B: int, steps: int, lr: float, optimizer: str, sub_batch: int, seed: int,
             record: int = 0, act: str = "relu", eps: float = 1e-5, at: tuple = ()):
    return training.train_bn_mlp(dataset, act, depth, WIDTH, B, steps, lr=lr, optimizer=optimizer,
                                 sub_batch=sub_batch or None, seed=seed, record_steps=record, eps=eps, record_at=at)


@sweep_point
@shared
def _trained_seeds(dataset: str, depth: int, B: int, steps: int, lr: float, optimizer: str, sub_batch: int,
                   seeds: tuple, record: int = 0, act: str = "relu", eps: float = 1e-5, at: tuple = ()):
    """The seeds of one setting trained as one batched ensemble (numerics.ensembles): member i is the solo run
    ``train_bn_mlp(..., seed=seeds[i])``, bit for bit (the module docstring of numerics.ensembles)."""
    return tuple(ensembles.train_bn_mlp_ensemble(dataset, act, depth, WIDTH, B, steps, lr=lr, optimizer=optimizer,
                                                 sub_batch=sub_batch or None, seeds=list(seeds), record_steps=record,
                                                 eps=eps, record_at=at))


def _member_check(dataset: str, depth: int, B: int, steps: int, lr: float, optimizer: str, sub_batch: int,
                  seeds: tuple, record: int = 0, act: str = "relu", eps: float = 1e-5, at: tuple = ()) -> Evidence:
    """The run-integrity row of an ensemble (verify.papers._integrity): its last member — the last seed, so that a
    bug sparing the first member shows too — retrained alone by numerics.training.train_bn_mlp with the same
    arguments (optimizer, sub-batches, ε, recording), compared on the loss at every step, the recorded norms and the
    test accuracy. The solo run is memoised: the ±δ reruns and the controls reuse it."""
    args = (dataset, depth, B, steps, lr, optimizer, sub_batch)
    member = _trained_seeds(*args, seeds, record, act, eps, at)[-1]
    solo = memo(("bn-mean-field solo run",) + args + (seeds[-1], record, act, eps, at),
                  lambda: _trained(*args, seeds[-1], record, act, eps, at))
    return member_row(member, solo, f"member {len(seeds)} of {len(seeds)} ({act}, seed {seeds[-1]})",
                                "numerics.training.train_bn_mlp")
