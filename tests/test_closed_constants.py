"""Closed-over constants lowered as JAX 0.10.2 lowers them: every NumPy array and
one-device Array a jitted function closes over (or reads from a global) is a
`stablehlo.constant` of its module, never a parameter of `@main`, so XLA folds what
is computed from constants alone at compile time and the results carry JAX's bits
(`stablehlo.embedded_constants`; docs/coming_from_jax.md, "Closed-over constants").

The stored results were computed by jax 0.10.2 / jaxlib 0.10.2 on CPU from the same
programs (its folded sums round otherwise than the runtime's kernels: a constant
passed as an argument gave other bits in each of these)."""
import re

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.codegen import compile_cache
from test_perf_mechanisms import _compiles_of   # (executables compiled by a call)


def _data(n, k, scale=1.0):
    """Deterministic float32 values (exact float64 arithmetic, then one rounding)."""
    return (((np.arange(n, dtype=np.float64) * k) % 1000 - 500) / 997 * scale).astype(
        np.float32)


W = _data(4096, 7919).reshape(64, 64)
V = _data(1000, 104729, 3.0)
T = _data(3000, 31, 0.01) + np.float32(1)
Va = jnp.asarray(V)
Wa = jnp.asarray(W)
Wc = astjax.device_put(W, astjax.devices()[0])   # committed


def _scan(c):
    def body(c, _):
        return c * 0.5 + jnp.sum(T * T), None
    return lax.scan(body, c, None, length=4)[0]


# name -> (function, args, JAX's result bytes in hex)
JAX_RESULTS = {
    "mean_numpy": (lambda: jnp.mean(V), (), "2e33c5ba"),
    "mean_array": (lambda: jnp.mean(Va), (), "2e33c5ba"),
    "dot_committed": (lambda: (Wc @ Wc)[3, :4], (), "0e93863fe32724bf3d1f363fa14f873e"),
    "softmax_numpy": (lambda: astjax.nn.softmax(V)[:8], (),
                      "a0002439ead4b73a6eab223a97f18f390159213b20c68e3a35adfc39e0965f39"),
    "sum_of_squares": (lambda: jnp.sum(T * T), (), "ec7f3b45"),
    "grad": (astjax.grad(lambda x: x * jnp.sum(T * T)), (np.float32(2.0),), "ec7f3b45"),
    "scan_body": (_scan, (np.float32(1.0),), "6dc8af45"),
}


@pytest.mark.parametrize("name", sorted(JAX_RESULTS))
def test_bits_match_jax(name):
    fun, args, want = JAX_RESULTS[name]
    assert np.asarray(astjax.jit(fun)(*args)).tobytes().hex() == want


# Outside `jit`, JAX runs a transformation op by op: a closed-over value is an operand
# there, nothing is folded, and the bits are the runtime kernels' (`jit(grad(f))` above
# folds: `ec7f3b45`; eager `grad(f)`: `ed7f3b45`). astjax compiles an eager
# transformation's program with its constants as parameters.
JAX_EAGER_RESULTS = {
    "grad": (lambda: astjax.grad(lambda x: x * jnp.sum(T * T))(np.float32(2.0)), "ed7f3b45"),
    "vmap": (lambda: astjax.vmap(lambda r: r + jnp.mean(V))(np.zeros(2, np.float32)),
             "3033c5ba3033c5ba"),
    "value_and_grad": (lambda: astjax.value_and_grad(lambda x: x * jnp.mean(V))(
        np.float32(2.0))[0], "303345bb"),
    "jvp": (lambda: astjax.jvp(lambda x: x * jnp.mean(V), (np.float32(2.0),),
                               (np.float32(1.0),))[0], "303345bb"),
}


@pytest.mark.parametrize("name", sorted(JAX_EAGER_RESULTS))
def test_eager_transformations_fold_nothing(name):
    run, want = JAX_EAGER_RESULTS[name]
    assert np.asarray(run()).tobytes().hex() == want


def _main(text):
    return next(ln for ln in text.splitlines() if "func.func public @main(" in ln)


@pytest.mark.parametrize("const", [W, Wa, Wc], ids=["numpy", "array", "committed"])
def test_closed_over_arrays_are_module_constants(const):
    text = astjax.jit(lambda: jnp.sum(const)).lower().as_text()
    assert "@main()" in _main(text)   # (no parameter: JAX's `@main()`)
    assert re.search(r'stablehlo\.constant dense<"0x[0-9A-F]+"> : tensor<64x64xf32>', text) \
        or re.search(r"stablehlo\.constant dense<\[\[.*\]\]> : tensor<64x64xf32>", text)


def test_constants_with_arguments_scalars_and_transformations():
    small = np.arange(3, dtype=np.float32)
    text = astjax.jit(lambda x: x * small * np.float32(2.5)).lower(jnp.ones(3)).as_text()
    assert "@main(%arg0: tensor<3xf32>)" in _main(text)
    assert "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>" in text
    assert "dense<2.500000e+00> : tensor<f32>" in text
    # under grad and in a scan body: still constants of `@main`, as in JAX
    for fun in (astjax.grad(lambda x: jnp.sum(jnp.tanh(W @ x))), lambda x: _scan(x[0])):
        text = astjax.jit(fun).lower(jnp.ones(64)).as_text()
        assert "@main(%arg0: tensor<64xf32>)" in _main(text)
        assert "stablehlo.constant dense<\"0x" in text


def test_a_large_constant_runs_and_donation_keeps_its_argument():
    big = _data(1 << 16, 7).reshape(256, 256)   # 256 KiB: its hex is left in lower case
    f = astjax.jit(lambda x: x + big, donate_argnums=0)
    lowered = f.lower(jnp.zeros((256, 256)))
    assert "tf.aliasing_output = 0" in _main(lowered.as_text(debug_info=True))
    out = f(jnp.ones((256, 256)))
    np.testing.assert_array_equal(np.asarray(out), big + 1)


def test_lowered_for_several_platforms_carries_the_constants():
    traced = astjax.jit(lambda x: x @ W).trace(jnp.ones(64))
    for platforms in (("cpu",), ("cpu", "cuda")):
        text = traced.lower(lowering_platforms=platforms).as_text()
        assert "tensor<64x64xf32>" in text and "stablehlo.constant dense<\"0x" in text


def test_fresh_jit_per_call_compiles_once_and_passes_no_constants():
    big = _data(1 << 18, 13).reshape(512, 512)   # 1 MiB

    def f(x):
        return big @ x
    x = jnp.ones(512)
    astjax.jit(f)(x)
    assert _compiles_of(lambda: [astjax.jit(f)(x) for _ in range(3)])[0] == 0
    entry = astjax.jit(f).trace(x)._entry
    assert entry.const_bufs == []   # (nothing copied to the device per call)


def test_a_restaged_program_is_not_compiled_again():
    big = _data(1 << 18, 17).reshape(512, 512)
    x = jnp.ones(512)

    def run():   # a new function each time: staged and lowered again, as in JAX
        return astjax.jit(lambda x: big @ x)(x)
    run()
    hits = compile_cache.stats["memory_hits"]
    run()   # (the same module text: the in-memory executable, not a compile)
    assert compile_cache.stats["memory_hits"] == hits + 1


@pytest.mark.skipif(len(astjax.devices()) < 2, reason="needs 2 devices")
def test_partitioned_jit_and_pmap_carry_the_constants():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec
    s = NamedSharding(Mesh(np.array(astjax.devices()[:2]), ("x",)), PartitionSpec("x"))
    x = astjax.device_put(jnp.ones(64), s)
    f = astjax.jit(lambda x: x + jnp.mean(V), in_shardings=s)
    assert "@main(%arg0: tensor<64xf32>" in _main(f.lower(x).as_text())
    assert np.asarray(f(x))[:1].tobytes().hex() == \
        (np.frombuffer(bytes.fromhex("2e33c5ba"), np.float32) + 1).tobytes().hex()
    p = astjax.pmap(lambda x: x + jnp.mean(V), devices=astjax.devices()[:2])
    entry_text = p.lower(jnp.ones((2, 4))).as_text()
    assert "@main(%arg0: tensor<2x4xf32>" in _main(entry_text)
    assert np.asarray(p(jnp.zeros((2, 4)))).tobytes().hex() == "2e33c5ba" * 8


def test_one_value_under_two_constvars_is_written_once():
    from astjax import core
    from astjax.codegen import stablehlo
    j = astjax.make_jaxpr(lambda a, b: a + b)(W, W).jaxpr
    a, b = j.invars
    text = stablehlo.lower_module(core.Jaxpr([], [], j.outvars, j.eqns),
                                  embedded=((a, W), (b, W)))
    assert text.count('"stablehlo.constant"') == 1 and "@main()" in text
