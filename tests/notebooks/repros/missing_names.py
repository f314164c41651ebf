"""Names the notebooks import that astjax does not provide (each line: name -> ok / error).

JAX:    every line ok
astjax: see the output (jax._src.lib, jax.checkpoint_policies, ClosedJaxpr.literals,
        lax.exp_p, jax.extend.core.primitives, with_sharding_constraint, shard_map,
        jax.sharding.reshard/auto_axes, the jax_threefry_partitionable option, ...;
        jax._src.util/api, jax.ad_checkpoint and jax.debug.visualize_array_sharding are
        provided since this branch)
"""
import importlib

import jax
import jax.numpy as jnp

checks = {
    "jax._src.util.safe_map": lambda: importlib.import_module("jax._src.util").safe_map,
    "jax._src.api.jit": lambda: importlib.import_module("jax._src.api").jit,
    "jax._src.lib.mlir.dialects.hlo": lambda: importlib.import_module("jax._src.lib.mlir.dialects").hlo,
    "jax.ad_checkpoint.print_saved_residuals":
        lambda: importlib.import_module("jax.ad_checkpoint").print_saved_residuals,
    "jax.ad_checkpoint.checkpoint_name": lambda: importlib.import_module("jax.ad_checkpoint").checkpoint_name,
    "jax.checkpoint_policies": lambda: jax.checkpoint_policies.dots_with_no_batch_dims_saveable,
    "ClosedJaxpr.literals": lambda: jax.make_jaxpr(jnp.sin)(1.).literals,
    "jax.lax.exp_p": lambda: jax.lax.exp_p,
    "jax.extend.core.primitives.exp_p": lambda: importlib.import_module("jax.extend.core").primitives.exp_p,
    "jax.lax.with_sharding_constraint": lambda: jax.lax.with_sharding_constraint,
    "jax.lax.tanh_p": lambda: jax.lax.tanh_p,
    "jax.experimental.shard_map.shard_map": lambda: importlib.import_module("jax.experimental.shard_map").shard_map,
    "jax.shard_map": lambda: jax.shard_map,
    "jax.sharding.AxisType": lambda: jax.sharding.AxisType,
    "jax.sharding.reshard": lambda: jax.sharding.reshard,
    "jax.sharding.auto_axes": lambda: jax.sharding.auto_axes,
    "jax.config 'jax_threefry_partitionable'":
        lambda: jax.config.update('jax_threefry_partitionable', False),
    "jax.sharding.set_mesh": lambda: jax.sharding.set_mesh,
    "jax.typeof": lambda: jax.typeof,
    "jax.effects_barrier": lambda: jax.effects_barrier,
    "jax.debug.visualize_array_sharding": lambda: jax.debug.visualize_array_sharding,
    "jax.experimental.io_callback": lambda: importlib.import_module("jax.experimental").io_callback,
}
for name, get in checks.items():
    try:
        get()
        print(f"{name}: ok")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
