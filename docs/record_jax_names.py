"""Record JAX 0.10.2's public names per module into docs/jax_names.json, the data the
coverage marks of docs/api.md and docs/reference/ are computed from (jax is not a
runtime dependency of astjax, so the names are stored, not imported).

    /work/jaxref/bin/python docs/record_jax_names.py     # needs jax==0.10.2

Kinds: 'f' function, 't' type or dtype, 'c' constant (any other object), 'm' module.
Public means `dir(module)` without a leading underscore."""
import importlib
import inspect
import json
import os
import sys
import types

import jax

MODULES = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.lax.linalg",
    "jax.nn", "jax.nn.initializers", "jax.random", "jax.scipy.special", "jax.scipy.linalg",
    "jax.scipy.stats", "jax.tree_util", "jax.tree", "jax.sharding", "jax.typing",
    "jax.dtypes", "jax.flatten_util", "jax.debug", "jax.errors", "jax.stages",
    "jax.test_util", "jax.distributed", "jax.extend", "jax.interpreters",
    "jax.example_libraries", "jax.ffi", "jax.scipy.sparse.linalg", "jax.scipy.optimize",
    "jax.scipy.integrate", "jax.scipy.interpolate", "jax.scipy.ndimage", "jax.scipy.fft",
    "jax.scipy.signal", "jax.scipy.cluster.vq", "jax.scipy.spatial.transform",
    "jax.image", "jax.dlpack", "jax.ops", "jax.monitoring", "jax.api_util",
    "jax.custom_batching", "jax.custom_derivatives", "jax.ad_checkpoint",
    "jax.export", "jax.profiler",
]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jax_names.json")


def kind(value) -> str:
    if isinstance(value, types.ModuleType):
        return "m"
    if inspect.isclass(value) or isinstance(value, type):
        return "t"
    if callable(value):
        return "f"
    return "c"


def main():
    assert jax.__version__ == "0.10.2", jax.__version__
    data = {"jax_version": jax.__version__, "modules": {}}
    for name in MODULES:
        mod = importlib.import_module(name)
        data["modules"][name] = {n: kind(getattr(mod, n)) for n in sorted(dir(mod))
                                 if not n.startswith("_")}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"wrote {OUT}: {sum(map(len, data['modules'].values()))} names in "
          f"{len(MODULES)} modules")


if __name__ == "__main__":
    sys.exit(main())
