"""Sharded arrays and sharded `jit` on 4 devices: run on real JAX 0.10.2 to record
`sharding.json` (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_sharding.py`), and on astjax by tests/test_sharded_jit.py.

Each case records a result's values, its sharding's spec, and every shard's
(device id, index ranges, replica id)."""
import json
import sys
from pathlib import Path

import numpy as np


def layout(x):
    """What a test compares: spec, shards (device id, index, replica id), values."""
    shards = []
    for s in x.addressable_shards:
        idx = [[sl.start, sl.stop] for sl in s.index]
        shards.append([s.device.id, idx, s.replica_id])
    spec = repr(x.sharding.spec) if hasattr(x.sharding, "spec") else type(x.sharding).__name__
    return {"spec": spec, "shards": sorted(shards, key=lambda t: t[0]),
            "value": np.asarray(x, np.float64).round(5).tolist(),
            "shape": list(x.shape)}


def cases(jax, jnp):
    """name -> zero-argument function returning an array laid out over 4 devices."""
    sharding = jax.sharding
    Mesh, NamedSharding, P = sharding.Mesh, sharding.NamedSharding, sharding.PartitionSpec
    devs = np.array(jax.devices()[:4])
    auto = Mesh(devs.reshape(2, 2), ("x", "y"))
    line = Mesh(devs, ("i",))
    expl = jax.make_mesh((2, 2), ("x", "y"))
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    b = (np.arange(24, dtype=np.float32).reshape(4, 6) - 7) / 5
    out = {}

    def put(spec, mesh=auto, v=a):
        return jax.device_put(v, NamedSharding(mesh, spec))
    for name, spec in [("xy", P("x", "y")), ("x", P("x")), ("none_y", P(None, "y")),
                       ("xy_joint", P(("x", "y"))), ("yx_joint", P(("y", "x"))),
                       ("repl", P()), ("y_x", P("y", "x"))]:
        out[f"put_{name}"] = lambda spec=spec: put(spec)
    out["put_line"] = lambda: jax.device_put(b, NamedSharding(line, P("i")))
    out["put_explicit"] = lambda: put(P("x", "y"), expl)
    out["eager_sin"] = lambda: jnp.sin(put(P("x", "y")))
    out["eager_add_scalar"] = lambda: put(P("x")) + 1.0
    out["eager_add_mixed"] = lambda: put(P("x")) + put(P(None, "y"))
    out["eager_sum0"] = lambda: put(P("x", "y")).sum(0)
    out["eager_matmul"] = lambda: put(P("x"), v=b).T @ put(P("x"), v=b)
    out["eager_explicit_sin"] = lambda: jnp.sin(put(P("x", "y"), expl))
    out["eager_explicit_sum1"] = lambda: put(P("x", "y"), expl).sum(1)

    def jit_case(f, args, **kw):
        return lambda: jax.jit(f, **kw)(*args)
    s_xy = NamedSharding(auto, P("x", "y"))
    s_x = NamedSharding(auto, P("x"))
    s_ny = NamedSharding(auto, P(None, "y"))
    out["jit_sin_sum0"] = jit_case(lambda x: jnp.sin(x).sum(0), (a,), in_shardings=s_xy)
    out["jit_out_repl"] = jit_case(lambda x: jnp.sin(x).sum(0), (a,), in_shardings=s_xy,
                                   out_shardings=NamedSharding(auto, P()))
    out["jit_out_y"] = jit_case(lambda x: x * 2, (a,), in_shardings=s_x,
                                out_shardings=NamedSharding(auto, P(None, "y")))
    out["jit_matmul"] = jit_case(lambda x, w: jnp.tanh(x @ w), (a, b),
                                 in_shardings=(s_x, s_ny))
    out["jit_transpose"] = jit_case(lambda x: x.T, (a,), in_shardings=s_xy)
    out["jit_constraint"] = jit_case(
        lambda x: jax.lax.with_sharding_constraint(jnp.cos(x), NamedSharding(auto, P("y"))) * 3,
        (a,), in_shardings=s_x)
    out["jit_sharded_args"] = lambda: jax.jit(lambda x, y: x * y + 1)(put(P("x")),
                                                                      put(P("x")))
    out["jit_line_reduce"] = jit_case(lambda x: (x ** 2).sum(1),
                                      (b,), in_shardings=NamedSharding(line, P("i")))
    out["jit_explicit"] = lambda: jax.jit(lambda x: jnp.sin(x) * 2)(put(P("x", "y"), expl))
    out["jit_tuple_out"] = lambda: jax.jit(
        lambda x: (x + 1, x.sum()), in_shardings=s_xy,
        out_shardings=(NamedSharding(auto, P("y")), None))(a)[0]
    out["from_callback"] = lambda: jax.make_array_from_callback(
        (4, 4), s_xy, lambda idx: a[idx])
    out["from_single"] = lambda: jax.make_array_from_single_device_arrays(
        (4, 4), s_x, [jax.device_put(a[idx], d)
                      for d, idx in s_x.addressable_devices_indices_map((4, 4)).items()])
    gx = lambda: put(P("x"))   # noqa: E731
    out["more_scan"] = lambda: jax.jit(lambda x: jax.lax.scan(
        lambda c, r: (c + r, c * 2), jnp.zeros(4), x)[1])(gx())
    out["more_cond"] = lambda: jax.jit(lambda x: jax.lax.cond(
        x.sum() > 0, lambda y: y * 2, lambda y: y, x))(gx())
    out["more_mean"] = lambda: jnp.mean(gx())
    out["more_index"] = lambda: gx()[1]
    out["more_slice"] = lambda: gx()[1:3]
    out["more_reshape"] = lambda: gx().reshape(16)
    out["slice_xy"] = lambda: put(P("x", "y"))[1:3]
    out["slice_lax"] = lambda: jax.lax.slice(gx(), (1, 0), (3, 4))
    out["slice_cols"] = lambda: gx()[:, 1:3]
    out["slice_step"] = lambda: gx()[::2]
    out["slice_full"] = lambda: gx()[0:4]
    out["slice_jit"] = lambda: jax.jit(lambda v: v[1:3])(gx())
    out["more_const"] = lambda: jax.jit(lambda x: jnp.ones(3) + x.sum())(gx())
    out["more_grad"] = lambda: jax.grad(lambda x: jnp.sum(jnp.sin(x)))(gx())
    out["more_vmap"] = lambda: jax.vmap(jnp.sum)(gx())
    out["more_astype"] = lambda: gx().astype(jnp.int32)
    out["more_donate"] = lambda: jax.jit(lambda x: x * 2, in_shardings=s_x,
                                         donate_argnums=0)(gx())
    out["more_static"] = lambda: jax.jit(lambda x, n: x * n, in_shardings=s_x,
                                         static_argnums=1)(a, 3)
    out["more_reshard"] = lambda: jax.device_put(gx(), NamedSharding(auto, P(None, "y")))
    out["eager_concat"] = lambda: jnp.concatenate([gx(), gx()])
    out["eager_dot"] = lambda: jnp.dot(gx(), gx())
    out["eager_where"] = lambda: jnp.where(gx() > 3, gx(), 0.0)
    out["eager_at_set"] = lambda: gx().at[0, 0].set(100.0)
    out["eager_softmax"] = lambda: jax.nn.softmax(gx())
    out["eager_fori"] = lambda: jax.lax.fori_loop(0, 3, lambda i, c: c * 2, gx())
    U = P.UNCONSTRAINED
    out["constraint_unconstrained"] = jit_case(
        lambda x: jax.lax.with_sharding_constraint(x * 2, NamedSharding(auto, P(U, "y"))),
        (a,), in_shardings=s_x)
    out["constraint_unconstrained_eager"] = lambda: jax.lax.with_sharding_constraint(
        put(P("x")), NamedSharding(auto, P(U, "y")))
    return out


def run(jax, jnp):
    return {name: layout(f()) for name, f in cases(jax, jnp).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("sharding.json")
    path.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
