"""JAX's TypeErrors for loop carries and branch outputs that disagree, recorded from
JAX 0.10.2: `fori_loop`, `while_loop`, `scan` bodies returning a carry of other types
or another pytree structure, `cond` / `switch` branches returning different outputs
(one difference, several, nested paths, dict keys, tuple lengths).

    .jaxenv/bin/python tests/oracle/record_carry_messages.py   # -> carry_messages.json

tests/test_carry_messages.py runs `cases` on astjax and compares the messages (the
source file and line of the branch functions JAX names are this file's in both)."""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "carry_messages.json")


def cases(jax, jnp, lax):
    """{name: thunk} -- each raises JAX's TypeError (the first three run)."""
    ones = jnp.ones

    def cat(c):
        return jnp.concatenate([c, c])
    return {
        "fori weak dtype runs": lambda: lax.fori_loop(0, 3, lambda i, c: c + 1.5, 1),
        "while weak tuple runs": lambda: lax.while_loop(lambda c: c[0] < 3,
                                                        lambda c: (c[0] + 1, c[1] + 1.5),
                                                        (1, 1)),
        "scan weak dtype runs": lambda: lax.scan(lambda c, x: (c + 1.5, x), 1, jnp.arange(3)),
        "fori shape": lambda: lax.fori_loop(0, 3, lambda i, c: cat(c), ones(2)),
        "fori structure": lambda: lax.fori_loop(0, 3, lambda i, c: (c, c), 1.0),
        "fori staged bounds": lambda: jax.jit(
            lambda n: lax.fori_loop(0, n, lambda i, c: cat(c), ones(2)))(3),
        "fori nested path": lambda: lax.fori_loop(
            0, 3, lambda i, c: (c[0], cat(c[1])), (1.0, ones(2))),
        "while shape": lambda: lax.while_loop(lambda c: c.sum() < 3, cat, ones(2)),
        "while structure": lambda: lax.while_loop(lambda c: c < 3, lambda c: (c, c), 1.0),
        "while two differences": lambda: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, ones(3), ones(2, "int32")),
            (1, ones(2), ones(2))),
        "while shape and dtype": lambda: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, ones(3, "int32")), (1, ones(2))),
        "while dict keys": lambda: lax.while_loop(
            lambda c: c["a"] < 3, lambda c: {"a": c["a"] + 1, "c": c["b"]},
            {"a": 1, "b": 1.0}),
        "while tuple length": lambda: lax.while_loop(lambda c: c[0] < 3,
                                                     lambda c: (c[0] + 1,), (1, 1.0)),
        "scan shape": lambda: lax.scan(lambda c, x: (cat(c), x), ones(2), jnp.arange(3)),
        "scan structure": lambda: lax.scan(lambda c, x: ((c, c), x), 1.0, jnp.arange(3)),
        "scan dict path": lambda: lax.scan(
            lambda c, x: ({"a": c["a"], "b": ones(3)}, x), {"a": 1.0, "b": ones(2)},
            jnp.arange(3)),
        "scan list for tuple": lambda: lax.scan(lambda c, x: ([c[0], c[1]], x), (1.0, 2.0),
                                                jnp.arange(3)),
        "scan parameter name": lambda: lax.scan(lambda carry, x: (ones(3), x), ones(2),
                                                jnp.arange(3)),
        "cond dtype": lambda: lax.cond(True, lambda x: x, lambda x: x + 1.5, 1),
        "cond shape": lambda: lax.cond(True, lambda x: x, cat, ones(2)),
        "cond path": lambda: lax.cond(True, lambda x: (x, x), lambda x: (x, x + 1.5), 1),
        "cond two differences": lambda: lax.cond(
            True, lambda x: (x, x, x), lambda x: (x, ones(3), x + 1.5), 1),
        "cond structure": lambda: lax.cond(True, lambda x: (x, x), lambda x: x, 1.0),
        "cond tuple length": lambda: lax.cond(True, lambda x: (x, x), lambda x: (x,), 1.0),
        "cond dict keys": lambda: lax.cond(True, lambda x: {"a": x}, lambda x: {"b": x}, 1.0),
        "switch dtype": lambda: lax.switch(0, [lambda x: x, lambda x: x + 1.5], 1),
        "switch third branch": lambda: lax.switch(
            0, [lambda x: x, lambda x: x, lambda x: (x, x)], 1.0),
    }


def run(thunk):
    """'ok', or (exception class name, message)."""
    try:
        thunk()
    except Exception as e:   # noqa: BLE001
        # (this file's own path -- where the lambdas are -- is the checkout's: a marker)
        return [type(e).__name__, str(e).replace(os.path.abspath(__file__), "{RECORDER}")]
    return "ok"


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {name: run(f) for name, f in cases(jax, jnp, lax).items()}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(out)} cases")


if __name__ == "__main__":
    main()
