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
    from astjax import monitoring
    call()   # (one-time module constants)
    astjax.clear_caches()
    n = [0]

    def listen(event, seconds, **kw):
        n[0] += event == monitoring.BACKEND_COMPILE_EVENT
    monitoring.register_event_duration_secs_listener(listen)
    try:
        out = call()
        again = call()
    finally:
        monitoring.unregister_event_duration_listener(listen)
    assert n[0] == 1, (name, n[0])
    # the same bits as op by op (none of these cases fuses into other roundings)
    with astjax.disable_jit():
        ref = call()
    for a, b, c in zip(*(astjax.tree_util.tree_leaves(t) for t in (out, again, ref))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(c))
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
