# expect: AstjaxError ValueError
# jax: ValueError (ValueError): `jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, `Format`, `jax.memory.Space` or a pytree of these values. Received invalid value: c
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax

astjax.device_put(jnp.ones(2), 'cpu:7')  # error
