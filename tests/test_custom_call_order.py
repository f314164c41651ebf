"""When `custom_jvp` / `custom_vjp` call the user's Python functions (notebook
failures #8, #9, #14, #17): as often and in the order JAX 0.10.2 does, recorded below
from JAX running the same cases. Outside transformations the function is simply
called; staged for evaluation, the function is staged; while differentiating only
the rule runs (and calls the function itself if it wants); a `custom_vjp`'s bwd runs
when `vjp`'s function is called. Also: `vjp`'s function is a pytree of its residuals (JAX 0.10.2: a `VJP`
object; here a `tree_util.Partial`),
a rule can compute with a Python-int primal, and weak types survive."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import tree_util

LOG = []


@jax.custom_jvp
def f(x):
    LOG.append("f")
    return jnp.sin(x)


@f.defjvp
def f_jvp(primals, tangents):
    LOG.append("f_jvp")
    x, = primals
    t, = tangents
    return f(x), jnp.cos(x) * t


@jax.custom_vjp
def g(x):
    LOG.append("g")
    return jnp.sin(x)


def g_fwd(x):
    LOG.append("g_fwd")
    return g(x), jnp.cos(x)


def g_bwd(cos_x, y_bar):
    LOG.append("g_bwd")
    return (cos_x * y_bar,)


g.defvjp(g_fwd, g_bwd)


def _vjp_then_call():
    _, g_vjp = jax.vjp(g, 3.)
    LOG.append("call")
    g_vjp(1.)


# (case, thunk, the calls JAX 0.10.2 makes)
CASES = [
    ("f", lambda: f(3.), ["f"]),
    ("jit f", lambda: jax.jit(f)(3.), ["f"]),
    ("jvp f", lambda: jax.jvp(f, (3.,), (1.,)), ["f_jvp", "f"]),
    ("jvp jit f", lambda: jax.jvp(jax.jit(f), (3.,), (1.,)), ["f_jvp", "f"]),
    ("jit jvp f", lambda: jax.jit(lambda x: jax.jvp(f, (x,), (1.,)))(3.), ["f_jvp", "f"]),
    ("grad f", lambda: jax.grad(f)(3.), ["f_jvp", "f"]),
    ("grad grad f", lambda: jax.grad(jax.grad(f))(3.), ["f_jvp", "f_jvp", "f"]),
    ("jacfwd jacrev f", lambda: jax.hessian(f)(3.), ["f_jvp", "f_jvp", "f"]),
    ("grad grad g", lambda: jax.grad(lambda x: jax.grad(g)(x) * x)(3.),
     ["g_fwd", "g_fwd", "g", "g_bwd"]),
    ("g", lambda: g(3.), ["g"]),
    ("jit g", lambda: jax.jit(g)(3.), ["g"]),
    ("grad g", lambda: jax.grad(g)(3.), ["g_fwd", "g", "g_bwd"]),
    ("grad jit g", lambda: jax.grad(jax.jit(g))(3.), ["g_fwd", "g", "g_bwd"]),
    ("jit grad g", lambda: jax.jit(jax.grad(g))(3.), ["g_fwd", "g", "g_bwd"]),
    ("vjp g", _vjp_then_call, ["g_fwd", "g", "call", "g_bwd"]),
    ("vmap g", lambda: jax.vmap(g)(jnp.ones(2)), ["g"]),
    ("vmap grad g", lambda: jax.vmap(jax.grad(g))(jnp.ones(2)), ["g_fwd", "g", "g_bwd"]),
]


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")
@pytest.mark.parametrize("name,thunk,expected", CASES, ids=[c[0] for c in CASES])
def test_user_functions_called_as_in_jax(name, thunk, expected):
    LOG.clear()
    thunk()
    assert LOG == expected


def test_rule_values_unchanged():
    y, t = jax.jvp(f, (3.,), (2.,))
    np.testing.assert_allclose([y, t], [np.sin(3.), 2 * np.cos(3.)], rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(g))(jnp.array([0., 1.])), np.cos([0., 1.]),
                               rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(f))(1.), -np.sin(1.), rtol=1e-6)


def test_debug_print_in_bwd_prints_once(capfd):
    @jax.custom_vjp
    def print_grad(x):
        return x

    def bwd(_, x_grad):
        jax.debug.print("x_grad: {}", x_grad)
        return (x_grad,)

    print_grad.defvjp(lambda x: (x, None), bwd)
    out = jax.grad(lambda x: print_grad(x) * 2.)(1.)
    jax.effects_barrier()
    assert float(out) == 2.0 and capfd.readouterr().out == "x_grad: 2.0\n"


def test_rule_arithmetic_on_a_python_int_primal():
    @jax.custom_jvp
    def h(v, z):
        return jnp.cos(v * z)

    @h.defjvp
    def h_jvp(primals, tangents):
        v, z = primals
        _, z_dot = tangents
        slope = jnp.where(v == 0, 0.0, -0.5 * (h(v - 1, z) - h(v + 1, z)))
        return h(v, z), z_dot * slope

    gfun = lambda z: h(1, z)  # noqa: E731
    # JAX 0.10.2: -0.22984886 and -0.20171134
    np.testing.assert_allclose(jax.grad(gfun)(0.5), -0.22984886, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(gfun)(0.5), -0.20171134, rtol=1e-6)


def test_vjp_function_is_a_partial_of_the_residuals():
    fn = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731
    y, f_vjp = jax.vjp(fn, 3.)
    leaves = tree_util.tree_leaves(f_vjp)
    assert len(leaves) == 2 and all(np.shape(x) == () for x in leaves)  # JAX: 2 scalars
    assert len(jax.make_jaxpr(lambda x: jax.vjp(fn, x))(3.).jaxpr.outvars) == 3
    back = jax.jit(lambda x: jax.vjp(fn, x)[1])(3.)
    np.testing.assert_allclose(back(1.)[0], np.cos(np.sin(3.)) * np.cos(3.), rtol=1e-6)


def test_python_scalars_and_weak_types_as_in_jax():
    @jax.custom_jvp
    def k(x):
        return {"a": x ** 2, "b": jnp.sin(x)}

    k.defjvp(lambda p, t: (k(*p), {"a": 2 * p[0] * t[0], "b": jnp.cos(p[0]) * t[0]}))
    out = k(1.)
    assert out["a"] == 1.0 and type(out["a"]) is float  # JAX: the Python result

    @jax.custom_vjp
    def h(x):
        return x ** 2

    h.defvjp(lambda x: (h(x), x), lambda x, ct: (2 * x * ct,))
    gr = jax.grad(h)(1.)
    assert gr.weak_type and float(gr) == 2.0  # JAX: Array(2., weak_type=True)
