"""`shard_map` over a subset of the mesh axes (`axis_names=`, the other axes stay
automatic) on a 2x2 mesh: run on real JAX 0.10.2 to record `shard_map_partial.json`
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_shard_map_partial.py`), and on astjax by
tests/test_shard_map_partial.py. Each case records values, spec and shards."""
import json
import sys
from pathlib import Path

import numpy as np

try:                                        # as tests/oracle/... from the tests
    from oracle.record_sharding import layout
except ImportError:                         # run as a script in tests/oracle
    from record_sharding import layout


def cases(jax, jnp):
    """name -> zero-argument function returning an array laid out over 4 devices."""
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    P = jax.sharding.PartitionSpec
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    a = np.arange(32, dtype=np.float32).reshape(4, 8) / 3

    def sm(f, i, o, names=("x",)):
        return jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, axis_names=set(names))
    psum2 = sm(lambda b: jax.lax.psum(b, "x") * 2, P("x"), P())
    out = {}
    out["jit_psum_from_xy"] = lambda: jax.jit(psum2)(
        jax.device_put(a, NamedSharding(mesh, P("x", "y"))))
    out["jit_psum"] = lambda: jax.jit(psum2)(a)
    out["eager_psum"] = lambda: psum2(a)
    out["jit_rows"] = lambda: jax.jit(sm(lambda b: jnp.sin(b) * 3, P("x", None),
                                         P("x", None)))(a)
    out["jit_y_manual"] = lambda: jax.jit(sm(lambda b: jax.lax.pmax(b, "y"), P(None, "y"),
                                             P(None, "y"), ("y",)))(a)
    out["grad"] = lambda: jax.grad(lambda v: sm(
        lambda b: jax.lax.psum((b * b).sum(), "x"), P("x"), P())(v))(a)
    out["jit_grad"] = lambda: jax.jit(jax.grad(lambda v: sm(
        jnp.sin, P("x"), P("x"))(v).sum()))(a)
    out["vmap"] = lambda: jax.vmap(sm(lambda b: jax.lax.psum(b, "x"), P("x"), P()))(
        np.stack([a, a + 1]))
    out["outside_constraint"] = lambda: jax.jit(lambda v: jax.lax.with_sharding_constraint(
        sm(lambda b: b * 2, P("x"), P("x"))(v), NamedSharding(mesh, P("x", "y"))))(a)
    out.update(collective_cases(jax, jnp, mesh, a))
    return out


def collective_cases(jax, jnp, mesh, a):
    """axis_index, all_gather, ppermute, all_to_all, psum/pmax over the manual axis
    of a partially manual shard_map (issue 15's item 2), under jit, eagerly and
    differentiated."""
    P = jax.sharding.PartitionSpec

    def sm(f, i, o, names=("x",)):
        return jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, axis_names=set(names))
    lax = jax.lax
    out = {}
    out["pc_axis_index"] = lambda: jax.jit(sm(
        lambda b: b * (1 + lax.axis_index("x")), P("x"), P("x")))(a)
    out["pc_axis_index_y"] = lambda: jax.jit(sm(
        lambda b: b - lax.axis_index("y"), P(None, "y"), P(None, "y"), ("y",)))(a)
    out["pc_axis_index_eager"] = lambda: sm(
        lambda b: b + 10 * lax.axis_index("x"), P("x"), P("x"))(a)
    out["pc_all_gather_tiled"] = lambda: jax.jit(sm(
        lambda b: lax.all_gather(b, "x", tiled=True) * 2, P("x"), P("x")))(a)
    out["pc_all_gather_stacked"] = lambda: jax.jit(sm(
        lambda b: lax.all_gather(b, "x", axis=1), P("x"), P("x")))(a)
    out["pc_all_gather_index"] = lambda: jax.jit(sm(
        lambda b: lax.all_gather(b, "x", tiled=True) * (1 + lax.axis_index("x")),
        P("x"), P("x")))(a)
    out["pc_ppermute"] = lambda: jax.jit(sm(
        lambda b: lax.ppermute(b, "x", [(0, 1), (1, 0)]), P("x"), P("x")))(a)
    out["pc_all_to_all"] = lambda: jax.jit(sm(
        lambda b: lax.all_to_all(b, "x", 1, 0, tiled=True), P("x"), P("x")))(a)
    out["pc_psum_scatter"] = lambda: jax.jit(sm(
        lambda b: lax.psum_scatter(b, "x", scatter_dimension=1, tiled=True), P("x"),
        P("x")))(a)
    out["pc_pmax_pmin"] = lambda: jax.jit(sm(
        lambda b: lax.pmax(b, "x") - lax.pmin(b, "x"), P("x"), P()))(a)
    out["pc_pmean"] = lambda: jax.jit(sm(lambda b: lax.pmean(b, "y"), P(None, "y"), P(),
                                         ("y",)))(a)
    out["pc_grad_all_gather"] = lambda: jax.jit(jax.grad(lambda v: sm(
        lambda b: lax.psum((lax.all_gather(b, "x", tiled=True) ** 2).sum(), "x"),
        P("x"), P())(v)))(a)
    return out


def run(jax, jnp):
    return {name: layout(f()) for name, f in cases(jax, jnp).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    path = Path(__file__).with_name("shard_map_partial.json")
    path.write_text(json.dumps(run(jax, jnp), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)
