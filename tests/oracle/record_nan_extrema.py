"""Cases for the derivatives of max/min-like reductions at NaN, +-inf and ties, and a
recorder of JAX's values (see README.md).

`FUNCTIONS` maps a name to a function of (module namespace m, x) returning a scalar,
written with `m.jnp` / `m.lax` so the same code runs on JAX and on astjax; `INPUTS` are
the length-3 operands. For each pair the recorder stores JAX's `grad` (run op by op and
under `jit`) and `jvp` (tangent [1, 2, 3]); `BATCHED` holds `vmap(grad(f))` over the
rows of `ROWS`. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_nan_extrema.py` writes nan_extrema.json."""
import json
import sys
from pathlib import Path

import numpy as np

nan, inf = float("nan"), float("inf")
INPUTS = {
    "nan_mid": [1.0, nan, 2.0], "all_nan": [nan, nan, nan], "inf": [1.0, inf, 2.0],
    "ninf": [-inf, -inf, 1.0], "tie": [2.0, 1.0, 2.0], "tie_inf": [inf, 1.0, inf],
    "nan_inf": [inf, nan, 1.0], "plain": [0.5, 3.0, -1.0],
}
ROWS = [[1.0, nan, 2.0], [0.5, 3.0, -1.0], [2.0, 1.0, 2.0], [nan, nan, nan]]

FUNCTIONS = {
    "max": lambda m, x: m.jnp.max(x),
    "min": lambda m, x: m.jnp.min(x),
    "amax_axis": lambda m, x: m.jnp.amax(x.reshape(1, 3), axis=1).sum(),
    "amin_axis0": lambda m, x: m.jnp.amin(m.jnp.stack([x, 2 * x]), axis=0).sum(),
    "lax_reduce_max": lambda m, x: m.lax.reduce_max(x, (0,)),
    "lax_reduce_min": lambda m, x: m.lax.reduce_min(x, (0,)),
    "maximum_reduce": lambda m, x: m.jnp.maximum.reduce(x),
    "max_method": lambda m, x: (x * 2).max(),
    "nanmax": lambda m, x: m.jnp.nanmax(x),
    "nanmin": lambda m, x: m.jnp.nanmin(x),
    "median": lambda m, x: m.jnp.median(x),
    "sort": lambda m, x: (m.jnp.sort(x) * m.jnp.arange(3.0)).sum(),
    "argmax_take": lambda m, x: x[m.jnp.argmax(x)],
    "argmin_take": lambda m, x: x[m.lax.argmin(x, 0, np.int32)],
}
BATCHED = ["max", "min", "amax_axis", "nanmax", "median"]
TANGENT = [1.0, 2.0, 3.0]


def as_list(a):
    """A JSON-able nested list, NaN and inf spelled as strings."""
    return [v if np.isfinite(v) else str(v) for v in np.asarray(a, np.float64).ravel()]


def from_list(v):
    """The inverse of `as_list`."""
    return np.array([float(e) for e in v])


def record():
    import jax
    import jax.numpy as jnp
    from jax import lax

    m = type("M", (), {"jnp": jnp, "lax": lax})
    out = {"jax": jax.__version__, "cases": {}, "batched": {}}
    for fname, f in FUNCTIONS.items():
        g = lambda x, f=f: f(m, x)
        for xname, xv in INPUTS.items():
            x = jnp.array(xv, jnp.float32)
            t = jnp.array(TANGENT, jnp.float32)
            out["cases"][f"{fname}/{xname}"] = {
                "value": as_list(g(x)),
                "grad": as_list(jax.grad(g)(x)),
                "grad_jit": as_list(jax.jit(jax.grad(g))(x)),
                "jvp": as_list(jax.jvp(g, (x,), (t,))[1]),
            }
    for fname in BATCHED:
        g = lambda x, f=FUNCTIONS[fname]: f(m, x)
        out["batched"][fname] = as_list(jax.vmap(jax.grad(g))(jnp.array(ROWS, jnp.float32)))
    path = Path(__file__).with_name("nan_extrema.json")
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in
             [("jax", out["jax"])] + [(f"cases:{k}", v) for k, v in out["cases"].items()]
             + [(f"batched:{k}", v) for k, v in out["batched"].items()]]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    record()
