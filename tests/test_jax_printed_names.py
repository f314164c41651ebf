"""JAX's names and printed forms the documentation notebooks rely on (notebook
failures #4, #11, #20): the `jax.lax.<name>_p` primitive objects a custom interpreter
dispatches on, `ClosedJaxpr.literals`, `jax.effects_barrier`, `str`/`repr` of
`jax.typeof(x)` and of a staged value, and `register_pytree_node` returning None.
Expected strings were recorded from JAX 0.10.2."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax, tree_util

# The names JAX 0.10.2's `jax.lax` exports ending in `_p` that astjax provides as
# Primitive objects (`copy_p` is a function in astjax, see lax.py). JAX's `scatter_add_p`
# is the primitive named `scatter-add`.
P_NAMES = """abs add and argmax argmin acos acosh asin asinh atan2 atan atanh cbrt ceil
clz complex conj cos cosh cumlogsumexp cummax cummin cumprod cumsum digamma div
erf_inv erf erfc exp2 exp expm1 floor imag integer_pow is_finite lgamma log1p log
logistic max min mul neg nextafter not or polygamma population_count pow real rem
round rsqrt sign sin sinh sqrt sub tan tanh xor eq ge gt le lt ne shift_left
shift_right_arithmetic shift_right_logical bitcast_convert_type broadcast_in_dim
concatenate convert_element_type iota pad reshape rev squeeze transpose clamp select_n
dynamic_slice dynamic_update_slice slice dot_general reduce_and reduce_max reduce_min
reduce_or reduce_prod reduce_sum gather scatter scatter_add scatter_max scatter_min
scatter_mul sort cond scan while all_gather all_to_all axis_index pmax pmin ppermute
psum conv_general_dilated reduce_window_max reduce_window_min reduce_window_sum
select_and_gather_add select_and_scatter_add stop_gradient""".split()


@pytest.mark.parametrize("name", P_NAMES)
def test_lax_primitive_objects(name):
    p = getattr(lax, name + "_p")
    assert isinstance(p, jax.core.Primitive)
    assert p.name.replace("-", "_") == name


def test_custom_interpreter_dispatches_on_lax_p_objects():
    closed = jax.make_jaxpr(lambda x: jnp.exp(jnp.tanh(x)) + 1.0)(jnp.ones(3))
    prims = [e.primitive for e in closed.eqns]
    assert prims == [lax.tanh_p, lax.exp_p, lax.add_p]


def test_closed_jaxpr_literals_are_the_consts():
    c = np.arange(3.0, dtype=np.float32)
    closed = jax.make_jaxpr(lambda x: x + c)(jnp.ones(3))
    assert closed.literals is closed.consts
    assert len(closed.literals) == 1 and np.array_equal(np.asarray(closed.literals[0]), c)


def test_effects_barrier_waits_for_debug_prints(capfd):
    jax.jit(lambda x: jax.debug.print("v={v}", v=x))(jnp.float32(2))
    jax.effects_barrier()
    assert capfd.readouterr().out == "v=2.0\n"


# (value, str(jax.typeof(value)), repr(jax.typeof(value))) under JAX 0.10.2
TYPEOF = [
    (np.arange(8, dtype=np.int32), "int32[8]", "ShapedArray(int32[8])"),
    (1.0, "~float32[]", "ShapedArray(float32[], weak_type=True)"),
    (jnp.ones((2, 3), jnp.bfloat16), "bfloat16[2,3]", "ShapedArray(bfloat16[2,3])"),
    (jnp.array(True), "bool[]", "ShapedArray(bool[])"),
    (3, "~int32[]", "ShapedArray(int32[], weak_type=True)"),
    (jnp.zeros((), jnp.complex64), "complex64[]", "ShapedArray(complex64[])"),
]


@pytest.mark.parametrize("value,s,r", TYPEOF, ids=[t[1] for t in TYPEOF])
def test_typeof_prints_like_jax(value, s, r):
    t = jax.typeof(value)
    assert (str(t), repr(t)) == (s, r)


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")
def test_staged_value_prints_like_jax():
    seen = []

    @jax.jit
    def f(x, y):
        seen.extend([repr(x), str(y), str(jax.typeof(x))])
        return x

    f(jnp.ones(3), 1.0)
    assert seen == ["JitTracer(float32[3])", "JitTracer(~float32[])", "float32[3]"]


def test_register_pytree_node_returns_none():
    class T:
        pass

    class K:
        pass

    assert tree_util.register_pytree_node(T, lambda t: ((), None), lambda a, c: T()) is None
    assert tree_util.register_pytree_with_keys(K, lambda t: ((), None), lambda a, c: K()) is None
    assert tree_util.tree_leaves(T()) == []
