"""Cases for JAX's narrow dtypes (float8/float4 variants, 2- and 4-bit integers) and a
recorder of JAX's results (see README.md).

Each case is (name, dtype name, expression code) evaluated with `jnp`/`jax` bound to
the library under test; the result is recorded as (dtype, values as float64 list), or
the exception class name when JAX raises. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_narrow_dtypes.py` writes narrow_dtypes.json."""
import json
import sys
from pathlib import Path

import numpy as np

DTYPES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
          "float4_e2m1fn", "int4", "uint4", "int2", "uint2"]
EXPRS = {
    "arange_astype": "jnp.arange(-3, 5).astype(dt)",
    "times_python_scalar": "jnp.arange(4).astype(dt) * 2",
    "add_self_jit": "jax.jit(lambda a: a + a)(jnp.arange(4).astype(dt))",
    "sum": "jnp.sum(jnp.arange(4).astype(dt))",
    "max": "jnp.max(jnp.arange(4).astype(dt))",
    "to_f32_and_back": "(jnp.linspace(-2, 2, 5).astype(dt).astype(jnp.float32) * 1.5).astype(dt)",
    "promote_with_f32": "jnp.promote_types(dt, jnp.float32)",
    "promote_with_i8": "jnp.promote_types(dt, jnp.int8)",
    "result_type_weak": "jnp.result_type(dt, 1.0)",
    "ones_like": "jnp.ones_like(jnp.zeros(3, dt))",
    "where": "jnp.where(jnp.arange(4) > 1, jnp.arange(4).astype(dt), jnp.zeros(4, dt))",
}


def run_case(jnp, jax, dtype_name, code):
    """-> {"dtype", "values"} or {"raises": class name}."""
    dt = getattr(jnp, dtype_name)
    try:
        out = eval(code, {"jnp": jnp, "jax": jax, "dt": dt})
    except Exception as e:  # noqa: BLE001 - the class name is the recorded result
        return {"raises": type(e).__name__}
    if isinstance(out, (np.dtype, type)):
        return {"dtype": str(np.dtype(out)), "values": None}
    arr = np.asarray(out)
    return {"dtype": str(arr.dtype), "values": arr.astype(np.float64).ravel().tolist()}


def record(path):
    import jax
    import jax.numpy as jnp
    out = {f"{d}/{k}": run_case(jnp, jax, d, code) for d in DTYPES for k, code in EXPRS.items()}
    Path(path).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("narrow_dtypes.json"))
