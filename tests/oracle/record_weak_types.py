"""Weak types and dtype promotion as JAX has them: the dtype and `weak_type` of what
`lax`, `jnp`, Python operators and the loop primitives return for weak (Python
scalar) and strong operands, bf16/f16 included, and a recorder of JAX's answers (see
README.md). tests/test_weak_types.py runs the same cases on astjax.

A case is `(mode, fn, args, kwargs, x64)`:
- `mode`: `shape` (`eval_shape`: staging only), `jit` (the result of a compiled call,
  an Array carrying its weak_type) or `eager` (a call outside any transformation);
- `fn`: `lax.NAME`, `jnp.NAME`, `op.NAME` (the `operator` module: Python's operators on
  staged values), `dtypes.NAME`, or `fn.NAME` (a function of this module, given the
  framework's modules, for loops and composites);
- `args`: tokens -- a Python literal (`2.0`, `3`, `True`, `1.5j`: weak except bool) or
  `DTYPE:VALUE` / `DTYPE[N]:VALUE` (a strong NumPy array of that dtype, 0-d / shape (N,)).

The outcome of a case is a list with one entry per output leaf, `f32[2]*` style (a
trailing `*` for weak_type), `py:float` for a Python scalar, a dtype's name for a
dtype, or `error:<builtin class>`.

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_weak_types.py`
writes weak_types.json."""
import ast
import itertools
import json
import operator
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

_DT = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
       "bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64,
       "c64": np.complex64, "c128": np.complex128}
_SHORT = {np.dtype(v).name: k for k, v in _DT.items()}

# ---------------------------------------------------------------- composite functions
# Each takes the framework's (lax, jnp) and returns the function the case runs.


def fori_int_to_float(lax, jnp):
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: c + x, 0)  # weak int carry, body float
    return f


def fori_weak_float_strong_body(lax, jnp):
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)
    return f


def fori_weak_float_weak_body(lax, jnp):
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)
    return f


def fori_int_carry_int_body(lax, jnp):
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: c + i, 0)
    return f


def fori_staged_bounds(lax, jnp):
    def f(n):
        return lax.fori_loop(0, n, lambda i, c: c + 0.5, 0.0)
    return f


def while_int_to_float(lax, jnp):
    def f(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x), (0, 0))
    return f


def while_weak_stays_weak(lax, jnp):
    def f(x):
        return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
    return f


def while_weak_float_bf16(lax, jnp):
    def f(x):
        return lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * x, c[1] + 1), (1.0, 0))
    return f


def while_weak_float_int_body(lax, jnp):
    def f(n):
        return lax.while_loop(lambda c: c < 10, lambda c: c + n, 0.5)
    return f


def scan_weak_carry(lax, jnp):
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * 2), 0, xs)
    return f


def scan_weak_float_carry(lax, jnp):
    def f(xs):
        return lax.scan(lambda c, x: (c * x, c), 1.0, xs)
    return f


def scan_weak_xs(lax, jnp):
    def f(x):
        return lax.scan(lambda c, y: (c + y, y * 2.0), x, None, length=2)
    return f


def cond_weak_branches(lax, jnp):
    def f(x):
        return lax.cond(x > 0, lambda y: y * 2.0, lambda y: y + 1.0, x)
    return f


def cond_mixed_branches(lax, jnp):
    def f(x):
        return lax.cond(x > 0, lambda y: y * 2.0, lambda y: jnp.float32(1.0), x)
    return f


def switch_weak(lax, jnp):
    def f(x):
        return lax.switch(1, [lambda y: y, lambda y: y + 1, lambda y: y * 2], x)
    return f


def python_for_accumulate(lax, jnp):
    def f(x):
        c = 0
        for i in range(3):
            c = c + x
        return c
    return f


def python_for_weak(lax, jnp):
    def f(x):
        c = x
        for i in range(3):
            c = c * 2.0
        return c
    return f


def python_if_static(lax, jnp):
    def f(x):
        y = 1.0
        if x.shape == ():
            y = y + x
        return y
    return f


def broadcast_weak(lax, jnp):
    def f(x):
        return jnp.broadcast_to(x, (3,)), lax.broadcast(x, (2,)), jnp.reshape(x, (1,))
    return f


def reduce_weak(lax, jnp):
    def f(x):
        y = jnp.broadcast_to(x, (3,))
        return jnp.sum(y), jnp.max(y), jnp.argmax(y), jnp.cumsum(y), jnp.any(y), jnp.mean(y)
    return f


def select_weak(lax, jnp):
    def f(x):
        return (lax.select(True, x, x), jnp.where(x > 0, x, 2.0), jnp.where(x > 0, x, 2),
                lax.clamp(0.0, x, 1.0), jnp.clip(x, 0, 1))
    return f


def convert_weak(lax, jnp):
    def f(x):
        return (lax.convert_element_type(x, np.float32), x.astype(np.float32),
                jnp.asarray(x), jnp.array(x), jnp.float32(x), x.real, jnp.abs(x))
    return f


def concat_weak(lax, jnp):
    def f(x):
        return jnp.stack([x, x]), jnp.concatenate([jnp.atleast_1d(x), jnp.ones(1)]), \
            jnp.dot(x, x), jnp.zeros_like(x), jnp.ones_like(x), x[None], jnp.expand_dims(x, 0)
    return f


def pow_literals(lax, jnp):
    def f(n):
        return 0.5 ** n, 2 ** n, n ** 2, n ** 0.5, 2.0 ** n
    return f


# ------------------------------------------------------------------------- the cases

UNARY = ["abs", "neg", "sign", "floor", "ceil", "round", "is_finite", "exp", "exp2", "log",
         "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan",
         "sinh", "cosh", "asinh", "atanh", "sqrt", "rsqrt", "cbrt", "lgamma", "digamma",
         "erf", "erfc", "erf_inv", "square", "real", "imag", "conj", "bitwise_not",
         "population_count", "clz", "reciprocal"]
UNARY_ARGS = ["0.5", "2", "True", "1.5j", "f32:0.5", "bf16:0.5", "f16:0.5", "i32:2",
              "u8:2", "bool:True", "c64:1.5j", "f32[2]:0.5"]
BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "nextafter", "atan2",
          "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
          "shift_left", "shift_right_logical", "shift_right_arithmetic", "complex"]
BINARY_ARGS = [("0.5", "2.0"), ("2", "3"), ("True", "False"), ("1.5j", "0.5j"),
               ("0.5", "f32:2.0"), ("f32:2.0", "0.5"), ("2.0", "bf16:2"), ("2.0", "f16:2"),
               ("2", "i32:3"), ("2", "u8:3"), ("2", "f32:2"), ("2.0", "i32:2"),
               ("f32:0.5", "f32:2"), ("i32:2", "i32:3"), ("1.5j", "c64:1j"),
               ("0.5", "f32[2]:2.0")]
JNP_UNARY = ["sin", "abs", "sqrt", "exp", "log", "floor", "ceil", "round", "sign", "square",
             "negative", "positive", "reciprocal", "real", "imag", "conj", "angle", "isnan",
             "isfinite", "exp2", "log2", "cbrt", "arctan", "sinc", "deg2rad", "rint", "trunc",
             "fix", "signbit", "logical_not", "invert", "sum", "prod", "max", "mean", "var",
             "argmax", "any", "all", "cumsum", "array", "asarray", "zeros_like", "ones_like",
             "atleast_1d", "ravel", "transpose", "iscomplex", "isreal", "nan_to_num"]
JNP_UNARY_ARGS = ["0.5", "2", "True", "1.5j", "f32:0.5", "bf16:0.5", "i32:2"]
JNP_BINARY = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "mod",
              "remainder", "power", "float_power", "arctan2", "hypot", "maximum", "minimum",
              "equal", "less", "logical_and", "bitwise_and", "left_shift", "copysign",
              "heaviside", "ldexp", "fmod", "logaddexp", "dot", "outer", "where_true",
              "nextafter", "gcd"]
JNP_BINARY_ARGS = [("0.5", "2.0"), ("2", "3"), ("2", "0.5"), ("0.5", "i32:3"), ("2", "f32:2"),
                   ("2.0", "bf16:2"), ("i32:7", "2"), ("u8:7", "2"), ("bf16:2", "i32:3"),
                   ("f16:2", "bf16:2"), ("True", "2"), ("1.5j", "f32:2")]
PROMOTE_ARGS = ["2", "2.0", "1j", "True", "bool:True", "u8:2", "u32:2", "i8:2", "i32:2",
                "bf16:2", "f16:2", "f32:2", "c64:2"]
OPERATORS = ["add", "mul", "truediv", "pow", "floordiv", "lt"]
COMPOSITES = [
    ("fori_int_to_float", ["f32:0.5"]), ("fori_int_to_float", ["0.5"]),
    ("fori_int_to_float", ["bf16:0.5"]), ("fori_int_to_float", ["i32:2"]),
    ("fori_weak_float_strong_body", ["f32:0.5"]), ("fori_weak_float_strong_body", ["bf16:0.5"]),
    ("fori_weak_float_strong_body", ["i32:2"]), ("fori_weak_float_weak_body", ["0.5"]),
    ("fori_weak_float_weak_body", ["f16:0.5"]), ("fori_int_carry_int_body", ["0.5"]),
    ("fori_staged_bounds", ["i32:3"]), ("fori_staged_bounds", ["3"]),
    ("while_int_to_float", ["f32:0.5"]), ("while_int_to_float", ["0.5"]),
    ("while_int_to_float", ["i8:1"]), ("while_weak_stays_weak", ["0.5"]),
    ("while_weak_stays_weak", ["f32:0.5"]), ("while_weak_float_bf16", ["bf16:0.5"]),
    ("while_weak_float_bf16", ["1.5"]), ("while_weak_float_int_body", ["i32:2"]),
    ("while_weak_float_int_body", ["2"]),
    ("scan_weak_carry", ["f32[3]:0.5"]), ("scan_weak_carry", ["i32[3]:1"]),
    ("scan_weak_carry", ["bf16[3]:0.5"]), ("scan_weak_float_carry", ["f32[3]:0.5"]),
    ("scan_weak_float_carry", ["i32[3]:2"]), ("scan_weak_float_carry", ["f16[3]:0.5"]),
    ("scan_weak_xs", ["0.5"]), ("scan_weak_xs", ["f32:0.5"]),
    ("cond_weak_branches", ["0.5"]), ("cond_weak_branches", ["f32:0.5"]),
    ("cond_mixed_branches", ["0.5"]), ("switch_weak", ["2"]), ("switch_weak", ["2.0"]),
    ("python_for_accumulate", ["f32:0.5"]), ("python_for_accumulate", ["0.5"]),
    ("python_for_accumulate", ["bf16:0.5"]), ("python_for_weak", ["0.5"]),
    ("python_for_weak", ["i32:2"]), ("python_if_static", ["f32:0.5"]),
    ("python_if_static", ["2"]),
    ("broadcast_weak", ["0.5"]), ("broadcast_weak", ["2"]), ("reduce_weak", ["0.5"]),
    ("reduce_weak", ["2"]), ("select_weak", ["0.5"]), ("select_weak", ["f32:0.5"]),
    ("convert_weak", ["0.5"]), ("convert_weak", ["2"]), ("concat_weak", ["0.5"]),
    ("pow_literals", ["i32:3"]), ("pow_literals", ["3"]), ("pow_literals", ["u8:3"]),
    ("pow_literals", ["bf16:3"]), ("pow_literals", ["f16:3"]),
]


def _cases():
    out = []
    for name in UNARY:
        out += [("shape", f"lax.{name}", [a], {}, False) for a in UNARY_ARGS]
    out += [("shape", "lax.integer_pow", [a], {"y": y}, False)
            for a in ["0.5", "2", "bf16:0.5", "i32:2"] for y in (2, -1)]
    out += [("shape", "lax.convert_element_type", [a], {"new_dtype": "f32"}, False)
            for a in ["0.5", "2", "f32:0.5"]]
    for name in BINARY:
        out += [("shape", f"lax.{name}", list(p), {}, False) for p in BINARY_ARGS]
    for name in JNP_UNARY:
        out += [("shape", f"jnp.{name}", [a], {}, False) for a in JNP_UNARY_ARGS]
    for name in JNP_BINARY:
        out += [("shape", f"jnp.{name}", list(p), {}, False) for p in JNP_BINARY_ARGS]
    for name in ["add", "mul", "truediv", "pow"]:
        out += [("shape", f"op.{name}", [a, b], {}, False)
                for a, b in itertools.product(PROMOTE_ARGS, repeat=2)]
    for name in ["floordiv", "lt", "mod", "and_"]:
        out += [("shape", f"op.{name}", [a, b], {}, False)
                for a, b in itertools.product(["2", "2.0", "i32:2", "bf16:2", "u8:2"], repeat=2)]
    out += [("shape", f"op.{name}", [a], {}, False) for name in ["neg", "abs", "invert", "pos"]
            for a in ["2", "2.0", "True", "bf16:2", "u8:2"]]
    out += [("call", "dtypes.result_type", [a, b], {}, x64)
            for a, b in itertools.product(PROMOTE_ARGS, repeat=2) for x64 in (False, True)]
    out += [("call", "dtypes.promote_types", [a, b], {}, False)
            for a, b in itertools.product(["bool", "u8", "i8", "i32", "u32", "bf16", "f16", "f32",
                                           "c64"], repeat=2)]
    for x64 in (True,):
        out += [("shape", f"op.{name}", [a, b], {}, x64) for name in ["add", "pow"]
                for a, b in itertools.product(["2", "2.0", "i32:2", "f32:2", "i64:2", "f64:2",
                                               "bf16:2"], repeat=2)]
    for name, args in COMPOSITES:
        out += [("shape", f"fn.{name}", args, {}, False), ("jit", f"fn.{name}", args, {}, False)]
    for name, a in [("abs", "0.5"), ("lt", ("0.5", "1.0")), ("add", ("0.5", "2")),
                    ("sin", "0.5"), ("convert_element_type", "0.5"), ("round", "2.5")]:
        args = list(a) if isinstance(a, tuple) else [a]
        kw = {"new_dtype": "f32"} if name == "convert_element_type" else {}
        out += [("jit", f"lax.{name}", args, kw, False), ("eager", f"lax.{name}", args, kw, False)]
    for name in ["sin", "sum", "asarray", "array", "abs", "round"]:
        out += [("jit", f"jnp.{name}", ["0.5"], {}, False),
                ("eager", f"jnp.{name}", ["0.5"], {}, False)]
    out += [("eager", "jnp.power", ["0.5", "i32:3"], {}, False),
            ("eager", "jnp.add", ["2", "bf16:2"], {}, False),
            ("eager", "jnp.multiply", ["2.0", "f16:2"], {}, False),
            ("eager", "jnp.true_divide", ["3", "2"], {}, False)]
    return out


CASES = _cases()


def decode(token):
    """A case's operand: a Python scalar, or a strong NumPy array of a dtype."""
    if ":" not in token:
        return ast.literal_eval(token)
    dt, value = token.split(":")
    shape = ()
    if "[" in dt:
        dt, n = dt[:-1].split("[")
        shape = (int(n),)
    value = ast.literal_eval(value)
    return np.full(shape, value, _DT[dt])


def short(x):
    """One output leaf as its outcome string."""
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return f"py:{type(x).__name__}"
    if isinstance(x, (np.dtype, type)):
        return _SHORT.get(np.dtype(x).name, np.dtype(x).name)
    dt = _SHORT.get(np.dtype(x.dtype).name, np.dtype(x.dtype).name)
    star = "*" if getattr(x, "weak_type", False) else ""
    return f"{dt}[{','.join(map(str, x.shape))}]{star}"


def function(jax, lax, jnp, spec, kwargs):
    """The callable a case runs, with its keyword arguments bound."""
    space, name = spec.split(".")
    kwargs = {k: (_DT[v] if k == "new_dtype" else v) for k, v in kwargs.items()}
    if space == "fn":
        fn = globals()[name](lax, jnp)
    elif space == "op":
        fn = getattr(operator, name)
    elif space == "dtypes":
        fn = getattr(jax.numpy, name)
    elif space == "jnp" and name == "where_true":
        def fn(x, y):
            return jnp.where(True, x, y)
    else:
        fn = getattr(lax if space == "lax" else jnp, name)
    if kwargs:
        def bound(*args, _f=fn):
            return _f(*args, **kwargs)
        return bound
    return fn


def run_case(jax, case):
    """A case's outcome (see the module docstring) under framework `jax`."""
    mode, spec, args, kwargs, x64 = case
    lax, jnp = jax.lax, jax.numpy
    jax.config.update("jax_enable_x64", x64)
    try:
        fn = function(jax, lax, jnp, spec, kwargs)
        if mode == "call":
            args = [_DT[a] if a in _DT else decode(a) for a in args]
        else:
            args = [decode(a) for a in args]
        if mode == "shape":
            out = jax.eval_shape(fn, *args)
        elif mode == "jit":
            out = jax.jit(fn)(*args)
        else:
            out = fn(*args)
        leaves = [out] if isinstance(out, (np.dtype, type)) else jax.tree_util.tree_leaves(out)
        return [short(x) for x in leaves]
    except Exception as e:  # noqa: BLE001 -- the class is the outcome
        for cls in (IndexError, TypeError, ValueError, AttributeError, NotImplementedError,
                    OverflowError):
            if isinstance(e, cls):
                return [f"error:{cls.__name__}"]
        return [f"error:{type(e).__name__}"]
    finally:
        jax.config.update("jax_enable_x64", False)


def record(path):
    import jax
    out = [run_case(jax, c) for c in CASES]
    Path(path).write_text(json.dumps(out, indent=0))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("weak_types.json"))
