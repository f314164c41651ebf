"""`lax.platform_dependent` in multi-platform exports (JAX 0.10.2), stored for
tests/test_export_platforms.py (see README.md).

`functions(jax, jnp, lax)` gives functions choosing per platform; each is exported
for `PLATFORMS` with the shape in `SHAPES`. Run with JAX 0.10.2 and the `flatbuffers`
package: `PYTHONPATH=<dir with flatbuffers> /work/jaxref/bin/python
tests/oracle/record_export_platforms.py` writes export_platforms.json: per function
its `platforms`, the `@main` signature line of the module, the jaxpr, the result of
calling the export on this CPU machine and JAX's artifact (base64).
"""
import base64
import json
import re
import sys
from pathlib import Path

import numpy as np

PLATFORMS = ("cpu", "cuda")


def functions(jax, jnp, lax):
    """name -> function of one float32 argument."""
    return {
        "cpu_cuda_default": lambda x: lax.platform_dependent(
            x, cpu=lambda x: x * 2.0, cuda=lambda x: x * 3.0, default=lambda x: x - 1.0),
        "shared_branch": lambda x: lax.platform_dependent(
            x, cpu=jnp.sin, cuda=jnp.sin, default=jnp.cos) + 1.0,
        "default_only_cpu": lambda x: lax.platform_dependent(
            x, tpu=lambda x: x * 0.0, default=lambda x: jnp.cumsum(x)),
        "no_platforms_index": lambda x: jnp.sum(x) * 2.0,
    }


SHAPES = {"cpu_cuda_default": (3,), "shared_branch": (4,), "default_only_cpu": (3,),
          "no_platforms_index": (2, 2)}


def main_signature(text):
    """The `@main` line of a module's text, its argument names normalized."""
    line = next(l for l in text.splitlines() if "func.func public @main" in l)
    line = re.sub(r"loc\([^)]*\)", "", line)
    return re.sub(r"\s+([,)])", r"\1", line).strip()


def main():
    import jax
    import jax.numpy as jnp
    from jax import export, lax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, fn in functions(jax, jnp, lax).items():
        shape = SHAPES[name]
        exp = export.export(jax.jit(fn), platforms=PLATFORMS)(
            jax.ShapeDtypeStruct(shape, np.float32))
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 4
        out[name] = {"platforms": list(exp.platforms),
                     "main": main_signature(exp.mlir_module()),
                     "jaxpr": str(jax.make_jaxpr(fn)(x)),
                     "result": np.asarray(exp.call(x)).tolist(),
                     "artifact": base64.b64encode(exp.serialize()).decode()}
    path = Path(__file__).with_name("export_platforms.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} functions")


if __name__ == "__main__":
    sys.exit(main())
