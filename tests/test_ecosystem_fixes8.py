"""Regressions found running distrax's whole shipped test suite on astjax (dist20), and
`jax.core.pytype_aval_mappings` as JAX's one table (the types libraries register and
the hijax types `register_hitype` declares), each checked against JAX 0.10.2."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import value_tables
from astjax.compat import core as jcore
from astjax.compat.experimental import hijax as hjx
from astjax.interpreters import xla
from test_hijax_qdd import Cell, CellTy, _val, cell_get, cell_set


# ---- One table. JAX's `register_hitype(cls, fn)` is `core.pytype_aval_mappings[cls] =
# fn`: astjax kept hijax types in a second, private table, so the entry was not in
# `jax.core.pytype_aval_mappings`, and a hi type a library wrote there directly was
# not a hi value (a `jit` argument raised instead of lowering to its arrays).
def test_register_hitype_writes_jax_core_pytype_aval_mappings():
    fn = jcore.pytype_aval_mappings[Cell]
    assert fn(Cell._new(jnp.float32(1.0))) == CellTy()


class _Slot:
    """A hijax mutable value registered by writing the table directly."""

    def __init__(self, val):
        self._val = val

    def cur_qdd(self):
        return Cell.cur_qdd(self)


class _SlotTy(CellTy):
    def new_from_loval(self, st, *vals):
        return _Slot(jax.tree.unflatten(st.treedef, vals))


@pytest.fixture
def slot_registered():
    """What JAX's `register_hitype` does, through the two public tables."""
    jcore.pytype_aval_mappings[_Slot] = lambda s: _SlotTy()
    xla.canonicalize_dtype_handlers[_Slot] = lambda s: s
    yield
    del jcore.pytype_aval_mappings[_Slot]
    del value_tables.canonicalize_value_handlers[_Slot]   # (JAX's shim has no del)


def test_hi_type_written_into_the_table_directly_is_a_hi_value(slot_registered):
    """JAX 0.10.2: typeof is the hi type, 10.0, {'a': 4.0}."""
    s = _Slot({"a": jnp.float32(1.0)})
    assert hjx.typeof(s) == _SlotTy() and jax.typeof(s) == _SlotTy()

    @jax.jit
    def f(s, x):
        v = cell_get(s)
        cell_set(s, {"a": v["a"] + x})
        return v["a"] * 10

    assert float(f(s, jnp.float32(3.0))) == 10.0
    assert _val(s) == {"a": ("float32", 4.0)}


def test_a_library_array_type_in_the_table_is_not_a_hi_value():
    """tfp's `Variable` style entry (an array's abstract value) stays an array (JAX
    0.10.2: float32[3], 4.0)."""
    class Var(np.ndarray):
        pass
    jcore.pytype_aval_mappings[Var] = jcore.pytype_aval_mappings[np.ndarray]
    try:
        v = np.arange(3.0, dtype=np.float32).view(Var)
        assert str(hjx.typeof(v)) == "float32[3]"
        assert float(jax.jit(lambda c, x: cell_get(c) + x.sum())(
            Cell._new(jnp.float32(1.0)), v)) == 4.0
    finally:
        del jcore.pytype_aval_mappings[Var]


# ---- distrax's hmm_test (tfp's `HiddenMarkovModel.posterior_marginals`: tfp's `range`
# is `np.arange(start, limit, delta)` with `limit=None`): `jnp.arange(n, None, step)`
# raised TypeError (None - int); NumPy and JAX count from 0 to n by step.
def test_arange_with_stop_none_and_a_step():
    assert jnp.arange(2, None, 1).tolist() == [0, 1]
    assert jnp.arange(5, None, 2).tolist() == [0, 2, 4]
    r = jnp.arange(5, None, 2.0)
    assert r.dtype == np.float32 and r.tolist() == [0.0, 2.0, 4.0]
    assert jnp.arange(2, None, -1).shape == (0,)


# ---- distrax's straight_through_test: eager `grad(loss)(params, shape)` whose `loss`
# passes `shape` (not differentiated) to a `jit` as a static argument raised "unhashable
# type: staged value"; JAX runs an eager grad on the concrete arguments ([0., 6.]).
def test_eager_grad_passes_a_nondiff_argument_on_as_a_jit_static_argument():
    def loss(p, shape):
        f = jax.jit(lambda x, s: jnp.broadcast_to(x, s + x.shape), static_argnums=(1,))
        s = f(p, shape)
        return jnp.sum(s ** 2), s
    g, s = jax.grad(loss, has_aux=True)(jnp.array([0.0, 1.0]), (3,))
    assert g.tolist() == [0.0, 6.0] and s.shape == (3, 2)


def test_hashing_a_staged_value_is_still_a_type_error():
    with pytest.raises(TypeError, match="unhashable"):
        jax.jit(lambda x: {x: 1})(1.0)
