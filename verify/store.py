"""The run's store of shared simulations: ensembles, trained networks and trajectories computed once per process.

Several claims of a paper simulate the same networks (bn-mean-field's Theorems 4, 7 and 8 read the same ReLU
gradient ensembles at B = 8; Fig 1 and Theorem 7 the same replicate ensemble), and a claim's check, its ±δ controls
and its sensitivity reruns read the same ones again. A module-level function decorated with :func:`shared` computes
its value once per process for each full set of arguments and keeps it in one store (:data:`STORE`):

- the key is the function's qualified name, its arguments bound to its signature with the defaults filled in (so
  ``f(a, 1)`` and ``f(a, b=1)`` are one key), and the code version (the package's source hash and, for a plugin's
  function, the version of the distribution that ships it): activation, sizes, depth, seeds, dtype, method, device —
  whatever the function takes — must be among its arguments;
- the store is an LRU bounded in entries and in bytes (the arrays a value holds, counted through dataclasses, tuples,
  lists and dicts): ``DEEPINIT_STORE_MB`` (default 2048) MiB per process;
- under ``--jobs N`` each worker process has its own store (one ``verify all`` run per worker); on a Dask cluster each
  worker, and the sweep points of :func:`verify.parallel.map_points` are shared as tasks;
- :func:`stats` counts what was computed and what was reused, with the seconds each took to compute.

Contract of a shared function: deterministic given its arguments (its seeds among them), arguments of plain data
(str, int, float, bool, None, bytes and tuples of these), no perturbable theory quantity consumed
(:mod:`verify.quantities`: a computation that consumed one raises :class:`SharedComputationError`, because the
controls' perturbations would not reach a stored value), and a value its callers never modify in place.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import os
import threading
import time
from typing import Any, Callable

import numpy as np

_PLAIN = (str, int, float, bool, bytes, type(None))


class SharedComputationError(RuntimeError):
    """A shared computation broke its contract (an argument that is not plain data, or a consumed quantity): a bug
    in the claim, reported as ``error``.

    Examples
    --------
    >>> import numpy as np
    >>> from verify.store import SharedComputationError, shared
    >>> @shared
    ... def total(values):
    ...     return sum(values)
    >>> try:
    ...     total(np.ones(3))
    ... except SharedComputationError as exc:
    ...     print("not plain data" in str(exc))
    True
    """


def _plain(value, where: str):
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, tuple):
        return tuple(_plain(v, where) for v in value)
    raise SharedComputationError(f"{where}: argument {value!r} of type {type(value).__name__} is not plain data "
                                 "(str, int, float, bool, None, bytes or a tuple of these)")


def nbytes(value, _seen=None) -> int:
    """The bytes of the arrays (numpy, torch) a value holds, through dataclasses, tuples, lists and dicts."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if hasattr(value, "element_size") and hasattr(value, "nelement"):   # a torch tensor (torch is not imported here)
        return int(value.element_size() * value.nelement())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return sum(nbytes(v, seen) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v, seen) for v in value)
    return 0


@functools.lru_cache(maxsize=None)
def code_version(module: str) -> str:
    """The code a shared function's value depends on: the package's source hash, and for a plugin's module the
    name and version of the distribution that provides it (its sources are hashed where a verdict is cached)."""
    from .cache import package_hash
    top = module.split(".")[0]
    if top in ("theory", "numerics", "verify"):
        return package_hash()
    try:
        from importlib import metadata
        dists = metadata.packages_distributions().get(top, [])
        versions = ",".join(f"{d}=={metadata.version(d)}" for d in sorted(dists))
    except Exception:  # noqa: BLE001 - metadata of an odd installation: the module name still separates keys
        versions = ""
    return f"{package_hash()}+{top}:{versions}"


@dataclasses.dataclass
class _Entry:
    value: Any
    nbytes: int
    seconds: float


class Store:
    """An LRU of computed values, bounded in entries and bytes (see the module docstring)."""

    def __init__(self, max_entries: int = 2048, max_bytes: int | None = None):
        self.max_entries = max_entries
        if max_bytes is None:
            try:
                max_bytes = int(float(os.environ.get("DEEPINIT_STORE_MB", "2048")) * 2 ** 20)
            except ValueError:
                max_bytes = 2048 * 2 ** 20
        self.max_bytes = max(0, max_bytes)
        self._entries: collections.OrderedDict = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.RLock()
        self.computed = collections.Counter()
        self.reused = collections.Counter()
        self.seconds_computed = collections.Counter()
        self.seconds_saved = collections.Counter()

    def get(self, key: tuple, compute: Callable[[], Any]):
        name = key[0]
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.reused[name] += 1
                self.seconds_saved[name] += entry.seconds
                return entry.value
        start = time.monotonic()
        value = compute()
        seconds = time.monotonic() - start
        size = nbytes(value)
        with self._lock:
            self.computed[name] += 1
            self.seconds_computed[name] += seconds
            if key not in self._entries and size <= self.max_bytes:
                self._entries[key] = _Entry(value, size, seconds)
                self._bytes += size
                while self._entries and (len(self._entries) > self.max_entries or self._bytes > self.max_bytes):
                    _, old = self._entries.popitem(last=False)
                    self._bytes -= old.nbytes
        return value

    def clear(self, name: str | None = None) -> None:
        """Forget every value (``name``: only those of one shared function)."""
        with self._lock:
            for key in [k for k in self._entries if name is None or k[0] == name]:
                self._bytes -= self._entries.pop(key).nbytes

    def stats(self) -> dict:
        """Per shared function: values computed and reused, and the seconds computing took and reuse saved."""
        with self._lock:
            names = sorted(set(self.computed) | set(self.reused))
            return {n: {"computed": self.computed[n], "reused": self.reused[n],
                        "seconds_computed": round(self.seconds_computed[n], 3),
                        "seconds_saved": round(self.seconds_saved[n], 3)} for n in names}

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes


#: the process's store: every :func:`shared` function keeps its values here
STORE = Store()


def stats() -> dict:
    """What the process's store computed and reused, per shared function (:meth:`Store.stats`).

    Returns
    -------
    dict
        ``{qualified name: {"computed", "reused", "seconds_computed", "seconds_saved"}}``: the values computed and
        served again, the seconds computing them took, and the seconds the reuses saved.

    Examples
    --------
    >>> from verify.store import shared, stats
    >>> @shared
    ... def draws(n: int, seed: int):
    ...     return list(range(seed, seed + n))
    >>> draws(3, 1), draws(3, 1)
    ([1, 2, 3], [1, 2, 3])
    >>> {k: stats()[draws.store_name][k] for k in ("computed", "reused")}
    {'computed': 1, 'reused': 1}
    """
    return STORE.stats()


def shared(fn: Callable) -> Callable:
    """Decorator: ``fn``'s value for each full set of arguments is computed once per process and kept in
    :data:`STORE` (the contract is in the module docstring).

    Parameters
    ----------
    fn : callable
        A module-level function of plain-data arguments (its seeds among them) that consumes no perturbable quantity.

    Returns
    -------
    callable
        ``fn`` with its values shared; ``.cache_clear()`` forgets this function's values (a test that substitutes a
        simulator clears it), ``.store_name`` is its key in :func:`stats`, ``.__wrapped__`` is ``fn``.

    Raises
    ------
    SharedComputationError
        When called with an argument that is not plain data, or when ``fn`` consumed a perturbable quantity.

    Examples
    --------
    >>> from verify.store import shared, stats
    >>> calls = []
    >>> @shared
    ... def ensemble(act: str, width: int, seed: int = 0):
    ...     calls.append(seed)
    ...     return [width * seed]
    >>> ensemble("relu", 8, 3), ensemble("relu", 8, seed=3), len(calls)
    ([24], [24], 1)
    >>> s = stats()[ensemble.store_name]
    >>> s["computed"], s["reused"]
    (1, 1)
    """
    sig = inspect.signature(fn)
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        key = (name, _plain(tuple(bound.arguments.items()), name), code_version(fn.__module__))

        def compute():
            from . import quantities as Q
            with Q.watch_consumption() as consumed:
                value = fn(*bound.args, **bound.kwargs)
            if consumed:
                raise SharedComputationError(f"{name} consumed the perturbable quantities {sorted(consumed)}: a "
                                             "shared computation must not (the controls' perturbations would not "
                                             "reach its stored value)")
            return value
        return STORE.get(key, compute)

    wrapper.cache_clear = lambda: STORE.clear(name)
    wrapper.store_name = name
    return wrapper


__all__ = ["STORE", "SharedComputationError", "Store", "code_version", "nbytes", "shared", "stats"]
