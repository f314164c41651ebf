"""The `jax.lax` names added for issue 13 against JAX's stored values and gradients
(tests/oracle/record_lax_more.py -> lax_more.json): each case eagerly, under `jit`,
under `vmap` (a batch of two) and, where recorded, its gradient; float64 finite
differences for the differentiable ones; plus the errors JAX raises and what the
new primitives print and lower to."""
import json
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.test_util import check_grads

from oracle import record_lax_more as rec

STORED = json.loads(Path(rec.__file__).with_name("lax_more.json").read_text())
NAMES = sorted(rec.CASES)


def _fn(name):
    fn, args, opt = rec.CASES[name]
    return (lambda *xs: fn(lax, jnp, *xs)), args, opt


def _compare(got_leaves, stored, what, batch_index=None):
    assert len(got_leaves) == len(stored), what
    for got, want in zip(got_leaves, stored):
        got = np.asarray(got)
        if batch_index is not None:
            got = got[batch_index]
        assert str(got.dtype) == want["dtype"], (what, got.dtype, want["dtype"])
        assert list(got.shape) == want["shape"], (what, got.shape, want["shape"])
        exact = want["dtype"][0] in "ub" or want["dtype"].startswith("int")
        ref = np.asarray(want["v"], np.float64).reshape(want["shape"])
        if exact:
            np.testing.assert_array_equal(got.astype(np.float64), ref, err_msg=what)
        else:
            np.testing.assert_allclose(got.astype(np.float64), ref, rtol=2e-5, atol=2e-5,
                                       err_msg=what)


@pytest.mark.parametrize("name", NAMES)
def test_eager_and_jit_match_jax(name):
    f, args, _ = _fn(name)
    _compare(jax.tree_util.tree_leaves(f(*args)), STORED[name]["out"], f"{name} eager")
    _compare(jax.tree_util.tree_leaves(jax.jit(f)(*args)), STORED[name]["out"], f"{name} jit")


@pytest.mark.parametrize("name", [n for n in NAMES if rec.CASES[n][2]["vmap"]])
def test_vmap_matches_jax(name):
    f, args, _ = _fn(name)
    batched = [np.stack([a, a]) for a in args]
    out = jax.tree_util.tree_leaves(jax.vmap(f)(*batched))
    for b in (0, 1):
        _compare(out, STORED[name]["out"], f"{name} vmap row {b}", batch_index=b)


def _total(f, args, wrt):
    """The sum of every float output of `f`, as a function of the inputs `wrt`."""
    def total(*xs):
        full = list(args)
        for i, x in zip(wrt, xs):
            full[i] = x
        leaves = jax.tree_util.tree_leaves(f(*full))
        return sum(jnp.sum(y) for y in leaves if jnp.issubdtype(y.dtype, jnp.floating))
    return total


@pytest.mark.parametrize("name", [n for n in NAMES if rec.CASES[n][2]["grad"]])
def test_grad_matches_jax(name):
    f, args, _ = _fn(name)
    wrt = rec.float_inputs(args)
    total = _total(f, args, wrt)
    grads = jax.grad(total, argnums=tuple(range(len(wrt))))(*[args[i] for i in wrt])
    _compare(grads, STORED[name]["grad"], f"{name} grad")


# reduce_precision's derivative is the rounding itself (piecewise constant in
# float64 differences); ragged_dot_contracting has no JAX gradient to store, so finite
# differences are its reference here.
FD = [n for n in NAMES if (rec.CASES[n][2]["grad"] and n != "reduce_precision_f16_bf16")
      or n == "ragged_dot_contracting"]


@pytest.mark.parametrize("name", FD)
def test_derivatives_finite_differences(name, x64):
    f, args, _ = _fn(name)
    wrt = rec.float_inputs(args)
    args = [a.astype(np.float64) if i in wrt else a for i, a in enumerate(args)]
    total = _total(f, args, wrt)
    check_grads(total, [args[i] for i in wrt], order=1, modes=("fwd", "rev"))


# ---- what is staged, printed and lowered

def test_reduce_monoids_bind_the_reducers_and_others_a_tree():
    x = np.ones((3, 4), np.float32)
    assert "reduce_sum" in str(jax.make_jaxpr(lambda x: lax.reduce(x, 0.0, lax.add, (0,)))(x))
    assert "reduce_max" in str(jax.make_jaxpr(
        lambda x: lax.reduce(x, -np.inf, lax.max, (1,)))(x))
    # not the identity: no monoid, the general tree (JAX: reduce_p)
    general = str(jax.make_jaxpr(lambda x: lax.reduce(x, 1.0, lax.add, (0,)))(x))
    assert "reduce_sum" not in general and "reduce[" in general and "add" in general
    np.testing.assert_allclose(lax.reduce(x, 1.0, lax.add, (0,)), np.full(4, 4.0))  # XLA: init once


def test_reduce_keeps_weak_type_of_python_operands():
    assert not lax.reduce(np.ones(3, np.float32), 0.0, lax.add, (0,)).aval.weak_type


def test_new_primitives_lower_to_their_stablehlo_ops():
    def f(x):
        y = lax.optimization_barrier((x, x * 2))
        return lax.reduce_precision(y[0] + y[1], 5, 10)
    text = jax.jit(f).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.optimization_barrier" in text and "stablehlo.reduce_precision" in text
    key = np.array([1, 2, 3, 4], np.uint32)
    text = jax.jit(lambda k: lax.rng_bit_generator(k, (2,))).lower(key).as_text()
    assert "stablehlo.rng_bit_generator" in text and "PHILOX" not in text


def test_mulhi_through_transposed_operands_compiles():
    # XLA's CPU fusion rejects its own `mulhi` fed by a transpose (JAX fails here);
    # astjax lowers 8-32 bit mulhi through the double-width product
    i = (np.arange(24, dtype=np.int32).reshape(3, 2, 4) - 12) * 123456789
    got = jax.jit(jax.vmap(lax.mulhi, in_axes=(2, 1)))(i.transpose(1, 2, 0), i.transpose(1, 0, 2))
    np.testing.assert_array_equal(np.asarray(got), lax.mulhi_p.impl(i, i))


def test_optimization_barrier_source_round_trips():
    def f(x):
        a, b = lax.optimization_barrier((jnp.sin(x), x))
        return a * b
    src = jax.source(jax.grad(f), 1.0)
    assert "lax.optimization_barrier((" in src
    np.testing.assert_allclose(jax.grad(f)(1.0), np.sin(1.0) + np.cos(1.0), rtol=1e-6)


def test_reduce_precision_matches_its_numpy_reference():
    x = np.array([1.0001, 3.14159, 1e30, -1e-30, np.nan, 65520.0, 6e-8], np.float32)
    for e, m in ((5, 10), (8, 7), (4, 3), (8, 23), (3, 0)):
        want = lax.reduce_precision_p.impl(x, exponent_bits=e, mantissa_bits=m)
        np.testing.assert_array_equal(np.asarray(lax.reduce_precision(x, e, m)), want)


def test_rng_bit_generator_batches_like_jax():
    keys = np.stack([np.array([1, 2, 3, 4], np.uint32), np.array([5, 6, 7, 8], np.uint32)])
    new_keys, bits = jax.vmap(lambda k: lax.rng_bit_generator(k, (3,)))(keys)
    # JAX's rule: one draw of (2, 3) bits from the first key; only that key advances
    k0, want = lax.rng_bit_generator(keys[0], (2, 3))
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(new_keys), np.stack([np.asarray(k0), keys[1]]))


def test_rng_uniform_draws_in_range():
    x = np.asarray(lax.rng_uniform(np.float32(2), np.float32(3), (50,)))
    assert x.shape == (50,) and x.dtype == np.float32 and ((2 <= x) & (x < 3)).all()


# ---- JAX's errors

@pytest.mark.parametrize("call, cls", [
    (lambda: lax.split(np.ones(5), (2, 2)), ValueError),
    (lambda: lax.split(np.ones(5), (6, -1)), ValueError),
    (lambda: lax.stack([]), ValueError),
    (lambda: lax.stack([np.ones(2), np.ones(3)]), ValueError),
    (lambda: lax.unstack(np.float32(1)), ValueError),
    (lambda: lax.collapse(np.ones((2, 3)), 1, 0), ValueError),
    (lambda: lax.batch_matmul(np.ones(3), np.ones((3, 3))), ValueError),
    (lambda: lax.reduce((np.ones(3),), (0.0, 0.0), lax.add, (0,)), ValueError),
    (lambda: lax.approx_max_k(np.arange(4), 2), ValueError),
    (lambda: lax.approx_max_k(np.ones(4, np.float32), 5), ValueError),
    (lambda: lax.rng_bit_generator(np.array([1, 2, 3, 4], np.uint32), (2,), np.int32),
     TypeError),
    (lambda: lax.reduce_precision(np.ones(2, np.float32), 0, 3), ValueError),
    (lambda: lax.mulhi(np.ones(2, np.float32), np.ones(2, np.float32)), TypeError),
    (lambda: lax.conv_general_permutations(("NHWC", "HWIO", "NCHWX")), TypeError),
    (lambda: lax.conv_shape_tuple((1, 1, 4), (1, 1, 2), (1,), [(0, 0), (0, 0)]), TypeError),
    (lambda: lax.ragged_dot(np.ones((3, 2), np.float32), np.ones((2, 2, 2), np.float32),
                            np.array([1, 2], np.int32), group_offset=np.zeros(1, np.int32)),
     NotImplementedError),
    (lambda: lax.ragged_dot(np.ones((3, 2), np.float32), np.ones((3, 2, 2), np.float32),
                            np.array([1, 2], np.int32)), TypeError),
])
def test_errors_are_jaxs_classes(call, cls):
    from astjax.errors import AstjaxError
    with pytest.raises(cls) as info:
        call()
    assert isinstance(info.value, AstjaxError)


def test_shape_helpers_match_jax():
    assert lax.conv_shape_tuple((2, 3, 10, 11), (4, 3, 3, 2), (2, 1), "SAME") == (2, 4, 5, 11)
    assert lax.conv_shape_tuple((4, 3, 10, 11), (4, 3, 3, 2), (2, 1), [(1, 2), (0, 0)],
                                2) == (2, 4, 6, 10)
    assert lax.conv_general_permutations(("NHWC", "HWIO", "NCWH")) == (
        (0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 3, 2))
    assert lax.dtype(np.zeros(3)) == np.float32 and lax.dtype(3) == np.int32
    np.testing.assert_array_equal(lax.shape_as_value((2, 3)), [2, 3])
    assert lax.shape_as_value(()).shape == (0,)
    np.testing.assert_array_equal(lax.empty((2, 3), np.float32), np.zeros((2, 3)))
    assert isinstance(lax.stage(3.0), jax.Array)


def test_dce_sink_keeps_its_operand_and_returns_nothing():
    def f(x):
        y = x * 2
        assert lax.dce_sink(y) is None
        return x + 1
    text = str(jax.make_jaxpr(f)(1.0))
    assert "mul" in text and "dce_sink[prevent_mlir_dce=False]" in text  # as JAX prints it
    assert jax.jit(f)(1.0) == 2.0 and jax.grad(f)(1.0) == 1.0
    np.testing.assert_array_equal(jax.vmap(f)(np.ones(2, np.float32)), [2.0, 2.0])
    g = lambda x: (lax.dce_sink((x * 2, x), prevent_mlir_dce=True), x)[1]  # noqa: E731
    assert "custom_call" in jax.jit(g).lower(1.0).as_text() and jax.jit(g)(1.0) == 1.0
    assert "lax.dce_sink(y, prevent_mlir_dce=False)" in jax.source(f, 1.0)


def test_platform_dependent_runs_the_cpu_branch():
    def f(x):
        return lax.platform_dependent(x, cpu=lambda x: x * 3, default=lambda x: x)
    assert f(2.0) == 6.0 and jax.jit(f)(2.0) == 6.0
    assert jax.jit(lambda x: lax.platform_dependent(x, tpu=lambda x: x * 3,
                                                    default=lambda x: x + 1))(2.0) == 3.0
    with pytest.raises(NotImplementedError):
        lax.platform_dependent(2.0, tpu=lambda x: x)
    with pytest.raises(ValueError):
        lax.platform_dependent(2.0, gpu=lambda x: x)
    with pytest.raises(TypeError):
        lax.platform_dependent(2.0, cpu=3)


def test_composite_lowers_to_a_named_op_with_its_decomposition():
    sm = lax.composite(lambda x, *, axis, scale: jax.nn.softmax(x * scale, axis),
                       name="my.softmax", version=2)
    y = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = lambda y: sm(y, axis=1, scale=np.float32(0.5))  # noqa: E731
    want = np.exp(0.5 * y) / np.exp(0.5 * y).sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(f(y)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(y)), want, rtol=1e-6)
    text = jax.jit(f).lower(y).as_text()
    # JAX 0.10.2 prints the same op and attributes (its function is named @my.softmax)
    assert ('stablehlo.composite "my.softmax" %arg0 {composite_attributes = {axis = 1 : i64, '
            'scale = 5.000000e-01 : f32}, decomposition = @my_softmax_0, version = 2 : i32}'
            in text)
    assert "func.func private @my_softmax_0" in text
    assert "composite[" in str(jax.make_jaxpr(f)(y))


def test_composite_has_jaxs_derivative_error():
    tan = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        jax.grad(lambda x: tan(x).sum())(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        jax.jit(lambda x: lax.composite(lambda x, *, s: x * s, name="n")(x, s=x))(1.0)
