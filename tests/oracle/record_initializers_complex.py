"""Record JAX 0.10.2's `nn.initializers.variance_scaling` draws for complex dtypes and
the "fan_geo_avg" mode (flax's complex-parameter tests use them) into
initializers_complex.json. Run with an interpreter that has jax:

    /work/jaxref/bin/python tests/oracle/record_initializers_complex.py
"""
import json
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("initializers_complex.json")


def run(jax, jnp):
    """Every (distribution, mode, dtype) draw from one key, as nested lists of
    [real, imag] pairs."""
    key, out = jax.random.PRNGKey(3), {}
    for dist in ("truncated_normal", "uniform", "normal"):
        for mode in ("fan_in", "fan_geo_avg"):
            for dt in (jnp.float32, jnp.complex64):
                v = np.asarray(jax.nn.initializers.variance_scaling(2.0, mode, dist)(
                    key, (3, 4), dt))
                out[f"{dist}/{mode}/{v.dtype.name}"] = np.stack([v.real, v.imag], -1).tolist()
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    PATH.write_text(json.dumps(run(jax, jnp)) + "\n")
