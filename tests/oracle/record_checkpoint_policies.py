"""`jax.checkpoint(policy=...)` recorded from JAX: for the functions and policies of
tests/test_checkpoint_policies.py (the block between its `# ---- functions` lines, run
here verbatim with `import jax`), the gradients, `print_saved_residuals`' lines and the
number of `dot_general`s in the backward pass (inside the differentiated checkpoint of
the gradient's jaxpr) and in all. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_checkpoint_policies.py` writes
checkpoint_policies.json.
"""
import contextlib
import io
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
START, END = "# ---- functions (recorded", "# ---- functions end ----"


def block_source():
    """The test's function block (its first line is line 1)."""
    text = (HERE.parent / "test_checkpoint_policies.py").read_text()
    return text[text.index(START):text.index(END)]


def normalize(line, path):
    """`from <path>:L:C (fn)` -> `@L:C (fn)`, L counted from the block's first line."""
    return re.sub(re.escape(path) + r":(\d+):(\d+)",
                  lambda m: f"@{int(m.group(1)) - 1}:{m.group(2)}", line)


def dots(jaxpr, inside=False):
    """(dot_generals inside differentiated checkpoints, dot_generals in all)."""
    back = total = 0
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general":
            total += 1
            back += inside
        for v in eqn.params.values():
            sub = getattr(v, "jaxpr", v)
            if hasattr(sub, "eqns"):
                b, t = dots(sub, inside or bool(eqn.params.get("differentiated")))
                back, total = back + b, total + t
    return back, total


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.ad_checkpoint import checkpoint_name, print_saved_residuals
    with tempfile.NamedTemporaryFile("w", suffix="_ckpt_block.py", delete=False) as f:
        f.write(block_source())
    ns = {"jax": jax, "jnp": jnp, "lax": lax, "checkpoint_name": checkpoint_name,
          "np": np, "__name__": "ckpt_block"}
    exec(compile(Path(f.name).read_text(), f.name, "exec"), ns)

    def record(fn, args, argnums):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print_saved_residuals(fn, *args)
        grads = jax.grad(fn, argnums=argnums)(*args)
        jaxpr = jax.make_jaxpr(jax.grad(fn, argnums=argnums))(*args).jaxpr
        return {"residuals": [normalize(l, f.name) for l in out.getvalue().splitlines()],
                "grads": [np.asarray(g).tolist() for g in jax.tree_util.tree_leaves(grads)],
                "dots": list(dots(jaxpr))}

    args = ns["args"]()
    out = {"plain": record(ns["mlp"], args, (0, 1, 2, 3)), "policies": {}, "extra": {}}
    for name, policy in ns["POLICIES"].items():
        out["policies"][name] = record(jax.checkpoint(ns["mlp"], policy=policy), args,
                                       (0, 1, 2, 3))
    for name, (fn, fargs) in ns["EXTRA"].items():
        out["extra"][name] = record(fn, fargs, (0, 1))
    (HERE / "checkpoint_policies.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {HERE / 'checkpoint_policies.json'}", file=sys.stderr)


if __name__ == "__main__":
    main()
