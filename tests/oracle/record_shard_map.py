"""`shard_map` on 4 devices (the shard_map tutorial's collectives and blocked
matmul, derivatives): run on real JAX 0.10.2 to record `shard_map.json`
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_shard_map.py`), and on astjax by tests/test_shard_map.py."""
import json
import sys
from pathlib import Path

import numpy as np


def cases(jax, jnp, shard_map):
    """name -> zero-argument function returning an array (or a tuple of arrays)."""
    Mesh, P = jax.sharding.Mesh, jax.sharding.PartitionSpec
    lax = jax.lax
    devs = np.array(jax.devices()[:4])
    m2 = Mesh(devs.reshape(2, 2), ("x", "y"))
    m1 = Mesh(devs, ("i",))
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    b = ((np.arange(32, dtype=np.float32).reshape(4, 8) - 9) / 7).astype(np.float32)
    v = np.arange(8, dtype=np.float32)
    out = {}

    def sm(f, mesh, ins, outs, *args, jit=True, **kw):
        g = shard_map(f, mesh=mesh, in_specs=ins, out_specs=outs, **kw)
        return lambda: (jax.jit(g) if jit else g)(*args)
    out["psum_axis_index"] = sm(lambda x: lax.psum(x, "x") + lax.axis_index("y"),
                                m2, P("x", "y"), P(None, "y"), a)
    out["psum_eager"] = sm(lambda x: lax.psum(x, "i"), m1, P("i"), P(), v, jit=False)
    out["psum_both"] = sm(lambda x: lax.psum(x, ("x", "y")), m2, P("x", "y"), P(), a)
    out["pmean_pmax"] = sm(lambda x: lax.pmean(x, "i") * lax.pmax(x, "i"), m1, P("i"), P(), v)
    # (all_gather's result still varies over the axis for check_vma: JAX rejects a
    # replicated out_spec for it unless check_vma=False)
    out["all_gather_tiled"] = sm(lambda x: lax.all_gather(x, "i", tiled=True) * 2,
                                 m1, P("i"), P(), v, check_vma=False)
    out["all_gather_stacked"] = sm(lambda x: lax.all_gather(x, "i"), m1, P("i"), P(None), v,
                                   check_vma=False)
    out["all_gather_2d"] = sm(lambda x: lax.all_gather(x, "y", axis=1, tiled=True),
                              m2, P("x", "y"), P("x", None), a, check_vma=False)
    out["ppermute_ring"] = sm(lambda x: lax.ppermute(x, "i", [(j, (j + 1) % 4) for j in range(4)]),
                              m1, P("i"), P("i"), v)
    out["ppermute_2d"] = sm(lambda x: lax.ppermute(x, "y", [(0, 1), (1, 0)]),
                            m2, P("x", "y"), P("x", "y"), a)
    out["psum_scatter"] = sm(lambda x: lax.psum_scatter(x, "i", tiled=True),
                             m1, P(None), P("i"), v)
    out["all_to_all"] = sm(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True),
                           m1, P("i"), P("i"), np.arange(16, dtype=np.float32))
    out["axis_index_line"] = sm(lambda x: x * lax.axis_index("i"), m1, P("i"), P("i"), v)

    def matmul_blocked(x, w):   # the tutorial's: contract over the sharded y axis
        return lax.psum(x @ w, "y")
    out["matmul_psum"] = sm(matmul_blocked, m2, (P("x", "y"), P("y", None)), P("x", None),
                            a, b)

    def matmul_gather(x, w):
        return x @ lax.all_gather(w, "i", tiled=True)
    out["matmul_all_gather"] = sm(matmul_gather, m1, (P("i", None), P("i", None)),
                                  P("i", None), a, b)
    out["matmul_reduce_scatter"] = sm(lambda x, w: lax.psum_scatter(x @ w, "i", tiled=True),
                                      m1, (P(None, "i"), P("i", None)), P("i", None), a, b)
    out["tuple_out"] = sm(lambda x, y: (x + 1, lax.psum(y, "i")), m1, (P("i"), P("i")),
                          (P("i"), P()), v, v * 2)
    out["closure_const"] = sm(lambda x: x + jnp.asarray(v[:2]), m1, P("i"), P("i"), v)

    def loss(w, x):
        f = shard_map(lambda w, x: lax.psum(jnp.sum(jnp.tanh(x @ w) ** 2), "i"),
                      mesh=m1, in_specs=(P(), P("i", None)), out_specs=P())
        return f(w, x)
    w0 = (np.arange(32, dtype=np.float32).reshape(4, 8) / 40).astype(np.float32)
    out["grad_replicated_param"] = lambda: jax.grad(loss)(w0, a)
    out["jit_grad"] = lambda: jax.jit(jax.grad(loss, argnums=(0, 1)))(w0, a)[1]
    out["value_and_grad"] = lambda: jax.value_and_grad(loss)(w0, a)[0]

    def loss2(x):
        f = shard_map(lambda x: jnp.sin(x) * lax.axis_index("x"), mesh=m2,
                      in_specs=P("x", "y"), out_specs=P("x", "y"))
        return jnp.sum(f(x) ** 2)
    out["grad_sharded"] = lambda: jax.grad(loss2)(a / 10)
    out["inside_jit"] = lambda: jax.jit(lambda x: shard_map(
        lambda y: lax.psum(y, "i"), mesh=m1, in_specs=P("i"), out_specs=P())(x * 2) + 1)(v)
    out["all_gather_two_axes"] = sm(lambda u: lax.all_gather(u, ("x", "y"), tiled=True),
                                    m2, P(("x", "y")), P(), v, check_vma=False)
    out["psum_yx"] = sm(lambda u: lax.psum(u, ("y", "x")) + lax.axis_index("x") * 10,
                        m2, P("x", "y"), P("x", None), a, check_vma=False)
    out["pmin_all_to_all"] = sm(lambda u: lax.all_to_all(u, "i", 0, 1, tiled=True)
                                + lax.pmin(u, "i").sum(), m1, P(None, "i"), P("i", None),
                                np.arange(32, dtype=np.float32).reshape(4, 8))
    out["scan_in_body"] = sm(lambda u: lax.scan(lambda c, r: (c + lax.psum(r, "i"), c),
                                                jnp.zeros(()), u)[1], m1, P("i"), P("i"), v)
    out["axis_index_two_axes"] = sm(lambda u: u * 0 + lax.axis_index(("y", "x")), m2,
                                    P(("x", "y")), P(("x", "y")), v)
    g2 = shard_map(lambda u: jnp.sin(lax.all_gather(u, ("x", "y"), tiled=True)) * u.sum(),
                   mesh=m2, in_specs=P(("x", "y")), out_specs=P(("x", "y")))
    out["grad_all_gather_two_axes"] = lambda: jax.grad(lambda u: jnp.sum(g2(u) ** 2))(v / 8)
    x3 = np.arange(24, dtype=np.float32).reshape(3, 8)
    sq = shard_map(lambda u: lax.psum(u, "i") * u, mesh=m1, in_specs=P("i"), out_specs=P("i"))
    out["vmap_shard_map"] = lambda: jax.vmap(sq)(x3)
    out["jit_vmap_shard_map_axes"] = lambda: jax.jit(jax.vmap(sq, in_axes=1, out_axes=1))(x3.T)

    # pmap composed with other transformations (JAX runs it as jit + shard_map)
    pm = jax.pmap(lambda u: lax.psum(u, "i") * jnp.sin(u), axis_name="i")
    x42 = (np.arange(8, dtype=np.float32).reshape(4, 2) / 4).astype(np.float32)
    out["pmap_in_jit"] = lambda: jax.jit(lambda z: pm(z) + 1)(x42)
    out["grad_pmap"] = lambda: jax.grad(lambda z: jnp.sum(pm(z) ** 2))(x42)
    out["jit_grad_pmap"] = lambda: jax.jit(jax.grad(lambda z: jnp.sum(pm(z))))(x42)
    out["vmap_pmap"] = lambda: jax.vmap(pm)(np.stack([x42, 2 * x42]))
    pa = jax.pmap(lambda u, w: u * w + lax.axis_index("j"), axis_name="j", in_axes=(1, None),
                  out_axes=1)
    out["pmap_axes_in_jit"] = lambda: jax.jit(lambda p, q: pa(p, q))(x42.T, np.float32(3))
    pn = jax.pmap(lambda u: lax.pmean(u, "k"), axis_name="k", out_axes=None)
    out["pmap_out_none_in_jit"] = lambda: jax.jit(lambda z: pn(z) * 2)(x42)
    return out


def run(jax, jnp, shard_map):
    res = {}
    for name, f in cases(jax, jnp, shard_map).items():
        r = f()
        leaves = r if isinstance(r, tuple) else (r,)
        res[name] = [{"value": np.asarray(x, np.float64).round(4).tolist(),
                      "spec": repr(x.sharding.spec) if hasattr(x.sharding, "spec") else None}
                     for x in leaves]
    return res


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("shard_map.json")
    path.write_text(json.dumps(run(jax, jnp, jax.shard_map), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
