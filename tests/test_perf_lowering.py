"""Mechanism tests for issue 14 (speed), the programs XLA runs: `matmul` of a batched
activation is one plain dot (its gradient too), threefry is a rolled loop in optimized
HLO, a `split`'s cotangent is one `concatenate`, `solve` is getrf + two trsm (its
gradient reuses the LU), and the MLP step and per-example gradients compile to JAX's
entry computation, a donated parameter tree updated in place. What XLA runs for the
steps is JAX's program; the rows' remaining differences are dispatch and machine noise
(benchmarks/README.md). Each test pins the program, never a time."""
import collections

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import random
from astjax.transforms.dce import dce_closed
from perf_helpers import counter
from test_seeds import loss as _seeds_loss   # the seeds' (and benchmark's) MLP


def _eqns(closed):
    """Every equation of a closed jaxpr, sub-jaxprs included (depth first)."""
    out = []

    def walk(jaxpr):
        for e in jaxpr.eqns:
            out.append(e)
            for v in e.params.values():
                for sub in (v if isinstance(v, (tuple, list)) else (v,)):
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)
    walk(closed.jaxpr)
    return out


def _names(closed):
    return [e.primitive.name for e in _eqns(closed)]


def _dense(x, w):
    return jnp.tanh(x @ w).sum()


def test_matmul_of_batched_activation_and_2d_weight_is_one_plain_dot():
    x = np.ones((8, 16, 32), np.float32)
    w = np.ones((32, 24), np.float32)
    closed = astjax.make_jaxpr(jnp.matmul)(x, w)
    names = _names(closed)
    assert names == ["dot_general"], names
    (contract, batch), = [e.params["dimension_numbers"] for e in _eqns(closed)]
    assert batch == ((), ()) and contract == ((2,), (0,))


def test_matmul_weight_gradient_has_no_broadcast_and_no_batch_dims():
    x = np.ones((8, 16, 32), np.float32)
    w = np.ones((32, 24), np.float32)
    # (the program lowered: make_jaxpr also shows the primal's dead reduce_sum, as JAX's)
    closed = dce_closed(astjax.make_jaxpr(astjax.grad(_dense, argnums=(0, 1)))(x, w))
    names = _names(closed)
    assert "broadcast_in_dim" not in names or all(
        e.params["shape"] != (8, 32, 24) for e in _eqns(closed)
        if e.primitive.name == "broadcast_in_dim"), names
    dots = [e for e in _eqns(closed) if e.primitive.name == "dot_general"]
    assert len(dots) == 3
    assert all(e.params["dimension_numbers"][1] == ((), ()) for e in dots)
    # the weight gradient contracts the batch and sequence axes in one dot
    assert any(e.params["dimension_numbers"][0] == ((0, 1), (0, 1)) for e in dots)
    assert "reduce_sum" not in names


def test_matmul_one_sided_batch_axes_match_numpy():
    rng = np.random.default_rng(0)
    for sa, sb in [((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)),
                   ((6, 5, 2, 3), (1, 3, 4)), ((1, 5, 2, 3), (6, 1, 3, 4)),
                   ((4, 1, 5, 2, 3), (1, 6, 1, 3, 4)), ((5, 2, 3), (3,))]:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        out = astjax.jit(jnp.matmul)(a, b)
        assert out.shape == np.matmul(a, b).shape
        np.testing.assert_allclose(np.asarray(out), np.matmul(a, b), rtol=1e-5, atol=1e-5)
        names = _names(astjax.make_jaxpr(jnp.matmul)(a, b))
        assert "broadcast_in_dim" not in names and names.count("dot_general") == 1


def _sample_grid(key):
    x = random.normal(key, (20, 64))
    return jnp.stack([x[i].reshape(8, 8).T for i in range(20)])


def test_threefry_is_a_rolled_loop_in_optimized_hlo():
    compiled = astjax.jit(_sample_grid).lower(random.PRNGKey(0)).compile()
    hlo = compiled.as_text()   # XLA's optimized HLO, as JAX's Compiled.as_text
    assert hlo.startswith("HloModule") and "stablehlo." not in hlo
    # unrolled, XLA copied the ~100-op hash into every slice's fusion (483 xor here)
    assert hlo.count(" xor(") < 60 and hlo.count(" while(") >= 1


def test_rolled_threefry_gives_the_stored_bits():
    # values of the unrolled implementation (= jax.random 0.10.2)
    k = random.PRNGKey(42)
    np.testing.assert_array_equal(np.asarray(random.split(k)),
                                  [[1832780943, 270669613], [64467757, 2916123636]])
    np.testing.assert_array_equal(np.asarray(random.bits(random.fold_in(k, 7), (5,))),
                                  [2635269230, 2130978531, 2408095496, 2660435744, 2228758927])
    np.testing.assert_allclose(np.asarray(random.normal(k, (3,))),
                               [-0.02830462, 0.46713185, 0.29570296], rtol=1e-6)
    assert float(random.uniform(random.PRNGKey(0), ())) == np.float32(0.947667)
    grid = np.asarray(astjax.jit(_sample_grid)(random.PRNGKey(0)))
    x = np.asarray(random.normal(random.PRNGKey(0), (20, 64)))
    np.testing.assert_array_equal(grid[3], x[3].reshape(8, 8).T)


def _qkv_loss(x, w):
    q, k, v = jnp.split(x @ w, 3, axis=-1)
    return jnp.sum(q * jnp.sin(k) + v ** 2)


def test_split_parts_cotangent_is_one_concatenate():
    """The cotangent of the parts of a `jnp.split` (q, k, v; one `lax.split`, as
    JAX's) is one `concatenate` of the parts (zeros in any gap), as `split` transposes -- not a zero-padded full-size array per part
    summed (the GPT step wrote two [8, 128, 768] buffers more per layer); other
    slice patterns keep `pad`, as JAX (a concatenate there rounds differently). Values match finite differences of NumPy."""
    x = np.random.RandomState(0).randn(4, 5).astype(np.float32)
    w = np.random.RandomState(1).randn(5, 9).astype(np.float32)
    names = _names(astjax.make_jaxpr(astjax.grad(_qkv_loss, argnums=1))(x, w))
    assert names.count("concatenate") == 1 and "pad" not in names and "add_any" not in names
    y = x @ w
    want_y = np.concatenate([np.sin(y[:, 3:6]), y[:, :3] * np.cos(y[:, 3:6]), 2 * y[:, 6:]], 1)
    np.testing.assert_allclose(astjax.grad(_qkv_loss, argnums=1)(x, w), x.T @ want_y,
                               rtol=1e-5, atol=1e-5)

    def gaps(z):   # (a part nobody reads: zeros in its place)
        a, _, b = jnp.split(z, [1, 5], axis=1)
        return jnp.sum(a * 2.0) + jnp.sum(b ** 2)
    names = _names(astjax.make_jaxpr(astjax.grad(gaps))(y))
    assert names.count("concatenate") == 1 and "pad" not in names
    want = np.zeros_like(y)
    want[:, :1] = 2.0
    want[:, 5:] = 2 * y[:, 5:]
    np.testing.assert_allclose(astjax.grad(gaps)(y), want, rtol=1e-6)

    def slices(z):   # two slices, not a split: each its pad, summed, as JAX
        return jnp.sum(z[:, 1:3] * 2.0) + jnp.sum(z[:, 5:] ** 2)
    names = _names(astjax.make_jaxpr(astjax.grad(slices))(y))
    assert names.count("pad") == 2 and "concatenate" not in names

    def crossed(z):   # two axes cut, overlapping: each slice's pad, summed
        return jnp.sum(z[1:3, 1:3]) + jnp.sum(z[2:4, 0:2])
    names = _names(astjax.make_jaxpr(astjax.grad(crossed))(y))
    assert names.count("pad") == 2 and "concatenate" not in names
    want = np.zeros_like(y)
    want[1:3, 1:3] += 1
    want[2:4, 0:2] += 1
    np.testing.assert_array_equal(astjax.grad(crossed)(y), want)


def _hlo_ops(text):
    """Opcode counts of an optimized HLO module (every computation, fused ones included)."""
    import re
    ops = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\s*(?:ROOT )?%\S+ = .*? ([a-z][a-z\-]*)\(", line)
        if m:
            ops[m.group(1)] += 1
    return ops


def test_solve_is_getrf_two_trsm_and_a_swap_loop():
    """`jit(linalg.solve)` compiles to JAX's program: getrf, the pivots turned into a
    permutation by a loop of element swaps (dynamic-slice / dynamic-update-slice, no
    one-hot reduction: no reduce-window, no reduce), b's rows permuted by one gather,
    two trsm, and the custom calls writing in place of their operands."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 8)).astype(np.float32)
    text = astjax.jit(jnp.linalg.solve).lower(a, b).compile().as_text()
    ops = _hlo_ops(text)
    assert ops["reduce-window"] == 0 and ops["reduce"] == 0 and ops["dot"] == 0, ops
    assert ops["while"] == 1 and ops["gather"] == 1 and ops["scatter"] == 0, ops
    assert ops["dynamic-update-slice"] == 2, ops
    assert text.count('custom_call_target="lapack_sgetrf_ffi"') == 1
    assert text.count('custom_call_target="lapack_strsm_ffi"') == 2
    assert text.count("output_to_operand_aliasing") == 3
    # the gather takes whole rows of b (one index per row, not one per element)
    gather = next(ln for ln in text.splitlines() if " gather(" in ln)
    assert "slice_sizes={1,8}" in gather, gather
    # batched: still no reduction, one gather for the rows and one per swap
    text = astjax.jit(jnp.linalg.solve).lower(np.stack([a, a]), np.stack([b, b])).compile()
    ops = _hlo_ops(text.as_text())
    assert ops["reduce-window"] == 0 and ops["reduce"] == 0 and ops["dot"] == 0, ops


def test_grad_of_solve_reuses_the_lu():
    """grad(solve) differentiates as JAX's custom_linear_solve: one getrf, two trsm
    forward and two transposed trsm backward, one outer product for a's cotangent --
    not getrf's own derivative (more trsm and n^3 products)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 8)).astype(np.float32)
    g = astjax.grad(lambda a, b: jnp.sin(jnp.linalg.solve(a, b)).sum(), argnums=(0, 1))
    text = astjax.jit(g).lower(a, b).compile().as_text()
    assert text.count('custom_call_target="lapack_sgetrf_ffi"') == 1
    assert text.count('custom_call_target="lapack_strsm_ffi"') == 4
    assert _hlo_ops(text)["dot"] == 1


def _seeds_update(params, x, y):
    grads = astjax.grad(_seeds_loss)(params, (x, y))
    return [(w - 0.001 * dw, b - 0.001 * db) for (w, b), (dw, db) in zip(params, grads)]


def _entry_ops(text):
    """Opcode counts of the ENTRY computation of an optimized HLO module."""
    import re
    body = text.split("\nENTRY ", 1)[1].split("\n}\n", 1)[0]
    ops = collections.Counter()
    for line in body.splitlines()[1:]:
        m = re.match(r"\s*(?:ROOT )?%\S+ = .*?\b([a-z][a-z0-9-]*)\(", line)
        if m:
            ops[m.group(1)] += 1
    return dict(ops)


def _seeds_params(sizes, scale=1.0):
    rng = np.random.RandomState(0)
    return [(jnp.asarray(rng.randn(m, n).astype(np.float32) * scale),
             jnp.asarray(rng.randn(n).astype(np.float32)))
            for m, n in zip(sizes[:-1], sizes[1:])]


def test_mlp_step_and_per_example_grads_compile_to_jaxs_entry_ops():
    """The benchmark's MLP step ([784, 512, 512, 10], batch 128) compiles to the entry
    computation jax 0.10.2's does on this CPU (3 dots + 19 fusions), recorded with
    `/work/jaxref/bin/python` from the same program
    (`jax.jit(f).lower(...).compile().as_text()`); per-example grads (`jit(vmap(grad))`,
    [8, 16, 16, 4], batch 32) to 3 fusions fewer than JAX's 16: the weights'
    cotangents are `dot_general(x, ct)` in the weight's axis order
    (`reductions._dot_transpose_rhs`), so each per-example outer product is one
    multiply fusion where JAX's `dot_general(ct, x)` + transpose leaves a transposing
    fusion and a copy. The same module text compiled with JAX's `get_compile_options`
    gives the same optimized HLO as with astjax's options (measured;
    benchmarks/README.md), so an extra kernel here would be a real regression."""
    params = _seeds_params([784, 512, 512, 10], 0.01)
    x = jnp.ones((128, 784))
    y = jnp.ones((128, 10))
    text = astjax.jit(_seeds_update).lower(params, x, y).compile().as_text()
    assert _entry_ops(text) == {"parameter": 8, "constant": 1, "dot": 3, "fusion": 19,
                                "tuple": 1}
    small = _seeds_params([8, 16, 16, 4])
    xs, ys = jnp.ones((32, 8)), jnp.ones((32, 4))
    pex = astjax.jit(astjax.vmap(
        lambda p, a, b: astjax.grad(_seeds_loss)(p, (a[None], b[None])), in_axes=(None, 0, 0)))
    text = pex.lower(small, xs, ys).compile().as_text()
    assert _entry_ops(text) == {"parameter": 8, "bitcast": 2, "fusion": 13, "tuple": 1}
    # and the per-example gradients are right (vs the batch gradient, summed)
    g = pex(small, xs, ys)
    full = astjax.grad(_seeds_loss)(small, (xs, ys))
    for (gw, gb), (fw, fb) in zip(g, full):
        np.testing.assert_allclose(np.asarray(gw).sum(0), np.asarray(fw), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(gb).sum(0), np.asarray(fb), rtol=1e-4, atol=1e-4)


def test_a_donated_parameter_tree_is_updated_in_place_on_the_fast_path(monkeypatch):
    """`jit(update, donate_argnums=0)` on a list of (W, b): the compiled module aliases
    every parameter to its updated result (JAX's `input_output_alias`), the results
    live in the donated buffers (no new allocation, no copy), the donated Arrays are
    deleted, and repeated calls -- on the tree fast path, no `_call_slow` -- keep
    updating in place. (A buffer that NumPy still views, e.g. after `np.asarray`,
    cannot be donated: XLA then writes a new one, as in JAX.)"""
    from astjax import api
    params = _seeds_params([8, 16, 4])
    x, y = jnp.ones((4, 8)), jnp.ones((4, 4))
    step = astjax.jit(_seeds_update, donate_argnums=0)
    text = step.lower(params, x, y).compile().as_text()
    header = text.split("\n", 1)[0]
    assert all(f"{{{i}}}: ({i}, {{}}, may-alias)" in header for i in range(4)), header
    want, plain = params, astjax.jit(_seeds_update)
    for _ in range(4):
        want = plain(want, x, y)
    ptrs = [a._buf.unsafe_buffer_pointer() for a in astjax.tree_util.tree_leaves(params)]
    new = step(params, x, y)
    assert [a._buf.unsafe_buffer_pointer() for a in astjax.tree_util.tree_leaves(new)] == ptrs
    assert all(a.is_deleted() for a in astjax.tree_util.tree_leaves(params))
    slow = counter(monkeypatch, api.Jitted, "_call_slow")
    for _ in range(3):
        new = step(new, x, y)
    assert slow[0] == 0
    assert [a._buf.unsafe_buffer_pointer() for a in astjax.tree_util.tree_leaves(new)] == ptrs
    for got, w in zip(astjax.tree_util.tree_leaves(new), astjax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=1e-6)
