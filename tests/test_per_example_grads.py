"""Issue 14's small-model rows (per-example grads, the MLP step): the mechanisms that put
them at or below JAX, pinned by counts, never by times.

- Program: the cotangent of `dot_general`'s right operand comes out in that operand's
  axis order (`reductions._dot_transpose_rhs`), so a per-example weight gradient (the
  outer product vmap makes of a one-row `x @ W`) compiles to one multiply fusion per
  weight -- no transposing fusion and copy as JAX's program has.
- Dispatch: a jit call on a tree of Arrays is found by its C++ treedef and the leaves'
  avals compared as one list (`dispatch_keys.add_tree_plan`): no key tuple, no helper
  frames.
"""
import cProfile
import collections
import gc
import pstats
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.primitives.reductions import _dot_impl

# (lhs shape, rhs shape, dimension numbers): the usual weight layouts, transposed ones,
# batch dimensions in any position, several contracting dimensions out of order, vectors
DOT_CASES = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((3, 4), (5, 4), (((1,), (1,)), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((2, 3, 4, 6), (6, 2, 4, 5), (((2, 3), (2, 0)), ((0,), (1,)))),
    ((2, 3, 4, 6), (4, 5, 6, 2), (((3, 2), (2, 0)), ((0,), (3,)))),
    ((7, 2, 3), (3, 7, 2, 5), (((2,), (0,)), ((1, 0), (2, 1)))),
    ((4,), (4, 5), (((0,), (0,)), ((), ()))),
    ((3, 4), (4,), (((1,), (0,)), ((), ()))),
]


def _fd_grads(x, y, dn, r, eps=1e-3):
    """Central differences in float64 of sum(dot_general(x, y) * r), both operands."""
    x64, y64 = x.astype(np.float64), y.astype(np.float64)

    def f(a, b):
        return float((_dot_impl(a, b, dimension_numbers=dn) * r).sum())
    out = []
    for which, a in ((0, x64), (1, y64)):
        g = np.zeros(a.shape)
        for i in range(a.size):
            hi, lo = a.copy(), a.copy()
            hi.flat[i] += eps
            lo.flat[i] -= eps
            args_hi = (hi, y64) if which == 0 else (x64, hi)
            args_lo = (lo, y64) if which == 0 else (x64, lo)
            g.flat[i] = (f(*args_hi) - f(*args_lo)) / (2 * eps)
        out.append(g)
    return out


@pytest.mark.parametrize("xs,ys,dn", DOT_CASES, ids=lambda c: str(c).replace(" ", ""))
def test_dot_general_cotangents_match_finite_differences(xs, ys, dn):
    rng = np.random.RandomState(len(xs) * 10 + len(ys))
    x = rng.randn(*xs).astype(np.float32)
    y = rng.randn(*ys).astype(np.float32)
    r = rng.randn(*_dot_impl(x, y, dimension_numbers=dn).shape).astype(np.float32)

    def f(a, b):
        return jnp.sum(lax.dot_general(a, b, dn) * r)
    want = _fd_grads(x, y, dn, r)
    for g in (astjax.grad(f, argnums=(0, 1)), astjax.jit(astjax.grad(f, argnums=(0, 1)))):
        gx, gy = g(x, y)
        np.testing.assert_allclose(np.asarray(gx), want[0], rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(np.asarray(gy), want[1], rtol=1e-3, atol=1e-3)


def _eqn_names(jaxpr_text):
    return re.findall(r"= (\w+)\b", jaxpr_text)


def test_weight_cotangent_as_jax_and_transpose_free_for_outer_products():
    """grad w.r.t. W of `x @ W`: a sum over x's rows is JAX's `dot_general(ct, x)` then a
    transpose (the same summation order, so JAX's bits; XLA folds the transpose into the
    product); an outer product (one row, as each example of `vmap(grad)`) is
    `dot_general(x, ct)`, already in W's [in, out] order: no transpose, which XLA does not
    fold there (each element is one product: the same bits either way)."""
    x, w = np.ones((3, 4), np.float32), np.ones((4, 5), np.float32)
    loss = astjax.grad(lambda x, w: jnp.sum(jnp.tanh(x @ w)), argnums=1)
    names = _eqn_names(str(astjax.make_jaxpr(loss)(x, w)))
    assert names.count("dot_general") == 2 and "transpose" in names
    x1 = np.ones((1, 4), np.float32)
    closed = astjax.make_jaxpr(loss)(x1, w)
    assert "transpose" not in _eqn_names(str(closed))
    last = [e for e in closed.jaxpr.eqns if e.primitive.name == "dot_general"][-1]
    assert last.invars[0] is closed.jaxpr.invars[0]   # dot_general(x, ct): x first
    np.testing.assert_allclose(loss(x1, w), np.tile((1 - np.tanh(4.0) ** 2), (4, 5)),
                               rtol=1e-3)   # (float32's tanh near 1: 1 - t^2 loses digits)


def _seeds_loss(params, batch):
    inputs, targets = batch
    for w, b in params:
        outputs = jnp.dot(inputs, w) + b
        inputs = jnp.tanh(outputs)
    return jnp.sum((outputs - targets) ** 2)


def _small_problem():
    rng = np.random.RandomState(0)
    sizes = [8, 16, 16, 4]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32)),
               jnp.asarray(rng.randn(n).astype(np.float32)))
              for m, n in zip(sizes[:-1], sizes[1:])]
    return (params, jnp.asarray(rng.randn(32, 8).astype(np.float32)),
            jnp.asarray(rng.randn(32, 4).astype(np.float32)))


def _per_example():
    return astjax.jit(astjax.vmap(
        lambda p, a, b: astjax.grad(_seeds_loss)(p, (a[None], b[None])), in_axes=(None, 0, 0)))


def test_per_example_weight_gradients_compile_without_copies():
    """The benchmark's per-example grads: one multiply fusion per weight gradient, all
    in the default layout; no copy, no transposing fusion (JAX 0.10.2's optimized HLO
    of the same program has a `multiply_transpose_fusion` and a `wrapped_copy` per
    weight: 16 entry fusions against these 13)."""
    params, x, y = _small_problem()
    text = _per_example().lower(params, x, y).compile().as_text()
    entry = text.split("\nENTRY ", 1)[1].split("\n}\n", 1)[0]
    assert "copy" not in entry and "transpose" not in entry
    layouts = re.findall(r"f32\[32,\d+,\d+\]\{([\d,]+)\}", entry)
    assert layouts and set(layouts) == {"2,1,0"}
    assert entry.count(" fusion(") == 13


def _python_calls(fn, calls=50):
    """Python functions entered per call of `fn()` (builtins excluded; the cyclic
    collector paused, so no collection callback is counted)."""
    prof = cProfile.Profile()
    gc.disable()
    try:
        prof.enable()
        for _ in range(calls):
            fn()
        prof.disable()
    finally:
        gc.enable()
    counts = collections.Counter()
    for (path, _, name), (cc, *_rest) in pstats.Stats(prof).stats.items():
        if path != "~" and name != "_python_calls":
            counts[name] += cc / calls
    return counts


def test_a_tree_call_enters_only_call_two_comprehensions_and_the_result_inits():
    """Per call of per-example grads (8 Array leaves in, 6 out): `Jitted.__call__`, the
    avals and buffers comprehensions and one `Array.__init__` per result -- no key
    helper (`add_tree_plan` runs on a miss only), no `_signature`, no `run`."""
    params, x, y = _small_problem()
    pex = _per_example()
    want = pex(params, x, y)
    pex(params, x, y)
    counts = _python_calls(lambda: pex(params, x, y))
    assert counts == {"__call__": 1, "<listcomp>": 2, "__init__": 6, "<lambda>": 1}
    got = pex(params, x, y)
    for a, b in zip(astjax.tree_util.tree_leaves(got), astjax.tree_util.tree_leaves(want)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _tree_fn(p):
    return [w * 2.0 + b.sum() for w, b in p]


def test_tree_signatures_share_a_structure_and_stay_distinct():
    """One treedef, several leaf signatures: each call runs its own program (shapes,
    dtypes, weak types); a committed leaf or a NumPy leaf leaves the tree path and is
    still right; more signatures than a structure keeps are recompiled, never
    mixed up."""
    from astjax import api
    jf = astjax.jit(_tree_fn)
    trees = [[(jnp.ones((n, 2)), jnp.full(3, float(n)))] for n in range(1, 12)]
    for _ in range(2):
        for t in trees:
            out = jf(t)
            assert out[0].shape == (t[0][0].shape[0], 2)
            np.testing.assert_allclose(np.asarray(out[0]), 2.0 + 3.0 * t[0][0].shape[0])
    plans = jf._fast[api._TREE]
    assert len(plans) == 1 and len(next(iter(plans.values()))) == 8
    ints = [(jnp.ones((2, 2), jnp.int32), jnp.full(3, 1, jnp.int32))]
    assert jf(ints)[0].dtype == np.float32   # int * 2.0 + int: float32, as JAX
    weak = [(jnp.ones((1, 2)), astjax.jit(lambda: 5.0)())]
    assert weak[0][1].weak_type
    np.testing.assert_allclose(np.asarray(jf(weak)[0]), 7.0)
    committed = [(astjax.device_put(np.ones((1, 2), np.float32), astjax.devices()[0]),
                  jnp.full(3, 1.0))]
    out = jf(committed)
    assert out[0].committed
    np.testing.assert_allclose(np.asarray(out[0]), 5.0)
    host = [(np.ones((1, 2), np.float32), jnp.full(3, 1.0))]
    np.testing.assert_allclose(np.asarray(jf(host)[0]), 5.0)
    np.testing.assert_allclose(np.asarray(jf(trees[0])[0]), 5.0)


def test_tree_signatures_follow_x64():
    """The same Array tree under jax_enable_x64 on and off: two programs (a staged
    `arange` is int64 with x64 on), found again after each switch."""
    jf = astjax.jit(lambda p: [p[0] + jnp.arange(3)])
    tree = [jnp.ones(3, jnp.int32)]
    assert jf(tree)[0].dtype == np.int32
    try:
        astjax.config.update("jax_enable_x64", True)
        assert jf(tree)[0].dtype == np.int64
        assert jf(tree)[0].dtype == np.int64
    finally:
        astjax.config.update("jax_enable_x64", False)
    assert jf(tree)[0].dtype == np.int32
