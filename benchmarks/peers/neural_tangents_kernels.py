"""Records neural-tangents' analytic NNGP and NTK kernels (stax.Dense + Erf/Relu/Gelu/LeakyRelu/Sin/Abs, 'ntk'
parameterisation, float64) of six fixed inputs at depths 1, 10, 100, for tests/test_kernels.py.

Run in an environment with the peer (it is not a dependency of this package):
    python -m venv /tmp/ntv && /tmp/ntv/bin/pip install neural-tangents==0.6.5 "jax[cpu]==0.4.30"
    /tmp/ntv/bin/python benchmarks/peers/neural_tangents_kernels.py tests/data/neural_tangents_0.6.5_kernels.json
"""
import json, sys
import jax
jax.config.update("jax_enable_x64", True)
import numpy as onp
from jax import numpy as jnp
import neural_tangents as nt
from neural_tangents import stax
X = onp.array([[0.3, -1.2, 0.7, 0.05, 1.1], [-0.4, 0.9, 1.3, -0.6, 0.2], [1.5, 0.1, -0.3, 0.8, -0.9],
               [0.0, -0.5, 0.4, 1.2, 0.6], [0.31, -1.18, 0.69, 0.07, 1.12], [-2.0, 0.3, 0.1, -0.2, 0.0]])
acts = {"erf": stax.Erf(), "relu": stax.Relu(), "gelu": stax.Gelu(), "leaky_relu": stax.LeakyRelu(0.01),
        "sin": stax.Sin(), "abs": stax.Abs()}
out = {"neural_tangents": nt.__version__, "jax": jax.__version__, "inputs": X.tolist(), "cases": []}
for name, layer in acts.items():
    for depth, sw2, sb2 in [(1, 1.0, 0.0), (10, 2.0, 0.1), (100, 1.5, 0.05)]:
        if name == "sin" and depth == 100:
            sw2 = 1.0
        layers = []
        for _ in range(depth):
            layers += [stax.Dense(512, W_std=sw2 ** 0.5, b_std=sb2 ** 0.5), layer]
        layers += [stax.Dense(1, W_std=sw2 ** 0.5, b_std=sb2 ** 0.5)]
        _, _, kfn = stax.serial(*layers)
        k = kfn(jnp.asarray(X), None, ("nngp", "ntk"))
        out["cases"].append({"act": name, "depth": depth, "sigma_w2": sw2, "sigma_b2": sb2,
                             "nngp": onp.asarray(k.nngp).tolist(), "ntk": onp.asarray(k.ntk).tolist()})
        print(name, depth, float(k.nngp[0, 1]), float(k.ntk[0, 1]), file=sys.stderr)
json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "neural_tangents_kernels.json", "w"), indent=1)
