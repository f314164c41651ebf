"""JAX's Python-scalar rule of the lax wrappers, swept against JAX 0.10.2 in one process:

    nice -n 5 .jaxenv/bin/python tests/fuzz/scalar_rule_sweep.py [--eager]

Every binary lax wrapper (and clamp's bounds, pad's padding value) with one operand an
array of each dtype and the other a Python bool / int / float / complex, on either side,
with `jax_enable_x64` off and on, staged (`eval_shape`; `--eager` adds calls outside any
transformation). The outcome of a call is its result's dtype and weak type or the builtin
class of its error; astjax's must be JAX's (its error an instance of JAX's class). Prints
the count of calls and every disagreement."""
from __future__ import annotations

import argparse
import builtins
import itertools
import os
import sys
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

BINARY = ["add", "sub", "mul", "div", "rem", "max", "min", "pow", "atan2", "nextafter",
          "complex", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or",
          "bitwise_xor", "shift_left", "shift_right_arithmetic", "shift_right_logical",
          "polygamma"]
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint32", "bfloat16", "float16",
          "float32", "float64", "complex64", "complex128"]
SCALARS = [True, 2, 1.5, 1j]


def _calls():
    for name, dt, s, x64 in itertools.product(BINARY, DTYPES, SCALARS, (False, True)):
        yield name, dt, s, "left", x64
        yield name, dt, s, "right", x64
    for name, dt, s, x64 in itertools.product(("clamp", "pad"), DTYPES, SCALARS, (False, True)):
        yield name, dt, s, "scalar", x64


def _fn(lax, name, side, s):
    if name == "clamp":
        return lambda x: lax.clamp(s, x, s)
    if name == "pad":
        return lambda x: lax.pad(x, s, [(1, 0, 0)])
    op = getattr(lax, name)
    return (lambda x: op(s, x)) if side == "left" else (lambda x: op(x, s))


def outcome(lib, lax, call, eager):
    """'<dtype>[*]' of the result (`*` when weak) or 'error:<builtin class>'."""
    name, dt, s, side, x64 = call
    lib.config.update("jax_enable_x64", x64)
    try:
        import ml_dtypes
        x = np.ones(2, ml_dtypes.bfloat16 if dt == "bfloat16" else dt)
        f = _fn(lax, name, side, s)
        r = f(x) if eager else lib.eval_shape(f, x)
        return f"{np.dtype(r.dtype).name}{'*' if getattr(r, 'weak_type', False) else ''}"
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        for cls in type(e).__mro__:
            if cls.__module__ == "builtins":
                return f"error:{cls.__name__}"
        return f"error:{type(e).__name__}"
    finally:
        lib.config.update("jax_enable_x64", False)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eager", action="store_true", help="also calls outside any transformation")
    args = p.parse_args()
    import astjax
    import jax
    modes = (False, True) if args.eager else (False,)
    n = bad = 0
    for call in _calls():
        for eager in modes:
            want = outcome(jax, jax.lax, call, eager)
            got = outcome(astjax, astjax.lax, call, eager)
            n += 1
            ok = got == want or (want.startswith("error:") and got.startswith("error:") and
                                 issubclass(getattr(builtins, got[6:], Exception),
                                            getattr(builtins, want[6:], Exception)))
            if not ok:
                bad += 1
                print(f"{'eager' if eager else 'shape'} {call}: JAX {want}, astjax {got}")
    print(f"{n} calls, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
