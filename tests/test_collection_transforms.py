"""The shared function collection through every transform and composition:
grad, value_and_grad, jvp, vjp, grad-of-grad, jacfwd == jacrev against float64
central finite differences of the NumPy reference, and vmap against a Python loop."""
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util

from functions import CASES, DIFFERENTIABLE


def _bind_static(case):
    """The case as a function of its non-static args, and those args."""
    if not case.static_argnums:
        return case.fn, list(case.args)
    static = {i: a for i, a in enumerate(case.args) if i in case.static_argnums}
    dyn = [a for i, a in enumerate(case.args) if i not in case.static_argnums]

    def f(*dyn_args):
        it = iter(dyn_args)
        full = [static[i] if i in static else next(it) for i in range(len(case.args))]
        return case.fn(*full)
    return f, dyn


def _weights(out):
    leaves = tree_util.tree_leaves(out)
    rng = np.random.RandomState(0)
    return [rng.uniform(0.5, 1.5, np.shape(l)) for l in leaves]


def _objective(fn, weights, xp):
    def obj(*args):
        leaves = tree_util.tree_leaves(fn(*args))
        total = 0.0
        for l, w in zip(leaves, weights):
            total = total + xp.sum(l * w.astype(np.float32) if xp is jnp else l * w)
        return total
    return obj


def _float_arg0(case):
    a = case.args[0]
    return isinstance(a, (np.ndarray, np.floating, float)) and np.asarray(a).dtype.kind == "f"


GRAD_CASES = [c for c in DIFFERENTIABLE if _float_arg0(c)]


def _fd_grad(obj, args, eps=1e-6):
    x0 = np.asarray(args[0], np.float64)
    g = np.zeros(x0.shape)
    for idx in np.ndindex(*x0.shape) if x0.shape else [()]:
        xp, xm = x0.copy(), x0.copy()
        xp[idx] += eps
        xm[idx] -= eps
        g[idx] = (obj(xp, *args[1:]) - obj(xm, *args[1:])) / (2 * eps)
    return g


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.name for c in GRAD_CASES])
def test_grad_value_and_grad_vjp_jvp(case):
    fn, args = _bind_static(case)
    w = _weights(fn(*args))
    np_obj = _objective(fn, w, np)
    obj = _objective(fn, w, jnp)
    expected = _fd_grad(np_obj, [np.asarray(args[0], np.float64)] + [
        np.asarray(a, np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
        for a in args[1:]])
    g = astjax.grad(obj)(*args)
    np.testing.assert_allclose(np.asarray(g, np.float64), expected, rtol=2e-3, atol=2e-3)
    v, g2 = astjax.jit(astjax.value_and_grad(obj))(*args)
    np.testing.assert_allclose(g2, g, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(v), np_obj(*args), rtol=1e-4, atol=1e-4)
    # vjp of the scalar objective with cotangent 1 is the gradient
    out, pullback = astjax.vjp(lambda x: obj(x, *args[1:]), args[0])
    (ct,) = pullback(jnp.ones_like(out))
    np.testing.assert_allclose(ct, g, rtol=1e-5, atol=1e-6)
    # jvp along a direction is the directional derivative
    t = np.ones(np.shape(args[0]), np.float32)
    _, tan = astjax.jvp(lambda x: obj(x, *args[1:]), (args[0],), (np.asarray(t, np.asarray(args[0]).dtype),))
    np.testing.assert_allclose(float(tan), float(np.sum(expected * t)), rtol=3e-3, atol=3e-3)


SCALAR_CASES = [c for c in GRAD_CASES if np.ndim(c.args[0]) == 0]


@pytest.mark.parametrize("case", SCALAR_CASES, ids=[c.name for c in SCALAR_CASES])
def test_grad_of_grad(case):
    fn, args = _bind_static(case)
    w = _weights(fn(*args))
    obj = _objective(fn, w, jnp)
    np_obj = _objective(fn, w, np)
    eps = 1e-4

    def d(x):
        return (np_obj(x + eps, *args[1:]) - np_obj(x - eps, *args[1:])) / (2 * eps)
    x0 = float(args[0])
    expected = (d(x0 + eps) - d(x0 - eps)) / (2 * eps)
    h = astjax.grad(astjax.grad(obj))(np.float32(x0), *args[1:])
    np.testing.assert_allclose(float(h), expected, rtol=5e-2, atol=5e-2)


ARRAY_OUT = [c for c in GRAD_CASES if np.ndim(c.args[0]) == 1
             and len(tree_util.tree_leaves(_bind_static(c)[0](*_bind_static(c)[1]))) == 1]


@pytest.mark.parametrize("case", ARRAY_OUT, ids=[c.name for c in ARRAY_OUT])
def test_jacfwd_equals_jacrev(case):
    fn, args = _bind_static(case)

    def f(x):
        return jnp.asarray(fn(x, *args[1:])) * 1.0
    jf = astjax.jacfwd(f)(args[0])
    jr = astjax.jacrev(f)(args[0])
    np.testing.assert_allclose(jf, jr, rtol=1e-4, atol=1e-5)


VMAP_CASES = [c for c in CASES if _float_arg0(c)]


@pytest.mark.parametrize("case", VMAP_CASES, ids=[c.name for c in VMAP_CASES])
def test_vmap_matches_loop(case):
    fn, args = _bind_static(case)
    x0 = np.asarray(args[0], np.float32)
    batch = np.stack([x0 + d for d in (-0.75, 0.0, 1.25)])
    in_axes = (0,) + (None,) * (len(args) - 1)
    got = astjax.jit(astjax.vmap(fn, in_axes=in_axes))(batch, *args[1:])
    for i in range(batch.shape[0]):
        want = fn(batch[i], *args[1:])
        got_i = tree_util.tree_map(lambda a: np.asarray(a)[i], got)
        for a, b in zip(tree_util.tree_leaves(got_i), tree_util.tree_leaves(want)):
            np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                       rtol=2e-5, atol=2e-5)
