"""Sharding in types on an Explicit 2x2 mesh (`jax.make_mesh`'s default): per case,
the result's layout inside `jit` and outside it, `jax.typeof(r).sharding.spec` and
`str(jax.typeof(r))` inside `jit`, or the error JAX raises. Run on real JAX 0.10.2
to record `explicit_types.json` (`XLA_FLAGS=--xla_force_host_platform_device_count=4
python tests/oracle/record_explicit_types.py`), and on astjax by
tests/test_sharding_in_types.py."""
import json
import sys
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle.record_sharding import layout
except ImportError:                         # run as a script in tests/oracle
    from record_sharding import layout


def arrays(jax):
    """name -> a 4x4 (or 4x2 / 2x4x4) array laid out over the Explicit mesh."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    a = np.arange(16, dtype=np.float32).reshape(4, 4) / 4 - 1
    out = {}
    for name, spec, v in [("xy", P("x", "y"), a), ("y_", P("y", None), a.T),
                          ("x_", P("x", None), a + 1), ("_y", P(None, "y"), a * 2),
                          ("yx", P("y", "x"), a - 2), ("rep", P(), a / 2),
                          ("_y42", P(None, "y"), a[:, :2]),
                          ("bxy", P(None, "x", "y"), np.stack([a, -a])),
                          ("brep", P(), np.stack([a.T, a * 3]))]:
        out[name] = jax.device_put(v, NamedSharding(mesh, spec))
    return out


def cases(jax, jnp):
    """name -> (function, argument names)."""
    lax = jax.lax
    return {
        "dot_contract_both_sharded": (lambda x, y: x @ y, ("xy", "y_")),
        "dot_free_x_contract_x": (lambda x, y: x @ y, ("x_", "xy")),
        "dot_contract_inconsistent": (lambda x, y: x @ y, ("xy", "x_")),
        "dot_illegal_result": (lambda x, y: x @ y.T, ("x_", "x_")),
        "dot_free_dims": (lambda x, y: x @ y, ("xy", "_y42")),
        "dot_batch": (lambda x, y: jnp.einsum("bij,bjk->bik", x, y), ("bxy", "bxy")),
        "dot_batch_ok": (lambda x, y: jnp.einsum("bij,bjk->bik", x, y), ("bxy", "brep")),
        "dot_vector": (lambda x, y: x @ y[:, 0], ("x_", "rep")),
        "sum_0": (lambda x: x.sum(0), ("xy",)),
        "sum_1": (lambda x: x.sum(1), ("xy",)),
        "sum_all": (lambda x: x.sum(), ("xy",)),
        "max_0": (lambda x: x.max(0), ("yx",)),
        "min_1": (lambda x: jnp.min(x, axis=1), ("xy",)),
        "prod_0": (lambda x: jnp.prod(x, axis=0), ("_y",)),
        "argmax_1": (lambda x: jnp.argmax(x, axis=1), ("xy",)),
        "mean_0": (lambda x: x.mean(0), ("xy",)),
        "transpose": (lambda x: x.T, ("xy",)),
        "transpose_3d": (lambda x: jnp.transpose(x, (2, 0, 1)), ("bxy",)),
        "reshape_merge": (lambda x: x.reshape(16), ("xy",)),
        "reshape_split_x": (lambda x: x.reshape(2, 2, 4), ("xy",)),
        "reshape_split_rows": (lambda x: x.reshape(2, 2, 4), ("x_",)),
        "reshape_unsupported": (lambda x: x.reshape(2, 8), ("x_",)),
        "reshape_split_y": (lambda x: x.reshape(4, 2, 2), ("xy",)),
        "reshape_replicated": (lambda x: x.reshape(2, 8), ("rep",)),
        "reshape_singleton": (lambda x: x.reshape(1, 4, 1, 4), ("xy",)),
        "reshape_merge_minor": (lambda x: x.reshape(8, 4), ("bxy",)),
        "expand_dims": (lambda x: x[None], ("xy",)),
        "squeeze": (lambda x: jnp.squeeze(x[:, None], 1), ("xy",)),
        "broadcast_to": (lambda x: jnp.broadcast_to(x, (3, 4, 4)), ("xy",)),
        "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (4, 3, 4), (0, 2)), ("xy",)),
        "add_compatible": (lambda x, y: x + y, ("x_", "_y")),
        "add_incompatible": (lambda x, y: x + y, ("xy", "y_")),
        "chain": (lambda x, y: jnp.tanh(x @ y).sum(0) * 2, ("x_", "xy")),
        "sum_then_add": (lambda x, y: x.sum(0) + y[0], ("xy", "_y")),
        "slice_even": (lambda x: x[:2], ("_y",)),
        "rev": (lambda x: lax.rev(x, (0,)), ("xy",)),
        "convert": (lambda x: x.astype(jnp.int32), ("xy",)),
        "concatenate_same": (lambda x, y: jnp.concatenate([x, y], 1), ("xy", "xy")),
        "concatenate_mismatch": (lambda x, y: jnp.concatenate([x, y]), ("xy", "y_")),
        "where_mismatch": (lambda x, y: jnp.where(x > 0, x, y), ("xy", "y_")),
        "cumsum_sharded_axis": (lambda x: jnp.cumsum(x, 1), ("xy",)),
        "cumsum_free_axis": (lambda x: jnp.cumsum(x, 1), ("x_",)),
        "cummax_free_axis": (lambda x: lax.cummax(x, 0), ("_y",)),
        "sort_sharded_axis": (lambda x: jnp.sort(x, 0), ("xy",)),
        "sort_free_axis": (lambda x: jnp.sort(x, 1), ("x_",)),
        "argsort_free_axis": (lambda x: jnp.argsort(x, 1), ("x_",)),
    }


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": getattr(e, "message", None) or str(e).split("\n")[0]}


def run_case(jax, jnp, fn, names, arrs):
    """What one case records: `jit` (layout or error), `eager` (layout or error),
    `typeof` (spec and text of the result's type inside jit)."""
    args = [arrs[n] for n in names]
    seen = {}

    def g(*xs):
        r = fn(*xs)
        t = jax.typeof(r)
        seen["typeof"] = [repr(t.sharding.spec), str(t)]
        return r
    out = {}
    try:
        out["jit"] = layout(jax.jit(g)(*args))
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        out["jit"] = _error(e)
    out["typeof"] = seen.get("typeof")
    try:
        out["eager"] = layout(fn(*args))
    except Exception as e:  # noqa: BLE001
        out["eager"] = _error(e)
    return out


def _reshard_cases(jax, jnp):
    """reshard and the `out_sharding` of `lax.dot_general` (contracting a dimension
    sharded on both sides is fine then), `lax.reshape` and `lax.broadcast_in_dim`,
    with NamedShardings over the arrays' mesh."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    dn = (((1,), (0,)), ((), ()))

    def dot(spec):
        return lambda x, y: jax.lax.dot_general(x, y, dn,
                                                out_sharding=NamedSharding(_MESH[0], spec))
    return {"reshard_in_jit": (lambda x: jax.reshard(
        x, NamedSharding(_MESH[0], P(None, "x"))) * 2, ("xy",)),
        "dot_out_sharding_x": (dot(P("x", None)), ("xy", "y_")),
        "dot_out_sharding_y": (dot(P(None, "y")), ("xy", "y_")),
        "dot_out_sharding_then_sum": (lambda x, y: dot(P("x", "y"))(x, y).sum(1),
                                      ("x_", "xy")),
        # the reshape JAX refuses without out_sharding (reshape_unsupported), with it
        "reshape_out_sharding": (lambda x: jax.lax.reshape(
            x, (2, 8), out_sharding=NamedSharding(_MESH[0], P("x", None))), ("x_",)),
        "reshape_out_sharding_y": (lambda x: jax.lax.reshape(
            x, (8, 2), out_sharding=NamedSharding(_MESH[0], P(None, "y"))), ("xy",)),
        "broadcast_out_sharding": (lambda x: jax.lax.broadcast_in_dim(
            x, (2, 4, 4), (1, 2), out_sharding=NamedSharding(_MESH[0], P("y", "x"))),
            ("xy",))}


def _jnp_out_sharding_cases(jax, jnp):
    """`out_sharding` of jnp.matmul / dot / tensordot / einsum / reshape (routed to
    lax.dot_general's and lax.reshape's)."""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    def ns(*spec):
        return NamedSharding(_MESH[0], P(*spec))
    return {
        "jnp_matmul_out_sharding": (lambda x, y: jnp.matmul(x, y, out_sharding=ns("x", None)),
                                    ("xy", "y_")),
        "jnp_matmul_batched_out_sharding": (lambda x, y: jnp.matmul(
            x, y, out_sharding=ns(None, "x", "y")), ("bxy", "brep")),
        "jnp_dot_out_sharding": (lambda x, y: jnp.dot(x, y, out_sharding=ns(None, "y")),
                                 ("xy", "y_")),
        "jnp_tensordot_out_sharding": (lambda x, y: jnp.tensordot(
            x, y, 1, out_sharding=ns("y", None)), ("xy", "y_")),
        "jnp_einsum_out_sharding": (lambda x, y: jnp.einsum(
            "ij,jk->ik", x, y, out_sharding=ns("x", None)), ("xy", "y_")),
        "jnp_einsum_out_sharding_transposed": (lambda x, y: jnp.einsum(
            "ij,jk->ki", x, y, out_sharding=ns("y", None)), ("xy", "y_")),
        "jnp_einsum_out_sharding_batched": (lambda x, y: jnp.einsum(
            "bij,bjk->bik", x, y, out_sharding=ns(None, "x", "y")), ("bxy", "bxy")),
        # several contractions: JAX runs them over Auto axes (no inner layout check)
        "jnp_einsum_out_sharding_three": (lambda x, y, z: jnp.einsum(
            "ij,jk,kl->il", x, y, z, out_sharding=ns("x", None)), ("xy", "y_", "rep")),
        "jnp_reshape_out_sharding": (lambda x: jnp.reshape(
            x, (2, 8), out_sharding=ns("x", None)), ("x_",)),
        "jnp_reshape_out_sharding_y": (lambda x: jnp.reshape(
            x, (8, 2), out_sharding=ns(None, "y")), ("xy",))}


def _indexing_cases(jax, jnp):
    """Indexing (gather) and `.at[]` updates (scatter) on Explicit-sharded arrays:
    JAX propagates the layout when the indexed dimensions are unsharded, else asks
    for `out_sharding`. (JAX 0.10.2's eager scatter on such arrays fails inside
    JAX: "Length of device assignment 1 ..."; astjax's eager must give jit's.)"""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    idx = np.array([0, 2], np.int32)
    return {
        "getitem_int": (lambda x: x[1], ("xy",)),
        "getitem_int_free": (lambda x: x[1], ("_y",)),
        "getitem_slice_free": (lambda x: x[:, 1:3], ("x_",)),
        "getitem_array_sharded": (lambda x: x[idx], ("xy",)),
        "getitem_array_free": (lambda x: x[idx], ("_y",)),
        "getitem_array_minor": (lambda x: x[:, idx], ("x_",)),
        "take_free_axis": (lambda x: jnp.take(x, idx, axis=1), ("x_",)),
        "at_set_int": (lambda x: x.at[1].set(5.0), ("xy",)),
        "at_set_int_free": (lambda x: x.at[1].set(5.0), ("_y",)),
        "at_set_array_sharded": (lambda x: x.at[idx].set(5.0), ("xy",)),
        "at_set_array_free": (lambda x: x.at[idx].set(5.0), ("_y",)),
        "at_add_rows": (lambda x, y: x.at[idx].add(y[:2]), ("_y", "_y")),
        "at_add_rows_mismatch": (lambda x, y: x.at[idx].add(y[:2]), ("_y", "rep")),
        "at_set_slice": (lambda x: x.at[:, 1:3].set(0.0), ("x_",)),
        # the way out of the errors above: out_sharding
        "at_get_out_sharding": (lambda x: x.at[idx].get(out_sharding=NamedSharding(
            _MESH[0], P(None, "y"))), ("xy",)),
        "at_set_out_sharding": (lambda x: x.at[1].set(5.0, out_sharding=NamedSharding(
            _MESH[0], P("x", "y"))), ("xy",)),
        "at_add_out_sharding": (lambda x, y: x.at[idx].add(y[:2], out_sharding=NamedSharding(
            _MESH[0], P(None, "x"))), ("xy", "_y")),
    }


def _grad_cases(jax, jnp):
    """Gradients: JAX gives a cotangent its primal's type, so `grad`'s result is laid
    out as the differentiated argument (its transposed `dot_general` takes that layout
    as `out_sharding`), inside `jit` and in `jax.typeof`. (JAX 0.10.2's eager `grad`
    on such arrays fails inside JAX without `set_mesh`: "Length of device assignment
    1 ..."; astjax's eager must give jit's.)"""
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    dn = (((1,), (0,)), ((), ()))

    def dot_x(x, y):
        return jax.lax.dot_general(x, y, dn, out_sharding=NamedSharding(_MESH[0], P("x")))

    def matmul_sum(x, y):
        return (x @ y).sum()
    grad = jax.grad
    return {
        "grad_matmul_lhs": (grad(matmul_sum), ("x_", "_y")),
        "grad_matmul_rhs": (grad(matmul_sum, 1), ("x_", "_y")),
        "grad_matmul_rhs_of_xy": (grad(matmul_sum, 1), ("xy", "_y")),
        "grad_matmul_replicated": (grad(matmul_sum, 1), ("x_", "rep")),
        "grad_dot_out_sharding_lhs": (grad(lambda x, y: dot_x(x, y).sum()), ("xy", "y_")),
        "grad_dot_out_sharding_rhs": (grad(lambda x, y: dot_x(x, y).sum(), 1), ("xy", "y_")),
        "grad_tanh_chain": (grad(lambda x, y: (jnp.tanh(x @ y).sum(0) * 2).sum(), 1),
                            ("x_", "xy")),
        "grad_mul_broadcasting": (grad(lambda x, y: (x * y).sum(), 1), ("x_", "_y")),
        "grad_sum_0": (grad(lambda x: (x.sum(0) ** 2).sum()), ("xy",)),
        "grad_transpose": (grad(lambda x, y: (x.T * y).sum()), ("xy", "yx")),
        "grad_reshape": (grad(lambda x: (x.reshape(2, 2, 4) ** 2).sum()), ("xy",)),
        "grad_mean_sin": (grad(lambda x: jnp.mean(jnp.sin(x) ** 2)), ("_y",)),
        "grad_getitem": (grad(lambda x: (x[1] ** 2).sum()), ("_y",)),
        "grad_batched_einsum": (grad(lambda x, y: jnp.einsum("bij,bjk->bik", x, y).sum()),
                                ("bxy", "brep")),
        "value_and_grad_rhs": (lambda x, y: jax.value_and_grad(matmul_sum, 1)(x, y)[1],
                               ("x_", "_y")),
        "vjp_lhs": (lambda x, y: jax.vjp(lambda u, v: jnp.tanh(u @ v), x, y)[1](
            jnp.ones((4, 4), jnp.float32))[0], ("xy", "_y")),
        "vjp_rhs": (lambda x, y: jax.vjp(lambda u, v: jnp.tanh(u @ v), x, y)[1](
            jnp.ones((4, 4), jnp.float32))[1], ("x_", "xy")),
    }


_MESH = []


def run(jax, jnp):
    arrs = arrays(jax)
    _MESH[:] = [arrs["xy"].sharding.mesh]
    table = dict(cases(jax, jnp))
    table.update(_reshard_cases(jax, jnp))
    table.update(_jnp_out_sharding_cases(jax, jnp))
    table.update(_indexing_cases(jax, jnp))
    table.update(_grad_cases(jax, jnp))
    return {name: run_case(jax, jnp, fn, names, arrs) for name, (fn, names) in table.items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("explicit_types.json")
    path.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
