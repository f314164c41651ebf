"""`jit(f, in_shardings=...)` of values that carry no layout of their own (host arrays,
ShapeDtypeStructs) over a mesh of Explicit axes, as JAX 0.10.2 types them: by the
value, never by in_shardings (which only lay it out) -- replicated over `set_mesh`'s
mesh inside it, untyped outside --, so `out_info`, `Traced.jaxpr`, the results' types
and layouts follow; `out_shardings` lay the results out. Per case a printed outcome,
or JAX's error class and first message line. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_explicit_in_shardings.py`) to write explicit_in_shardings.json; run
on astjax by tests/test_explicit_mixed.py."""
import json
import sys
import warnings
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("explicit_in_shardings.json")


def cases(jax, jnp):
    """(mesh, name -> (in set_mesh?, a function of no argument giving a printed outcome))."""
    sh = jax.sharding
    P, NS = sh.PartitionSpec, sh.NamedSharding
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(sh.AxisType.Explicit,) * 2)
    h = np.arange(16, dtype=np.float32).reshape(4, 4)
    sds = jax.ShapeDtypeStruct((4, 4), jnp.float32)

    def called(j, *a):
        r = j(*a)
        return [str(jax.typeof(r)), repr(r.sharding.spec), np.asarray(r).tolist()]

    def inside(a):
        seen.append(str(jax.typeof(a)))
        return a * 2
    seen = []

    def typeof_inside(ins):
        def run():
            seen.clear()
            jax.jit(inside, in_shardings=ins)(h)
            return seen[0]
        return run
    out = {}
    for ctx in (True, False):
        for kind, ins in (("spec", P("x")), ("named", NS(mesh, P("x")))):
            if kind == "spec" and not ctx:
                continue   # (a PartitionSpec needs a context mesh)
            tag = f"{'set_mesh' if ctx else 'no_mesh'}_{kind}"
            j = jax.jit(lambda a: a * 2, in_shardings=ins)
            j2 = jax.jit(lambda a: a.sum(0), in_shardings=ins, out_shardings=NS(mesh, P("y")))
            out.update({
                f"{tag}_out_info": (ctx, lambda j=j: repr(j.trace(h).out_info)),
                f"{tag}_jaxpr": (ctx, lambda j=j: str(j.trace(h).jaxpr)),
                f"{tag}_in_avals": (ctx, lambda j=j: repr(j.trace(h).in_avals)),
                f"{tag}_lowered_out_info": (ctx, lambda j=j: repr(j.lower(h).out_info)),
                f"{tag}_call_type": (ctx, lambda j=j: called(j, h)[0]),
                f"{tag}_call_value": (ctx, lambda j=j: called(j, h)[2]),
                f"{tag}_typeof_inside": (ctx, typeof_inside(ins)),
                f"{tag}_out_shardings_info": (ctx, lambda j2=j2: repr(j2.trace(h).out_info)),
                f"{tag}_out_shardings_call": (ctx, lambda j2=j2: called(j2, h)[:2]),
                f"{tag}_struct_out_info": (ctx, lambda j=j: repr(j.trace(sds).out_info)),
            })
    out["set_mesh_named_call_spec"] = (True, lambda: called(jax.jit(
        lambda a: a * 2, in_shardings=NS(mesh, P("x"))), h)[1])
    return mesh, out


def run_case(jax, jnp, name):
    """Case `name`'s outcome: its printed value, or JAX's error."""
    mesh, table = cases(jax, jnp)
    ctx, fn = table[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if ctx:
                with jax.set_mesh(mesh):
                    return fn()
            return fn()
        except Exception as e:   # (the error is the outcome)
            return {"error": type(e).__name__,
                    "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    assert len(jax.devices()) >= 4, "run with --xla_force_host_platform_device_count=4"
    out = {name: run_case(jax, jnp, name) for name in cases(jax, jnp)[1]}
    PATH.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(json.dumps(out, indent=1)[:5000], file=sys.stderr)
