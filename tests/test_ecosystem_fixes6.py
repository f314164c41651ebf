"""Regressions found by running the equinox-based scientific stack (diffrax, lineax,
optimistix) and the probabilistic libraries (numpyro, blackjax, distrax) on astjax
(eco18), each checked against what JAX 0.10.2 gives; none needs the libraries."""
import importlib
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import jax_alias


def _served(name):
    """Module `name` (a `jax.*` name) as `install_as_jax` serves it."""
    was_installed = "jax" in sys.modules
    astjax.install_as_jax()
    try:
        return importlib.import_module(name)
    finally:
        if not was_installed:
            jax_alias.uninstall()


# ---- `from jax._src.ad_util import stop_gradient_p` (lineax, so diffrax and optimistix:
# lineax registers a transpose rule on it) raised ModuleNotFoundError. JAX: the primitive
# `lax.stop_gradient` binds.
def test_ad_util_stop_gradient_p_is_what_stop_gradient_binds():
    ad_util = _served("jax._src.ad_util")
    jaxpr = astjax.make_jaxpr(lambda x: astjax.lax.stop_gradient(x) * 2)(1.0)
    assert jaxpr.eqns[0].primitive is ad_util.stop_gradient_p
    assert ad_util.Zero is astjax.core.Zero


# ---- a custom_jvp function applied to tangents inside another rule's tangent
# computation (lineax's `linear_solve` JVP; so `grad` through lineax, optimistix's
# implicit solves, diffrax's implicit solvers) raised "reverse-mode differentiation
# needs the transpose rule of `custom_jvp_call`". JAX transposes the call's body.
@astjax.custom_jvp
def _mixed(t, s):   # linear in t, not in s
    return t * jnp.cos(s), 2.0 * t


_mixed.defjvp(lambda p, t: (_mixed(*p), (t[0] * jnp.cos(p[1]), 2.0 * t[0])))


@astjax.custom_jvp
def _outer(x):
    return jnp.sin(x) * x


@_outer.defjvp
def _outer_jvp(p, t):
    a, b = _mixed(t[0], p[0])
    return _outer(p[0]), a * p[0] + jnp.sin(p[0]) * t[0] + 0.25 * b


def test_custom_jvp_call_on_tangents_is_transposed():
    x = jnp.array([0.5, 1.5])
    want = np.cos(x) * x + np.sin(x) + 0.5   # JAX 0.10.2: [1.4182168 1.6036007]
    np.testing.assert_allclose(astjax.grad(lambda x: _outer(x).sum())(x), want, rtol=1e-6)
    np.testing.assert_allclose(astjax.jit(astjax.jacrev(_outer))(x), np.diag(want), rtol=1e-6)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(_outer))(x), want, rtol=1e-6)
    # second order: the rule's tangent computation differentiated again
    np.testing.assert_allclose(astjax.grad(astjax.grad(_outer))(0.5),
                               -np.sin(0.5) * 0.5 + 2 * np.cos(0.5), rtol=1e-6)


# ---- `PyTreeDef.compose` (optimistix's BFGS identity operator, diffrax's Milstein
# solvers) raised AttributeError. JAX: each leaf of the outer structure replaced by
# the inner one.
def test_treedef_compose():
    tu = astjax.tree_util
    outer = tu.tree_structure({"a": (1, 2), "b": None, "c": [3]})
    inner = tu.tree_structure((1, [2, 3]))
    composed = outer.compose(inner)
    assert str(composed) == "PyTreeDef({'a': ((*, [*, *]), (*, [*, *])), 'b': None, 'c': [(*, [*, *])]})"
    assert (composed.num_leaves, composed.num_nodes) == (9, 19)
    assert composed == tu.tree_structure(tu.tree_unflatten(outer, [(1, [2, 3])] * 3))
    assert tu.tree_structure(1).compose(inner) == inner
    assert str(outer.compose(tu.tree_structure(None))) == \
        "PyTreeDef({'a': (None, None), 'b': None, 'c': [None]})"


# ---- `jax.custom_derivatives.zero_from_primal` of a pytree (optimistix's implicit
# JVP: root_find / minimise / least_squares differentiated) raised "tuple is not a
# valid array value". JAX: one zero per leaf, of the leaf's tangent type.
def test_zero_from_primal_maps_a_pytree_to_tangent_zeros():
    cd = _served("jax.custom_derivatives")
    assert cd.zero_from_primal is _served("jax._src.ad_util").zero_from_primal
    out = cd.zero_from_primal((jnp.ones(2), 3, {"k": jnp.arange(3)}, None))
    assert out[0].dtype == np.float32 and out[0].tolist() == [0.0, 0.0]
    assert out[1].dtype == astjax.dtypes.float0 and out[1].shape == ()
    assert out[2]["k"].dtype == astjax.dtypes.float0 and out[2]["k"].shape == (3,)
    assert out[3] is None
    sym = cd.zero_from_primal({"a": jnp.ones(2), "b": jnp.arange(2)}, symbolic_zeros=True)
    assert [str(sym[k].aval) for k in "ab"] == ["float32[2]", "float0[2]"]


# ---- `lax.cond(pred, true_operand, true_fun, false_operand, false_fun)`, the legacy
# form JAX 0.10.2 still accepts (blackjax's iterative U-turn criterion in NUTS), raised
# "lax.cond: expected a callable value".
def _legacy_cond(p, a, b):
    return astjax.lax.cond(p, (a, b), lambda x: (x[0] + 1, x[1] * 2), b, lambda x: (x, -x))


def test_lax_cond_legacy_per_branch_operands():
    assert [float(v) for v in _legacy_cond(True, 1.0, 2.0)] == [2.0, 4.0]
    assert [float(v) for v in astjax.jit(_legacy_cond)(False, 1.0, 2.0)] == [2.0, -2.0]
    assert float(astjax.grad(lambda a: _legacy_cond(True, a, 3.0)[0])(1.0)) == 1.0
    out = astjax.vmap(_legacy_cond)(jnp.array([True, False]), jnp.ones(2), jnp.arange(2.0))
    assert [o.tolist() for o in out] == [[2.0, 1.0], [0.0, -1.0]]
    with pytest.raises(TypeError):   # four non-callables: still JAX's TypeError
        astjax.lax.cond(True, 1.0, 2.0, 3.0)


# ---- `jax.extend.core.valid_jaxtype` (distrax's Jittable) was missing. JAX: whether
# `x` has an abstract value -- arrays, keys, NumPy values, Python scalars.
def test_extend_core_valid_jaxtype():
    from astjax.extend.core import valid_jaxtype
    yes = [1, 1.0, True, 1j, np.ones(2), np.float32(1), jnp.ones(2), astjax.random.key(0)]
    no = ["a", None, [1], (1,), object(), np.array(["a"])]
    assert [valid_jaxtype(x) for x in yes] == [True] * len(yes)
    assert [valid_jaxtype(x) for x in no] == [False] * len(no)
    assert astjax.jit(lambda x: jnp.asarray(valid_jaxtype(x)))(1.0)


# ---- `from jax._src.flatten_util import ravel_pytree` (blackjax's SMC tuners) raised
# ModuleNotFoundError.
def test_src_flatten_util_ravel_pytree():
    assert _served("jax._src.flatten_util").ravel_pytree is astjax.flatten_util.ravel_pytree
