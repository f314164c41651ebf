"""Mechanism tests for issue 14 (speed): each pins *why* a workload is fast -- the
programs compiled, cache hits -- never a time. This module holds the eager first call
of the library functions JAX jits; the other mechanisms have modules of their own:
`test_perf_caches`, `test_perf_staging`, `test_perf_analyses`, `test_perf_bridge`,
`test_perf_dispatch`, `test_perf_lowering`, `test_perf_memory`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


# ------------------------------------------------------------------ eager library functions
# (issue 14) The library functions JAX jits are `numpy.util.library_jit`s in astjax: their
# first eager call compiles one executable, not one per operation (before: softplus 11,
# std of bfloat16 17, ldexp 6, expi 46; `tests/fuzz/eager_compiles.py` sweeps them all).

import astjax.nn as _nn  # noqa: E402
import astjax.scipy.special as _special  # noqa: E402

_X = np.linspace(-2.0, 3.0, 12, dtype=np.float32).reshape(3, 4)


def _compiles_of(call):
    """(executables compiled while `call()` runs, its result)."""
    from astjax import monitoring
    n = [0]

    def listen(event, seconds, **kw):
        n[0] += event == monitoring.BACKEND_COMPILE_EVENT
    monitoring.register_event_duration_secs_listener(listen)
    try:
        out = call()
    finally:
        monitoring.unregister_event_duration_listener(listen)
    return n[0], out


def _first_call_compiles(call):
    """(executables compiled by `call()` after `clear_caches()`, its result, the
    result of a second call)."""
    call()   # (one-time module constants)
    astjax.clear_caches()
    n, (out, again) = _compiles_of(lambda: (call(), call()))
    return n, out, again


@pytest.mark.parametrize("name, call", [
    ("nn.softplus", lambda: _nn.softplus(_X)),
    ("nn.glu", lambda: _nn.glu(_X, axis=1)),
    ("nn.standardize", lambda: _nn.standardize(_X, axis=0)),
    ("jnp.std bfloat16", lambda: jnp.std(_X.astype(jnp.bfloat16), axis=1, ddof=1)),
    ("jnp.nanvar", lambda: jnp.nanvar(_X, keepdims=True)),
    ("jnp.ldexp", lambda: jnp.ldexp(_X, np.arange(4, dtype=np.int32))),
    ("jnp.logaddexp", lambda: jnp.logaddexp(_X, 2.0)),
    ("jnp.linspace", lambda: jnp.linspace(0.0, 1.0, 7)),
    ("special.expi", lambda: _special.expi(_X)),
    ("special.hyp2f1", lambda: _special.hyp2f1(1.0, 2.0, 3.0, _X / 8)),
    # (issue 14, second sweep: before 4, 5, 4, 3, 5, 4, 4, 6, 5, 3, 4, 28)
    ("jnp.sum bfloat16", lambda: jnp.sum(_X.astype(jnp.bfloat16), axis=None, keepdims=True)),
    ("jnp.mean where", lambda: jnp.mean(_X, axis=1, where=_X > 0)),
    ("jnp.any", lambda: jnp.any(_X, axis=1, keepdims=True)),
    ("jnp.add float16 + bfloat16", lambda: jnp.add(_X.astype(np.float16),
                                                   _X[0, 0].astype(jnp.bfloat16))),
    ("jnp.logical_and", lambda: jnp.logical_and(_X.astype(np.float16), 1.0)),
    ("jnp.where", lambda: jnp.where(_X > 0, _X.astype(np.int32), 2.5)),
    ("jnp.clip", lambda: jnp.clip(_X, np.float32(-1), 1)),
    ("jnp.take", lambda: jnp.take(_X, np.array([0, 2, 7]))),
    ("jnp.take_along_axis", lambda: jnp.take_along_axis(_X, np.argsort(_X, 1), axis=1)),
    ("jnp.cumsum", lambda: jnp.cumsum(_X.astype(np.int32), dtype=jnp.float32)),
    ("jnp.matvec", lambda: jnp.matvec(_X, _X[0])),
    ("special.spence", lambda: _special.spence(np.abs(_X))),
])
def test_eager_first_call_of_a_jitted_library_function_compiles_once(name, call):
    n, out, again = _first_call_compiles(call)
    assert n == 1, (name, n)
    # the same bits as op by op (none of these cases fuses into other roundings)
    with astjax.disable_jit():
        ref = call()
    for a, b, c in zip(*(astjax.tree_util.tree_leaves(t) for t in (out, again, ref))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(c))
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# (issue 14, third sweep) The functions whose first eager call still compiled more than
# JAX's: before fresnel 58, dawsn 36, owens_t 35, wofz 21, roots 17, dot_product_attention
# 16, comb 10, roll 5, split / array_split 3, percentile / nanpercentile 2 executables
# (JAX 0.10.2: 23, 18, 34, 20, 7, 15, 9, 4, 2, 2, 1, 1). Their bodies are `library_jit`s
# now (roots: the leading-zero count, then the stripped polynomial's roots). A fused
# polynomial may round differently from op by op (XLA contracts a * b + c, as in JAX's
# own jitted functions): values are compared to op by op within float32 rounding.
_Q = np.linspace(-1.0, 1.0, 2 * 5 * 3 * 4, dtype=np.float32).reshape(2, 5, 3, 4)


@pytest.mark.parametrize("name, call, compiles", [
    ("special.fresnel", lambda: _special.fresnel(_X), 1),
    ("special.dawsn", lambda: _special.dawsn(_X), 1),
    ("special.owens_t", lambda: _special.owens_t(_X, np.abs(_X)), 1),
    ("special.wofz", lambda: _special.wofz(_X), 1),
    ("special.comb", lambda: _special.comb(np.abs(_X) * 3, 2.0), 1),
    ("special.comb repetition", lambda: _special.comb(np.abs(_X) * 3, 2.0, repetition=True), 1),
    ("jnp.roots", lambda: jnp.roots(np.array([0, 1, -6, 11, -6], np.float32)), 2),
    ("jnp.roots keep shape", lambda: jnp.roots(np.array([0, 1, -3, 2], np.float32),
                                               strip_zeros=False), 1),
    ("nn.dot_product_attention", lambda: _nn.dot_product_attention(_Q, _Q, _Q, is_causal=True), 1),
    ("jnp.roll", lambda: jnp.roll(_X.astype(np.float64), 7), 1),
    ("jnp.split", lambda: jnp.split(np.arange(5.0), [2, 3]), 1),
    ("jnp.array_split", lambda: jnp.array_split(_X, 3, axis=1), 1),
    ("jnp.percentile", lambda: jnp.percentile(_X, 30.0, axis=1), 1),
    ("jnp.nanpercentile", lambda: jnp.nanpercentile(_X, np.array([10.0, 90.0])), 1),
])
def test_eager_first_call_compiles_no_more_than_jaxs(name, call, compiles):
    n, out, again = _first_call_compiles(call)
    assert n == compiles, (name, n)
    with astjax.disable_jit():
        ref = call()
    leaves = [astjax.tree_util.tree_leaves(t) for t in (out, again, ref)]
    assert len(leaves[0]) == len(leaves[2])
    for a, b, c in zip(*leaves):
        assert (a.dtype, a.shape, a.weak_type) == (c.dtype, c.shape, c.weak_type)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_allclose(np.asarray(a), np.asarray(c), rtol=2e-6, atol=1e-7)


def test_percentile_gives_jaxs_bits():
    """`percentile(a, q)` is `quantile(a, q / 100)` with the division inside the
    quantile's program, as in JAX's jitted percentile: JAX 0.10.2's bits (the division
    in an executable of its own rounded differently: 1.9100002, -0.16999984)."""
    x = np.array([[3.1, -0.7, 2.2, 9.5], [1.0, 0.3, -4.4, 2.9], [0.1, 0.2, 0.4, 0.8]],
                 np.float32)
    jax_bits = [1072986849, 3190690946, 1044549468]   # jax.numpy.percentile(x, 30.0, axis=1)
    for f in (jnp.percentile, jnp.nanpercentile):
        got = np.asarray(f(x, 30.0, axis=1))
        assert got.view(np.uint32).tolist() == jax_bits, (f.__name__, got)


def test_roll_broadcasts_shift_against_axis_as_jax():
    """`roll(x, 1, axis=(0, 1))` rolls both axes by 1, a shift array is read as its
    elements, and shifts that do not broadcast against the axes are JAX's ValueError
    (one axis was rolled, the rest silently dropped; an array shift was a TypeError)."""
    y = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(jnp.roll(y, 1, axis=(0, 1))),
                                  np.roll(y, 1, axis=(0, 1)))
    np.testing.assert_array_equal(np.asarray(jnp.roll(y, np.array([1, 2]), axis=(0, 1))),
                                  np.roll(y, (1, 2), axis=(0, 1)))
    np.testing.assert_array_equal(np.asarray(jnp.roll(y, (1, 2), axis=0)),
                                  np.roll(y, (1, 2), axis=0))
    with pytest.raises(ValueError, match="broadcast"):
        jnp.roll(y, (1, 2, 3), axis=(0, 1))


# ------------------------------------------------------------------ eager slices
# (issue 14; a public program's data loader: `perm[i * 32:(i + 1) * 32]` in a Python loop
# compiled one executable per start, 2.9 s for 20 batches where JAX takes 0.17 s) An eager
# unit-stride slice runs as a dynamic_slice with its starts as operands, as JAX's slice
# impl: one executable per slice size.

def test_eager_slices_differing_in_their_starts_share_one_executable():
    perm = jnp.asarray(np.arange(1000, dtype=np.int32))
    perm[0:32].block_until_ready()
    n, outs = _compiles_of(lambda: [perm[i * 32:(i + 1) * 32] for i in range(1, 21)])
    assert n == 0
    for i, o in enumerate(outs, 1):
        np.testing.assert_array_equal(o, np.arange(i * 32, (i + 1) * 32))
        assert o.dtype == np.int32 and not o.aval.weak_type
    x = jnp.asarray(np.arange(400.0, dtype=np.float32).reshape(50, 8))
    x[0:5, 2:].block_until_ready()
    n, outs = _compiles_of(lambda: [x[i:i + 5, 2:] for i in range(1, 21)])
    assert n == 0
    for i, o in enumerate(outs, 1):
        np.testing.assert_array_equal(o, np.asarray(x)[i:i + 5, 2:])


def test_eager_slices_keep_their_errors_strides_and_weak_types():
    from astjax import lax
    x = jnp.asarray(np.arange(10.0, dtype=np.float32))
    np.testing.assert_array_equal(lax.slice(x, (1,), (9,), (3,)), np.arange(1.0, 9.0, 3.0))
    with pytest.raises(TypeError):
        lax.slice(x, (2,), (11,))
    w = lax.full((4,), 2.0)   # (weakly typed, as JAX's)
    assert w.aval.weak_type and lax.slice(w, (1,), (3,)).aval.weak_type
    assert not lax.slice(x, (1,), (3,)).aval.weak_type
