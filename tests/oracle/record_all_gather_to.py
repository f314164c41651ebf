"""`lax.all_gather(..., to='invarying')` (JAX's `all_gather_invariant`) inside
`shard_map` over an Auto 2x2 mesh, under `vmap(axis_name=)` and `pmap`, and
`to='reduced'` on an Explicit mesh: per case the result's value and layout (and, in a
shard_map body, `str(jax.typeof(...))` of the gathered value), gradients through the
shard_map boundary and inside its body, or JAX's error. Run on JAX 0.10.2 with 4 CPU
devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_all_gather_to.py`) to write all_gather_to.json; run on astjax by
tests/test_all_gather_to.py."""
import json
import sys
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("all_gather_to.json")
X = np.arange(16.0, dtype=np.float32).reshape(4, 4)


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def smap_cases(jax, jnp):
    """name -> (body, in_spec, out_spec, check_vma) of a jitted shard_map over the
    Auto mesh, run on X; the body's first result is the gathered value."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    inv = "invarying"
    return {
        "stacked": (lambda a: lax.all_gather(a, "x", to=inv), P("x", "y"), P(None, "y"), True),
        "tiled": (lambda a: lax.all_gather(a, "x", to=inv, tiled=True), P("x", "y"),
                  P(None, "y"), True),
        "axis1": (lambda a: lax.all_gather(a, "x", axis=1, to=inv), P("x", "y"),
                  P(None, None, "y"), True),
        "both_axes": (lambda a: lax.all_gather(a, ("x", "y"), to=inv, tiled=True),
                      P("x", "y"), P(), True),
        "invariant_input": (lambda a: lax.all_gather(a * 0 + 1.0, "x", to=inv),
                            P(None, "y"), P(None, "y"), True),
        "unchecked": (lambda a: lax.all_gather(a, "x", to=inv, tiled=True), P("x", "y"),
                      P(None, "y"), False),
        "then_add": (lambda a: lax.all_gather(a, "y", to=inv, tiled=True, axis=1) + 1.0,
                     P("x", "y"), P("x"), True),
        "pytree": (lambda a: lax.all_gather({"u": a, "v": a[:1]}, "x", to=inv)["v"],
                   P("x", "y"), P(None, None, "y"), True),
        "err_groups": (lambda a: lax.all_gather(a, "x", to=inv, axis_index_groups=[[0, 1]]),
                       P("x", "y"), P(None, "y"), True),
        "err_varying_out_spec": (lambda a: lax.all_gather(a, "x", tiled=True), P("x", "y"),
                                 P(None, "y"), True),
        # gradients taken inside the body, of a value invariant over the gathered axis
        "grad_inside_invariant": (lambda a: jax.grad(lambda z: lax.all_gather(
            z, "x", to=inv, tiled=True).sum())(a), P("x", "y"), P("x", "y"), True),
        "grad_inside_psum": (lambda a: jax.grad(lambda z: lax.psum(z, "x").sum())(a),
                             P("x", "y"), P("x", "y"), True),
        "grad_inside_times_varying": (lambda a: jax.grad(lambda z: (lax.all_gather(
            z, "x", to=inv, tiled=True)[:2] * z).sum())(a), P("x", "y"), P("x", "y"), True),
        # the gradient of an operand invariant over 'x' (JAX: summed over 'x')
        "grad_inside_invariant_operand": (lambda a: jax.grad(lambda z: (z * lax.axis_index(
            "x").astype(jnp.float32)).sum())(a), P(None, "y"), P(None, "y"), True),
    }


def run_smap(jax, jnp, body, in_spec, out_spec, check_vma):
    """The shard_map case's result layout and value, and the gathered value's type."""
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    seen = {}

    def typed(a):
        r = body(a)
        seen["typeof"] = str(jax.typeof(r))
        return r
    try:
        r = jax.jit(jax.shard_map(typed, mesh=mesh, in_specs=in_spec, out_specs=out_spec,
                                  check_vma=check_vma))(X)
        return {"value": np.asarray(r).tolist(), "spec": repr(r.sharding.spec),
                "typeof": seen.get("typeof")}
    except Exception as e:  # noqa: BLE001 -- the error is what is recorded
        return _error(e)


def other_cases(jax, jnp):
    """name -> a function of no argument: the gradient through the shard_map
    boundary, vmap (JAX's error), pmap, vmap of a shard_map, and `to='reduced'`."""
    lax, P = jax.lax, jax.sharding.PartitionSpec
    auto = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    explicit = jax.make_mesh((2, 2), ("x", "y"))
    w = np.arange(16.0, dtype=np.float32).reshape(4, 4) % 5

    def boundary(v):
        g = jax.shard_map(lambda a: jnp.sin(lax.all_gather(a, "x", to="invarying", tiled=True)),
                          mesh=auto, in_specs=P("x", "y"), out_specs=P(None, "y"))
        return (g(v) * w).sum()
    vm = jax.vmap(lambda r: lax.all_gather(r, "i", to="invarying"), axis_name="i")
    vm_tiled = jax.vmap(lambda r: lax.all_gather(r, "i", to="invarying", tiled=True) * r[0],
                        axis_name="i")
    pm = jax.pmap(lambda r: lax.all_gather(r, "i", to="invarying"), axis_name="i")
    sm = jax.shard_map(lambda a: lax.all_gather(a, "x", to="invarying", tiled=True) * 2.0,
                       mesh=auto, in_specs=P("x", "y"), out_specs=P(None, "y"))
    batch = np.arange(48.0, dtype=np.float32).reshape(3, 4, 4)
    red = jax.shard_map(lambda a: lax.all_gather(a, "x", to="reduced", tiled=True),
                        mesh=explicit, in_specs=P("x", "y"),
                        out_specs=P(None, "y", reduced={"x"}))
    return {
        "grad_through_boundary": lambda: jax.jit(jax.grad(boundary))(X),
        "vmap": lambda: vm(X),
        "vmap_tiled": lambda: vm_tiled(X),
        "vmap_grad": lambda: jax.vmap(jax.grad(lambda r: (jnp.sin(lax.all_gather(
            r, "i", to="invarying")) * r).sum()), axis_name="i")(X),
        "pmap": lambda: pm(X),
        "vmap_of_shard_map": lambda: jax.jit(jax.vmap(sm))(batch),
        "reduced_out_spec": lambda: jax.jit(red)(jax.device_put(
            X, jax.sharding.NamedSharding(explicit, P("x", "y")))),
    }


def run_other(fn):
    try:
        r = fn()
        s = getattr(r, "sharding", None)
        return {"value": np.asarray(r).tolist(),
                "spec": repr(s.spec) if hasattr(s, "spec") else None}
    except Exception as e:  # noqa: BLE001
        return _error(e)


def run(jax, jnp):
    out = {f"smap/{k}": run_smap(jax, jnp, *case) for k, case in smap_cases(jax, jnp).items()}
    out.update({k: run_other(fn) for k, fn in other_cases(jax, jnp).items()})
    return out


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    PATH.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}", file=sys.stderr)
