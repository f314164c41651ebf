"""A `shard_map` inside another `shard_map`'s body, over the mesh axes the outer one
left to XLA (`axis_names=`), on an Auto and an Explicit 2x2 mesh set as the context
(`jax.set_mesh`): the inner over the other axis, over every axis (those already manual
outside stay so), with collectives and `axis_index` of both, the inner body's
`jax.typeof`, an outer out_spec leaving out an outer axis the inner body reduced over,
`jax.sharding.get_abstract_mesh()` inside the bodies (the manual axes typed Manual; that
mesh passed to the inner one), and JAX's errors (a concrete mesh passed inside a body,
in_specs naming an axis the inner one does not make manual, an out_spec the inner body's
value varies over). Per
case the value and layout (and the inner body's type), or JAX's error. Run on JAX
0.10.2 with 4 CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_shard_map_nested.py`) to write shard_map_nested.json; run on astjax
by tests/test_shard_map_nested.py."""
import json
import sys
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("shard_map_nested.json")
X = np.arange(16.0, dtype=np.float32).reshape(4, 4) / 4


def cases(jax):
    """name -> (axis type name, function of the outer body's argument and the mesh,
    outer out_spec); the outer shard_map is manual over 'x' (in_specs P('x'))."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    seen = {}

    def inner(body, spec=P(None, "y"), out=None, **kw):
        def typed(b):
            r = body(b)
            seen["typeof"] = str(jax.typeof(r))
            return r
        return jax.shard_map(typed, in_specs=spec, out_specs=spec if out is None else out, **kw)

    def abstract(a, inner_too=False):   # the body's abstract mesh (and a nested body's)
        am = jax.sharding.get_abstract_mesh()
        seen["abstract_mesh"] = repr(am)
        if not inner_too:
            return a * 2

        def body(b):
            am = jax.sharding.get_abstract_mesh()
            seen["inner_abstract_mesh"] = repr(am)
            return b + 1
        return jax.shard_map(body, in_specs=P(None, "y"), out_specs=P(None, "y"),
                             axis_names={"y"})(a)

    def mix(b):
        return b * 2 + lax.psum(b, "y") + lax.axis_index("y")

    out = {}
    for kind in ("Auto", "Explicit"):
        out.update({
            f"{kind}/inner_y": (kind, lambda a, m: inner(mix, axis_names={"y"})(a)
                                + lax.axis_index("x"), P("x")),
            f"{kind}/inner_all_axes": (kind, lambda a, m: inner(mix)(a), P("x")),
            f"{kind}/inner_psum_x": (kind, lambda a, m: inner(
                lambda b: lax.psum(b, ("x", "y")), axis_names={"y"})(a), P("x")),
            f"{kind}/abstract_mesh": (kind, lambda a, m: abstract(a), P("x")),
            f"{kind}/abstract_mesh_nested": (kind, lambda a, m: abstract(a, True), P("x")),
            f"{kind}/err_mesh_passed": (kind, lambda a, m: inner(mix, mesh=m,
                                                                 axis_names={"y"})(a), P("x")),
        })
    out.update({
        "inner_psum_x_replicated": ("Auto", lambda a, m: inner(   # (invariant over 'x')
            lambda b: lax.psum(b, ("x", "y")), out=P(), axis_names={"y"})(a), P()),
        "err_spec_not_manual": ("Auto", lambda a, m: inner(lambda b: b * 2,
                                                            axis_names={"x"})(a), P("x")),
        "err_out_spec_varying": ("Auto", lambda a, m: inner(mix, out=P(), axis_names={"y"})(
            a[:, :2]), P("x")),
        "abstract_mesh_passed": ("Auto", lambda a, m: inner(
            mix, mesh=jax.sharding.get_abstract_mesh(), axis_names={"y"})(a), P("x")),
    })
    return out, seen


def _error(e):
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def run(jax, name):
    """One case's value, layout and inner body type, or its error."""
    table, seen = cases(jax)
    kind, fn, out_spec = table[name]
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"),
                         axis_types=(getattr(jax.sharding.AxisType, kind),) * 2)
    try:
        with jax.set_mesh(mesh):
            f = jax.shard_map(lambda a: fn(a, mesh), in_specs=P("x"), out_specs=out_spec,
                              axis_names={"x"})
            r = jax.jit(f)(X)
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)
    return {"value": np.asarray(r).tolist(), "spec": repr(r.sharding.spec), **seen}


if __name__ == "__main__":
    import jax
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps({k: run(jax, k) for k in cases(jax)[0]}, indent=1,
                               sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
