"""Nothing lost, nothing misreported: the verdict cache and ``--resume`` reuse a verdict only from the same code and
library versions and survive corrupt or hostile entries; files that are not files never block; user datasets are
validated before any work; no verdict is computed from a NaN; outputs never collide; SIGTERM loses nothing; ``--jobs``
workers end with their parent; and fuzzed arguments, environment variables, TOML and NPZ inputs end with a
documented exit status, one-line errors and valid JSON."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify import cache
from verify import params as P
from verify.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = ["isometry:lemma-a4", "--budget", "quick", "--no-control", "-q"]   # a claim that holds in about a second


def _env(**extra):
    return {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ROOT, **extra}


def _code(argv, capsys=None) -> int:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code


@pytest.fixture()
def own_cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("DEEPINIT_CACHE", str(d))
    monkeypatch.delenv("DEEPINIT_NO_CACHE", raising=False)
    return d


def _entry(cache_dir) -> str:
    (path,) = [os.path.join(r, f) for r, _, fs in os.walk(cache_dir) for f in fs if f.endswith(".json")]
    return path


# ---------------------------------------------------------------------------------------------------------------
# the cache: validated on load, keyed by the library versions, provenance of what computed a verdict
# ---------------------------------------------------------------------------------------------------------------

def _evidence_not_tables(d):
    d["evidence"] = [1, "two"]


def _deep(d):
    return "[" * 100_000 + "]" * 100_000


def _other_claim(d):
    d["claim"] = "isometry:theorem1"
    d["summary"] = "planted"


def _error(d):
    d["status"] = "error"
    d["summary"] = "planted"


def _tampered(d):
    d["status"] = "violated"
    d["evidence"][0]["passed"] = "yes"


@pytest.mark.parametrize("corrupt", [_evidence_not_tables, _deep, _other_claim, _error, _tampered, "fifo",
                                     "directory"])
def test_a_corrupt_cache_entry_is_discarded_and_recomputed(own_cache, tmp_path, capsys, corrupt):
    """Evidence items that are not tables and deep nesting made every later run exit 4; an entry of another claim
    was reported under that claim's id; an `error` entry was served; a FIFO blocked forever. Each is now discarded,
    the claim recomputed (exit 0, "holds", not "(cached)") and the entry replaced by a good one."""
    assert main(FAST) == 0
    path = _entry(own_cache)
    doc = json.loads(open(path, encoding="utf-8").read())
    os.unlink(path)
    if corrupt == "fifo":
        os.mkfifo(path)
    elif corrupt == "directory":
        os.mkdir(path)
    else:
        text = corrupt(doc)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if isinstance(text, str) else json.dumps(doc))
    capsys.readouterr()
    t = time.monotonic()
    if corrupt == "directory":   # cannot be removed as a file: recomputed every time, never fatal
        assert main(FAST) == 0
        assert "(cached)" not in capsys.readouterr().out
        return
    assert main(FAST) == 0
    out = capsys.readouterr().out
    assert "isometry:lemma-a4" in out and "holds" in out and "(cached)" not in out and "planted" not in out
    assert time.monotonic() - t < 60
    good = json.loads(open(path, encoding="utf-8").read())
    assert good["claim"] == "isometry:lemma-a4" and good["status"] == "holds"
    assert main(FAST) == 0 and "(cached)" in capsys.readouterr().out


def test_the_cache_key_and_the_provenance_name_the_library_versions_that_computed_a_verdict(own_cache, tmp_path,
                                                                                            monkeypatch, capsys):
    """A verdict cached under mpmath 1.3.0 was served under 1.2.1 and labelled 1.2.1. The key now includes the
    numerical libraries' versions, and each verdict records when and with what it was computed (kept when it is
    served from the cache or resumed)."""
    report = tmp_path / "r.json"
    assert main(FAST + ["--json", str(report)]) == 0
    first = json.loads(report.read_text())["verdicts"][0]["settings"]["computed"]
    assert first["libraries"]["mpmath"] == cache.library_versions()["mpmath"] and first["at"]
    time.sleep(1.1)
    assert main(FAST + ["--json", str(report)]) == 0
    assert "(cached)" in capsys.readouterr().out
    assert json.loads(report.read_text())["verdicts"][0]["settings"]["computed"] == first   # when it was computed
    other = {**cache.library_versions(), "mpmath": "1.2.1"}
    monkeypatch.setattr(cache, "library_versions", lambda: other)
    assert main(FAST + ["--json", str(report)]) == 0
    assert "(cached)" not in capsys.readouterr().out                       # another mpmath: recomputed
    again = json.loads(report.read_text())["verdicts"][0]["settings"]["computed"]
    assert again["libraries"]["mpmath"] == "1.2.1" and again["at"] != first["at"]


def test_resume_recomputes_a_verdict_computed_with_other_library_versions(tmp_path, monkeypatch, capsys):
    report = tmp_path / "r.json"
    args = FAST + ["--no-cache", "--resume", str(report)]
    assert main(args) == 0
    capsys.readouterr()
    assert main(args) == 0 and "not rerun" in capsys.readouterr().out
    other = {**cache.library_versions(), "torch": "0.0"}
    monkeypatch.setattr(cache, "library_versions", lambda: other)
    assert main(args) == 0 and "not rerun" not in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------------------------
# input files that are not files, or too large, or unreadable
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--resume", "--expect"])
def test_a_fifo_as_an_input_file_is_refused_at_once(tmp_path, option):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "verify", *FAST, option, str(fifo)], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not a regular file" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert time.monotonic() - t < 60


def test_a_huge_resume_file_is_refused_before_it_is_read(tmp_path, capsys):
    """A 95 MB resume file took 55 s and 1.7 GB; files a run reads are capped (32 MiB) and refused at once."""
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(40 * 2 ** 20)
    t = time.monotonic()
    assert _code(FAST + ["--resume", str(big)]) == 2
    assert "at most 32 MiB" in capsys.readouterr().err
    assert time.monotonic() - t < 10


@pytest.mark.parametrize("text, fragment", [(b"a = " + b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                                            (b'x = "\xff"\n', "not UTF-8"),
                                            (b"[" * 5000, "not a readable TOML file")])
def test_an_unreadable_expectations_file_is_a_one_line_usage_error(tmp_path, capsys, text, fragment):
    path = tmp_path / "e.toml"
    path.write_bytes(text)
    assert _code(FAST + ["--expect", str(path)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and len(err) < 500


# ---------------------------------------------------------------------------------------------------------------
# outputs: one file per output, no empty names, the exit status of what the report holds
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("extra, fragment", [
    (["--json", "SAME", "--latex", "SAME"], "--json and --latex name the same file"),
    (["--junit", "SAME", "--latex", "SAME"], "--latex and --junit name the same file"),
    (["--json", ""], "--json needs a file name"),
    (["--latex", ""], "--latex needs a file name"),
    (["--artefacts", ""], "--artefacts needs a directory name"),
    (["--junit", " "], "--junit needs a file name")])
def test_two_outputs_on_one_file_or_an_empty_name_are_refused_before_any_work(tmp_path, capsys, extra, fragment):
    same = str(tmp_path / "out.txt")
    assert _code(FAST + [same if a == "SAME" else a for a in extra]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1
    assert not os.path.exists(same)


def test_json_and_resume_may_name_one_report(tmp_path):
    report = str(tmp_path / "r.json")
    assert main(FAST + ["--no-cache", "--json", report, "--resume", report]) == 0


def test_after_resume_the_exit_status_is_that_of_the_report(tmp_path, capsys):
    """A resumed report holding a violated verdict listed it as a regression while the run exited 0."""
    report = tmp_path / "r.json"
    assert main(FAST + ["--no-cache", "--json", str(report)]) == 0
    doc = json.loads(report.read_text())
    doc["verdicts"][0]["claim"] = "isometry:definition3"      # a kept verdict this run does not recompute
    doc["verdicts"][0]["status"] = "violated"
    report.write_text(json.dumps(doc))
    assert main(FAST + ["--no-cache", "--resume", str(report), "--expect", "shipped"]) == 1
    assert main(FAST + ["--no-cache", "--resume", str(report)]) == 1
    kept = {v["claim"]: v["status"] for v in json.loads(report.read_text())["verdicts"]}
    assert kept == {"isometry:definition3": "violated", "isometry:lemma-a4": "holds"}


def test_render_csv_gives_claims_whose_names_share_a_file_name_their_own_files(tmp_path):
    """`render --csv` mapped 'a.b' and 'a..b' to one file while saying it rendered both."""
    from verify.commands.render import write_csv as _write_csv
    from verify.core import Evidence, Verdict
    verdicts = [Verdict(cid, "holds", "s", [Evidence(f"row of {cid}", theory=1.0, numeric=1.0, passed=True)])
                for cid in ("mini2024:eq.1", "mini2024:eq..1", "mini2024:eq-2")]
    _write_csv(verdicts, str(tmp_path))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 3 and "mini2024_eq-2_evidence.csv" in files
    rows = {open(tmp_path / f, encoding="utf-8").read().splitlines()[1].split(",")[0] for f in files}
    assert rows == {"row of mini2024:eq.1", "row of mini2024:eq..1", "row of mini2024:eq-2"}


# ---------------------------------------------------------------------------------------------------------------
# user datasets: validated before any work; no verdict from a NaN
# ---------------------------------------------------------------------------------------------------------------

def _digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    return d.data.copy(), d.target.copy()


def _huge_header(path):
    """An .npz whose x claims 10¹⁰ × 10³ float64 (80 TB) but holds nothing: refused from its header."""
    with zipfile.ZipFile(path, "w") as z:
        header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1)))
        header["shape"] = (10 ** 10, 1000)
        import io
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, header)
        z.writestr("x.npy", buf.getvalue())
        buf = io.BytesIO()
        np.save(buf, np.arange(10))
        z.writestr("y.npy", buf.getvalue())


MALFORMED = {
    "every feature constant": (lambda x, y: (np.full_like(x, 2.0), y), "every input feature is constant"),
    "complex inputs": (lambda x, y: (x + 1j, y), "inputs must be real numbers"),
    "text inputs": (lambda x, y: (x.astype(str), y), "inputs must be real numbers"),
    "a huge label": (lambda x, y: (x, np.where(np.arange(len(y)) == 0, 10 ** 12, y)), "K at most the number of"),
    "negative label": (lambda x, y: (x, y - 1), "labels must be integers"),
    "fractional label": (lambda x, y: (x, y + 0.5), "labels must be integers"),
    "complex labels": (lambda x, y: (x, y + 0j), "labels must be integers"),
    "NaN inputs": (lambda x, y: (np.where(x == 0, np.nan, x), y), "NaN or infinite"),
    "one class": (lambda x, y: (x, np.zeros_like(y)), "at least two classes"),
    "fewer labels": (lambda x, y: (x, y[:-5]), "as many labels as inputs"),
    "1-D inputs": (lambda x, y: (x[:, 0], y), "shape (samples, features"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED) + ["no arrays", "huge header", "not a zip", "objects"])
def test_a_malformed_dataset_is_bad_input_with_its_reason_before_any_work(tmp_path, capsys, case):
    """Nine malformed files exited 3 (inconclusive, from inside the claim) instead of 2; complex arrays were cast
    silently; a huge label tried to allocate before failing with exit 4. Each is now exit 2 at start, one line."""
    path = str(tmp_path / "data.npz")
    x, y = _digits()
    fragment = {"no arrays": "needs arrays", "huge header": "GiB", "not a zip": "cannot be read as .npz",
                "objects": "Python objects"}.get(case)
    if case in MALFORMED:
        make, fragment = MALFORMED[case]
        np.savez(path, **dict(zip(("x", "y"), make(x, y))))
    elif case == "no arrays":
        np.savez(path, a=x)
    elif case == "huge header":
        _huge_header(path)
    elif case == "not a zip":
        open(path, "wb").write(b"\x93NUMPY not really")
    else:
        np.savez(path, x=x, y=y.astype(object))
    with pytest.raises(ValueError, match=None) as info:
        P.dataset(path)
    assert fragment in str(info.value) and "\n" not in str(info.value)
    t = time.monotonic()
    assert _code(["isometry:figure-b4", "--budget", "quick", "--param", f"dataset={path}"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1
    assert time.monotonic() - t < 30


def test_a_constant_feature_is_standardised_to_zero_as_documented(tmp_path):
    from numerics.datasets import load_dataset
    x, y = _digits()
    x[:, 5] = 3.0
    path = str(tmp_path / "c.npz")
    np.savez(path, x=x, y=y)
    assert P.dataset(path) == path
    ds = load_dataset(path)
    assert np.all(ds.x_train[:, 5] == 0) and np.all(np.isfinite(ds.x_train)) and np.all(np.isfinite(ds.x_test))


def test_no_verdict_is_judged_on_a_nan():
    """A row whose compared value is NaN fails every comparison: its claim said "violated" from no number at all.
    It is now inconclusive, naming the row."""
    from verify.core import Claim, Context, Evidence, Verdict
    from verify.runner import run_claim

    def check(ctx):
        rows = [Evidence("a measured moment vs its bound", theory=1.0, numeric=float("nan"), bound=0.1,
                         observed=float("nan"), passed=False)]
        return Verdict("mini2024:nan", "violated", "the moment is off", rows)

    claim = Claim("mini2024", "nan", "a claim measured as NaN", "s", check=check)
    v = run_claim(claim, Context(budget="quick"), with_control=False)
    assert v.status == "inconclusive" and "judged on a NaN" in v.summary and "a measured moment" in v.summary


# ---------------------------------------------------------------------------------------------------------------
# signals and workers
# ---------------------------------------------------------------------------------------------------------------

def _children(pid: int) -> set[int]:
    out = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            out |= {int(c) for c in open(f"/proc/{pid}/task/{task}/children").read().split()}
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc (Linux)")
def test_sigterm_during_a_run_keeps_the_report_and_leaves_no_temporary_file(tmp_path):
    """SIGTERM (a batch scheduler's) used to end the process by the signal, mid-write: a `.tmp` file was left
    behind. It is now an interrupt: exit 130, the finished verdicts in the report, no temporary file."""
    report = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "verify", "isometry:lemma-a4", "isometry:theorem1",
                             "isometry:definition3", "--budget", "quick", "--no-cache", "-q", "--json", str(report)],
                            cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not report.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    doc = json.loads(report.read_text())
    assert doc["complete"] is False and doc["verdicts"][0]["claim"] == "isometry:lemma-a4"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc (Linux)")
def test_jobs_workers_end_within_seconds_when_their_parent_is_killed(tmp_path):
    """Killing only the --jobs parent (SIGKILL) left both workers running indefinitely, holding its stdout open."""
    proc = subprocess.Popen([sys.executable, "-m", "verify", "all", "--paper", "isometry", "--budget", "quick",
                             "--jobs", "2", "--no-cache", "-q"], cwd=tmp_path, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, workers = time.monotonic() + 240, set()
    while time.monotonic() < deadline:
        workers = {c for c in _children(proc.pid)
                   if "spawn_main" in open(f"/proc/{c}/cmdline").read().replace("\0", " ")} \
            if _alive(proc.pid) else set()
        if len(workers) >= 2:
            break
        time.sleep(0.2)
    assert len(workers) >= 2
    time.sleep(2.0)                     # the workers are computing
    proc.kill()
    proc.wait(timeout=30)
    t = time.monotonic()
    while any(_alive(w) for w in workers) and time.monotonic() - t < 20:
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers)


# ---------------------------------------------------------------------------------------------------------------
# careless input: one line, exit 2
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("address", ["ucx://127.0.0.1:9", "tls://127.0.0.1:9"])
def test_a_scheduler_address_of_an_unusable_protocol_is_a_usage_error(address, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("DEEPINIT_DASK_TIMEOUT", "2")
    assert _code(FAST + ["--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "cannot reach a Dask scheduler" in err and err.count("\n") == 1


def test_a_client_that_failed_to_start_is_finalised_at_once(monkeypatch):
    """A half-started ``distributed.Client`` left to the cyclic garbage collector can be finalised inside the next
    client's start, which holds the lock its ``__del__`` needs (shared by every LoopRunner): a hang that only
    pytest-timeout ended. The pool finalises it before the error leaves."""
    distributed = pytest.importorskip("distributed")
    import gc

    from verify import parallel
    monkeypatch.setenv("DEEPINIT_DASK_TIMEOUT", "2")
    gc.collect()
    before = sum(type(o) is distributed.Client for o in gc.get_objects())
    gc.disable()
    try:
        for address in ("ucx://127.0.0.1:9", "tls://127.0.0.1:9"):
            with pytest.raises(Exception):
                parallel.Pool(scheduler=address)
            after = sum(type(o) is distributed.Client for o in gc.get_objects())
            assert after == before, (address, before, after)
    finally:
        gc.enable()


def test_a_one_column_terminal_still_shows_every_cell():
    r = subprocess.run([sys.executable, "-m", "verify", "profile", "relu"], env=_env(COLUMNS="1"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Hermite coefficient c_1" in r.stdout and "0.5" in r.stdout


# ---------------------------------------------------------------------------------------------------------------
# fuzz: arguments, environment variables, TOML and NPZ inputs
# ---------------------------------------------------------------------------------------------------------------

_ENV_VARS = ["DEEPINIT_THREADS", "DEEPINIT_STORE_MB", "DEEPINIT_MEMORY_GB", "DEEPINIT_PLUGIN_TIMEOUT",
             "DEEPINIT_DASK_TIMEOUT", "DEEPINIT_NO_CACHE", "COLUMNS"]
_VALUES = st.one_of(st.sampled_from(["", "0", "1", "-1", "2", "auto", "nan", "inf", "-inf", "1e309", "0x10",
                                     "１", " 4 ", "3.5", "abc", "9" * 40]),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                            max_size=12))
_ARGS = st.sampled_from(["--seed", "-3", "7", "--budget", "quick", "cheap", "--param", "n=3", "--json", "OUT",
                         "--latex", "OUT", "--junit", "-", "", "--dtype", "float16", "--resume", "--expect",
                         "shipped", "EXP", "--digits", "99", "--perturb", "c*=1.05", "\udcff", "--no-cache"])
_TOML = st.one_of(st.sampled_from(['["isometry:lemma-a4"]\nstatus = "holds"\n',
                                   '["isometry:lemma-a4"]\nstatus = "violated"\nkind = "erratum"\n',
                                   '["isometry:lemma-a4"]\nstatus = "bogus"\n', '["nosuch:claim"]\nstatus = "holds"\n',
                                   '["isometry:lemma-a4"]\nstatus_quick = "holds"\nstatus = "holds"\n',
                                   'x = [[[[[[1]]]]]]\n', '"isometry:lemma-a4" = 3\n']),
                  st.binary(max_size=60).map(lambda b: b.decode("latin-1")))


def _one_run(argv, env, tmp_path, capsys, monkeypatch, toml=None):
    monkeypatch.chdir(tmp_path)
    for k in _ENV_VARS:
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    if toml is not None:
        (tmp_path / "EXP").write_bytes(toml.encode("utf-8", "surrogateescape"))
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 3, 130), (argv, env, err)
    assert "Traceback" not in err and "crashed" not in err, (argv, env, err)
    if code == 2:
        assert err.strip().count("\n") <= 1 or "could not be loaded" in err, err
    if "--json" in argv and code in (0, 1, 3):
        target = argv[argv.index("--json") + 1] if argv.index("--json") + 1 < len(argv) else None
        if target == "OUT" and (tmp_path / "OUT").exists():
            json.loads((tmp_path / "OUT").read_text(encoding="utf-8"),
                       parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    for p in tmp_path.iterdir():
        assert not p.name.startswith(".tmp-"), p


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argv=st.lists(_ARGS, max_size=6), env=st.dictionaries(st.sampled_from(_ENV_VARS), _VALUES, max_size=2),
       toml=_TOML)
def test_fuzz_arguments_environment_and_expectation_files_exit_with_a_documented_status(argv, env, toml, tmp_path,
                                                                                          capsys, monkeypatch,
                                                                                          own_cache):
    _one_run(FAST + argv, env, tmp_path, capsys, monkeypatch, toml)


_ARRAY = st.one_of(
    st.sampled_from(["float64", "float32", "int64", "uint8", "bool", "complex128", "U3", "float16"]).flatmap(
        lambda dt: st.tuples(st.just(dt), st.sampled_from([(0,), (40,), (40, 3), (40, 2, 2), (3, 40)]),
                             st.sampled_from(["normal", "constant", "nan", "huge", "labels", "big labels"]))),
    st.none())


def _make(spec, rng):
    if spec is None:
        return None
    dt, shape, fill = spec
    if fill == "labels":
        a = rng.integers(0, 3, size=shape)
    elif fill == "big labels":
        a = rng.integers(0, 2 ** 40, size=shape)
    elif fill == "constant":
        a = np.full(shape, 1.5)
    elif fill == "nan":
        a = np.where(rng.random(shape) < 0.1, np.nan, rng.standard_normal(shape))
    elif fill == "huge":
        a = rng.standard_normal(shape) * 1e300
    else:
        a = rng.standard_normal(shape)
    with np.errstate(all="ignore"):
        return a.astype(dt)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(x=_ARRAY, y=_ARRAY, split=st.booleans())
def test_fuzz_datasets_give_finite_standardised_arrays_or_a_one_line_reason(tmp_path_factory, capsys, x, y, split):
    """Whatever arrays an .npz holds, the dataset check either accepts it — and then the loaded arrays are finite
    float32, labels 0..K−1 with K ≤ the samples — or refuses it with one line, quickly; a refused file given to a
    claim on the command line is exit 2 before any work, one line on stderr, and no report."""
    from numerics.datasets import load_dataset
    rng = np.random.default_rng(0)
    arrays = {k: v for k, v in (("x", _make(x, rng)), ("y", _make(y, rng))) if v is not None}
    if split and len(arrays) == 2:
        arrays = {"x_train": arrays["x"], "y_train": arrays["y"], "x_test": arrays["x"], "y_test": arrays["y"]}
    path = str(tmp_path_factory.mktemp("npz") / "d.npz")
    np.savez(path, **arrays)
    t = time.monotonic()
    try:
        P.dataset(path)
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 600
        report = path + ".json"
        capsys.readouterr()
        assert _code(["isometry:figure-b4", "--budget", "quick", "--param", f"dataset={path}", "--json", report]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
        assert not os.path.exists(report)
    else:
        ds = load_dataset(path)
        for a in (ds.x_train, ds.x_test):
            assert a.dtype == np.float32 and np.all(np.isfinite(a))
        assert ds.classes <= len(ds.y_train) + len(ds.y_test) and ds.y_train.min() >= 0
    assert time.monotonic() - t < 10
