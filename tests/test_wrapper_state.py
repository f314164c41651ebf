"""A transformation of a transformed function never shares the inner wrapper's own
state: `grad(d1)` after an eager `d1 = grad(g)` call staged anew, not `d1`'s program
(functools-style attribute copying carried `d1`'s private eager cache across)."""
import functools

import numpy as np

import astjax
import astjax.numpy as jnp


@functools.partial(astjax.custom_jvp, nondiff_argnums=(0,))
def _k(k, x):
    return x * 0 + k


@_k.defjvp
def _k_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _k(k, x), _k(k + 1, x) * t


def test_grad_of_a_called_grad_is_the_second_derivative():
    # JAX: 2, 3, 4, 5 -- each order's rule calls the next; astjax gave 2, 2, 2, 2
    d, got = functools.partial(_k, 1), []
    for _ in range(4):
        d = astjax.grad(d)
        got.append(float(d(0.5)))
    assert got == [2.0, 3.0, 4.0, 5.0]


def test_sinc_derivatives_eager_after_each_order():
    # JAX 0.10.2's values of sinc's first four derivatives at 0 (float32)
    d, got = jnp.sinc, []
    for _ in range(4):
        d = astjax.grad(d)
        got.append(float(d(0.0)))
    np.testing.assert_allclose(got, [0.0, -3.2898683547973633, 0.0, 19.481821060180664],
                               rtol=1e-6)


def test_other_wrappers_of_a_called_wrapper_stage_their_own_program():
    f = lambda x: jnp.sin(x) * x
    d1 = astjax.grad(f)
    assert float(d1(0.5)) == float(np.cos(np.float32(0.5)) * 0.5 + np.sin(np.float32(0.5)))
    want = float(-np.sin(np.float32(0.5)) * 0.5 + 2 * np.cos(np.float32(0.5)))
    np.testing.assert_allclose(float(astjax.grad(d1)(0.5)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.vmap(d1)(jnp.full(2, 0.5))),
                               [float(d1(0.5))] * 2, rtol=1e-6)
    j = astjax.jit(d1)
    assert float(j(0.5)) == float(d1(0.5))
    np.testing.assert_allclose(float(astjax.grad(j)(0.5)), want, rtol=1e-6)


def test_user_attributes_are_still_carried():
    def f(x):
        return x * 2.0
    f.tag = "mine"
    f._original_fn = "orig"   # (dm-haiku reads it through jit(f.init))
    j = astjax.jit(f)
    j.extra = 3
    g = astjax.grad(j)
    assert (g.tag, g._original_fn, g.extra) == ("mine", "orig", 3)
    assert astjax.jit(g)._original_fn == "orig"
