"""astjax quickstart: the programs from the seed notes, run with `import astjax as jax`.

    python examples/quickstart.py

Every function below is ordinary Python. astjax reads its source, stages it into a
jaxpr (printed with `make_jaxpr`), lowers that to StableHLO and runs it with XLA.
"""
from functools import partial

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax import lax


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 70 - len(title)))


# 1. "How tracing works": the jaxpr of log2 ------------------------------------------
def log2(x):
    ln_x = lax.log(x)
    ln_2 = lax.log(2.0)
    return ln_x / ln_2


section("make_jaxpr(log2)(3.0)")
print(jax.make_jaxpr(log2)(3.0))
print("log2(8.0) =", jax.jit(log2)(8.0))


# 2. make_jaxpr of jnp.dot(x + 1, y + 1) -----------------------------------------------
def f(x, y):
    return jnp.dot(x + 1, y + 1)


section("make_jaxpr(f)(x, y) with x: f32[2,3], y: f32[3,4]")
print(jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((3, 4))))


# 3. The MLP `predict` under jit, checked against NumPy ---------------------------------
def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def np_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs


section("jit(predict)(params, inputs): layer sizes [784, 512, 512, 10], batch 128")
rng = np.random.RandomState(0)
sizes = [784, 512, 512, 10]
params = [(rng.randn(m, n).astype(np.float32) / np.float32(np.sqrt(m)),
           rng.randn(n).astype(np.float32) * np.float32(0.1))
          for m, n in zip(sizes[:-1], sizes[1:])]
inputs = rng.randn(128, 784).astype(np.float32)
fast_predict = jax.jit(predict)
out = fast_predict(params, inputs)
ref = np_predict(params, inputs)
err = float(np.max(np.abs(np.asarray(out) - ref)))
print(f"output: {type(out).__name__} of shape {out.shape}, dtype {out.dtype}")
print("first row:", np.asarray(out)[0].round(4))
print(f"max abs difference from NumPy: {err:.2e}",
      "(ok)" if np.allclose(np.asarray(out), ref, rtol=1e-5, atol=1e-5) else "(MISMATCH)")
print("the jaxpr (the for loop over a static list of layers is unrolled):")
print(jax.make_jaxpr(predict)(params, inputs))


# 4. static_argnums: a Python `if` on a static argument ---------------------------------
section("static_argnums: f(x, neg) = -x if neg else x")


@partial(jax.jit, static_argnums=(1,))
def g(x, neg):
    return -x if neg else x


print(g(1, True))
print(g(2, True))
print(g(2, False))
print(g(23, False))
print(f"{len(g._cache)} compilations: one per value of `neg`")


# 5. jnp.array(x.shape).prod() is static, so the reshape compiles ----------------------
section("x.reshape(jnp.array(x.shape).prod()) under jit")


@jax.jit
def flatten(x):
    return x.reshape(jnp.array(x.shape).prod())


print(flatten(jnp.ones((2, 3))))


# 6. XLA's fusion example: jnp.sum(x + y * z) and its StableHLO -------------------------
def model(x, y, z):
    return jnp.sum(x + y * z)


section("jit(model).lower(x, y, z).as_text()")
x = y = z = jnp.arange(4.0)
print(jax.jit(model).lower(x, y, z).as_text())
xn = np.arange(4.0)
print("model(x, y, z) =", jax.jit(model)(x, y, z), f"(NumPy: {np.sum(xn + xn * xn)})")
