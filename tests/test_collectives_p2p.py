"""`lax.pbroadcast`, `psend`/`precv`, `ragged_all_to_all` (primitives/collectives_p2p.py)
on 4 CPU devices, and the names of issue 13 that sit beside them: `astjax.sharding`'s
`reshard` / `auto_axes` / `explicit_axes`, `jax.extend.sharding`, `jax.interpreters.pxla`.

JAX 0.10.2 on CPU (the oracle, run by hand): pbroadcast raises NotImplementedError (no CPU
lowering; astjax runs it through all_gather, so its values are checked against the
documented meaning, the source member's value everywhere); psend/precv raise
NotImplementedError "... only implemented on GPU"; ragged_all_to_all raises
JaxRuntimeError "UNIMPLEMENTED: HLO opcode `ragged-all-to-all` is not supported by
XLA:CPU ThunkEmitter" (astjax computes it under `vmap` over its axis, where JAX raises
NotImplementedError: its values are checked there against JAX's docstring example and a
NumPy reference of the docstring's semantics). The lowered lines below are JAX's, printed by
`jax.jit(...).trace(...).lower(lowering_platforms=('cuda',))`."""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import core, lax
from astjax.errors import AstjaxError, JaxRuntimeError
from astjax.sharding import AxisType, PartitionSpec as P

X = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def _mesh(n=4):
    return astjax.make_mesh((n,), ("x",), axis_types=(AxisType.Auto,),
                            devices=astjax.devices()[:n])


def _smap(f, n=4, nargs=1):
    return astjax.shard_map(f, mesh=_mesh(n), in_specs=(P("x"),) * nargs, out_specs=P("x"))

# ------------------------------------------------------------------- pbroadcast


def _bcast(v):
    return lax.pbroadcast(v, "x", 2)


def test_pbroadcast_values_shard_map_pmap_vmap():
    want = np.broadcast_to(X[2], X.shape)
    np.testing.assert_array_equal(np.asarray(astjax.jit(_smap(_bcast))(X)), want)
    np.testing.assert_array_equal(np.asarray(astjax.pmap(_bcast, axis_name="x")(X)), want)
    np.testing.assert_array_equal(np.asarray(astjax.vmap(_bcast, axis_name="x")(X)), want)
    # a pytree, leaf by leaf; integers exactly
    got = astjax.vmap(lambda t: lax.pbroadcast(t, "x", 0), axis_name="x")(
        {"a": X, "b": np.arange(4, dtype=np.int32)})
    np.testing.assert_array_equal(np.asarray(got["b"]), np.zeros(4, np.int32))


@pytest.mark.parametrize("names,source", [(("a", "b"), 2), (["a", "b"], 1), ("b", 1),
                                          ("a", 0)])
def test_pbroadcast_on_a_2d_mesh(names, source):
    """Over one axis, each group of the other gets its own source; over both, the
    source counts row-major (as axis_index over both); grads by the same rule."""
    mesh = astjax.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
    x = np.arange(8.0, dtype=np.float32).reshape(2, 2, 2)
    f = astjax.jit(astjax.shard_map(lambda v: lax.pbroadcast(v, names, source), mesh=mesh,
                                    in_specs=P("a", "b"), out_specs=P("a", "b")))
    want, grad = np.empty_like(x), np.zeros_like(x)
    for a in range(2):
        for b in range(2):
            if tuple(names) == ("a", "b"):
                src, members = divmod(source, 2), [(i, j) for i in range(2) for j in range(2)]
            elif names == "b":
                src, members = (a, source), [(a, j) for j in range(2)]
            else:
                src, members = (source, b), [(i, b) for i in range(2)]
            want[a, b] = x[src]
            if (a, b) == src:
                grad[a, b] = sum(x[m] for m in members)
    np.testing.assert_array_equal(np.asarray(f(x)), want)
    np.testing.assert_array_equal(np.asarray(astjax.grad(lambda v: (f(v) * x).sum())(x)), grad)


def test_pbroadcast_jaxpr_as_jax():
    text = str(astjax.make_jaxpr(_smap(_bcast))(X))
    assert "pbroadcast[axis_name=x source=2] c" in text    # JAX's line


def test_pbroadcast_grad_sends_every_cotangent_to_the_source():
    w = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    want = np.zeros_like(X)
    want[2] = w.sum(0)
    for f in (astjax.vmap(_bcast, axis_name="x"), astjax.jit(_smap(_bcast))):
        g = astjax.grad(lambda x: (f(x) * w).sum())(X)
        np.testing.assert_array_equal(np.asarray(g), want)
    # the JVP is the broadcast of the tangent
    _, t = astjax.jvp(astjax.vmap(_bcast, axis_name="x"), (X,), (w,))
    np.testing.assert_array_equal(np.asarray(t), np.broadcast_to(w[2], w.shape))


def test_pbroadcast_batched_over_another_axis():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    f = astjax.vmap(astjax.vmap(lambda v: lax.pbroadcast(v, "y", 1), axis_name="x"),
                    axis_name="y")
    np.testing.assert_array_equal(np.asarray(f(x)), np.broadcast_to(x[1], x.shape))


def test_pbroadcast_errors():
    with pytest.raises(NameError):
        lax.pbroadcast(X, "nope", 0)
    with pytest.raises(ValueError, match="source 4"):
        astjax.vmap(lambda v: lax.pbroadcast(v, "x", 4), axis_name="x")(X)


def _pretty(text):
    """A lowered module printed by MLIR, as `.lower().as_text()` prints it."""
    from astjax.codegen import compile_cache
    return compile_cache._parsed_module(text).operation.get_asm(enable_debug_info=False)


def test_pbroadcast_gpu_lowering_is_jaxs_collective_broadcast():
    from astjax.codegen import stablehlo
    with core.extend_axis_env("x", 4, kind="pmap"):
        closed = astjax.make_jaxpr(_bcast)(X[0])
        text = _pretty(stablehlo.lower_module(closed.jaxpr, platform="cuda", num_replicas=4))
    # JAX's replica form (no channel outside a partitioned program): source first
    assert ('"stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<[[2, 0, 1, 3]]>'
            ' : tensor<1x4xi64>}> : (tensor<2xf32>) -> tensor<2xf32>') in text

def test_pbroadcast_gpu_lowering_in_shard_map_is_jaxs():
    text = _lower_manual(_bcast, 4, X[:1])
    assert ('"stablehlo.collective_broadcast"(%arg0) <{channel_handle = #stablehlo.channel_'
            'handle<handle = 1, type = 1>, replica_groups = dense<[[2, 0, 1, 3]]> : '
            'tensor<1x4xi64>}> : (tensor<1x2xf32>) -> tensor<1x2xf32>') in text

# ------------------------------------------------------------------ psend / precv


def _send_recv(v):
    t = lax.psend(v, "x", [(0, 1)])
    return lax.precv(t, astjax.ShapeDtypeStruct(v.shape, v.dtype), "x", [(0, 1)])


def test_psend_precv_stage_and_raise_jaxs_error_on_cpu():
    text = str(astjax.make_jaxpr(_smap(_send_recv))(X))
    # JAX's lines: one-sided results do not vary over the axis
    assert "d:Tok = psend[axis_name=('x',) perm=((0, 1),)] c" in text
    assert "e:f32[1,2] = precv[" in text
    with pytest.raises(NotImplementedError, match="psend is currently only implemented "
                                                  "on GPU") as e:
        astjax.jit(_smap(_send_recv))(X)
    assert isinstance(e.value, AstjaxError) and "test_collectives_p2p.py" in str(e.value)


def _lower_manual(f, n, *args):
    """`f`'s body lowered for GPU as a shard_map body over an axis "x" of size `n`
    (printed by MLIR)."""
    from astjax import sharding_impls as shd
    from astjax.codegen import stablehlo
    mesh = _mesh(n)
    with core.extend_axis_env("x", n, kind="shard_map"):
        closed = astjax.make_jaxpr(f)(*args)
    with shd.lowering_assignment(tuple(mesh.devices.flat)), shd.manual_axes(mesh):
        return _pretty(stablehlo.lower_module(closed.jaxpr, platform="cuda",
                                              num_partitions=n))


def test_psend_precv_gpu_lowering_is_jaxs_send_recv():
    text = _lower_manual(_send_recv, 2, X[:1])
    pairs = ("<{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
             "source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}>")
    assert '%0 = stablehlo.create_token : !stablehlo.token' in text
    assert ('%1 = "stablehlo.send"(%arg0, %0) ' + pairs + ' : (tensor<1x2xf32>, '
            '!stablehlo.token) -> !stablehlo.token') in text
    assert ('= "stablehlo.recv"(%1) ' + pairs + ' : (!stablehlo.token) -> '
            '(tensor<1x2xf32>, !stablehlo.token)') in text


def test_psend_errors():
    with pytest.raises(ValueError, match="psend sources and destinations must be unique"):
        astjax.vmap(lambda v: lax.psend(v, "x", [(0, 1), (0, 2)]), axis_name="x")(X)
    with pytest.raises(NotImplementedError, match="over its own axis"):
        astjax.vmap(_send_recv, axis_name="x")(X)

# ------------------------------------------------------------- ragged_all_to_all
# JAX's docstring example on an axis of size 2
OPERAND = np.array([[1, 2, 2], [3, 4, 0]], np.float32)
OUTPUT = np.zeros((2, 4), np.float32)
IO = np.array([[0, 1], [0, 1]], np.int32)
SS = np.array([[1, 2], [1, 1]], np.int32)
OO = np.array([[0, 0], [1, 2]], np.int32)
RS = np.array([[1, 1], [2, 1]], np.int32)
ARGS = (OPERAND, OUTPUT, IO, SS, OO, RS)


def _ragged(*a):
    return lax.ragged_all_to_all(*(v[0] for v in a), axis_name="x")[None]


def test_ragged_all_to_all_jaxpr_and_jaxs_cpu_error():
    text = str(astjax.make_jaxpr(_smap(_ragged, 2, 6))(*ARGS))
    assert "t:f32[4]{V:x} = ragged_all_to_all[" in text and "axis_name=('x',)" in text
    for run in (lambda: astjax.jit(_smap(_ragged, 2, 6))(*ARGS),
                lambda: astjax.pmap(lambda *a: lax.ragged_all_to_all(*a, axis_name="x"),
                                    axis_name="x", devices=astjax.devices()[:2])(*ARGS)):
        with pytest.raises(JaxRuntimeError, match="UNIMPLEMENTED: HLO opcode "
                                                  "`ragged-all-to-all` is not supported") as e:
            run()
        assert isinstance(e.value, AstjaxError) and "test_collectives_p2p.py" in str(e.value)


def test_ragged_all_to_all_gpu_lowering_in_shard_map_is_jaxs():
    text = _lower_manual(lambda *a: lax.ragged_all_to_all(*a, axis_name="x"), 2,
                         *(v[0] for v in ARGS))
    assert ("stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, "
            "%arg5) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, "
            "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>, "
            "tensor<4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> "
            "tensor<4xf32>") in text


def test_ragged_all_to_all_lowering_is_jaxs_custom_call():
    from astjax.codegen import stablehlo
    with core.extend_axis_env("x", 2, kind="pmap"):
        closed = astjax.make_jaxpr(
            lambda *a: lax.ragged_all_to_all(*a, axis_name="x"))(*(v[0] for v in ARGS))
        text = _pretty(stablehlo.lower_module(closed.jaxpr, platform="cuda", num_replicas=2))
    assert ("stablehlo.custom_call @ragged_all_to_all(%arg0, %arg1, %arg2, %arg3, %arg4, "
            "%arg5) {api_version = 4 : i32, backend_config = {replica_groups = dense<[[0, 1]]>"
            " : tensor<1x2xi64>}}") in text


def _ragged_reference(operand, output, ins, sends, outs, recvs):
    """NumPy: JAX's docstring semantics, lane by lane (sender j's slice i*spd + s lands
    on receiver i at output_offsets, recv_sizes rows of it)."""
    n, k = ins.shape
    spd = k // n
    result = np.array(output)
    for i in range(n):
        for j in range(n):
            for s in range(spd):
                src, dst = j * spd + s, i * spd + s
                size = recvs[i, src]
                result[i, outs[j, dst]:outs[j, dst] + size] = \
                    operand[j, ins[j, dst]:ins[j, dst] + size]
    return result


def _random_ragged(rng, n=8, spd=2, N=40, M=50):
    """Disjoint slices: each sender cuts its operand into n*spd pieces; each receiver
    lays what it gets out in order, with gaps."""
    sends = rng.randint(0, 3, size=(n, n * spd)).astype(np.int32)
    ins = np.zeros_like(sends)
    ins[:, 1:] = np.cumsum(sends, 1)[:, :-1]
    recvs = sends.reshape(n, n, spd).transpose(1, 0, 2).reshape(n, n * spd)
    at = np.zeros_like(recvs)
    at[:, 1:] = np.cumsum(recvs + 1, 1)[:, :-1]       # one row of gap after each
    outs = at.reshape(n, n, spd).transpose(1, 0, 2).reshape(n, n * spd)
    operand = rng.randn(n, N, 3).astype(np.float32)
    output = rng.randn(n, M, 3).astype(np.float32)
    return operand, output, ins, sends, outs, recvs


def _ragged_vmap(*a):
    return astjax.vmap(lambda *b: lax.ragged_all_to_all(*b, axis_name="x"),
                       axis_name="x")(*a)


def test_ragged_all_to_all_values_under_vmap():
    """JAX raises NotImplementedError under vmap over the axis; astjax computes the
    exchange: JAX's docstring example, and 8 lanes against the NumPy reference."""
    np.testing.assert_array_equal(np.asarray(_ragged_vmap(*ARGS)),
                                  [[1, 3, 0, 0], [2, 2, 4, 0]])
    args = _random_ragged(np.random.RandomState(0))
    np.testing.assert_array_equal(np.asarray(_ragged_vmap(*args)), _ragged_reference(*args))
    # batched over another axis inside (the batch folded into the slices), then over
    # its own axis
    b = [np.stack(pair, 1) for pair in zip(args, _random_ragged(np.random.RandomState(5)))]
    got = astjax.vmap(lambda *a: astjax.vmap(
        lambda *c: lax.ragged_all_to_all(*c, axis_name="x"))(*a), axis_name="x")(*b)
    for t in range(2):
        np.testing.assert_array_equal(np.asarray(got[:, t]),
                                      _ragged_reference(*(a[:, t] for a in b)))


def test_ragged_all_to_all_jvp_and_transpose_agree():
    """<ct, J v> == <J^T ct, v> over (operand, output), and the JVP is the exchange of
    the tangents (the map is linear in them)."""
    rng = np.random.RandomState(1)
    operand, output, *index = _random_ragged(rng)
    f = lambda o, p: _ragged_vmap(o, p, *index)  # noqa: E731
    v = (rng.randn(*operand.shape).astype(np.float32),
         rng.randn(*output.shape).astype(np.float32))
    out, t = astjax.jvp(f, (operand, output), v)
    np.testing.assert_array_equal(np.asarray(t), _ragged_reference(*v, *index))
    ct = rng.randn(*np.shape(out)).astype(np.float32)
    cts = astjax.vjp(f, operand, output)[1](ct)
    lhs = sum(float(np.sum(np.asarray(c, np.float64) * w)) for c, w in zip(cts, v))
    np.testing.assert_allclose(lhs, float(np.sum(ct * np.asarray(t, np.float64))), rtol=1e-5)


def test_ragged_all_to_all_shape_errors_as_jax():
    f = lambda *a: lax.ragged_all_to_all(*a, axis_name="x")  # noqa: E731
    with pytest.raises(ValueError, match="input_offsets must be integer type"):
        astjax.vmap(f, axis_name="x", in_axes=(0, 0, None, 0, 0, 0))(
            OPERAND, OUTPUT, np.zeros(2, np.float32), SS, OO, RS)
    with pytest.raises(ValueError, match="recv_sizes must be rank 1 with positive dimension "
                                         r"size, but got shape \(0,\)"):
        astjax.make_jaxpr(_smap(lambda *a: lax.ragged_all_to_all(
            *(v[0] for v in a[:5]), a[5][0, :0], axis_name="x")[None], 2, 6))(*ARGS)
    with pytest.raises(NotImplementedError, match="feature request"):
        astjax.vmap(lambda *a: lax.ragged_all_to_all(*a, axis_name="x", axis_index_groups=[
            [0, 1]]), axis_name="x")(*ARGS)


def test_ragged_all_to_all_derivatives_are_ragged_all_to_alls():
    """JVP: the same exchange of the tangents; transpose: the cotangents go back along
    the offsets exchanged by all_to_all (JAX's rules), the output's where nothing came."""
    def loss(operand, output):
        return jnp.sum(_ragged(operand, output, *ARGS[2:]) ** 2)
    text = str(astjax.make_jaxpr(_smap(lambda *a: astjax.grad(
        lambda o, p: loss(o, p), argnums=(0, 1))(a[0], a[1])[0], 2, 6))(*ARGS))
    assert text.count("ragged_all_to_all[") == 2 and text.count("all_to_all[") >= 4
    text = str(astjax.make_jaxpr(lambda o: astjax.jvp(
        lambda p: _smap(_ragged, 2, 6)(p, *ARGS[1:]), (o,), (o,)))(OPERAND))
    assert text.count("ragged_all_to_all[") == 2


def test_ragged_all_to_all_batched_over_another_axis_folds_the_batch():
    b = 3
    args = [np.stack([a] * b) for a in ARGS]
    text = str(astjax.make_jaxpr(astjax.vmap(_smap(_ragged, 2, 6)))(*args))
    assert "f32[12]{V:x} = ragged_all_to_all[" in text

# ------------------------------------------------------- sharding, extend, pxla


def test_sharding_exports_reshard_auto_axes_explicit_axes():
    from astjax import sharding
    from astjax.primitives import spmd
    assert sharding.reshard is spmd.reshard is astjax.reshard
    assert {"reshard", "auto_axes", "explicit_axes"} <= set(sharding.__all__)
    astjax.install_as_jax()
    try:
        import jax.sharding
        assert jax.sharding.auto_axes is sharding.auto_axes
        assert jax.sharding.explicit_axes is sharding.explicit_axes
    finally:
        astjax.jax_alias.uninstall()


def test_extend_sharding_round_trips_protos():
    from astjax.extend import sharding as es
    h = es.xla_client.HloSharding.from_string("{devices=[2,1]0,1}")
    b = es.get_serialized_proto_from_hlo_sharding(h)
    assert b == b'\x08\x03\x1a\x02\x02\x01"\x02\x00\x01'         # JAX's bytes
    assert str(es.get_hlo_sharding_from_serialized_proto(b)) == "{devices=[2,1]0,1}"
    assert type(es.get_op_sharding_from_serialized_proto(b)).__name__ == "OpSharding"
    g = es.GSPMDSharding(astjax.devices()[:1], es.xla_client.HloSharding.replicate())
    assert isinstance(g, es.xla_client.Sharding)     # jaxlib's class, as JAX's is


def test_pxla_thread_resources_is_the_with_mesh_mesh():
    from astjax.interpreters import pxla
    m = _mesh(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert pxla.thread_resources.env.physical_mesh.empty
        with m:
            assert pxla.thread_resources.env.physical_mesh is m
            assert dict(pxla.thread_resources.env.shape) == {"x": 1}
        with astjax.sharding.set_mesh(m):     # as JAX: set_mesh is not `with mesh:`
            assert pxla.thread_resources.env.physical_mesh.empty
    assert w and all(issubclass(x.category, DeprecationWarning) for x in w)
    assert w[0].filename == __file__


def test_ragged_all_to_all_transpose_over_two_axes_is_a_located_error():
    mesh = astjax.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
    k = np.zeros((4, 4), np.int32)

    def body(o, p, i):
        return lax.ragged_all_to_all(o, p, i[0], i[0], i[0], i[0], axis_name=("a", "b"))
    f = astjax.shard_map(body, mesh=mesh, in_specs=(P(("a", "b")),) * 3,
                         out_specs=P(("a", "b")))
    x = np.zeros((8,), np.float32)
    with pytest.raises(NotImplementedError, match="several axes") as e:
        astjax.make_jaxpr(astjax.grad(lambda o: f(o, x, k).sum()))(x)
    assert isinstance(e.value, AstjaxError)


# (HloSharding text, device count) -> JAX 0.10.2's op_sharding_to_indices for shape (4, 6)
_S, _A = slice(None), slice
PXLA_INDICES = {
    ("{devices=[2,1]0,1}", 2): ((_A(0, 2), _S), (_A(2, 4), _S)),
    ("{devices=[2,2]0,2,1,3}", 4): ((_A(0, 2), _A(0, 3)), (_A(2, 4), _A(0, 3)),
                                    (_A(0, 2), _A(3, 6)), (_A(2, 4), _A(3, 6))),
    ("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", 4): (
        (_A(0, 2), _S), (_A(0, 2), _S), (_A(2, 4), _S), (_A(2, 4), _S)),
    ("{replicated}", 2): ((_S, _S), (_S, _S)),
    ("{devices=[1,2,2]0,1,2,3 last_tile_dims={replicated}}", 4): (
        (_S, _A(0, 3)), (_S, _A(0, 3)), (_S, _A(3, 6)), (_S, _A(3, 6))),
    ("{devices=[4,1]3,2,1,0}", 4): ((_A(3, 4), _S), (_A(2, 3), _S), (_A(1, 2), _S),
                                    (_A(0, 1), _S)),
}


def test_pxla_hlo_sharding_helpers_as_jax():
    import collections
    from astjax.extend.sharding import xla_client as xc
    from astjax.interpreters import pxla
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for (text, n), want in PXLA_INDICES.items():
            h = xc.HloSharding.from_string(text)
            assert pxla.op_sharding_to_indices(h, (4, 6), n) == want, text
            assert pxla.is_hlo_sharding_replicated(h) == (text == "{replicated}")
        assert pxla.are_hlo_shardings_equal(xc.HloSharding.replicate(), xc.HloSharding.
                                            from_string("{devices=[1,1,2]0,1 "
                                                        "last_tile_dim_replicate}"))
        mapping = collections.OrderedDict([("x", 1), ("y", 1), ("z", 0)])
        assert pxla.array_mapping_to_axis_resources(mapping) == P("z", ("x", "y"))
        assert pxla.array_mapping_to_axis_resources({"x": 2}) == P(None, None, "x")
        assert pxla.array_mapping_to_axis_resources({}) == P()
    with pytest.warns(DeprecationWarning, match="op_sharding_to_indices is deprecated"):
        pxla.op_sharding_to_indices(xc.HloSharding.replicate(), (2,), 1)
