"""A `jit` whose function closes over arrays laid out over a 2x2 mesh of Explicit axes
(no argument, or one beside them) under `jax.set_mesh` (JAX 0.10.2): JAX types a
closed-over array as it is laid out, as an argument, so per program: `jax.typeof`
inside, the types `make_jaxpr` prints (the set of them), its `return_shape`'s and
`jit(f).trace().out_info`'s shardings, the results' types and values; or JAX's error
(layouts that do not fit: a ShardingTypeError). Vmaps, gradients and loops of the
closed-over arrays included. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_closures.py`) to write explicit_closures.json; run on
astjax by tests/test_explicit_closures.py."""
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import record_explicit_control as control  # noqa: E402

PATH = Path(__file__).with_name("explicit_closures.json")
_TYPE = re.compile(r"\b(?:bf16|f\d+|i\d+|u\d+|c\d+|bool)\[[^\]\s]*\]")


def programs(jax, jnp, arrs, show):
    """name -> (function, argument names of record_explicit_control.arrays); the
    function closes over `arrs`; `show(v)` records `jax.typeof(v)` and returns `v`."""
    lax = jax.lax
    x, xy, y, rep = arrs["x"], arrs["xy"], arrs["y"], arrs["rep"]
    return {
        "times": (lambda: show(xy * 2), ()),
        "sin_sum": (lambda: (jnp.sin(x), show(x.sum(0))), ()),
        "conflict": (lambda: xy + xy.T, ()),
        "beside_argument": (lambda a: a * show(x), ("x",)),
        "vmap": (lambda: jax.vmap(lambda r: show(r) * 2)(xy), ()),
        "vmap_unmapped": (lambda: jax.vmap(lambda r, v: v * 2 + r, in_axes=(0, None))(
            xy, rep.sum(0)), ()),
        "grad": (lambda: jax.grad(lambda u: (show(u) * 2).sum())(xy), ()),
        "grad_vmap": (lambda: jax.grad(lambda u: jax.vmap(lambda r: (r * 2).sum())(u)
                                       .sum())(xy), ()),
        "scan": (lambda: lax.scan(lambda c, r: (c + r, show(r * c)), y.sum(0), y), ()),
        "dot": (lambda: x @ show(y.T), ()),
    }


def run_case(jax, jnp, name):
    """Program `name` jitted under `set_mesh`: the types seen inside, printed by
    `make_jaxpr`, of its `return_shape` / `out_info` and results, the values; or the
    error."""
    mesh = control.mesh_of(jax)
    seen = []

    def show(v):
        seen.append(str(jax.typeof(v)))
        return v
    arrs = control.arrays(jax, mesh)
    fn, names = programs(jax, jnp, arrs, show)[name]
    args = [arrs[n] for n in names]
    with jax.set_mesh(mesh):
        try:
            outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
            inner = list(seen)
            closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*args)
            info = jax.jit(fn).trace(*args).out_info
        except Exception as e:  # noqa: BLE001 -- the error is what is recorded
            return control._error(e)
    return {"inner": inner, "types": sorted(set(_TYPE.findall(str(closed)))),
            "shapes": [repr(s.sharding.spec) if s.sharding is not None else None
                       for s in jax.tree_util.tree_leaves(shapes)],
            "out_info": [repr(s.sharding.spec) if s.sharding is not None else None
                         for s in jax.tree_util.tree_leaves(info)],
            "out": [str(jax.typeof(r)) for r in outs],
            "value": [np.asarray(r, np.float64).tolist() for r in outs]}


def run(jax, jnp):
    return {name: run_case(jax, jnp, name) for name in programs(
        jax, jnp, control.arrays(jax, control.mesh_of(jax)), None)}


if __name__ == "__main__":
    from record_context_mesh import record
    record(PATH, run)
