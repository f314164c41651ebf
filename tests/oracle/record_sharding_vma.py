"""shard_map's `check_vma` (varying manual axes) on a 2x2 mesh: which results may be
laid out replicated (`psum`/`pmax` make a value invariant over their axes;
`axis_index`, `all_gather`, `ppermute`, `all_to_all`, `psum_scatter` and
`lax.pcast(..., to='varying')` make it varying; control flow is followed into its
bodies), a loop carry whose varying axes change (JAX's TypeError), and `lax.pcast`.
Per case the sum of the result or the error (builtin class and message). Run on real
JAX 0.10.2 to record `sharding_vma.json` (`XLA_FLAGS=--xla_force_host_platform_
device_count=4 python tests/oracle/record_sharding_vma.py`), and on astjax by
tests/test_shard_map_vma.py."""
import json
import sys
from pathlib import Path

import numpy as np


def cases(jax):
    """name -> a function of no arguments (4 devices)."""
    lax, jnp = jax.lax, jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    line = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    a = np.arange(16., dtype=np.float32).reshape(4, 4)

    def sm(f, i, o, m=mesh, **kw):
        return jax.jit(jax.shard_map(f, mesh=m, in_specs=i, out_specs=o, **kw))

    def scan_carry(v, w):
        return lax.scan(lambda c, _: (c + w, None), v[:2], None, length=2)[0]

    def scan_pcast(v, w):
        return lax.scan(lambda c, _: (c + w, None), lax.pcast(v[:2], "x", to="varying"),
                        None, length=2)[0]

    def two_outputs(v):
        return v, lax.psum(v, "x")
    return {
        "varying_as_replicated": lambda: sm(lambda v: v, P("x"), P())(a),
        "one_axis_mesh": lambda: sm(lambda v: v * 2, P("x"), P(), m=line)(a),
        "psum_x": lambda: sm(lambda v: lax.psum(v, "x"), P("x"), P())(a),
        "psum_x_keeps_y": lambda: sm(lambda v: lax.psum(v, "x"), P("x", "y"), P(None, "y"))(a),
        "psum_x_not_y": lambda: sm(lambda v: lax.psum(v, "x"), P("x", "y"), P())(a),
        "psum_both": lambda: sm(lambda v: lax.psum(v, ("x", "y")), P("x", "y"), P())(a),
        "pmax_x": lambda: sm(lambda v: lax.pmax(v, "x"), P("x"), P())(a),
        "pmean_x": lambda: sm(lambda v: lax.pmean(v, "x"), P("x"), P())(a),
        "all_gather": lambda: sm(lambda v: lax.all_gather(v, "x", tiled=True), P("x"), P())(a),
        "all_gather_of_invariant": lambda: sm(lambda v: lax.all_gather(v, "x"), P(), P())(a),
        "psum_scatter": lambda: sm(lambda v: lax.psum_scatter(v, "x", tiled=True),
                                   P(None, "x"), P())(a),
        "ppermute": lambda: sm(lambda v: lax.ppermute(v, "x", [(0, 1), (1, 0)]), P("x"),
                               P())(a),
        "ppermute_of_invariant_out_x": lambda: sm(lambda v: lax.ppermute(
            v, "x", [(0, 1), (1, 0)]), P(), P("x"))(a),
        "axis_index": lambda: sm(lambda v: v + lax.axis_index("x"), P(), P())(a),
        "constant": lambda: sm(lambda v: jnp.ones(3), P("x"), P())(a),
        "invariant_in": lambda: sm(lambda v: v * 2, P(), P())(a),
        "mixed": lambda: sm(lambda v, w: v[:2] + w, (P(), P("x")), P("x"))(a, a),
        "mixed_as_replicated": lambda: sm(lambda v, w: v[:2] + w, (P(), P("x")), P())(a, a),
        "cond_branch_varies": lambda: sm(lambda v: lax.cond(
            True, lambda u: u, lambda u: u * 2, v), P("x"), P())(a),
        "cond_invariant": lambda: sm(lambda v: lax.cond(
            v.sum() > 0, lambda u: u, lambda u: u * 2, v), P(), P())(a),
        "two_outputs": lambda: sm(two_outputs, P("x"), (P(), P()))(a),
        "check_vma_false": lambda: sm(lambda v: v, P("x"), P(), check_vma=False)(a),
        "scan_carry_becomes_varying": lambda: sm(scan_carry, (P(), P("x")), P("x"))(a, a),
        "fori_carry_becomes_varying": lambda: sm(lambda v, w: lax.fori_loop(
            0, 2, lambda i, c: c + w, v[:2]), (P(), P("x")), P("x"))(a, a),
        "while_carry_becomes_varying": lambda: sm(lambda v, w: lax.while_loop(
            lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] + w), (0, v[:2]))[1],
            (P(), P("x")), P("x"))(a, a),
        "scan_carry_pcast": lambda: sm(scan_pcast, (P(), P("x")), P("x"))(a, a),
        "grad_scan_carry_pcast": lambda: jax.grad(lambda v, w: sm(
            scan_pcast, (P(), P("x")), P("x"))(v, w).sum())(a, a),
        "pcast_as_replicated": lambda: sm(lambda v: lax.pcast(v, "x", to="varying"), P(),
                                          P())(a),
        "pcast_set_axis": lambda: sm(lambda v: lax.pcast(v, {"x"}, to="varying"), P(),
                                     P())(a),
    }


def run_case(fn):
    """{"sum": float} or {"error": builtin class name, "message": the whole text}."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return {"error": builtin.__name__, "message": getattr(e, "message", None) or str(e)}
    return {"sum": float(sum(np.asarray(o).sum() for o in
                             (out if isinstance(out, (tuple, list)) else [out])))}


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("sharding_vma.json")
    got = {name: run_case(fn) for name, fn in cases(jax).items()}
    path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
