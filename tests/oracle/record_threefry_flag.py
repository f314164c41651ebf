"""Random bits under both settings of `jax_threefry_partitionable`, run on real JAX to
record `threefry_flag.json`, and on astjax by tests/test_threefry_flag.py."""
import json
import sys
from pathlib import Path

import numpy as np


def _draws(jax, jnp):
    k = jax.random.PRNGKey(42)
    d = {}
    d["split3"] = np.asarray(jax.random.split(k, 3)).tolist()
    d["split_2x3"] = np.asarray(jax.random.split(k, (2, 3))).tolist()
    d["split_odd"] = np.asarray(jax.random.split(jax.random.PRNGKey(1), 5)).tolist()
    d["fold_in"] = np.asarray(jax.random.fold_in(k, 7)).tolist()
    d["bits32_5"] = np.asarray(jax.random.bits(k, (5,))).tolist()
    d["bits32_2x3"] = np.asarray(jax.random.bits(k, (2, 3))).tolist()
    d["bits8_7"] = np.asarray(jax.random.bits(k, (7,), jnp.uint8)).tolist()
    d["bits16_3"] = np.asarray(jax.random.bits(k, (3,), jnp.uint16)).tolist()
    d["bits_empty"] = np.asarray(jax.random.bits(k, (0,))).tolist()
    d["uniform_4"] = np.asarray(jax.random.uniform(k, (4,))).tolist()
    d["uniform_bf16_5"] = np.asarray(
        jax.random.uniform(k, (5,), jnp.bfloat16).astype(jnp.float32)).tolist()
    d["normal_2x2"] = np.asarray(jax.random.normal(k, (2, 2))).tolist()
    d["randint_5"] = np.asarray(jax.random.randint(k, (5,), 0, 100)).tolist()
    d["permutation_6"] = np.asarray(jax.random.permutation(k, 6)).tolist()
    d["typed_split"] = np.asarray(
        jax.random.key_data(jax.random.split(jax.random.key(3), 2))).tolist()
    d["jit_normal"] = np.asarray(jax.jit(lambda k: jax.random.normal(k, (3,)))(k)).tolist()
    d["vmap_uniform"] = np.asarray(jax.vmap(lambda k: jax.random.uniform(k, (3,)))(
        jax.random.split(k, 2))).tolist()
    with jax.enable_x64(True):
        d["bits64_3"] = [int(v) for v in np.asarray(jax.random.bits(k, (3,), jnp.uint64))]
        d["uniform64_3"] = np.asarray(jax.random.uniform(k, (3,), jnp.float64)).tolist()
    return d


def run(jax, jnp):
    """Every value as nested lists of numbers, keyed by flag setting."""
    out = {}
    for flag in (True, False):
        jax.config.update("jax_threefry_partitionable", flag)
        out[str(flag)] = _draws(jax, jnp)
    jax.config.update("jax_threefry_partitionable", True)
    with jax.threefry_partitionable(False):
        out["ctx_split"] = np.asarray(jax.random.split(jax.random.PRNGKey(42), 3)).tolist()
    out["after_ctx"] = np.asarray(jax.random.split(jax.random.PRNGKey(42), 3)).tolist()
    out["default"] = bool(jax.config.jax_threefry_partitionable)
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert "astjax" not in sys.modules
    result = run(jax, jnp)
    Path(__file__).with_name("threefry_flag.json").write_text(json.dumps(result, indent=1)
                                                              + "\n")
    print(f"wrote {len(result)} values")
