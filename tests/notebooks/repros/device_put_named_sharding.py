"""jax.device_put(x, NamedSharding(mesh, spec)): the entry point of every sharding
notebook (run with XLA_FLAGS=--xla_force_host_platform_device_count=8).

JAX:    NamedSharding(mesh=Mesh('a': 4, 'b': 2, ...), spec=PartitionSpec('a', 'b'), ...)
        {CpuDevice(id=0), ..., CpuDevice(id=7)}   (8 devices)
astjax: ArgumentValueError: device_put only accepts None or a Device, got NamedSharding ...
"""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('a', 'b'))
y = jax.device_put(jnp.arange(32.).reshape(8, 4), NamedSharding(mesh, P('a', 'b')))
print(y.sharding)
print(len(y.sharding.device_set), "devices")
print(jnp.sin(y).sum())
