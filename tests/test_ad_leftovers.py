"""Small differences from JAX in the autodiff entry points, each checked against JAX
0.10.2's output (stored as literals): an eager `vjp` whose function has a Python `if`
on a differentiated value, and the types `linear_transpose` / `vjp` return for a
weak (Python scalar) cotangent."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax


def _sqrt_or_zero(x):
    y = jnp.sqrt(x)
    if x > 0:
        return y
    return 0.0 * x


def _same(got, value, weak):
    assert isinstance(got, astjax.Array)
    assert got.dtype == np.float32 and got.weak_type == weak
    np.testing.assert_array_equal(np.asarray(got), value)


def test_eager_vjp_runs_only_the_branch_taken():
    # JAX: jax.vjp(f, -1.0)[1](1.0) == (Array(0., weak_type=True),), not NaN
    out, f_vjp = astjax.vjp(_sqrt_or_zero, -1.0)
    [ct] = f_vjp(1.0)
    _same(ct, 0.0, True)
    # (the branch taken at 4.0: sqrt's own cotangent, 0.25)
    [ct] = astjax.vjp(_sqrt_or_zero, 4.0)[1](1.0)
    _same(ct, 0.25, True)


def test_eager_vjp_with_aux_runs_only_the_branch_taken():
    _, f_vjp, aux = astjax.vjp(lambda x: (_sqrt_or_zero(x), x), -1.0, has_aux=True)
    [ct] = f_vjp(1.0)
    _same(ct, 0.0, True)


def test_linearize_runs_only_the_branch_taken():
    _, f_jvp = astjax.linearize(_sqrt_or_zero, -1.0)
    assert float(f_jvp(1.0)) == 0.0


_S = astjax.ShapeDtypeStruct((), jnp.float32)


def test_linear_transpose_of_jnp_arithmetic_is_strong():
    # JAX: (Array(0.5, dtype=float32), Array(-0.5, dtype=float32))
    a, b = astjax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, _S, _S)(1.0)
    _same(a, 0.5, False)
    _same(b, -0.5, False)
    [c] = astjax.linear_transpose(lambda x: jnp.multiply(x, 0.5), _S)(1.0)
    _same(c, 0.5, False)
    [c] = astjax.linear_transpose(lambda x: x / 2.0, _S)(1.0)
    _same(c, 0.5, False)


def test_linear_transpose_of_lax_arithmetic_stays_weak():
    # JAX: lax.mul keeps the Python scalar weak, so the transpose is weak too
    [c] = astjax.linear_transpose(lambda x: lax.mul(x, 0.5), _S)(1.0)
    _same(c, 0.5, True)


def test_vjp_of_jnp_arithmetic_at_a_weak_cotangent_is_strong():
    # JAX: jax.vjp(lambda x: 0.5 * x, jnp.float32(1))[1](1.0) == (Array(0.5, float32),)
    [c] = astjax.vjp(lambda x: 0.5 * x, jnp.float32(1))[1](1.0)
    _same(c, 0.5, False)


def test_linear_transpose_passes_an_unchanged_cotangent_on():
    # JAX: linear_transpose(lambda x: x, s)(1.0) == (1.0,), a Python float
    out = astjax.linear_transpose(lambda x: x, _S)(1.0)
    assert out == (1.0,) and type(out[0]) is float
    a, b = astjax.linear_transpose(lambda x, y: (y, x), _S, _S)((np.float32(1.0), 2.0))
    assert type(a) is float and a == 2.0
    assert type(b) is np.float32 and b == 1.0
