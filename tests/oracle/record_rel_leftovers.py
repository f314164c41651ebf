"""Cases for issue 12's leftovers, and a recorder of what JAX does with them (see
README.md): `vmap` of a `cond` whose branches print, the ordering functions on complex
input, and the `jnp.ufunc` objects (their attributes and methods, under `jit`, `grad`
and `vmap`).

Each case is a function of the modules `(jax, jnp, lax)`; what it prints and what it
returns (or the builtin class and first line of what it raises) are the outcome.
Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_rel_leftovers.py`
writes rel_leftovers.json."""
import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ---- 1. vmap of cond with a batched predicate and an effect in a branch -------------

@case
def vmap_cond_debug_print(jax, jnp, lax):
    def f(x):
        def yes(x):
            jax.debug.print("true {x}", x=x)
            return x + 1
        def no(x):
            jax.debug.print("false {x}", x=x)
            return x - 1
        return lax.cond(x > 1, yes, no, x)
    return jax.vmap(f)(jnp.arange(4.0))


@case
def jit_vmap_cond_debug_callback(jax, jnp, lax):
    def f(x):
        def yes(x):
            jax.debug.callback(lambda v: print("cb", v), x)
            return x * 2
        return lax.cond(x > 1, yes, lambda x: x, x)
    return jax.jit(jax.vmap(f))(jnp.arange(4.0))


@case
def vmap_cond_ordered_print(jax, jnp, lax):
    def f(x):
        def yes(x):
            jax.debug.print("ordered {x}", x=x, ordered=True)
            return x + 1
        return lax.cond(x > 2, yes, lambda x: x, x)
    return jax.vmap(f)(jnp.arange(4.0))


@case
def vmap_switch_debug_print(jax, jnp, lax):
    def f(i, x):
        def b(k):
            def g(x):
                jax.debug.print("branch {k} {x}", k=k, x=x)
                return x + k
            return g
        return lax.switch(i, [b(0), b(1), b(2)], x)
    return jax.vmap(f)(jnp.array([2, 0, 1]), jnp.arange(3.0))


def _io_callback(jax):
    if jax.__name__ == "jax":
        from jax.experimental import io_callback
    else:   # astjax serves `jax.experimental` from its compat package
        from astjax.compat.experimental import io_callback
    return io_callback


def _io_plus_one(jax, jnp):
    """x + 1, after an io_callback of x."""
    io_callback = _io_callback(jax)

    def f(x):
        io_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), x)
        return x + 1
    return f


@case
def vmap_cond_io_callback(jax, jnp, lax):
    return jax.vmap(lambda x: lax.cond(x > 1, _io_plus_one(jax, jnp), lambda x: x, x))(
        jnp.arange(4.0))


@case
def vmap_cond_io_callback_unbatched_pred(jax, jnp, lax):
    def f(x, p):
        return lax.cond(p, _io_plus_one(jax, jnp), lambda x: x, x)
    return jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), True)


@case
def vmap_while_io_callback(jax, jnp, lax):
    return jax.vmap(lambda x: lax.while_loop(lambda c: c < 3.0, _io_plus_one(jax, jnp), x))(
        jnp.array([0.0, 2.0]))


@case
def vmap_while_ordered_io_callback(jax, jnp, lax):
    io_callback = _io_callback(jax)

    def f(x, n):
        def body(c):
            io_callback(lambda v: np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), c[1],
                        ordered=True)
            return c[0] + 1, c[1] * 2.0
        return lax.while_loop(lambda c: c[0] < n, body, (0, x))
    return jax.vmap(f, in_axes=(0, None))(jnp.array([1.0, 2.0]), 3)


@case
def vmap_cond_unbatched_pred_print(jax, jnp, lax):
    def f(x, p):
        def yes(x):
            jax.debug.print("t {x}", x=x)
            return x + 1
        return lax.cond(p, yes, lambda x: x, x)
    return jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), True)


@case
def vmap_while_debug_print(jax, jnp, lax):
    def f(x):
        def body(c):
            jax.debug.print("w {c}", c=c)
            return c + 1.0
        return lax.while_loop(lambda c: c < 3.0, body, x)
    return jax.vmap(f)(jnp.array([0.0, 2.0, 5.0]))


# ---- 2. ordering functions on complex input ---------------------------------------

def _z(jnp):
    return jnp.array([1 + 2j, 3 - 1j, 1 - 1j, 0 + 5j, 3 + 0j], dtype=jnp.complex64)


@case
def complex_partition(jax, jnp, lax):
    return jnp.partition(_z(jnp), 2)


@case
def complex_argpartition_jit(jax, jnp, lax):
    return jax.jit(lambda z: jnp.argpartition(z, 2))(_z(jnp))


@case
def complex_max_min_ptp(jax, jnp, lax):
    z = _z(jnp)
    return jnp.max(z), jnp.min(z), jnp.ptp(z), jnp.nanmax(z), lax.reduce_max(z, (0,))


@case
def complex_max_jit_axis(jax, jnp, lax):
    z = jnp.stack([_z(jnp), _z(jnp)[::-1]])
    return jax.jit(lambda z: (jnp.max(z, axis=1), jnp.min(z, axis=0)))(z)


@case
def complex_cummax_cummin(jax, jnp, lax):
    z = _z(jnp)
    return lax.cummax(z), lax.cummin(z), lax.cummax(z, reverse=True)


@case
def complex_logaddexp(jax, jnp, lax):
    return jnp.logaddexp(jnp.array([5j, 1 + 1j]), jnp.array([1j, 2 - 3j]))


# ---- 3. jnp.ufunc ----------------------------------------------------------------

UFUNC_NAMES = ["add", "bitwise_and", "bitwise_or", "bitwise_xor", "logaddexp", "logaddexp2",
               "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
               "negative", "subtract", "sin", "true_divide", "power", "equal", "arctan2"]


@case
def ufunc_attributes(jax, jnp, lax):
    out = []
    for n in UFUNC_NAMES:
        u = getattr(jnp, n)
        if isinstance(u, jnp.ufunc):
            out.append([n, u.__name__, u.nin, u.nout, u.nargs, repr(u.identity), repr(u)])
        else:
            out.append([n, "not a ufunc"])
    return out


def _x(jnp):
    return jnp.arange(12.0).reshape(3, 4) - 5.0


@case
def ufunc_reduce(jax, jnp, lax):
    x = _x(jnp)
    return (jnp.add.reduce(x), jnp.add.reduce(x, axis=None), jnp.add.reduce(x, axis=(0, 1)),
            jnp.multiply.reduce(x, axis=1, keepdims=True), jnp.maximum.reduce(x, axis=-1),
            jnp.minimum.reduce(x, axis=0, initial=-1.0),
            jnp.add.reduce(x, axis=1, where=x > 0), jnp.subtract.reduce(x, axis=1),
            jnp.maximum.reduce(x, axis=1, initial=0.0, where=x < 0),
            jnp.add.reduce(jnp.arange(5, dtype=jnp.int8)), jnp.add.reduce(x, dtype=jnp.int32))


@case
def ufunc_reduce_logical_bitwise(jax, jnp, lax):
    b = jnp.array([[True, False, True], [True, True, True]])
    i = jnp.array([[12, 10, 7], [3, 255, 1]], dtype=jnp.uint8)
    return (jnp.logical_and.reduce(b, axis=1), jnp.logical_or.reduce(b, axis=None),
            jnp.logical_xor.reduce(b, axis=1), jnp.logical_xor.reduce(b, axis=0),
            jnp.logical_and.reduce(jnp.array([[0.0, 2.0], [1.0, 3.0]]), axis=0),
            jnp.bitwise_and.reduce(i, axis=1), jnp.bitwise_or.reduce(i, axis=0),
            jnp.bitwise_xor.reduce(i, axis=None), jnp.bitwise_xor.reduce(i, axis=1, keepdims=True),
            jnp.bitwise_and.reduce(jnp.array([-3, 7, 6]), axis=0),
            jnp.logical_or.reduce(jnp.zeros((0, 2), bool), axis=0))


@case
def ufunc_reduce_logaddexp(jax, jnp, lax):
    x = _x(jnp)
    return (jnp.logaddexp.reduce(x, axis=1), jnp.logaddexp.reduce(x, axis=None),
            jnp.logaddexp2.reduce(x, axis=0), jnp.logaddexp.reduce(x, axis=1, initial=2.0),
            jnp.logaddexp.reduce(jnp.array([-jnp.inf, -jnp.inf])))


@case
def ufunc_accumulate(jax, jnp, lax):
    x = _x(jnp)
    return (jnp.add.accumulate(x), jnp.add.accumulate(x, axis=1),
            jnp.multiply.accumulate(x[:, :3], axis=1), jnp.maximum.accumulate(x[::-1], axis=0),
            jnp.subtract.accumulate(x, axis=1), jnp.logical_xor.accumulate(x > 0, axis=1),
            jnp.add.accumulate(jnp.arange(4, dtype=jnp.int8), dtype=jnp.float32),
            jnp.minimum.accumulate(jnp.zeros((0,))))


@case
def ufunc_outer(jax, jnp, lax):
    return (jnp.multiply.outer(jnp.arange(3), jnp.arange(4.0)),
            jnp.subtract.outer(jnp.arange(4).reshape(2, 2), jnp.arange(3)),
            jnp.maximum.outer(jnp.array([1.0, 5.0]), jnp.array(3.0)),
            jnp.logical_and.outer(jnp.array([True, False]), jnp.array([True, True, False])))


@case
def ufunc_at(jax, jnp, lax):
    x = jnp.arange(5.0)
    i = jnp.array([0, 0, 3])
    return (jnp.add.at(x, i, 10.0, inplace=False), jnp.multiply.at(x, i, 2.0, inplace=False),
            jnp.subtract.at(x, i, jnp.array([1.0, 2.0, 3.0]), inplace=False),
            jnp.maximum.at(x, i, jnp.array([7.0, 9.0, 1.0]), inplace=False),
            jnp.negative.at(x, i, inplace=False), jnp.add.at(x, 2, 1.0, inplace=False),
            jnp.add.at(jnp.array([True, False, False]), jnp.array([1, 1]), True, inplace=False),
            jnp.minimum.at(jnp.arange(6.0).reshape(2, 3), (jnp.array([0, 1]), jnp.array([2, 2])),
                           -1.0, inplace=False))


@case
def ufunc_reduceat(jax, jnp, lax):
    x = jnp.arange(8.0)
    m = jnp.arange(12).reshape(3, 4)
    return (jnp.add.reduceat(x, jnp.array([0, 4, 1, 5])),
            jnp.multiply.reduceat(x + 1, jnp.array([0, 3, 3, 6])),
            jnp.maximum.reduceat(m, jnp.array([0, 2]), axis=1),
            jnp.add.reduceat(m, jnp.array([1, 0]), axis=0))


@case
def ufunc_frompyfunc(jax, jnp, lax):
    f = jnp.frompyfunc(lambda a, b: a * b + 1.0, 2, 1, identity=0.0)
    g = jnp.frompyfunc(lambda a, b: jnp.maximum(a, b) - 1.0, 2, 1)
    h = jnp.frompyfunc(lambda a: a * 3.0, 1, 1)
    x = jnp.arange(1.0, 5.0)
    return ([repr(f), f.nin, f.nout, f.nargs, repr(f.identity), repr(g.identity)],
            f(x, 2.0), f.reduce(x), f.accumulate(x), f.outer(x[:2], x[:3]),
            g.reduce(x), g.reduce(jnp.stack([x, x[::-1]]), axis=1), g.accumulate(x[::-1]),
            f.reduceat(x, jnp.array([0, 2])), f.at(x, jnp.array([1, 1]), 2.0, inplace=False),
            h(x), h.at(x, jnp.array([0, 2]), inplace=False), f.reduce(x, initial=2.0),
            g.reduce(x, initial=10.0, where=x > 2))


@case
def ufunc_transforms(jax, jnp, lax):
    x = _x(jnp)[0] / 3.0
    f = jnp.frompyfunc(lambda a, b: a * b + jnp.sin(a), 2, 1, identity=1.0)
    return (jax.jit(lambda x: jnp.add.reduce(x) + jnp.maximum.accumulate(x))(x),
            jax.grad(lambda x: jnp.multiply.reduce(x))(x),
            jax.grad(lambda x: f.reduce(x))(x),
            jax.grad(lambda x: jnp.logaddexp.reduce(x))(x),
            jax.grad(lambda x: f.accumulate(x).sum())(x),
            jax.vmap(lambda r: jnp.maximum.reduce(r))(_x(jnp)),
            jax.vmap(lambda r: f.reduce(r))(_x(jnp) / 10.0),
            jax.vmap(lambda r: jnp.add.at(r, jnp.array([0, 0]), 1.0, inplace=False))(_x(jnp)),
            jax.jit(lambda a, b: jnp.multiply.outer(a, b))(x, x[:2]),
            jax.jit(lambda x: f.reduceat(x, jnp.array([0, 2])))(x))


@case
def ufunc_dtypes(jax, jnp, lax):
    i8 = jnp.arange(1, 5, dtype=jnp.int8)
    b = jnp.array([True, False, True])
    two = jnp.frompyfunc(lambda a: (a + 1.0, a * 2.0), 1, 2)
    return (jnp.subtract.reduce(i8), jnp.maximum.accumulate(i8), jnp.add.accumulate(b),
            jnp.multiply.reduce(b), jnp.logaddexp.reduce(jnp.arange(3)),
            jnp.add.reduce(jnp.float32(2.0), axis=None), jnp.add.reduce(2.0, axis=None),
            jnp.logical_and.reduce(jnp.zeros((0,))), jnp.minimum.reduce(i8, dtype=jnp.float32),
            jnp.subtract.accumulate(i8, dtype=jnp.float32), two(jnp.arange(3.0)),
            jnp.multiply.outer(jnp.arange(2, dtype=jnp.int8), jnp.arange(2.0)),
            jnp.bitwise_or.reduce(jnp.array([1, 2, 4], dtype=jnp.int16), dtype=jnp.int32))


@case
def ufunc_static_arg(jax, jnp, lax):
    def apply(u, x):
        return u.reduce(x)
    jitted = jax.jit(apply, static_argnums=0)
    x = jnp.arange(1.0, 5.0)
    return (jitted(jnp.add, x), jitted(jnp.multiply, x), jnp.add == jnp.add,
            jnp.add == jnp.multiply, hash(jnp.add) == hash(jnp.add))


def _error_case(src):
    def run(jax, jnp, lax):
        return eval(src, {"jax": jax, "jnp": jnp, "lax": lax, "x": jnp.arange(4.0)})
    run.__name__ = "err_" + "".join(c if c.isalnum() else "_" for c in src)[:60]
    CASES[run.__name__] = run


# (`add.reduce(x, out=x)` is left out: JAX's own error there is about hashing `out`,
# a static argument of its jit, not about `out`)
for _src in ["jnp.negative.reduce(x)",
             "jnp.add.reduce([1.0, 2.0])", "jnp.add.at(x, 0, 1.0)",
             "jnp.maximum.reduce(x, where=x > 1)", "jnp.add.reduce(x, where=x)",
             "jnp.minimum.reduce(jnp.zeros((0,)))", "jnp.subtract.reduce(jnp.zeros((0, 2)))",
             "jnp.add(x, x, out=x)", "jnp.add(x, x, where=x > 1)",
             "jnp.subtract.accumulate(x, axis=None)", "jnp.add.accumulate(x, out=x)",
             "jnp.negative.outer(x, x)", "jnp.negative.accumulate(x)",
             "jnp.add.reduceat(x, jnp.array([[0]]))", "jnp.add.reduceat(jnp.float32(1), jnp.array([0]))",
             "jnp.subtract.reduceat(x, jnp.array([0]), axis=None)",
             "jnp.bitwise_and.reduce(x)", "jnp.subtract.reduce(x.reshape(2, 2), axis=(0, 1))",
             "jnp.frompyfunc(lambda a, b: a + b, 2, 1).reduce(jnp.zeros((0,)))",
             "jnp.frompyfunc(lambda a, b: (a, b), 2, 2).reduce(x)",
             "jnp.add.outer([1.0], x)", "jnp.maximum.reduce(x, axis=3)",
             "jnp.negative(x, out=x)", "jnp.add.reduce(jnp.float32(1))",
             "jnp.maximum.accumulate(jnp.float32(1))", "jnp.add.at(x, jnp.array([9]), 1.0, inplace=False)",
             "jnp.subtract.at(x, jnp.array([9, 1]), 1.0, inplace=False)",
             "jnp.frompyfunc(lambda a: a, 1, 1).reduce(x)", "jnp.add.reduce(x, initial=[1.0])",
             "jnp.maximum.reduce(x.reshape(2, 2), axis=(0, 1))"]:
    _error_case(_src)


# ---- recording ---------------------------------------------------------------------

def encode(y):
    """JSON of a result: arrays as {dtype, shape, re, im}; tuples/lists element-wise."""
    if isinstance(y, (tuple, list)):
        return [encode(v) for v in y]
    if isinstance(y, (bool, int, float, str)) or y is None:
        return y
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape),
            "re": np.real(y).astype(np.float64).ravel().tolist(),
            "im": np.imag(y).astype(np.float64).ravel().tolist()}


def outcome(fn, jax, jnp, lax):
    """{"out": printed text, "value" or "error": [builtin class, first line]}."""
    buf = io.StringIO()
    res = {}
    try:
        with contextlib.redirect_stdout(buf):
            v = fn(jax, jnp, lax)
            if hasattr(jax, "effects_barrier"):
                jax.effects_barrier()
        res["value"] = encode(v)
    except Exception as e:  # noqa: BLE001 -- the outcome is the class and message
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        msg = getattr(e, "message", None) or str(e)
        res["error"] = [builtin.__name__, msg.strip().splitlines()[0] if msg.strip() else ""]
    res["out"] = buf.getvalue()
    return res


def record(path):
    import jax
    import jax.experimental  # noqa: F401
    import jax.numpy as jnp
    from jax import lax
    out = {name: outcome(fn, jax, jnp, lax) for name, fn in CASES.items()}
    Path(path).write_text(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("rel_leftovers.json"))
