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


def assert_latex_clean(v):
    """Issue 11, for this verdict: its --latex output (strict symbol table: nothing unknown reaches it) gives 0 chktex
    warnings as a fragment and as a standalone document, and the standalone document compiles. Called for every
    verdict of the per-paper claim tests (quick and standard), which compute them anyway."""
    import shutil
    import subprocess
    import tempfile
    from verify.latex import render
    from verify.registry import resolve
    claims = {v.claim_id: resolve(v.claim_id)}
    frag = render([v], claims, strict=True)
    doc = render([v], claims, standalone=True, strict=True)
    assert "[U+" not in frag
    if not (shutil.which("pdflatex") and shutil.which("chktex")):
        return  # CI installs both; without them the strict rendering above is the check
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in (("frag.tex", frag), ("doc.tex", doc)):
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(body)
            p = subprocess.run(["chktex", "-q", "-v0", name], cwd=tmp, capture_output=True, text=True, timeout=120)
            assert [line for line in p.stdout.splitlines() if line.strip()] == [], (v.claim_id, name, p.stdout[:2000])
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp,
                           capture_output=True, text=True, timeout=180)
        assert p.returncode == 0, (v.claim_id, p.stdout[-3000:])


def assert_controls(v):
    """A verdict's controls demonstrate power: a claim that holds has its negative control flagged (every declared
    quantity perturbed by ±δ — 5% at every budget — turns it), one reported violated has a positive control that
    holds; and the check consumed exactly the quantities the claim declares. Its LaTeX is checked as well
    (:func:`assert_latex_clean`)."""
    from verify import quantities as Q
    from verify.core import HOLDS, VIOLATED
    from verify.registry import resolve
    claim = resolve(v.claim_id)
    assert_latex_clean(v)
    # the quantities the check consumed are exactly those the claim declares (none unperturbable, none idle)
    assert set(v.consumed) == {Q.canonical(q) for q in claim.depends_on}, (v.claim_id, v.consumed)
    if v.status == HOLDS:
        assert v.negative_control is not None, "a claim that holds has a negative control"
        assert v.negative_control.status == VIOLATED, v.negative_control.summary
    elif v.status == VIOLATED:
        assert v.positive_control is not None, "a claim reported violated has a positive control"
        assert v.positive_control.status == HOLDS, v.positive_control.summary


def source_mutant(func, old: str, new: str):
    """``func`` recompiled with ``old`` (which must occur exactly once in its source) replaced by ``new``, in
    ``func``'s module globals: a realistic bug for a test to monkeypatch in place of ``func``."""
    import __future__
    import inspect
    import textwrap
    source = textwrap.dedent(inspect.getsource(func))
    assert source.count(old) == 1, f"{old!r} is not (once) in {func.__qualname__}"
    namespace: dict = {}
    code = compile(source.replace(old, new), f"<mutant of {func.__qualname__}>", "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, func.__globals__, namespace)
    return namespace[func.__name__]


def catalogued_mutant(mutant_id: str, func):
    """``func`` recompiled with the catalogued mutation ``mutant_id`` of benchmarks/mutation/mutants.toml applied to
    its source (its ``old`` snippet must occur exactly once there), in ``func``'s module globals: the tests of a
    claim that kills a mutant monkeypatch this in place of ``func`` and assert that the verdict turns."""
    import tomllib
    from pathlib import Path
    catalogue = Path(__file__).resolve().parents[1] / "benchmarks" / "mutation" / "mutants.toml"
    mutant = next(m for m in tomllib.loads(catalogue.read_text(encoding="utf-8"))["mutant"] if m["id"] == mutant_id)
    return source_mutant(func, mutant["old"], mutant["new"])
