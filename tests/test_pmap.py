"""pmap over 4 CPU devices (tests/conftest.py sets ASTJAX_NUM_CPU_DEVICES=4):
collectives, in_axes/out_axes, statics, sharded results feeding the next call,
composition with grad and vmap, data-parallel SGD, located errors."""
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.codegen import runtime, sharded
from astjax.errors import AstjaxError, ArgumentError, AxisNameError, ShapeError

N = 4
pytestmark = pytest.mark.skipif(len(astjax.devices()) < N,
                                reason="needs ASTJAX_NUM_CPU_DEVICES=4 (tests/conftest.py)")


def arange(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)

# ----------------------------------------------------------------------- basics


def test_elementwise_and_sharded_result():
    f = astjax.pmap(lambda x: x * 2.0 + 1.0)
    x = arange(N, 3)
    y = f(x)
    assert isinstance(y, astjax.Array) and isinstance(y, sharded.GlobalArray)
    assert y.shape == (N, 3) and y.dtype == np.float32
    np.testing.assert_allclose(np.asarray(y), x * 2 + 1)
    assert y.devices() == set(astjax.devices()[:N])
    shards = y.addressable_shards
    assert [s.device for s in shards] == astjax.devices()[:N]
    for i, s in enumerate(shards):     # JAX: each shard keeps the mapped axis (size 1)
        assert s.index == (slice(i, i + 1), slice(None))
        np.testing.assert_allclose(np.asarray(s.data), x[i:i + 1] * 2 + 1)
    assert "Array(" in repr(y) and str(y) == str(x * 2 + 1)


def test_outputs_feed_next_pmap_without_host_round_trip():
    f = astjax.pmap(lambda x: lax.psum(x, "i") * 0.25, axis_name="i")
    x = arange(N, 2)
    y = f(x)
    arr = y._arr
    z = f(y)                      # the sharded input is passed as is
    entry = next(iter(f._cache.values()))
    assert y._npy is None         # never gathered to the host
    z2 = f(z)
    np.testing.assert_allclose(np.asarray(z2), np.broadcast_to(x.sum(0) * 0.25, (N, 2)),
                               rtol=1e-6)
    assert len(f._cache) == 1 and entry is next(iter(f._cache.values()))
    assert y._arr is arr


def test_sharded_array_in_jit_and_eager_ops():
    y = astjax.pmap(lambda x: x + 1.0)(arange(N, 3))
    np.testing.assert_allclose(np.asarray(y * 2), (arange(N, 3) + 1) * 2)
    np.testing.assert_allclose(np.asarray(astjax.jit(lambda a: a.sum())(y)),
                               (arange(N, 3) + 1).sum())
    np.testing.assert_allclose(np.asarray(jnp.sum(y, axis=0)), (arange(N, 3) + 1).sum(0))


def test_does_not_import_jax_when_absent():
    if "jax" in sys.modules:
        pytest.skip("jax already imported in this process")
    y = astjax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(arange(N))
    np.asarray(y)
    y.addressable_shards
    assert "jax" not in sys.modules


def test_pytrees_and_kwargs():
    def f(d, scale):
        return {"s": d["a"] * scale + d["b"], "t": (d["a"], -d["b"])}
    a, b = arange(N, 2), arange(N) + 10
    out = astjax.pmap(f)({"a": a, "b": b[:, None]}, scale=np.full((N,), 3.0, np.float32)[:, None])
    np.testing.assert_allclose(np.asarray(out["s"]), a * 3 + b[:, None])
    np.testing.assert_allclose(np.asarray(out["t"][1]), -b[:, None])

# ------------------------------------------------------------------ collectives


def test_psum_pmean_pmax_pmin():
    x = arange(N, 3)

    def f(x):
        return lax.psum(x, "i"), lax.pmean(x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i")
    s, m, mx, mn = astjax.pmap(f, axis_name="i")(x)
    for got, want in ((s, x.sum(0)), (m, x.mean(0)), (mx, x.max(0)), (mn, x.min(0))):
        np.testing.assert_allclose(np.asarray(got), np.broadcast_to(want, (N, 3)), rtol=1e-6)


def test_psum_int_and_scalar():
    out = astjax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(np.arange(N, dtype=np.int32))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), np.full(N, N * (N - 1) // 2))


def test_axis_index():
    out = astjax.pmap(lambda x: x + lax.axis_index("i"), axis_name="i")(
        np.zeros(N, np.int32))
    np.testing.assert_array_equal(np.asarray(out), np.arange(N))


@pytest.mark.parametrize("axis,tiled", [(0, False), (1, False), (0, True)])
def test_all_gather(axis, tiled):
    x = arange(N, 2, 3)
    out = astjax.pmap(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled),
                      axis_name="i")(x)
    if tiled:
        want = np.concatenate(list(x), axis)
    else:
        want = np.stack(list(x), axis)
    np.testing.assert_allclose(np.asarray(out), np.broadcast_to(want, (N,) + want.shape))


def test_ppermute_ring_and_partial():
    x = arange(N, 2)
    ring = [(i, (i + 1) % N) for i in range(N)]
    out = astjax.pmap(lambda v: lax.ppermute(v, "i", ring), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(out), np.roll(x, 1, axis=0))
    out = astjax.pmap(lambda v: lax.ppermute(v, "i", [(0, 1)]), axis_name="i")(x)
    want = np.zeros_like(x)
    want[1] = x[0]
    np.testing.assert_allclose(np.asarray(out), want)


@pytest.mark.parametrize("split,concat", [(0, 0), (0, 1), (1, 0)])
def test_all_to_all(split, concat):
    x = arange(N, N, N * 2) if split != 1 else arange(N, 3, N)
    out = astjax.pmap(lambda v: lax.all_to_all(v, "i", split, concat), axis_name="i")(x)
    # reference: the same program under vmap (whose batch rule is the spec)
    want = astjax.vmap(lambda v: lax.all_to_all(v, "i", split, concat), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(want))


def test_collectives_inside_control_flow():
    def f(x):
        s = x
        for _ in range(3):
            s = lax.psum(s, "i") * 0.5
        if lax.axis_index("i") > 1:
            s = -s
        return s
    x = arange(N)
    out = np.asarray(astjax.pmap(f, axis_name="i")(x))
    s = x.copy()
    for _ in range(3):
        s = np.full(N, s.sum() * 0.5, np.float32)
    s[2:] *= -1
    np.testing.assert_allclose(out, s, rtol=1e-6)

# ------------------------------------------------------------ in_axes / out_axes


def test_in_axes_none_and_nonzero():
    w = arange(3, 2)
    x = arange(3, N)           # mapped along axis 1
    out = astjax.pmap(lambda w, x: x @ w, in_axes=(None, 1))(w, x)
    np.testing.assert_allclose(np.asarray(out), np.stack([x[:, i] @ w for i in range(N)]))


def test_out_axes():
    x = arange(N, 3)
    out = astjax.pmap(lambda v: v * 2, out_axes=1)(x)
    assert out.shape == (3, N)
    np.testing.assert_allclose(np.asarray(out), (x * 2).T)
    out = astjax.pmap(lambda v: lax.psum(v, "i"), axis_name="i", out_axes=None)(x)
    assert out.shape == (3,)
    np.testing.assert_allclose(np.asarray(out), x.sum(0))
    # an out_axes=1 result feeds an in_axes=1 pmap in place
    g = astjax.pmap(lambda v: v + 1, in_axes=1, out_axes=1)
    y = astjax.pmap(lambda v: v * 2, out_axes=1)(x)
    np.testing.assert_allclose(np.asarray(g(y)), (x * 2).T + 1)


def test_static_broadcasted_argnums():
    def f(x, n, how):
        return x * n if how == "mul" else x + n
    p = astjax.pmap(f, static_broadcasted_argnums=(1, 2))
    x = arange(N)
    np.testing.assert_allclose(np.asarray(p(x, 3, "mul")), x * 3)
    np.testing.assert_allclose(np.asarray(p(x, 3, "add")), x + 3)
    np.testing.assert_allclose(np.asarray(p(x, 3, "mul")), x * 3)
    assert len(p._cache) == 2


def test_devices_argument_and_subset():
    devs = astjax.devices()[1:3]
    out = astjax.pmap(lambda v: v + lax.axis_index("i"), axis_name="i", devices=devs)(
        np.zeros(2, np.int32))
    np.testing.assert_array_equal(np.asarray(out), [0, 1])
    assert out.devices() == set(devs)
    out = astjax.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(arange(2))
    np.testing.assert_allclose(np.asarray(out), [1.0, 1.0])

# --------------------------------------------------------- grad and vmap compose


def test_grad_inside_pmap_with_psum():
    def loss(w, x):
        return jnp.sum(jnp.tanh(x * w))

    def step(w, x):
        g = astjax.grad(loss)(w, x)
        return lax.psum(g, "i")
    w = np.float32(0.3)
    x = arange(N, 5) / 10
    out = astjax.pmap(step, axis_name="i", in_axes=(None, 0))(w, x)
    want = sum(np.sum(xi * (1 - np.tanh(xi * w) ** 2)) for xi in x)
    np.testing.assert_allclose(np.asarray(out), np.full(N, want), rtol=1e-5)


def test_grad_through_collectives():
    """Transposes: psum -> psum, all_gather -> psum + slice, ppermute -> inverse."""
    x = arange(N, 3) / 7

    def f_psum(v):
        return jnp.sum(jnp.sin(lax.psum(v, "i")))

    def f_gather(v):
        g = lax.all_gather(v, "i")
        return jnp.sum(g * g * jnp.arange(N, dtype=np.float32)[:, None])

    def f_perm(v):
        return jnp.sum(lax.ppermute(v, "i", [(i, (i + 1) % N) for i in range(N)]) ** 3)

    def f_max(v):
        return jnp.sum(lax.pmax(v, "i") * 2)

    gp = np.asarray(astjax.pmap(astjax.grad(f_psum), axis_name="i")(x))
    # every device's loss depends on the psum: the gradient sums N copies
    np.testing.assert_allclose(gp, np.broadcast_to(N * np.cos(x.sum(0)), (N, 3)), rtol=1e-5)
    gg = np.asarray(astjax.pmap(astjax.grad(f_gather), axis_name="i")(x))
    np.testing.assert_allclose(gg, N * 2 * x * np.arange(N)[:, None], rtol=1e-5)
    gq = np.asarray(astjax.pmap(astjax.grad(f_perm), axis_name="i")(x))
    np.testing.assert_allclose(gq, 3 * x ** 2, rtol=1e-5)
    gm = np.asarray(astjax.pmap(astjax.grad(f_max), axis_name="i")(x))
    want = np.zeros_like(x)
    want[N - 1] = 2 * N   # the max is on the last device; N devices' losses use it
    np.testing.assert_allclose(gm, want, rtol=1e-5)


def test_vmap_inside_pmap():
    x = arange(N, 3, 2)

    def row(r):
        return lax.psum(r, "i") + lax.psum(r, "j")

    def f(v):  # v: (3, 2) per device
        return astjax.vmap(row, axis_name="j")(v)
    out = np.asarray(astjax.pmap(f, axis_name="i")(x))
    want = x.sum(0)[None] + x.sum(1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_pmap_of_vmap_of_grad_per_example():
    def loss(w, x):
        return jnp.sum((x * w) ** 2)
    w = np.float32(1.5)
    x = arange(N, 3, 2)
    per_ex = astjax.pmap(astjax.vmap(astjax.grad(loss), in_axes=(None, 0)), in_axes=(None, 0))
    out = np.asarray(per_ex(w, x))
    np.testing.assert_allclose(out, (2 * x ** 2 * w).sum(-1), rtol=1e-5)

# --------------------------------------------------------- data-parallel SGD step


def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def mse_loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.mean((preds - targets) ** 2)


STEP = 0.1


def sgd_step(params, batch):
    grads = astjax.grad(mse_loss)(params, batch)
    return [(w - STEP * dw, b - STEP * db) for (w, b), (dw, db) in zip(params, grads)]


def parallel_sgd_step(params, batch):
    grads = astjax.grad(mse_loss)(params, batch)
    grads = lax.pmean(grads, "batch")
    return [(w - STEP * dw, b - STEP * db) for (w, b), (dw, db) in zip(params, grads)]


def _mlp_params(sizes=(5, 16, 8, 3), seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(m, n).astype(np.float32) / np.sqrt(m),
             rng.randn(n).astype(np.float32) * 0.1) for m, n in zip(sizes[:-1], sizes[1:])]


def test_data_parallel_sgd_matches_single_device():
    params = _mlp_params()
    rng = np.random.RandomState(1)
    x = rng.randn(N * 8, 5).astype(np.float32)
    y = rng.randn(N * 8, 3).astype(np.float32)
    single = astjax.jit(sgd_step)
    p1 = params
    for _ in range(3):
        p1 = single(p1, (x, y))

    # replicate the parameters (in_axes=0 over copies), shard the batch
    pstep = astjax.pmap(parallel_sgd_step, axis_name="batch")
    p2 = [(np.stack([w] * N), np.stack([b] * N)) for w, b in params]
    batch = (x.reshape(N, 8, 5), y.reshape(N, 8, 3))
    for _ in range(3):
        p2 = pstep(p2, batch)   # parameters stay on the devices between steps
    for (w1, b1), (w2, b2) in zip(p1, p2):
        for k in range(N):
            np.testing.assert_allclose(np.asarray(w2)[k], np.asarray(w1), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(b2)[k], np.asarray(b1), rtol=1e-5, atol=1e-6)
    assert len(pstep._cache) == 1


def test_seed_parallel_grads_in_axes_none():
    """The seeds' `pmap(grad(mse_loss), in_axes=(None, 0))` (params broadcast)."""
    params = _mlp_params((5, 4, 3))
    rng = np.random.RandomState(2)
    x = rng.randn(N, 6, 5).astype(np.float32)
    y = rng.randn(N, 6, 3).astype(np.float32)
    grads = astjax.pmap(astjax.grad(mse_loss), in_axes=(None, 0))(params, (x, y))
    for k in range(N):
        want = astjax.grad(mse_loss)(params, (x[k], y[k]))
        for (gw, gb), (ww, wb) in zip(grads, want):
            np.testing.assert_allclose(np.asarray(gw)[k], np.asarray(ww), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(gb)[k], np.asarray(wb), rtol=1e-5, atol=1e-6)

# ----------------------------------------------------------------------- errors


def _raises(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, AstjaxError)
    return info.value


def test_error_leading_axis_does_not_match_devices():
    e = _raises(ShapeError, astjax.pmap(lambda v: v, devices=astjax.devices()[:2]), arange(3, 2))
    assert "2 devices" in str(e) and "size 3" in str(e)
    assert __file__ in str(e)   # located at the call


def test_error_mapped_sizes_differ():
    e = _raises(ShapeError, astjax.pmap(lambda a, b: a + b), arange(N), arange(N - 1))
    assert "different sizes" in str(e) and __file__ in str(e)


def test_error_more_devices_than_exist():
    n = len(astjax.devices()) + 1
    e = _raises(ArgumentError, astjax.pmap(lambda v: v * 2), arange(n, 2))
    assert f"needs {n} devices" in str(e) and "ASTJAX_NUM_CPU_DEVICES" in str(e)
    assert __file__ in str(e)


def unknown_axis(v):
    return lax.psum(v, "j")


def test_error_unknown_axis_name():
    e = _raises(AxisNameError, astjax.pmap(unknown_axis, axis_name="i"), arange(N))
    assert "'j'" in str(e) and "return lax.psum(v, \"j\")" in str(e)


def test_pmap_inside_jit_is_a_shard_map():
    # (compositions with grad/vmap are checked against JAX in tests/test_shard_map.py)
    f = astjax.jit(lambda x: astjax.pmap(lambda v: v * 2)(x) + 1)
    np.testing.assert_allclose(np.asarray(f(arange(N))), np.asarray(arange(N)) * 2 + 1)
    assert "shard_map" in str(astjax.make_jaxpr(lambda x: astjax.pmap(lambda v: v)(x))(
        arange(N)))

# -------------------------------------------------------------------- platforms
# No GPU in CI: these check the plugin-absent and plugin-broken paths fall back to
# the CPU, and that ASTJAX_PLATFORM is obeyed.

PLATFORM_PROBE = (
    "import astjax, json; from astjax.codegen import runtime as r, platforms as pl\n"
    "try:\n"
    "    print(json.dumps({'platform': r.platform(), 'n': len(astjax.devices()),\n"
    "                      'plugin': pl.find_cuda_plugin(), 'log': pl.platform_log}))\n"
    "except RuntimeError as e:\n"
    "    print(json.dumps({'error': str(e)}))\n")


def _probe(env_extra, pythonpath=None):
    import json
    import os
    import subprocess
    env = dict(os.environ)
    env.pop("ASTJAX_PLATFORM", None)
    env.update(env_extra)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", PLATFORM_PROBE], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_platform_cpu_when_no_plugin():
    r = _probe({"ASTJAX_NUM_CPU_DEVICES": "3"})
    if r.get("plugin"):
        pytest.skip("a CUDA plugin is installed here")
    assert r["platform"] == "cpu" and r["n"] == 3
    assert any("no CUDA PJRT plugin" in m for m in r["log"])


def test_platform_forced_cpu_and_forced_cuda():
    r = _probe({"ASTJAX_PLATFORM": "cpu"})
    assert r["platform"] == "cpu" and r["log"] == []   # the plugin is not even looked for
    r = _probe({"ASTJAX_PLATFORM": "cuda"})
    if "error" not in r:
        pytest.skip("a usable GPU is present")
    assert "GPU" in r["error"]


def test_broken_plugin_falls_back_to_cpu(tmp_path):
    d = tmp_path / "jax_plugins" / "xla_cuda12"
    d.mkdir(parents=True)
    (d / "xla_cuda_plugin.so").write_bytes(b"not a shared library")
    r = _probe({}, pythonpath=str(tmp_path))
    if r.get("plugin") and not r["plugin"].startswith(str(tmp_path)):
        pytest.skip("a real CUDA plugin is installed here")
    assert r["plugin"] == str(d / "xla_cuda_plugin.so")
    assert r["platform"] == "cpu"
    assert any("failed to start" in m for m in r["log"])


def test_seed_jit_of_pmap_is_the_pmap():
    """The seeds' `jit(pmap(grad(mse_loss), in_axes=(None, 0)))`."""
    params = _mlp_params((5, 4, 3))
    rng = np.random.RandomState(4)
    x = rng.randn(N, 6, 5).astype(np.float32)
    y = rng.randn(N, 6, 3).astype(np.float32)
    parallel_grads = astjax.jit(astjax.pmap(astjax.grad(mse_loss), in_axes=(None, 0)))
    grads = parallel_grads(params, (x, y))
    want = astjax.grad(mse_loss)(params, (x[1], y[1]))
    np.testing.assert_allclose(np.asarray(grads[0][0])[1], np.asarray(want[0][0]), rtol=1e-5,
                               atol=1e-6)


def test_block_until_ready_keeps_shards_on_devices():
    y = astjax.pmap(lambda v: v * 3.0)(arange(N, 2))
    assert astjax.block_until_ready({"y": y})["y"] is y
    assert y._single is None and y._npy is None   # no gather, no copy to device 0
    assert y.is_ready()


def test_signatures_and_fast_path():
    f = astjax.pmap(lambda v: v * 2)
    for shape in [(N, 3), (N, 5), (2, 3), (N, 3)]:
        x = arange(*shape)
        y = f(x)                 # NumPy in
        z = f(y)                 # sharded in
        assert z.shape == shape
        np.testing.assert_allclose(np.asarray(z), x * 4)
    np.testing.assert_allclose(np.asarray(f(np.arange(N, dtype=np.int32))), np.arange(N) * 2)
    assert len(f._cache) == 4
