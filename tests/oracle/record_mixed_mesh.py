"""Arrays laid out over a mesh of Explicit and Auto axes (`make_mesh(..., axis_types=
(Explicit, Auto))`), as JAX 0.10.2 types them: the types name the Explicit axes only
(`jax.typeof` outside and inside `jit`, `make_jaxpr`'s printed types), operations
refuse what those types cannot hold (JAX's ShardingTypeError), the lowered module
constrains each typed result with its dimensions open to the partitioner
(`{"x", ?}, {?}`), `out_info` names no layout; and `jit(f).trace` of arguments on
incompatible devices, which JAX refuses only at `.lower()`. Per case a dict of printed
outcomes, or JAX's error class and first message line. Run on JAX 0.10.2 with 4 CPU
devices (`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_mixed_mesh.py`) to write mixed_mesh.json; run on astjax by
tests/test_explicit_mixed.py."""
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("mixed_mesh.json")


def _message(e):
    # (astjax's errors carry the message apart from their location header)
    return (getattr(e, "message", None) or str(e)).split("\n")[0]


def _error(e):
    """JAX's class name (of astjax's error: the builtin class it also is, but for
    ShardingTypeError, JAX's own) and first message line."""
    names = [c.__name__ for c in type(e).__mro__
             if c.__module__ == "builtins" or c.__name__ == "ShardingTypeError"]
    return {"error": names[0], "message": _message(e)}


def _constraints(text):
    """The laid-out `sdy.sharding_constraint`s of a module text, in order."""
    return re.findall(r"sdy\.sharding_constraint %\S+ (<[^>]*>)", text)


def _returned_constraints(text):
    """The layout each result of `@main` is constrained to where it is made."""
    main = text[text.index("func.func public @main"):]
    returned = re.search(r"return ([^:]*) :", main).group(1).split(", ")
    made = dict(re.findall(r"(%\S+) = sdy\.sharding_constraint %\S+ (<[^>]*>)", main))
    return [made.get(r) for r in returned]


def cases(jax, jnp):
    """name -> a function of no argument giving a dict of printed outcomes."""
    sh = jax.sharding
    P, NS = sh.PartitionSpec, sh.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(sh.AxisType.Explicit,
                                                          sh.AxisType.Auto))
    a = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4), NS(mesh, P("x", "y")))
    b = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4), NS(mesh, P("y", "x")))
    c = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4) / 7, NS(mesh, P(None, "y")))

    def typed(r):
        return {"type": str(jax.typeof(r)), "spec": repr(r.sharding.spec),
                "value": np.asarray(r).tolist()}

    def inside():
        seen = []
        out = jax.jit(lambda u: (seen.append(str(jax.typeof(u))), u.sum(0))[1])(a)
        return {"inside": seen[0], **typed(out)}

    def jitted(f, *args):
        return lambda: typed(jax.jit(f)(*args))

    def lowered(f, *args):
        return lambda: {"constraints": _constraints(jax.jit(f).lower(*args).as_text())}

    def in_mesh(f):
        def run():
            with jax.set_mesh(mesh):
                return f()
        return run

    def out_info():
        t = jax.jit(lambda u: u * 2).trace(a)
        return {"out_info": repr(t.out_info.sharding), "jaxpr": str(t.jaxpr)}

    def trace_then_lower(x, y):
        def run():
            t = jax.jit(lambda u, v: u + v).trace(x, y)
            out = {"jaxpr": str(t.jaxpr)}
            try:
                t.lower()
            except ValueError as e:   # (JAX's class; astjax's is a subclass)
                out["lower_value_error"] = _message(e)
            return out
        return run
    d = jax.devices()
    m1, m2 = (sh.Mesh(np.array(d[:2]), ("i",)), sh.Mesh(np.array(d[2:4]), ("i",)))
    u = jax.device_put(np.arange(4, dtype=np.float32), NS(m1, P("i")))
    v = jax.device_put(np.arange(4, dtype=np.float32), NS(m2, P("i")))
    w = jax.device_put(np.arange(4, dtype=np.float32), d[3])
    return {
        "typeof_arrays": lambda: {"a": str(jax.typeof(a)), "b": str(jax.typeof(b))},
        "typeof_inside_jit": inside,
        "make_jaxpr": lambda: {"jaxpr": str(jax.make_jaxpr(lambda u: u * 2)(a))},
        "eager_add_conflict": lambda: typed(a + b),
        "eager_matmul_conflict": lambda: typed(a @ a.T),
        "eager_contracting_sharded": lambda: typed(a.T @ a),
        "jit_add_conflict": jitted(lambda p, q: p + q, a, b),
        "jit_double": jitted(lambda p: p * 2, a),
        "jit_transpose": jitted(lambda p: p.T, a),
        "jit_reduce": jitted(lambda p: p.sum(1), a),
        "eager_transpose": lambda: typed(a.T),
        "lowered_double": lowered(lambda p: p * 2, a),
        "lowered_reduce": lowered(lambda p: jnp.sin(p).sum(1), a),
        "trace_out_info": out_info,
        "wsc_auto_axes": jitted(lambda p: jax.lax.with_sharding_constraint(
            p, NS(mesh, P(None, "y"))), a),
        "wsc_auto_axes_lowered": lowered(lambda p: jax.lax.with_sharding_constraint(
            p, NS(mesh, P(None, "y"))) * 2, a),
        "wsc_explicit_axis": jitted(lambda p: jax.lax.with_sharding_constraint(
            p, NS(mesh, P(None, "x"))), a),
        "set_mesh_wsc_auto_axes": in_mesh(jitted(lambda p: jax.lax.with_sharding_constraint(
            p, P(None, "y")), a)),
        "set_mesh_reshard_jaxpr": in_mesh(lambda: {"jaxpr": str(jax.make_jaxpr(
            lambda p: jax.sharding.reshard(p, P(None, "x")))(a))}),
        "set_mesh_zeros": in_mesh(lambda: typed(jnp.zeros((4, 4)))),
        "set_mesh_jit_zeros": in_mesh(jitted(lambda: jnp.zeros((4, 4)))),
        "set_mesh_made_plus": in_mesh(jitted(lambda p: p + jnp.ones((4, 4)), a)),
        "shard_map_jaxpr": lambda: {"jaxpr": str(jax.make_jaxpr(jax.shard_map(
            lambda p: p * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y")))(a))},
        "shard_map_then_add": jitted(lambda p: jax.shard_map(
            lambda q: q * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P("y", "x"))(p) + p.T,
            a),
        "grad_lowered_results": lambda: {"constraints": _returned_constraints(jax.jit(
            jax.grad(lambda p, q: jnp.sin(p @ q).sum(), argnums=(0, 1))).lower(
                a, c).as_text())},
        "trace_meshes_then_lower": trace_then_lower(u, v),
        "trace_mesh_device_then_lower": trace_then_lower(u, w),
    }


def run_case(jax, jnp, name):
    """Case `name`'s outcome: its dict, or {"error", "message"}."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cases(jax, jnp)[name]()
        except Exception as e:   # (the error is the outcome)
            return _error(e)


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert len(jax.devices()) >= 4, "run with --xla_force_host_platform_device_count=4"
    out = {name: run_case(jax, jnp, name) for name in cases(jax, jnp)}
    PATH.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(json.dumps(out, indent=1)[:6000], file=sys.stderr)
