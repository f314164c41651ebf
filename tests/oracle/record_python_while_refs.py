"""Python `while` statements whose test stores into a `Ref` (issue 13): what JAX 0.10.2
computes running them eagerly (Python runs the test once per trip plus once, each
time after the body), which astjax must compute with the loop staged under `jit`,
`grad` and `vmap` (JAX itself cannot stage such a loop: its test is a tracer there).

`FUNCTIONS` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`) that
returns the function to run; `INPUTS` the inputs each is run on. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_python_while_refs.py` writes
python_while_refs.json: per function and input, the eager value (a list of leaves) and
`grad` of the sum of the leaves' first output; `tests/test_python_while_refs.py`
compares astjax's staged loops with them.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
INPUTS = [-1.0, 0.5, 3.0, 7.25]


def _ticking(J):
    """The test adds 1 to the reference and compares what it holds."""
    def tick(s):
        s[...] += 1.0
        return s[...]

    def f(x):
        s = J.jax.new_ref(J.jnp.float32(0.0))
        while tick(s) < x:
            x = x - 0.5
        return x, s[...]
    return f


def _body_reads_test_store(J):
    """The test stores x * 2 before comparing; the body reads that store."""
    def probe(s, x):
        s[...] = x * 2.0
        return s[...] < 9.0

    def f(x):
        s = J.jax.new_ref(J.jnp.float32(0.0))
        n = J.jnp.float32(0.0)
        while probe(s, x):
            x = x + s[...] * 0.25 + 1.0
            n = n + 1.0
        return x, n, s[...]
    return f


def _both_store(J):
    """The test and the body both add to one reference; the test's stores come after
    the body's in every trip (Python's order)."""
    def grow(s, x):
        s[...] = s[...] * 2.0 + x * x
        return s[...]

    def f(x):
        s = J.jax.new_ref(J.jnp.float32(1.0))
        while grow(s, x) < 40.0:
            s[...] -= 0.5
            x = x * 1.5 + 0.25
        return x, s[...]
    return f


def _test_tests_flag(J):
    """A test on two values, one of them the reference after the test's own store."""
    def count(s):
        s[...] += 1.0
        return s[...] < 6.0

    def f(x):
        s = J.jax.new_ref(J.jnp.float32(0.0))
        y = x
        while count(s) & (y < 20.0):
            y = y * 2.0 + 1.0
        return y, s[...]
    return f


FUNCTIONS = {f.__name__[1:]: f for f in (_ticking, _body_reads_test_store, _both_store,
                                         _test_tests_flag)}


def record(J, name, x):
    """The eager value's leaves and grad of the first output, or the error's class."""
    f = FUNCTIONS[name](J)
    out = f(J.jnp.float32(x))
    grad = J.jax.grad(lambda y: f(y)[0])(J.jnp.float32(x))
    return {"value": [float(np.asarray(v)) for v in out], "grad": float(np.asarray(grad))}


if __name__ == "__main__":
    import types
    import jax
    J = types.SimpleNamespace(jax=jax, jnp=jax.numpy)
    (HERE / "python_while_refs.json").write_text(json.dumps(
        {"jax": jax.__version__,
         "cases": {f"{n}_{x}": record(J, n, x) for n in FUNCTIONS for x in INPUTS}},
        indent=1, sort_keys=True) + "\n")
