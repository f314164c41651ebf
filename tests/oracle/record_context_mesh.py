"""`jit` under `jax.set_mesh` (JAX's device context): where a jitted function's
results live when no argument and no annotation says -- replicated over the context
mesh (`P(None, ...)` on Explicit axes, `P()` on Auto ones), not on one device --, the
ValueError for an argument committed to another device, and `with mesh:` (JAX's
legacy context, which leaves `jit` on one device). Per case the result's sharding
class, spec, mesh, devices and value, or JAX's error (also for a reference passed
or closed over, and `jit(device=)`); for the Auto mesh the lowered module text. Run on JAX 0.10.2 with 4 CPU devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=4 python
tests/oracle/record_context_mesh.py`) to write context_mesh.json; run on astjax by
tests/test_context_mesh.py."""
import contextlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

PATH = Path(__file__).with_name("context_mesh.json")
MESHES = ("explicit", "auto", "one_device")


def mesh_of(jax, kind):
    """The 2x2 mesh of Explicit or Auto axes, or a 1-device mesh on the third device."""
    AxisType = jax.sharding.AxisType
    if kind == "one_device":
        return jax.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,),
                             devices=jax.devices()[2:3])
    t = AxisType.Explicit if kind == "explicit" else AxisType.Auto
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(t, t))


def cases(jax, jnp):
    """name -> a function of no argument run inside the context (its jit calls)."""
    a1 = jax.device_put(np.arange(4, dtype=np.float32), jax.devices()[1])
    free = jnp.arange(4.0)          # uncommitted, made outside any mesh

    def two(p, q):
        return p + q

    def closed_ref():
        r = jax.ref.new_ref(jnp.zeros(3))
        jax.jit(lambda: r.__setitem__(..., r[...] + 1))()
        return r[...]

    def ref_argument():
        r = jax.ref.new_ref(jnp.zeros(3))
        jax.jit(lambda q: q.__setitem__(..., q[...] + 1))(r)
        return r[...]
    return {
        "no_argument": lambda: jax.jit(lambda: jnp.ones(4))(),
        "python_scalar": lambda: jax.jit(lambda: 3.0)(),
        "numpy_argument": lambda: jax.jit(lambda x: x * 2)(np.ones((4, 2), np.float32)),
        "uncommitted_argument": lambda: jax.jit(lambda x: jnp.sin(x) + 1)(free),
        "reduction": lambda: jax.jit(lambda x: (x * 2).sum())(np.ones((4, 2), np.float32)),
        "int_result": lambda: jax.jit(lambda: jnp.arange(6).reshape(2, 3))(),
        "committed_argument": lambda: jax.jit(lambda x: x * 2)(a1),
        "committed_keyword": lambda: jax.jit(two)(np.ones(4, np.float32), q=a1),
        "committed_in_tree": lambda: jax.jit(lambda p: p["w"] * 2)({"w": a1}),
        "ref_argument": ref_argument,
        "closed_over_ref": closed_ref,
        "jit_with_device": lambda: jax.jit(lambda x: x + 1, device=jax.devices()[1])(free),
        "token_argument": lambda: jax.jit(lambda t, x: (t, x + 1))(jax.lax.create_token(),
                                                                   free)[1],
    }


def _error(e):
    # (astjax's errors carry the message apart from their location header)
    return {"error": type(e).__name__,
            "message": (getattr(e, "message", None) or str(e)).split("\n")[0]}


def describe(r):
    """A result's sharding class, spec, mesh axis sizes, device ids and value."""
    s = r.sharding
    out = {"class": type(s).__name__, "devices": sorted(d.id for d in s.device_set),
           "value": np.asarray(r).tolist()}
    if hasattr(s, "spec"):
        out["spec"] = repr(s.spec)
        out["mesh"] = [list(s.mesh.axis_names), [int(n) for n in s.mesh.devices.shape]]
    return out


def run_case(jax, jnp, fn, kind, legacy=False):
    """One case under `set_mesh` of mesh `kind` (`legacy`: under `with mesh:`)."""
    mesh = mesh_of(jax, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # (`with mesh:`)
        with mesh if legacy else jax.set_mesh(mesh):
            try:
                return describe(fn())
            except Exception as e:  # noqa: BLE001 -- the error is what is recorded
                return _error(e)


def lowered(jax, jnp):
    """The module texts of two jits lowered under `set_mesh` of the Auto mesh."""
    with jax.set_mesh(mesh_of(jax, "auto")):
        return {"numpy_argument": jax.jit(lambda x: x * 2).lower(
                    np.ones(4, np.float32)).as_text(),
                "no_argument": jax.jit(lambda: jnp.ones(3)).lower().as_text()}


def run(jax, jnp):
    table = cases(jax, jnp)
    out = {f"{kind}/{name}": run_case(jax, jnp, fn, kind)
           for kind in MESHES for name, fn in table.items()}
    for name in ("no_argument", "numpy_argument"):
        out[f"legacy/{name}"] = run_case(jax, jnp, table[name], "explicit", legacy=True)
    out["lowered"] = lowered(jax, jnp)
    return out


def record(path, run_with):
    """On JAX 0.10.2 with 4 devices: write `run_with(jax, jnp)` to `path` as JSON (the
    main of this recorder and of the other set_mesh / Explicit-mesh ones)."""
    import jax
    import jax.numpy as jnp
    assert jax.__version__ == "0.10.2" and len(jax.devices()) >= 4, "JAX 0.10.2, 4 devices"
    with contextlib.redirect_stdout(sys.stderr):
        data = run_with(jax, jnp)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    record(PATH, run)
