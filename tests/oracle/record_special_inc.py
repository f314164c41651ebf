"""Cases for the incomplete gamma and beta functions (`lax.igamma`, `igammac`,
`betainc`, `jax.scipy.special.gammainc`, `gammaincc`, `betainc`) and their
derivatives in x, with a recorder of JAX's values (see README.md):
`/work/jaxref/bin/python tests/oracle/record_special_inc.py` writes special_inc.json."""
import json
import sys
from pathlib import Path

import numpy as np

A = [0.5, 1.0, 2.0, 5.0, 30.0, 0.0, -1.0, 1.0, 2.0, 1.0, 1.0, 0.1, 3.0, 12.0]
X = [0.3, 1.0, 3.0, 2.0, 35.0, 1.0, 1.0, 0.0, -1.0, np.inf, np.nan, 4.0, 0.01, 11.0]
BA = [2.0, 0.5, 5.0, 0.0, 1.0, 1.0, -1.0, 3.0, 0.7, 10.0, 2.0, 2.0]
BB = [3.0, 0.5, 1.5, 1.0, 0.0, 1.0, 1.0, 40.0, 0.3, 10.0, 2.0, 2.0]
BX = [0.4, 0.9, 0.99, 0.5, 0.5, 1.5, 0.5, 0.05, 0.2, 0.5, 0.0, 1.0]
GA = [0.5, 2.0, 5.0, 30.0, 3.0]
GX = [0.3, 3.0, 2.0, 28.0, 0.5]
GBA, GBB, GBX = [2.0, 0.5, 5.0, 3.0], [3.0, 0.5, 1.5, 7.0], [0.4, 0.9, 0.7, 0.1]

CASES = [
    ("igamma", lambda m: m.lax.igamma(m.f(A), m.f(X))),
    ("igammac", lambda m: m.lax.igammac(m.f(A), m.f(X))),
    ("betainc", lambda m: m.lax.betainc(m.f(BA), m.f(BB), m.f(BX))),
    ("gammainc", lambda m: m.sp.gammainc(m.f(A), m.f(X))),
    ("gammaincc", lambda m: m.sp.gammaincc(m.f(A), m.f(X))),
    ("sp_betainc", lambda m: m.sp.betainc(m.f(BA), m.f(BB), m.f(BX))),
    ("d_gammainc", lambda m: m.jax.vmap(m.jax.grad(m.sp.gammainc, argnums=1))(m.f(GA), m.f(GX))),
    ("d_gammaincc", lambda m: m.jax.vmap(m.jax.grad(m.sp.gammaincc, argnums=1))(m.f(GA),
                                                                                m.f(GX))),
    ("d_betainc", lambda m: m.jax.vmap(m.jax.grad(m.sp.betainc, argnums=2))(
        m.f(GBA), m.f(GBB), m.f(GBX))),
    ("igamma_grad_a", lambda m: m.lax.igamma_grad_a(m.f(GA), m.f(GX))),
    ("d_gammainc_a", lambda m: m.jax.vmap(m.jax.grad(m.sp.gammainc))(m.f(GA), m.f(GX))),
    ("scalar_mix", lambda m: m.sp.gammainc(2, m.f([0.5, 1.5]))),
]


def record(path):
    import types
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as sp
    from jax import lax
    m = types.SimpleNamespace(jax=jax, sp=sp, lax=lax,
                              f=lambda v: jnp.asarray(np.asarray(v, np.float32)))
    out = {}
    for name, fn in CASES:
        y = np.asarray(fn(m))
        out[name] = {"dtype": str(y.dtype), "values": [None if np.isnan(v) else float(v)
                                                       for v in y.ravel()]}
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("special_inc.json"))
