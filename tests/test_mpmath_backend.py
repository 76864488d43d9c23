"""mpmath's GMP backend (gmpy2, a dependency): in use, and the same digits as pure-Python integers on the package's
high-precision routes — the engine's moments, β_σ by quadrature and an edge of chaos."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ROUTES = r"""
import json, mpmath, mpmath.libmp
from theory import meanfield_mlp as mf
from theory.activations import activation
from theory.isometry import isometry_strength_mp
tanh = activation("tanh")
out = [mpmath.nstr(mf._moment(tanh, kind, q, 30)[0], 30) for kind in ("phi2", "dphi2", "phi_ddphi")
       for q in (0.4, 1.7)]
out.append(mpmath.nstr(isometry_strength_mp("x + tanh(x)", 40), 35))
c = mf.critical_sigma_w2("erf", 0.1)
out.append(repr((c.value, c.error, c.text, c.q_star.value)))
print(json.dumps({"backend": mpmath.libmp.BACKEND, "digits": out}))
"""


def _routes(**env) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("MPMATH_NOGMPY", "SYMPY_GROUND_TYPES")}
    e.update({"OMP_NUM_THREADS": "1", "PYTHONPATH": ROOT, **env})
    r = subprocess.run([sys.executable, "-c", ROUTES], env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_mpmath_runs_on_gmp_integers_and_gives_the_digits_of_pure_python_integers():
    gmp, pure = _routes(), _routes(MPMATH_NOGMPY="1", SYMPY_GROUND_TYPES="python")
    assert (gmp["backend"], pure["backend"]) == ("gmpy", "python")
    assert len(gmp["digits"]) == 8 and gmp["digits"] == pure["digits"]
    # the values themselves, against independent numbers: E tanh(√0.4 z)² by scipy's adaptive quadrature
    from scipy import integrate, stats
    ref = integrate.quad(lambda z: math.tanh(0.4 ** 0.5 * z) ** 2 * stats.norm.pdf(z), -12, 12, limit=200,
                         epsabs=1e-13, epsrel=1e-13)[0]
    assert abs(float(gmp["digits"][0]) - ref) < 1e-12
