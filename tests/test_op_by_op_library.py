"""A library function JAX jits (`jnp.var` & co., `numpy.util.library_jit`) called on
values that are not staged while an eager transformation stages its function runs now
as one compiled call -- its `jit` equation, which `core.bind` runs (`astjax/op_by_op.py`)
-- so its digits are JAX's eager call's and Python control flow on it is Python's. A
typed key over staged data stays staged. Bits are JAX 0.10.2's."""
import numpy as np

import astjax as jax
import astjax.numpy as jnp

RNG = np.random.RandomState(3)
RNG.randn(6, 6)
V_NP = RNG.randn(300).astype(np.float32)
V = jnp.asarray(V_NP)
KEY = jax.random.key(0)


def _hex(x):
    return np.asarray(x).tobytes().hex()


def test_library_function_on_a_global_has_its_eager_digits():
    # JAX's var divides by a run-time N - ddof: its eager bits (jit(var) gives 15068a3f)
    f = lambda x: x * jnp.var(V)
    assert _hex(jax.grad(f)(1.0)) == "14068a3f"
    assert _hex(jax.vmap(f)(jnp.ones(1))) == "14068a3f"
    assert _hex(jax.jvp(f, (1.0,), (1.0,))[1]) == "14068a3f"
    assert _hex(jax.grad(lambda x: x * jnp.std(V_NP))(1.0)) == "dcea843f"
    # an operand the function staged as a constant (a list made an array) counts too
    assert _hex(jax.grad(lambda x: x * jnp.var(jnp.array(list(V_NP[:5]))))(1.0)) == "c0c0653f"


def test_python_if_on_a_library_result():
    m = jnp.ones((2, 3))

    def f(x):
        if jnp.mean(m) > 0.5:   # concrete: the branches differ in shape
            return m[1:].sum() + x
        return m[:, 1:] + x
    np.testing.assert_array_equal(jax.vmap(f)(jnp.zeros(2)), [3.0, 3.0])
    assert float(jax.grad(f)(0.0)) == 1.0


def test_jit_stages_it():
    # under `jit` (make_jaxpr) the call stays one staged `jit` equation, as JAX's pjit
    text = str(jax.make_jaxpr(jax.grad(lambda x: x * jnp.var(V)))(1.0))
    assert "name=_var" in text


def test_typed_keys_over_staged_data_stay_staged():
    keys = jax.random.split(KEY, 3)
    np.testing.assert_array_equal(jax.vmap(jax.random.uniform)(keys),
                                  [jax.random.uniform(k) for k in keys])
    # a global key is not staged: its draw is the eager one
    out = jax.vmap(lambda x: jax.random.uniform(KEY) + x)(jnp.zeros(3))
    np.testing.assert_array_equal(out, np.full(3, np.asarray(jax.random.uniform(KEY))))
    out = jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys)
    assert out.shape == (3, 2)
