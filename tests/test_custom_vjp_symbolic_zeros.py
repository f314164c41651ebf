"""`custom_vjp.defvjp(fwd, bwd, symbolic_zeros=True)`: fwd receives each primal leaf
as a `CustomVJPPrimal` (value, perturbed), bwd receives a `SymbolicZero` for every
output without a cotangent and may return None or a SymbolicZero for a zero input
cotangent -- under grad, jit(grad), vmap(grad) and with pytree arguments. The
expected numbers are worked out by hand from the rules below (each rule tags what it
saw into the result, so a wrong protocol gives a wrong number)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.compat.custom_derivatives import CustomVJPPrimal, SymbolicZero


@astjax.custom_vjp
def f(x, y):
    return x * y, jnp.sin(x)


def f_fwd(x, y):
    assert type(x) is CustomVJPPrimal and type(y) is CustomVJPPrimal
    # residuals carry whether y was perturbed (1.0/0.0) so the result shows it
    return f(x.value, y.value), (x.value, y.value, jnp.float32(y.perturbed))


def f_bwd(res, cts):
    x, y, y_perturbed = res
    ct_prod, ct_sin = cts
    # a symbolic zero is answered with a marker (100), a real cotangent normally
    gx = (100.0 if isinstance(ct_prod, SymbolicZero) else ct_prod * y) + (
        100.0 if isinstance(ct_sin, SymbolicZero) else ct_sin * jnp.cos(x))
    gy = None if isinstance(ct_prod, SymbolicZero) else ct_prod * x + 1000.0 * y_perturbed
    return gx, gy


f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)


def prod_only(x, y):
    return f(x, y)[0]


def sin_only(x, y):
    return f(x, y)[1]


def both(x, y):
    a, b = f(x, y)
    return a + b


def x_only(x):
    return f(x, 3.0)[0]


def test_bwd_sees_symbolic_zero_for_unused_output():
    # d/dx of x*y is y=3, plus 100 for the unused sin output
    np.testing.assert_allclose(astjax.grad(prod_only)(2.0, 3.0), 103.0)
    np.testing.assert_allclose(astjax.grad(sin_only)(2.0, 3.0), 100.0 + np.cos(2.0), rtol=1e-6)


def test_both_outputs_and_both_arguments():
    gx, gy = astjax.jit(astjax.grad(both, argnums=(0, 1)))(2.0, 3.0)
    np.testing.assert_allclose(gx, 3.0 + np.cos(2.0), rtol=1e-6)
    np.testing.assert_allclose(gy, 2.0 + 1000.0)  # y was perturbed


def test_unperturbed_argument():
    # y = 3.0 is a constant: perturbed False, so no 1000 in gy (which is dropped anyway)
    np.testing.assert_allclose(astjax.grad(x_only)(2.0), 103.0)
    gy = astjax.grad(prod_only, argnums=1)(2.0, 3.0)
    np.testing.assert_allclose(gy, 2.0 + 1000.0)


def test_none_cotangent_is_zero():
    # sin_only: ct_prod is a SymbolicZero, so gy is None -> a zero gradient
    np.testing.assert_allclose(astjax.grad(sin_only, argnums=1)(2.0, 3.0), 0.0)


def test_under_vmap():
    g = astjax.vmap(astjax.grad(prod_only))(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
    np.testing.assert_allclose(g, [103.0, 104.0])


@astjax.custom_vjp
def tree_fn(d):
    return d["a"] * d["b"]


def tree_fwd(d):
    assert all(type(v) is CustomVJPPrimal for v in d.values())
    return tree_fn({k: v.value for k, v in d.items()}), (d["a"].value, d["b"].value,
                                                          jnp.float32(d["b"].perturbed))


def tree_bwd(res, ct):
    a, b, b_perturbed = res
    return ({"a": ct * b, "b": SymbolicZero.from_primal_value(b) if not b_perturbed
             else ct * a},)


tree_fn.defvjp(tree_fwd, tree_bwd, symbolic_zeros=True)


def tree_loss(a, b):
    return tree_fn({"a": a, "b": b})


def test_pytree_leaves_are_wrapped_one_by_one():
    ga, gb = astjax.grad(tree_loss, argnums=(0, 1))(2.0, 5.0)
    np.testing.assert_allclose([ga, gb], [5.0, 2.0])


def plain_rule_fn(x):
    return f_plain(x, 2.0)


@astjax.custom_vjp
def f_plain(x, y):
    return x * y


f_plain.defvjp(lambda x, y: (x * y, (x, y)), lambda res, ct: (ct * res[1] * 10.0, ct * res[0]))


def test_without_symbolic_zeros_fwd_gets_plain_values():
    np.testing.assert_allclose(astjax.grad(plain_rule_fn)(3.0), 20.0)


def test_forward_mode_is_still_refused():
    with pytest.raises(TypeError):
        astjax.jvp(x_only, (2.0,), (1.0,))
