"""`custom_derivatives.linear_call` (`linear_call_p`, astjax/primitives/linear_call.py):
the value, the transpose through `linear_transpose` / `vjp` / `grad` calling the
user's transpose (and transposing that giving the function back), the JVP, `jit`,
`vmap` (which JAX 0.10.2 refuses: checked against a per-example loop) and the located
errors. Expected values were computed with jax 0.10.2 and are stored here."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.custom_api import linear_call
from astjax.errors import AstjaxError


def _f(r, x):
    return x / r


def _t(r, t):
    return t / r


def div_add(x, denom):
    return x + linear_call(_f, _t, denom, x)


def custom_id(x):
    def f(_, x):
        return x

    def t(_, t):
        return 7.
    return linear_call(f, t, (), x)


def _transpose(fn):
    return lambda y: astjax.linear_transpose(fn, 1.)(y)[0]


def _scale(r, x):
    return x * r


def _scale_t10(r, ct):        # deliberately not the true transpose: grad must use it
    return ct * r * 10.


def test_value_grad_jvp_and_linear_transpose():
    assert float(div_add(9., 3.)) == 12.
    assert float(astjax.grad(div_add)(9., 3.)) == pytest.approx(1.3333334, rel=1e-7)
    assert float(astjax.jit(astjax.grad(div_add))(9., 3.)) == pytest.approx(1.3333334, rel=1e-7)
    p, t = astjax.jvp(lambda x: div_add(x, 3.), (9.,), (1.,))
    assert (float(p), float(t)) == pytest.approx((12., 1.3333334), rel=1e-7)
    assert float(astjax.linear_transpose(lambda x: div_add(x, 3.), 1.)(18.)[0]) == 24.


def test_transpose_calls_the_user_transpose_and_back():
    # jax 0.10.2: 7.0, 1.0, 7.0; grad 7.0
    assert float(_transpose(custom_id)(1.)) == 7.
    assert float(_transpose(_transpose(custom_id))(1.)) == 1.
    assert float(_transpose(_transpose(_transpose(custom_id)))(1.)) == 7.
    assert float(astjax.grad(lambda x: custom_id(x) * 3)(2.)) == 7.


def test_user_transpose_used_by_grad_and_jitted_vjp():
    x, r = jnp.array([1., 2.]), jnp.array([3., 4.])
    g = astjax.grad(lambda x, r: jnp.sum(linear_call(_scale, _scale_t10, r, x)))(x, r)
    np.testing.assert_array_equal(np.asarray(g), [30., 40.])
    vj = astjax.jit(lambda x, r, c: astjax.vjp(
        lambda x: linear_call(_scale, _scale_t10, r, x), x)[1](c))
    np.testing.assert_array_equal(np.asarray(vj(x, r, jnp.array([1., -1.]))[0]), [30., -40.])


def _f2(r, xs):
    a, b = xs
    return {"s": a * r["w"] + b, "d": a - b}


def _t2(r, ct):
    return (ct["s"] * r["w"] + ct["d"], ct["s"] - ct["d"])


def test_pytrees():
    w, a, b = jnp.array([2., 3.]), jnp.array([1., 2.]), jnp.array([5., 7.])
    out = linear_call(_f2, _t2, {"w": w}, (a, b))
    np.testing.assert_array_equal(np.asarray(out["s"]), [7., 13.])
    np.testing.assert_array_equal(np.asarray(out["d"]), [-4., -5.])
    _, vjp = astjax.vjp(lambda a, b: linear_call(_f2, _t2, {"w": w}, (a, b)), a, b)
    ga, gb = vjp({"s": jnp.array([1., 10.]), "d": jnp.array([100., 1000.])})
    np.testing.assert_array_equal(np.asarray(ga), [102., 1030.])
    np.testing.assert_array_equal(np.asarray(gb), [-99., -990.])


def test_vmap_value_and_grad_compositions():
    xs, rs = jnp.array([[1., 2.], [3., 4.], [5., 6.]]), jnp.array([[3., 4.], [1., 2.], [2., 2.]])
    call = lambda x, r: linear_call(_scale, _scale_t10, r, x)
    np.testing.assert_array_equal(np.asarray(astjax.vmap(call)(xs, rs)), np.asarray(xs * rs))
    np.testing.assert_array_equal(np.asarray(astjax.vmap(call, (0, None))(xs, rs[0])),
                                  np.asarray(xs * rs[0]))
    per_example = np.stack([np.asarray(r) * 10. for r in rs])
    loss = lambda x, r: jnp.sum(call(x, r))
    for g in (astjax.vmap(astjax.grad(loss)), astjax.grad(lambda xs, rs: jnp.sum(
            astjax.vmap(call)(xs, rs))), astjax.jit(astjax.vmap(astjax.grad(loss)))):
        np.testing.assert_array_equal(np.asarray(g(xs, rs)), per_example)
    # an unbatched linear argument with batched residuals: its cotangent sums the batch
    g = astjax.grad(lambda x: jnp.sum(astjax.vmap(call, (None, 0))(x, rs)))(xs[0])
    np.testing.assert_array_equal(np.asarray(g), np.asarray(rs).sum(0) * 10.)


def test_printed_jaxpr_and_source_round_trip():
    text = str(astjax.make_jaxpr(div_add)(1., 2.))
    assert "linear_call[" in text and "num_res=1" in text and "div" in text
    for fn, want in ((div_add, 9. + 9. / 3.), (astjax.grad(div_add), 1. + 1. / 3.)):
        src = astjax.source(fn, 1., 2.)
        assert "# linear_call (inlined)" in src and "/ denom" in src
        ns = {}
        exec(compile(src, "<generated>", "exec"), ns)
        name = [k for k, v in ns.items() if callable(v) and k.endswith("div_add")][0]
        assert float(ns[name](9., 3.)) == pytest.approx(want)


def test_errors_are_located():
    with pytest.raises(TypeError) as e:       # JAX: an AssertionError
        astjax.grad(div_add, 1)(9., 3.)
    assert isinstance(e.value, AstjaxError) and "residual" in str(e.value)
    assert "test_linear_call.py" in str(e.value)
    bad = lambda x: linear_call(_f, lambda r, t: (t, t), 2., x)
    with pytest.raises(TypeError, match="pytree structure") as e:
        astjax.linear_transpose(bad, 1.)(1.)
    assert isinstance(e.value, AstjaxError)
    bad = lambda x: linear_call(_f, lambda r, t: jnp.ones(2), 2., x)
    with pytest.raises(TypeError, match="linear input"):
        astjax.linear_transpose(bad, 1.)(1.)


def test_custom_vjp_primal_tree_values():
    from astjax.compat.custom_derivatives import (CustomVJPPrimal,
                                                  custom_vjp_primal_tree_values)

    @astjax.custom_vjp
    def f(x, y):
        return x * y

    def fwd(x, y):
        assert isinstance(x, CustomVJPPrimal)
        xv, yv = custom_vjp_primal_tree_values((x, y))
        assert not isinstance(xv, CustomVJPPrimal)
        return xv * yv, (xv, yv)

    f.defvjp(fwd, lambda res, g: (g * res[1], g * res[0]), symbolic_zeros=True)
    assert float(astjax.grad(f)(2., 5.)) == 5.
    with pytest.raises(TypeError, match="unexpected leaf type"):
        custom_vjp_primal_tree_values((1.,))
