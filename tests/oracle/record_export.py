"""Functions exported and serialized by JAX 0.10.2 (`jax.export`), stored with JAX's
results so that tests/test_export_jax_artifacts.py can check that astjax loads and
runs JAX's artifacts (see README.md).

Each case: a name, the function, its arguments (nested lists and their dtypes),
its keyword arguments and the platforms. Run with JAX 0.10.2 and the `flatbuffers`
package (JAX's serializer needs it):
`PYTHONPATH=<dir with flatbuffers> /work/jaxref/bin/python tests/oracle/record_export.py`
writes export.json: per case, the base64 artifact (serialized with `vjp_order=1`),
the result leaves and, for the first argument of float cases, the gradient of the
sum of the first result leaf."""
import base64
import json
import sys
from pathlib import Path

import numpy as np

ARGS = {
    "dict_out": ([[0.0, 1.0, 2.0], [1.0, 1.0]], "float32", {}),
    "solve": ([[[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], [1.0, 2.0, 3.0]],
              "float32", {}),
    "multi_platform": ([[0.5, 1.5]], "float32", {}),
    "kwargs_tuple": ([[1.0, 2.0, 3.0]], "float32", {"scale": 3.0}),
    "int_scan": ([[1, 2, 3]], "int32", {}),
    "nested_jit": ([[1.0, -2.0]], "float32", {}),
    "unused_arg": ([[1.0, 2.0], [5.0], [3.0, 4.0]], "float32", {}),
    "one_device_mesh": ([[0.0, 1.0, 2.0, 3.0]], "float32", {}),
}


def functions(jax, jnp):
    """name -> function (exported as `jax.jit(fn)`, or as it is if jitted already)."""
    inner = jax.jit(lambda x: jnp.tanh(x) + 1)
    # on a one-device mesh JAX's module declares a Shardy mesh and argument shardings
    one = jax.sharding.NamedSharding(jax.make_mesh((1,), ("x",)),
                                     jax.sharding.PartitionSpec("x"))
    return {
        "dict_out": lambda x, y: {"s": jnp.sin(x) * 2 + y.sum(), "c": jnp.cos(x)},
        "solve": lambda a, b: jnp.linalg.solve(a, b),
        "multi_platform": lambda x: jnp.exp(x) - 1,
        "kwargs_tuple": lambda x, *, scale: (x * scale, x.sum()),
        "int_scan": lambda i: jax.lax.fori_loop(0, 4, lambda k, c: c * 2 + k, i),
        "nested_jit": lambda x: inner(inner(x)) * 2,
        "unused_arg": lambda x, unused, z: x * z,
        "one_device_mesh": jax.jit(lambda x: jnp.sin(x) * 2, in_shardings=one,
                                   out_shardings=one),
    }


PLATFORMS = {"multi_platform": ("cpu", "cuda")}


def main():
    import jax
    import jax.numpy as jnp
    from jax import export
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, fn in functions(jax, jnp).items():
        args, dtype, kwargs = ARGS[name]
        xs = [np.asarray(a, dtype) for a in args]
        jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
        exp = export.export(jitted, platforms=PLATFORMS.get(name))(*xs, **kwargs)
        res = [np.asarray(r).tolist() for r in jax.tree_util.tree_leaves(exp.call(*xs, **kwargs))]
        case = {"artifact": base64.b64encode(exp.serialize(vjp_order=1)).decode(),
                "result": res}
        if dtype == "float32":
            def first(a, xs=xs, exp=exp, kwargs=kwargs):
                return jax.tree_util.tree_leaves(exp.call(a, *xs[1:], **kwargs))[0].sum()
            case["grad"] = np.asarray(jax.grad(first)(xs[0])).tolist()
        out[name] = case
    path = Path(__file__).with_name("export.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    sys.exit(main())
