"""Performance: calling jax.jvp / jax.vjp eagerly in a Python loop (autodiff_cookbook's
loop_jmp / loop_mjp: one call per row of a 128-row matrix; that notebook cell takes
4 s under JAX and 36 s under astjax).

Measured once on this (2-core, shared, heavily loaded) machine:
JAX:    128 jvp calls: 4.81 s   1 vjp + 128 pullback calls: 3.71 s   128 vjp calls: 0.14 s
astjax: 128 jvp calls: 33.83 s  1 vjp + 128 pullback calls: 21.92 s  128 vjp calls: 31.22 s
(JAX caches the traced jvp/vjp of the same function; astjax stages each call anew, and
runs each pullback call as a compiled program.)
"""
import time

import jax
import jax.numpy as jnp
from jax import random

W = random.normal(random.key(0), (3,))
inputs = random.normal(random.key(1), (4, 3))
f = lambda W: jnp.tanh(jnp.dot(inputs, W))
M = random.normal(random.key(2), (128, 3))
U = random.normal(random.key(3), (128, 4))

t = time.perf_counter()
jnp.vstack([jax.jvp(f, (W,), (m,))[1] for m in M]).block_until_ready()
print(f"128 jvp calls: {time.perf_counter() - t:.2f} s")
t = time.perf_counter()
y, f_vjp = jax.vjp(f, W)
jnp.vstack([f_vjp(u)[0] for u in U]).block_until_ready()
print(f"1 vjp + 128 pullback calls: {time.perf_counter() - t:.2f} s")
t = time.perf_counter()
jnp.vstack([jax.vjp(f, W)[1](u)[0] for u in U]).block_until_ready()
print(f"128 vjp calls: {time.perf_counter() - t:.2f} s")
