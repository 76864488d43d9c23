"""Claims as tasks: ``--jobs N`` runs them in N local processes, ``--scheduler ADDRESS`` on a Dask cluster; on a
cluster the sweep points inside a claim are tasks too (:func:`map_points`).

A task is one claim with its controls (:func:`run_task`, a plain function of plain arguments: it pickles to any
process or machine). Its numbers depend only on the claim, the run's settings and the seed — every check draws from
generators seeded by the run seed and its own fixed offsets, never from global state, and the thread count is set
by :mod:`numerics.threads` from the problem size (never from the number of workers) — so ``--jobs 1``, ``--jobs 4``
and a 16-worker cluster give the same verdicts and the same numbers on the same kind of machine
(``tests/test_scale.py`` compares the JSON). Longest claims are submitted first (:func:`expected_seconds`, from
``verify/data/claim_seconds.json``) so that the last claim to finish is a short one.

The caller (``verify.cli``) keeps what a serial run has: the incremental JSON report after every finished claim,
``--resume``, the verdict cache and the exit status; a worker that dies (killed, out of memory) makes its claim
``error`` (exit 4), never a verdict. A Dask worker must run the same code as the client: the task returns the
package's code hash and a mismatch is an ``error`` verdict naming both.
"""
from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import contextvars
import functools
import inspect
import json
import multiprocessing
import os
from dataclasses import dataclass

from .core import ERROR, Verdict


@dataclass(frozen=True)
class TaskSpec:
    """Everything a worker needs to run one claim, as plain data."""

    claim_id: str
    budget: str
    seed: int
    device: str
    dtype: str
    params: tuple = ()            # ((name, value), ...) already bound and typed by the CLI
    with_control: bool = True
    debug: bool = False
    sensitivity: bool = False
    perturbation: tuple = ()      # ((quantity, delta), ...) of --perturb
    artefact_dir: str | None = None
    threads: str | None = None    # DEEPINIT_THREADS for the worker (None: the worker's own setting)
    figure_style: str = "default"


# ---------------------------------------------------------------------------------------------
# Sweep points as tasks
# ---------------------------------------------------------------------------------------------

#: how a claim's sweep points run: None = one after another in this process; on a Dask worker, a function that
#: submits them to the cluster (set by :func:`run_task`)
_POINT_RUNNER: contextvars.ContextVar = contextvars.ContextVar("deepinit_point_runner", default=None)
#: points computed as tasks, kept for the claim's controls and sensitivity reruns (same arguments, same value)
_POINT_CACHE: collections.OrderedDict = collections.OrderedDict()
_POINT_CACHE_SIZE = 1024


class PointConsumedQuantity(RuntimeError):
    """A sweep point consumed a perturbable theory quantity: it cannot run as a separate task, because the claim's
    perturbation (its negative controls) would not reach it. A bug in the claim, reported as ``error``."""


def sweep_point(fn):
    """Mark a claim's sweep-point function, so that its points can run as tasks (:func:`map_points`).

    The function is module level (importable on a worker), takes plain-data arguments that include the point's seed,
    and consumes no perturbable quantity. A direct call returns the value :func:`map_points` already computed for the
    same arguments (defaults filled in), so a claim can submit its whole sweep first and then walk it with plain calls.

    Parameters
    ----------
    fn : callable
        The point function.

    Returns
    -------
    callable
        The same function, reading the values of points already computed.

    Examples
    --------
    >>> from verify.api import map_points, sweep_point
    >>> @sweep_point
    ... def square(k: int, seed: int = 0) -> int:
    ...     return k * k + seed
    >>> map_points(square, [(1,), (2,), (3, 1)]), square(2)
    ([1, 4, 10], 4)
    """
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def point(*args, **kwargs):
        key = (_point_name(point), _point_args(point, args, kwargs))
        if key in _POINT_CACHE:
            return _POINT_CACHE[key]
        return fn(*args, **kwargs)
    point.__sweep_signature__ = sig
    return point


def _point_name(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _point_args(fn, args: tuple, kwargs: dict | None = None) -> tuple:
    sig = getattr(fn, "__sweep_signature__", None)
    if sig is None:
        return tuple(args)
    bound = sig.bind(*args, **(kwargs or {}))
    bound.apply_defaults()
    return tuple(bound.args)


def map_points(fn, points) -> list:
    """``[fn(*p) for p in points]``: the sweep points of a claim (activations × seeds, widths, batch sizes …).

    Each point is a pure function of its arguments: a module-level ``fn`` (:func:`sweep_point`), plain-data arguments
    that include the point's seed, and no perturbable theory quantity consumed (asserted on the worker). Serially (a
    plain run, ``--jobs N``) the points run here, one after another; when the claim runs as a task on a Dask cluster
    (``--scheduler``), each point is a task of its own and the claim's task leaves its worker slot while it waits. Same
    points, same numbers, in either case.

    Parameters
    ----------
    fn : callable
        The point function.
    points : iterable of tuple
        The arguments of each point.

    Returns
    -------
    list
        The points' values, in order.

    Examples
    --------
    >>> from verify.api import map_points
    >>> map_points(pow, [(2, 3), (3, 2)])
    [8, 9]
    """
    points = [_point_args(fn, tuple(p)) for p in points]
    runner = _POINT_RUNNER.get()
    if runner is None or len(points) < 2:
        return [fn(*p) for p in points]
    name = _point_name(fn)
    missing = list(dict.fromkeys(p for p in points if (name, p) not in _POINT_CACHE))
    if missing:
        for p, value in zip(missing, runner(fn, missing)):
            _POINT_CACHE[(name, p)] = value
            while len(_POINT_CACHE) > _POINT_CACHE_SIZE:
                _POINT_CACHE.popitem(last=False)
    return [_POINT_CACHE[(name, p)] for p in points]


def _run_point(fn, args: tuple, threads: str | None):
    """One sweep point on a worker, with the claim's thread baseline, under an unperturbed quantities state."""
    if threads is not None:
        os.environ["DEEPINIT_THREADS"] = threads
    from numerics.threads import intra_op_threads

    from . import quantities as Q
    with Q.perturbed(None, memo={}) as state, intra_op_threads(0, blas=True):
        value = fn(*args)
    if state.consumed:
        raise PointConsumedQuantity(f"{fn.__qualname__}{args!r} consumed {sorted(state.consumed)}: a sweep point must "
                                    "not consume a perturbable quantity")
    return value


def _dask_point_runner(threads: str | None):
    def run(fn, points):
        from distributed import worker_client
        with worker_client() as client:   # this task leaves its slot while the points run
            futures = [client.submit(_run_point, fn, p, threads, pure=False,
                                     key=f"deepinit-point-{fn.__name__}-{os.urandom(6).hex()}") for p in points]
            return client.gather(futures)
    return run


def _on_dask_worker() -> bool:
    try:
        from distributed import get_worker
        get_worker()
        return True
    except (ImportError, ValueError):
        return False


@contextlib.contextmanager
def points_as_tasks(threads: str | None = None):
    """Within the block, :func:`map_points` submits each point as a task when this code runs on a Dask worker (and runs
    them here otherwise)."""
    token = _POINT_RUNNER.set(_dask_point_runner(threads) if _on_dask_worker() else None)
    try:
        yield
    finally:
        _POINT_RUNNER.reset(token)


def call_with_point_tasks(fn, *args):
    """``fn(*args)`` inside :func:`points_as_tasks` (what a claim's task does; a task of its own for a sweep)."""
    with points_as_tasks():
        return fn(*args)


def affinity_groups() -> tuple[tuple[str, ...], ...]:
    """The claims whose checks reuse one another's in-process computations, as each paper declares them
    (:attr:`verify.api.Paper.affinity`), as claim ids. Under --jobs / --scheduler such a group is one task that runs
    its claims in the declared order in one worker; each verdict is still reported on its own."""
    from .registry import papers
    return tuple(tuple(f"{p.key}:{name}" for name in group) for p in papers().values() for group in p.affinity)


def task_groups(claim_ids) -> list[tuple[str, ...]]:
    """``claim_ids`` partitioned into tasks: the members of an affinity group that are present, together (in the
    group's order, at the place of the first of them), every other claim alone."""
    ids = list(claim_ids)
    present = set(ids)
    group_of = {c: g for g in affinity_groups() for c in g}
    out, placed = [], set()
    for c in ids:
        if c in placed:
            continue
        g = group_of.get(c)
        members = tuple(m for m in g if m in present) if g else (c,)
        out.append(members)
        placed.update(members)
    return out


def run_tasks(specs: tuple) -> list[dict]:
    """Several claims in this process, one after another (an affinity group): :func:`run_task`'s result for each."""
    return [run_task(spec) for spec in specs]


def run_task(spec: TaskSpec) -> dict:
    """Run one claim in this process and return ``{"verdict": …, "code": code hash, "pid": …}`` (plain JSON)."""
    if spec.threads is not None:
        os.environ["DEEPINIT_THREADS"] = spec.threads
    with points_as_tasks(spec.threads):
        return _run_task(spec)


def _run_task(spec: TaskSpec) -> dict:
    from . import quantities as Q
    from .cache import code_hash
    from .core import Context
    from .registry import resolve
    from .runner import run_claim
    claim = resolve(spec.claim_id)
    ctx = Context(budget=spec.budget, seed=spec.seed, device=spec.device, dtype=spec.dtype,
                  params=dict(spec.params), artefact_dir=spec.artefact_dir, figure_style=spec.figure_style)
    Q.set_base_perturbation(dict(spec.perturbation) or None)
    try:
        v = run_claim(claim, ctx, with_control=spec.with_control, debug=spec.debug, sensitivity=spec.sensitivity)
    finally:
        Q.set_base_perturbation(None)
    from .cache import computed_stamp
    v.settings = {**v.settings, "computed": computed_stamp()}   # the worker's libraries computed it
    # through JSON: what comes back is exactly what a report holds (and pickles anywhere)
    return {"verdict": json.loads(json.dumps(v.to_dict(), default=str)), "code": code_hash(), "pid": os.getpid()}


@functools.lru_cache(maxsize=1)
def _seconds_table() -> dict:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "claim_seconds.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def expected_seconds(claim_id: str, budget: str) -> float:
    """A claim's measured wall time at a budget (with controls, 2 cores), for scheduling only (unknown: 60 s)."""
    t = _seconds_table().get(budget, {}).get(claim_id)
    if t is None and budget == "full":
        t = _seconds_table().get("standard", {}).get(claim_id)
    return float(t) if t is not None else 60.0


def _collect_failed_client(exc: BaseException) -> None:
    """Finalise a ``distributed.Client`` whose start failed, here and now. Its ``__del__`` (``Client.close``) takes
    a lock that every ``LoopRunner`` shares (a class attribute); the failed start's frames hold the half-made client in
    a reference cycle, so left to the cyclic garbage collector that ``__del__`` can run inside the next client's start,
    which holds the same lock, and hang for good. Dropping the frames and collecting at this point, where no lock is
    held, finalises it safely."""
    import gc
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc.__traceback__ = None
        exc = exc.__cause__ or exc.__context__
    gc.collect()


class Pool:
    """A pool of workers with one interface for local processes and a Dask cluster."""

    def __init__(self, jobs: int = 1, scheduler: str | None = None):
        self.scheduler = scheduler
        if scheduler is not None:
            from distributed import Client
            # how long to wait for the scheduler to answer ($DEEPINIT_DASK_TIMEOUT seconds, default 20)
            try:
                wait = float(os.environ.get("DEEPINIT_DASK_TIMEOUT", "20"))
            except ValueError:
                wait = 20.0
            try:
                self._client = Client(scheduler, timeout=f"{max(1.0, min(wait, 600.0)):g}s")
            except Exception as exc:
                _collect_failed_client(exc)
                raise
            self._exec = None
            self.workers = len(self._client.scheduler_info().get("workers", {}))
        else:
            self._client = None
            # spawn: a clean interpreter per worker (torch and fork do not mix); each claim imports what it needs
            self._exec = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=exit_with_parent, initargs=(os.getpid(),))
            self.workers = jobs

    def submit(self, spec: TaskSpec):
        if self._client is not None:
            return self._client.submit(run_task, spec, pure=False, key=f"deepinit-{spec.claim_id}-{os.urandom(4).hex()}")
        return self._exec.submit(run_task, spec)

    def submit_group(self, specs: tuple):
        """An affinity group (:func:`affinity_groups`) as one task; its result is the list of the members' results."""
        if self._client is not None:
            return self._client.submit(run_tasks, specs, pure=False,
                                       key=f"deepinit-{specs[0].claim_id}+{len(specs) - 1}-{os.urandom(4).hex()}")
        return self._exec.submit(run_tasks, specs)

    def call(self, fn, *args):
        """``fn(*args)`` on a worker process of a local pool (a module-level function; its result is pickled back).

        Raises
        ------
        TypeError
            On a Dask cluster: its workers may be threads of one process, where code that sets process state
            (the self-test's canaries) must not run side by side."""
        if self._client is not None:
            raise TypeError("Pool.call runs on local worker processes only")
        return self._exec.submit(fn, *args)

    def as_completed(self, futures):
        if self._client is not None:
            from distributed import as_completed
            return as_completed(futures)
        return cf.as_completed(futures)

    def close(self, cancel: bool = False) -> None:
        if self._client is not None:
            self._client.close()
        else:
            if cancel:  # Ctrl-C: the running claims are abandoned (their verdicts were not reported), not awaited
                for proc in list(getattr(self._exec, "_processes", {}).values()):
                    proc.terminate()
            self._exec.shutdown(wait=not cancel, cancel_futures=cancel)


#: how often a local worker looks whether the run that started it is still there (seconds)
PARENT_POLL_SECONDS = 0.5


def exit_with_parent(parent_pid: int) -> None:
    """A ``--jobs`` worker's initialiser: end the worker within :data:`PARENT_POLL_SECONDS` of its parent's death
    (a parent killed by SIGKILL cannot shut its pool down: the workers went on computing for nobody, holding its
    stdout open). A daemon thread compares the parent's pid; the worker's own work is not touched."""
    import threading
    import time

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)
    threading.Thread(target=watch, name="deepinit-exit-with-parent", daemon=True).start()


def verdict_of(spec: TaskSpec, future, expected_code: str, member: int | None = None) -> Verdict:
    """The finished task's verdict (``member``: the index of the claim in a group task); a worker that died or runs
    other code gives an ``error`` verdict."""
    try:
        out = future.result()
        if member is not None:
            out = out[member]
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # the worker process died, or the task could not be shipped: never a verdict
        return Verdict(spec.claim_id, ERROR, f"the worker running this claim failed: {type(exc).__name__}: {exc}")
    if out.get("code") != expected_code:
        return Verdict(spec.claim_id, ERROR, "the worker runs different code than this client (code hash "
                       f"{str(out.get('code'))[:12]} ≠ {expected_code[:12]}): install the same deepinit-verify on "
                       "every worker")
    return Verdict.from_dict(out["verdict"])


def comparable_verdicts(report_path: str) -> list:
    """A JSON report's verdicts without their wall times and the time each was computed (``settings.computed.at``):
    what must not depend on ``--jobs`` or the scheduler (``tests/test_scale.py`` and ``benchmarks/bench_scale.py``
    compare two runs with it)."""
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("seconds", "at")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    with open(report_path, encoding="utf-8") as f:
        return strip(json.load(f)["verdicts"])
