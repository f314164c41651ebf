"""Elementwise `jnp` functions: NumPy broadcasting and JAX's dtype promotion (weak
Python scalars) in front of the lax primitives."""
from __future__ import annotations

import functools

import numpy as np

from .. import core, dtypes, lax, user_warnings
from ..codegen.explicit import broadcast_layouts as _broadcast_layouts
from ..custom_api import custom_jvp as _custom_jvp
from ..core import Tracer
from ..primitives import comparisons as _cmp
from ..primitives.base import weak_like as _weak_like
from ..primitives.structural import convert_element_type as _convert
from ..errors import ArgumentTypeError, ArgumentValueError, NotImplementedInAstjaxError
from .operands import (_dtype, _is_operand, asarray, asarray_operand, broadcast_shapes,  # noqa: F401
                       broadcast_to_shape, promote_args, promote_args_inexact, promote_dtypes,
                       promote_dtypes_inexact, promote_operands, promote_shapes, result)
from .sorting import nonzero as _nonzero
from .ufunc_docs import doc as _doc
from .ufunc_dispatch import _binary, _unary
from .util import library_jit as _library_jit, static_int as _static_int
from .. import typing as _typing


negative = _unary("negative", lax.neg)
positive = _unary("positive", lambda x: x)
sign = _unary("sign", lax.sign)
def _integral(x):
    """Integer and bool values, which floor/ceil/trunc/round return unchanged (JAX)."""
    dt = core.get_aval(x).dtype
    return dtypes.is_int(dt) or dt == np.bool_


floor = _unary("floor", lambda x: x if _integral(x) else lax.floor(x))
ceil = _unary("ceil", lambda x: x if _integral(x) else lax.ceil(x))
_trunc = _unary("trunc", lambda x: x if _integral(x) else
                lax.select(lax.lt(x, _weak_like(0, x)), lax.ceil(x), lax.floor(x)))


def trunc(x):
    return _trunc(x)  # (JAX's `x` may be passed by keyword, unlike other unary ufuncs')


fabs = _unary("fabs", lax.abs, True)
exp = _unary("exp", lax.exp, True)
exp2 = _unary("exp2", lax.exp2, True)
log = _unary("log", lax.log, True)
log1p = _unary("log1p", lax.log1p, True)
expm1 = _unary("expm1", lax.expm1, True)
sqrt = _unary("sqrt", lax.sqrt, True)
cbrt = _unary("cbrt", lax.cbrt, True)
sin = _unary("sin", lax.sin, True)
cos = _unary("cos", lax.cos, True)
tan = _unary("tan", lax.tan, True)
arcsin = _unary("arcsin", lax.asin, True)
arccos = _unary("arccos", lax.acos, True)
arctan = _unary("arctan", lax.atan, True)
sinh = _unary("sinh", lax.sinh, True)
cosh = _unary("cosh", lax.cosh, True)
tanh = _unary("tanh", lax.tanh, True)
arcsinh = _unary("arcsinh", lax.asinh, True)
arccosh = _unary("arccosh", lax.acosh, True)
arctanh = _unary("arctanh", lax.atanh, True)
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh
def _isfinite(x):
    dt = core.get_aval(x).dtype
    if dtypes.is_float(dt):
        return lax.is_finite(x)
    if dtypes.is_inexact(dt):  # complex: both parts finite
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return full_bool(x, True)


isfinite = _unary("isfinite", _isfinite)
real = _unary("real", lambda x: lax.real(x) if dtypes.issubdtype(
    core.get_aval(x).dtype, np.complexfloating) else x, names=("val",))
imag = _unary("imag", lambda x: lax.imag(x) if dtypes.issubdtype(
    core.get_aval(x).dtype, np.complexfloating) else lax.full_like(x, 0), names=("val",))
conjugate = _unary("conjugate", lambda x: lax.conj(x) if dtypes.issubdtype(
    core.get_aval(x).dtype, np.complexfloating) else x)
conj = conjugate


def full_bool(x, value):
    """A bool array of x's shape filled with `value` (a helper; not part of NumPy's API).

    Args:
      x: an array whose shape is used.
      value: the bool fill value.

    Returns:
      A bool array of x's shape.
    """
    return lax.full(core.get_aval(x).shape, value, dtypes.bool_)


def abs(x, /) -> _typing.Array:  # noqa: A001
    x = asarray_operand(x)
    [x] = promote_operands([x]) if dtypes.is_weak_scalar(x) else [x]
    dt = core.get_aval(x).dtype
    if dt == dtypes.bool_ or dtypes.issubdtype(dt, np.unsignedinteger):
        return result(x)
    return lax.abs(x)


def invert(x, /):
    return lax.bitwise_not(asarray_operand(x))


def logical_not(x, /):
    [x] = promote_operands([asarray_operand(x)])
    if core.get_aval(x).dtype != dtypes.bool_:
        x = lax.ne(x, _lax_const(x, 0))   # (as JAX's: strong for a weak array)
    return lax.bitwise_not(x)


add = _binary("add", lambda x, y: lax.bitwise_or(x, y) if core.get_aval(x).dtype == dtypes.bool_
              else lax.add(x, y))
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lambda x, y: lax.bitwise_and(x, y) if core.get_aval(x).dtype
                   == dtypes.bool_ else lax.mul(x, y))
true_divide = _binary("true_divide", lax.div, inexact=True)
divide = true_divide
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, inexact=True)
atan2 = arctan2
nextafter = _binary("nextafter", lax.nextafter, inexact=True, names="xy")
equal = _binary("equal", lax.eq, names="xy", keys=lambda x, y: x == y)
not_equal = _binary("not_equal", lax.ne, names="xy", keys=lambda x, y: x != y)
less = _binary("less", _cmp.ordered_lt, names="xy")
less_equal = _binary("less_equal", _cmp.ordered_le, names="xy")
greater = _binary("greater", _cmp.ordered_gt, names="xy")
greater_equal = _binary("greater_equal", _cmp.ordered_ge, names="xy")
bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)


def left_shift(x, y, /):
    return lax.shift_left(*_numeric(promote_args("left_shift", x, y)))   # bools as ints


def right_shift(x1, x2, /):
    x1, x2 = _numeric(promote_args("right_shift", x1, x2))   # bools as ints (JAX's)
    if dtypes.issubdtype(core.get_aval(x1).dtype, np.unsignedinteger):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


def _logical(name, fn, doc=None):
    """A logical ufunc; `doc` is its docstring (default: `ufunc_docs.doc(name)`)."""
    def f(x, y, /):
        x, y = promote_args(name, x, y)
        dt = core.get_aval(x).dtype
        if dt != dtypes.bool_:
            # as JAX's `lax.ne(v, 0)`: a weak 0-d operand gives a weak truth value, a
            # weak operand with axes a strong one
            zero = np.zeros((), dt)[()]
            x, y = (not_equal(v, 0) if core.get_aval(v).ndim == 0 else lax.ne(v, zero)
                    for v in (x, y))
        return fn(x, y)
    f.__name__ = name
    f.__doc__ = _doc(name) if doc is None else doc
    return f


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def _floor_divide_int(x, y):
    # Python semantics: round toward -inf
    q = lax.div(x, y)
    rem_nonzero = lax.ne(lax.rem(x, y), lax.full_like(x, 0))
    signs_differ = lax.ne(lax.sign(x), lax.sign(y))  # x // 0 is -1 - (x != 0), as JAX
    return lax.select(lax.bitwise_and(rem_nonzero, signs_differ), lax.sub(q, lax.full_like(q, 1)), q)


def _promote_args_numeric(name, x1, x2):
    """JAX's `promote_args_numeric`: `promote_args`, with bool computed as int32."""
    x1, x2 = promote_args(name, x1, x2)
    if core.get_aval(x1).dtype == np.bool_:
        return lax.convert_element_type(x1, np.int32), lax.convert_element_type(x2, np.int32)
    return x1, x2


def floor_divide(x1, x2, /):
    x1, x2 = _promote_args_numeric("floor_divide", x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.issubdtype(dt, np.unsignedinteger):
        return lax.div(x1, x2)
    if dtypes.is_int(dt):
        return _floor_divide_int(x1, x2)
    _no_complex("floor_divide", dt)
    return _float_divmod(x1, x2)[0]


def _no_complex(name, dt):
    if dtypes.issubdtype(dt, np.complexfloating):
        raise ArgumentTypeError(f"{name} does not support complex-valued inputs",
                                hint="apply it to the real and imaginary parts")


def _float_divmod(x, y):
    """Python's float `divmod` (CPython's float_divmod), as JAX: the quotient comes from
    `(x - fmod(x, y)) / y`, so `1.0 // 0.1` is 9.0 where `floor(1.0 / 0.1)` is 10.0,
    and `inf // y` is NaN."""
    mod = lax.rem(x, y)
    zero = lax.full_like(y, 0)
    # (a 0-d x, as promote_args leaves it, takes mod's shape for the select)
    x_full = broadcast_to_shape(x, core.get_aval(mod).shape)
    quot = lax.div(lax.select(lax.eq(y, zero), x_full, lax.sub(x, mod)), y)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(y), lax.sign(mod)))
    mod = lax.select(fix, lax.add(mod, y), mod)
    quot = lax.select(fix, lax.sub(quot, lax.full_like(quot, 1)), quot)
    return lax.round(quot), mod


def _nonzero_divisor(y):
    """Integer divisors of 0 replaced by 1, so x % 0 == fmod(x, 0) == 0 (JAX, NumPy)."""
    if not dtypes.is_int(core.get_aval(y).dtype):
        return y
    return lax.select(lax.eq(y, lax.full_like(y, 0)), lax.full_like(y, 1), y)


def remainder(x1, x2, /):
    x1, x2 = _promote_args_numeric("remainder", x1, x2)
    x2 = _nonzero_divisor(x2)
    r = lax.rem(x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.issubdtype(dt, np.unsignedinteger):
        return r
    zero = lax.full_like(r, 0)
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(x2, lax.full_like(x2, 0))))
    return lax.select(fix, lax.add(r, x2), r)


def fmod(x1, x2, /):
    x1, x2 = _promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, _nonzero_divisor(x2))


def divmod(x1, x2, /):  # noqa: A001
    x1, x2 = _promote_args_numeric("divmod", x1, x2)
    dt = core.get_aval(x1).dtype
    if dtypes.issubdtype(dt, np.integer):
        return floor_divide(x1, x2), remainder(x1, x2)
    _no_complex("divmod", dt)
    return _float_divmod(x1, x2)


def power(x1, x2, /):
    x1, x2 = asarray_operand(x1), asarray_operand(x2)
    # JAX's cases: (1) a concrete integer scalar exponent (a constant, or a 0-d Array as
    # JAX's concrete values; read before promotion, so a weak -1 stays -1) is
    # integer_pow's, the base alone promoted (bool to int); (2) an integer or bool base
    # is raised by squaring; (3) a floating base keeps its dtype and weak type under an
    # integer exponent (lax.pow takes both); (4) otherwise the promoted operands' lax.pow
    k = (getattr(x2, "known", None) if isinstance(x2, Tracer) else
         np.asarray(x2) if not hasattr(x2, "_buf") or np.ndim(x2) == 0 else None)
    if k is not None and np.ndim(k) == 0 and (dtypes.is_int(np.asarray(k).dtype)
                                              or np.asarray(k).dtype == np.bool_):
        [x1] = _numeric(promote_operands([x1]))
        return lax.integer_pow(x1, int(k))
    return _power(x1, x2)


def _power(x1, x2):
    """`power` but for a concrete integer exponent (cases 2-4): JAX's jitted `_power`."""
    xp, yp = _numeric(promote_args("power", x1, x2))
    if not dtypes.is_inexact(core.get_aval(xp).dtype):
        return _int_power(xp, yp)
    if dtypes.is_inexact(dtypes.dtype(x1)) and dtypes.is_int(dtypes.dtype(x2)):
        return lax.pow(*promote_shapes(x1, x2, name="power"))
    return lax.pow(xp, yp)


def _numeric(args):
    """Bool operands as int32, also under x64 (JAX's `promote_dtypes_numeric`)."""
    return [lax.convert_element_type(a, dtypes.int32, core.get_aval(a).weak_type)
            if core.get_aval(a).dtype == np.bool_ else a for a in args]


pow = power  # noqa: A001


def _int_power(x, y):
    """Integer x ** staged integer y by repeated squaring over y's low 6 bits (JAX's
    choice: a larger power overflows for any |x| > 1); 0 ** y is 0 for y != 0."""
    dt = core.get_aval(x).dtype  # strong constants, as JAX's: the result is strong
    shape = broadcast_shapes(core.get_aval(x).shape, core.get_aval(y).shape)
    x, y = broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)   # (a 0-d one too)
    zero_base = lax.bitwise_and(lax.eq(x, lax.full_like(x, 0)), lax.ne(y, lax.full_like(y, 0)))
    acc = lax.select(zero_base, lax.full_like(x, 0, dt), lax.full_like(x, 1, dt))
    base = x
    for _ in range(6):
        bit = lax.ne(lax.bitwise_and(y, lax.full_like(y, 1)), lax.full_like(y, 0))
        acc = lax.select(bit, lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        y = lax.shift_right_logical(y, lax.full_like(y, 1))
    return acc


def float_power(x, y, /):
    return lax.pow(*promote_args_inexact("float_power", x, y))  # as JAX: no wider dtype


def square(x, /) -> _typing.Array:
    [x] = _numeric(promote_operands([asarray_operand(x)]))
    return lax.square(x)


def reciprocal(x, /):
    [x] = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def rint(x, /):
    x = asarray_operand(x)
    if _integral(x):  # as JAX: the default float dtype, strong
        return lax.convert_element_type(x, dtypes.canonicalize(dtypes.float64))
    [x] = promote_operands([x])
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def _no_out(out, what):
    """JAX's NotImplementedError for an `out=` array (`what`: the function's name)."""
    if out is not None:
        raise NotImplementedInAstjaxError(f"The 'out' argument to {what} is not supported.",
                                          hint="use the returned array")


def around(a, decimals=0, out=None):
    _no_out(out, "jnp.round")
    decimals = _static_int(decimals, "'decimals' argument of jnp.round")   # (JAX's TypeError)
    a = asarray_operand(a)
    dt = core.get_aval(a).dtype
    if dtypes.is_int(dt):
        if decimals < 0:   # JAX's NotImplementedError
            raise NotImplementedInAstjaxError(
                "integer np.round not implemented for decimals < 0",
                hint="round a float copy: jnp.round(x.astype(float), decimals).astype(x.dtype)")
        return result(a)
    if dt == np.bool_:  # JAX's error (from finfo(bool))
        raise ArgumentValueError(f"data type {dt.type} not inexact",
                                 hint="round integer or floating values; cast bools first")
    if dtypes.issubdtype(dt, np.complexfloating):  # each part, as JAX
        return lax.complex(around(lax.real(a), decimals), around(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)
    f = 10.0 ** decimals
    return true_divide(lax.round(multiply(a, f), lax.RoundingMethod.TO_NEAREST_EVEN), f)


def isnan(x, /):
    [x] = promote_operands([asarray_operand(x)])
    return lax.ne(x, x)  # also for integers: False, weak for a weak x (as JAX)


def isinf(x, /):
    x = asarray_operand(x)
    dt = core.get_aval(x).dtype
    if not dtypes.is_inexact(dt):
        return full_bool(x, False)
    # as JAX: against a strong inf, a complex value part by part (|x| of finite parts
    # may overflow to inf)
    parts = [lax.real(x), lax.imag(x)] if dtypes.issubdtype(dt, np.complexfloating) else [x]
    tests = [lax.eq(lax.abs(p), _strong_const(p, np.inf)) for p in parts]
    return tests[0] if len(tests) == 1 else lax.bitwise_or(*tests)


def _is_signed_inf(x, inf, out):
    """x == inf against a strong inf (JAX's); complex values are an error there."""
    _no_out(out, "isneginf/isposinf")
    x = asarray_operand(x)
    dt = core.get_aval(x).dtype
    if dtypes.issubdtype(dt, np.complexfloating):
        raise ArgumentValueError("isposinf/isneginf are not well defined for complex types",
                                 hint="test the real and imaginary parts separately")
    if not dtypes.is_inexact(dt):
        return full_bool(x, False)
    return lax.eq(x, _strong_const(x, inf))


def isposinf(x, /, out=None):
    return _is_signed_inf(x, np.inf, out)


def isneginf(x, /, out=None):
    return _is_signed_inf(x, -np.inf, out)


def signbit(x, /):
    [x] = promote_operands([asarray_operand(x)])
    dt = core.get_aval(x).dtype
    if dtypes.is_int(dt):
        return lax.lt(x, lax.full_like(x, 0, dt))  # a strong result, as JAX's
    if dt == np.bool_:
        return full_bool(x, False)
    if not dtypes.is_float(dt):
        raise ArgumentValueError(f"jax.numpy.signbit is not well defined for {dt}",
                                 hint="apply it to the real and imaginary parts")
    # the sign bit itself (so -0.0 and -nan count as negative, as JAX's): the float's
    # bits read as a signed integer of its width are negative exactly when it is set
    bits = lax.bitcast_convert_type(x, np.dtype(f"int{np.dtype(dt).itemsize * 8}"))
    return lax.lt(bits, lax.full_like(bits, 0))


def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    _no_complex("copysign", core.get_aval(x1).dtype)
    return where(signbit(x2), negative(abs(x1)), abs(x1))


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """Elementwise choice: `x` where `condition` is true, else `y`.

    With only `condition`, returns the indices of its nonzero elements (as
    `nonzero`); under jit pass a static `size` (padding with `fill_value`).

    Args:
        condition: boolean array (broadcast with `x` and `y`).
        x, y: the values to choose from.
        size, fill_value: output length and padding for the one-argument form.

    Returns:
        An array of the broadcast shape and promoted dtype (or a tuple of index arrays).

    Example:
        >>> import astjax.numpy as jnp
        >>> jnp.where(jnp.array([True, False]), 1.0, 0.0)
        Array([1., 0.], dtype=float32, weak_type=True)
    """
    if x is None and y is None:
        return _nonzero(condition, size=size, fill_value=fill_value)
    if _is_key_array(x) or _is_key_array(y):
        return _keys_where(_truth(condition), x, y)
    return _where(condition, x, y)


def _truth(condition):
    condition = asarray_operand(condition)
    if core.get_aval(condition).dtype != dtypes.bool_:
        condition = not_equal(condition, 0)
    return condition


def _where(condition, x, y):
    """The three-operand `where` of numbers (JAX's jitted `_where`: staged, an inner `jit`
    equation)."""
    condition = _truth(condition)
    x, y = promote_operands([asarray_operand(x), asarray_operand(y)])
    # JAX broadcasts the three operands as `broadcast_arrays` does (a ValueError)
    # (a rank-0 condition is not broadcast: select takes it as it is, as JAX's)
    ops = (x, y) if not core.get_aval(condition).ndim else (condition, x, y)
    shapes = [core.get_aval(a).shape for a in ops]
    shape = broadcast_shapes(*shapes)
    layouts = (_broadcast_layouts(ops, shape) if len(set(shapes)) > 1
               else (None,) * 3)   # (JAX's broadcast_shardings: Explicit layouts)
    ops = [broadcast_to_shape(a, shape, s) for a, s in zip(ops, layouts)]
    condition, x, y = ops if len(ops) == 3 else [condition, *ops]
    return lax.select(condition, x, y)


def _is_complex(v):
    return dtypes.issubdtype(core.get_aval(asarray_operand(v)).dtype, np.complexfloating)


_is_key_array = dtypes.has_extended_dtype


def _typed_keys(arrays):
    """Whether `arrays` are arrays of an extended dtype (typed PRNG keys, a user dtype
    with rules), all of them; a mix of them and numbers is JAX's ValueError."""
    keys = [_is_key_array(a) for a in arrays]
    if any(keys) and not all(keys):
        dt = next(a.dtype for a in arrays if _is_key_array(a))
        raise ArgumentValueError(f"dtype={dt!r} is not a valid dtype for JAX type promotion.",
                                 hint="arrays of an extended dtype join only with arrays of "
                                      "that dtype (convert the others to it first)")
    return all(keys)


def _key_astype(x, dtype, copy):
    """`astype` where `x` or `dtype` is of typed keys: only to the keys' own dtype
    (keys are not numbers; JAX's ValueError otherwise)."""
    if getattr(x, "dtype", None) != dtype:
        raise ArgumentValueError(f"Cannot convert_element_type from "
                                 f"{_dtype_name(getattr(x, 'dtype', None))} to "
                                 f"{_dtype_name(dtype)}",
                                 hint="random.key_data / random.wrap_key_data convert "
                                      "between keys and their uint32 data")
    return x.copy() if copy else x


def _dtype_name(dt):
    return str(dt) if dt is None or isinstance(dt, dtypes.ExtendedDType) \
        else np.dtype(dtypes.canonicalize(dt)).name


def astype(x, dtype, /, *, copy=False, device=None):
    """Cast `x` to `dtype`.
    Args: x: array; dtype: target dtype; copy: a new array even when the dtype is
        already `dtype`; device: where to put the result (a Device or Sharding).
    Returns: Array of dtype `dtype` (canonicalized: 64-bit types need x64).
    Vs NumPy: complex to real or integer keeps the real part with JAX's
    DeprecationWarning (NumPy: a ComplexWarning); complex to bool is `x != 0`."""
    if dtypes.is_user_extended(dtype) or dtypes.is_user_extended(getattr(x, "dtype", None)):
        return lax.convert_element_type(x, dtype)   # to / from its representation dtype
    if _is_key_array(x) or isinstance(dtype, dtypes.ExtendedDType):
        return _key_astype(x, dtype, copy)
    x = asarray_operand(x)
    if type(x) is complex:   # an array first, as JAX's (not NumPy's scalar TypeError)
        x = result(x)
    aval = core.get_aval(x)
    dt = dtypes.canonicalize(dtypes.float64) if dtype is None else _dtype(dtype)
    if getattr(aval.dtype, "kind", None) == "c" and dt.kind != "c":
        if dt == np.bool_:   # a truth value, as JAX's (not the real part's)
            x = lax.ne(x, lax.full_like(x, 0))
            aval = core.get_aval(x)
        else:
            user_warnings.warn(_ASTYPE_COMPLEX_TO_REAL, DeprecationWarning)
    x = _convert(x, dt, warn_on_complex_to_real_cast=False)  # (warned above; the same
    # type: the operand itself, except where JAX's converts it, `structural.concrete_to_jax`)
    return asarray(x, copy=copy, device=device)


_ASTYPE_COMPLEX_TO_REAL = ("Casting from complex to real dtypes will soon raise a ValueError. "
                           "Please first use jnp.real or jnp.imag to take the real/imaginary "
                           "component of your input.")


def _keys_where(condition, x, y):
    """`where` over arrays of one extended dtype (typed keys, a user dtype: JAX selects
    them as it selects numbers): the three broadcast, the cases selected on their data
    (`lax.select` of them)."""
    for a in (x, y):
        if not _is_key_array(a) or a.dtype != x.dtype:
            key_dtype = x.dtype if _is_key_array(x) else y.dtype
            raise ArgumentValueError(f"dtype={key_dtype!r} is not a valid dtype for JAX type "
                                     "promotion.",
                                     hint="both choices must be arrays of one extended dtype")
    shape = broadcast_shapes(core.get_aval(condition).shape, x.shape, y.shape)
    return lax.select(broadcast_to_shape(condition, shape), broadcast_to_shape(x, shape),
                      broadcast_to_shape(y, shape))


def clip(arr=None, /, min=None, max=None) -> _typing.Array:  # noqa: A002
    if arr is None:  # JAX's ValueError (arr is optional only in the signature)
        raise ArgumentValueError("No input was provided to the clip function.",
                                 hint="pass the array to clip first: jnp.clip(x, lo, hi)")
    lo, hi = min, max
    a = asarray_operand(arr)
    if any(_is_complex(v) for v in (a, lo, hi) if v is not None):
        raise ArgumentValueError("clip received a complex value (the input or a bound); "
                                 "complex values have no ordering and cannot be clipped",
                                 hint="clip jnp.real(x) / jnp.imag(x) instead")
    if lo is not None:
        a = maximum(lo, a)
    if hi is not None:
        a = minimum(hi, a)
    return result(a)


def hypot(x1, x2, /):
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if dtypes.issubdtype(core.get_aval(x1).dtype, np.complexfloating):
        raise ArgumentValueError("jnp.hypot is not well defined for complex-valued inputs",
                                 hint="convert to real values first, e.g. with abs(x1)")
    # as JAX's: max * sqrt(1 + (min / max)**2), no overflow of the squares; inf where
    # either is infinite (also against a NaN), 0 where both are 0
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    hi, lo = maximum(x1, x2), minimum(x1, x2)
    zero = lax.eq(hi, _lax_const(hi, 0))
    r = lax.mul(hi, lax.sqrt(lax.add(_lax_const(hi, 1), lax.square(
        lax.div(lo, where(zero, lax.full_like(hi, 1), hi))))))
    return where(inf, _lax_const(r, np.inf), where(zero, hi, r))


def deg2rad(x, /):
    [x] = promote_args_inexact("deg2rad", x)
    return lax.mul(x, _lax_const(x, np.pi / 180))


def rad2deg(x, /):
    [x] = promote_args_inexact("rad2deg", x)
    return lax.mul(x, _lax_const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def log2(x, /):
    [x] = promote_args_inexact("log2", x)
    # as JAX's: divided by log(2) computed by XLA, a complex value part by part
    r = lax.log(x)
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(_strong_const(re, 2))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(r, lax.log(_strong_const(x, 2)))


def _strong_const(x, v):
    """`v` as a strong scalar of x's dtype (JAX's `_constant_like`)."""
    return np.asarray(v, core.get_aval(x).dtype)[()]


def _lax_const(x, v):
    """`v` like x, as JAX's `lax._const`: a weak Python scalar where x is a weak 0-d value
    of its kind's default dtype, a strong scalar of x's dtype otherwise."""
    aval = core.get_aval(x)
    if aval.weak_type and aval.ndim == 0:
        py = dtypes.scalar_type_of(aval.dtype)(v)
        if dtypes.python_scalar_dtype(py) == aval.dtype:
            return py
    return _strong_const(x, v)


def log10(x, /):
    [x] = promote_args_inexact("log10", x)
    # as JAX's: multiplied by 1 / log(10) in the real dtype, a complex value part by part
    r = lax.log(x)
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        re, im = lax.real(r), lax.imag(r)
        k = _strong_const(re, 0.4342944819032518)
        return lax.complex(lax.mul(re, k), lax.mul(im, k))
    return lax.mul(r, _strong_const(x, 0.4342944819032518))


def logaddexp(x, y, /):
    x, y = promote_args_inexact("logaddexp", x, y)
    return _logaddexp(x, y)


@_custom_jvp
def _logaddexp(x, y):
    """JAX's logaddexp: log1p(exp(-|x - y|)) above the larger operand, with its JVP
    (`exp(x - out)` per operand, not the derivative of this formula: their bits differ)."""
    amax = maximum(x, y)
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        # the principal branch, as JAX: the phase is brought back into [-pi, pi); its
        # constants are JAX's (strong but for a weak scalar), so so is the weak type
        out = add(amax, log1p(exp(subtract(add(x, y), multiply(amax, _lax_const(amax, 2))))))
        im = lax.imag(out)
        phase = subtract(remainder(add(im, _lax_const(im, np.pi)), _lax_const(im, 2 * np.pi)),
                         _lax_const(im, np.pi))
        return lax.complex(lax.real(out), phase)
    delta = subtract(x, y)
    return where(isnan(delta), add(x, y), add(amax, log1p(exp(negative(absolute(delta))))))


def logaddexp2(x, y, /):
    x, y = promote_args_inexact("logaddexp2", x, y)
    return _logaddexp2(x, y)


@_custom_jvp
def _logaddexp2(x, y):
    """JAX's logaddexp2 in base 2 throughout (exp2, then log1p scaled by 1/ln 2: not the
    natural logaddexp rescaled, whose bits differ), with its JVP."""
    amax = lax.max(x, y)
    inv_ln2 = _lax_const(amax, 1 / np.log(2))
    if not dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        delta = lax.sub(x, y)
        return lax.select(lax.ne(delta, delta), lax.add(x, y),   # NaN, or infs of one sign
                          lax.add(amax, lax.mul(inv_ln2, lax.log1p(lax.exp2(
                              lax.neg(lax.abs(delta)))))))
    delta = lax.sub(lax.add(x, y), lax.mul(amax, _lax_const(amax, 2)))
    out = lax.add(amax, lax.mul(inv_ln2, lax.log1p(lax.exp2(delta))))
    im, half = lax.imag(out), np.pi / np.log(2)   # the phase wrapped into [-half, half)
    r = lax.rem(lax.add(im, _lax_const(im, half)), _lax_const(im, 2 * half))
    r = lax.select(lax.lt(r, _lax_const(r, 0)), lax.add(r, _lax_const(r, 2 * half)), r)
    return lax.complex(lax.real(out), lax.sub(r, _lax_const(r, half)))


def _finite_at_posinf(x):
    """x with 0 where its real part is +inf (the JVP's exponent is then finite)."""
    re = lax.real(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x
    return lax.select(lax.eq(re, _lax_const(re, np.inf)), lax.full_like(x, 0), x)


def _logaddexp_jvp_in(exp, logaddexp):
    """JAX's JVP of logaddexp (exp = lax.exp) / logaddexp2 (lax.exp2): each tangent
    scaled by exp(operand - out), an infinite operand or output counting as 0."""
    def jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = logaddexp(x, y)
        o = _finite_at_posinf(out)
        return out, lax.add(lax.mul(tx, exp(lax.sub(_finite_at_posinf(x), o))),
                            lax.mul(ty, exp(lax.sub(_finite_at_posinf(y), o))))
    return jvp


_logaddexp.defjvp(_logaddexp_jvp_in(lax.exp, _logaddexp))
_logaddexp2.defjvp(_logaddexp_jvp_in(lax.exp2, _logaddexp2))


def sinc(x, /):
    [x] = promote_args_inexact("sinc", x)
    at_zero = lax.eq(x, _lax_const(x, 0))
    pix = lax.mul(_lax_const(x, np.pi), x)
    safe = where(at_zero, _lax_const(x, 1), pix)
    # at 0 the Maclaurin series, whose custom JVP gives every derivative there (JAX's)
    return where(at_zero, _sinc_maclaurin(0, pix), lax.div(lax.sin(safe), safe))


@functools.partial(_custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The k-th derivative of sin(x) / x at 0, shaped and typed like x."""
    if k % 2:
        return lax.mul(x, _lax_const(x, 0))
    return lax.add(lax.mul(x, _lax_const(x, 0)), _lax_const(x, (-1) ** (k // 2) / (k + 1)))


def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


_sinc_maclaurin.defjvp(_sinc_maclaurin_jvp)


def heaviside(x1, x2, /):
    x1, x2 = promote_args_inexact("heaviside", x1, x2, shapes=False)
    # lax's order, as JAX's: complex operands are a TypeError (before any shape error,
    # which `where` raises: a ValueError)
    zero = _lax_const(x1, 0)
    # as JAX: 0 / 1 of x1's dtype (strong but for a weak 0-d x1), and NaN where x1 is
    # NaN (not x2)
    one = _lax_const(x1, 1)
    return where(lax.lt(x1, zero), zero, where(lax.gt(x1, zero), one,
                                               where(lax.ne(x1, x1), x1, x2)))


def fmax(x1, x2):
    return where(isnan(x2), x1, where(isnan(x1), x2, maximum(x1, x2)))


def fmin(x1, x2):
    return where(isnan(x2), x1, where(isnan(x1), x2, minimum(x1, x2)))


# docstrings of the functions defined with `def` above (ufunc_docs.py holds the text)
for _f in (trunc, abs, invert, logical_not, left_shift, right_shift, floor_divide, remainder,
           fmod, divmod, power, float_power, square, reciprocal, rint, around, isnan, isinf, isposinf, isneginf,
           signbit, copysign, where, clip, hypot, deg2rad, rad2deg, log2, log10, logaddexp,
           logaddexp2, sinc, heaviside, fmax, fmin):
    _f.__doc__ = _doc(_f.__name__)
del _f
# the composite ones JAX jits: an eager first call compiles once, not once per operation
(logaddexp, logaddexp2, divmod, remainder, floor_divide, copysign, fmax, fmin, heaviside, hypot,
 sinc, signbit, trunc, logical_and, logical_or, logical_xor, logical_not, fmod, _power,
 float_power, isinf, isposinf, isneginf, log2, log10, left_shift, right_shift,
 square, reciprocal, rint, isnan, abs, invert) = map(_library_jit, (
    logaddexp, logaddexp2, divmod, remainder, floor_divide, copysign, fmax, fmin, heaviside,
    hypot, sinc, signbit, trunc, logical_and, logical_or, logical_xor, logical_not, fmod, _power,
    float_power, isinf, isposinf, isneginf, log2, log10, left_shift,
    right_shift, square, reciprocal, rint, isnan, abs, invert))
# (staged, these two are inner `jit` equations, as JAX's `clip` and `_where`)
clip, _where = (_library_jit(f, keep_call=True) for f in (clip, _where))
around = _library_jit(around, static_argnames=("decimals",))
round = around  # noqa: A001
absolute, bitwise_not, bitwise_invert, bitwise_left_shift, bitwise_right_shift = (
    abs, invert, invert, left_shift, right_shift)
mod = remainder   # (its alias: `jnp.mod`)
