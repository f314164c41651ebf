"""Comparison, logic and small elementwise helpers: isclose/allclose, array_equal,
isin, select/piecewise, nan_to_num, ldexp/frexp/modf, gcd/lcm, angle, dtype
predicates (promote_types, can_cast, isdtype, iscomplexobj, ...)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentValueError, DTypeError
from . import ufuncs as uf
from .operands import array, asarray, result
from .reductions import all as _all, any as _any, sum as _sum
from .shapes import ravel, reshape
from .ufuncs import asarray_operand, promote_args, promote_args_inexact, where
from .util import _Direct, library_jit

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isin", "select", "piecewise",
           "nan_to_num", "ldexp", "frexp", "modf", "gcd", "lcm", "angle", "iscomplex",
           "isreal", "iscomplexobj", "isrealobj", "isscalar", "iterable", "promote_types",
           "can_cast", "isdtype", "count_nonzero", "bitwise_count", "copy", "spacing",
           "issubsctype", "i0"]


def _dt(x):
    return core.get_aval(x).dtype


@library_jit(static_argnums=(4,), static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = promote_args("isclose", a, b)
    dt = _dt(a)
    if not dtypes.is_inexact(dt):
        return lax.eq(a, b)
    rdt = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)
    rtol = lax.convert_element_type(rtol, rdt)
    atol = lax.convert_element_type(atol, rdt)
    out = lax.le(uf.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, uf.abs(b))))
    a_inf, b_inf = uf.isinf(a), uf.isinf(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_inf, b_inf)))
    out = lax.bitwise_or(out, lax.bitwise_and(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b)))
    a_nan, b_nan = lax.ne(a, a), lax.ne(b, b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_nan, b_nan)))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(a_nan, b_nan))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray_operand(a1), asarray_operand(a2)
    if core.get_aval(a1).shape != core.get_aval(a2).shape:
        return asarray(False)
    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_inexact(_dt(a1)):
        eq = lax.bitwise_or(eq, lax.bitwise_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return _all(eq)


def array_equiv(a1, a2):
    a1, a2 = asarray_operand(a1), asarray_operand(a2)
    try:
        uf.broadcast_shapes(core.get_aval(a1).shape, core.get_aval(a2).shape)
    except Exception:
        return asarray(False)
    return _all(uf.equal(a1, a2))


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    element = asarray_operand(element)
    t = ravel(asarray_operand(test_elements))
    e_shape = core.get_aval(element).shape
    e = reshape(element, e_shape + (1,))
    out = _any(uf.equal(e, t), axis=-1)
    return uf.logical_not(out) if invert else out


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ArgumentValueError("select: condlist and choicelist must have the same length, got "
                                 f"{len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise ArgumentValueError("select: condlist must not be empty")
    out = default
    for c, v in reversed(list(zip(condlist, choicelist))):
        c = asarray_operand(c)
        if _dt(c) != dtypes.bool_:
            raise DTypeError(f"select: condlist entries must be boolean, got {_dt(c)}")
        out = where(c, v, out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluates every function on all of x and selects per element (pure functions)."""
    x = asarray_operand(x)
    if not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    n = len(condlist)
    if len(funclist) not in (n, n + 1):
        raise ArgumentValueError(f"piecewise: {n} conditions need {n} or {n + 1} functions")
    dt = _dt(x)

    def value(f):
        v = f(x, *args, **kw) if callable(f) else f
        return lax.convert_element_type(uf.broadcast_to_shape(asarray_operand(v) if not
                                                               dtypes.is_weak_scalar(v) else
                                                               lax.full(core.get_aval(x).shape, v, dt),
                                                               core.get_aval(x).shape), dt)
    out = value(funclist[n]) if len(funclist) == n + 1 else lax.full_like(x, 0)
    for c, f in reversed(list(zip(condlist, funclist[:n]))):
        out = where(c, value(f), out)
    return out


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = asarray_operand(x)
    dt = _dt(x)
    if not dtypes.is_inexact(dt):
        return result(x)
    if dtypes.issubdtype(dt, np.complexfloating):
        re = nan_to_num(uf.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(uf.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(dt)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(uf.isnan(x), np.asarray(nan, dt)[()], x)
    out = where(uf.isposinf(out), np.asarray(posinf, dt)[()], out)
    return where(uf.isneginf(out), np.asarray(neginf, dt)[()], out)


def ldexp(x1, x2, /):
    x1 = asarray_operand(x1)
    x2 = asarray_operand(x2)
    if not dtypes.is_int(_dt(x2)) and not (dtypes.is_weak_scalar(x2) and isinstance(x2, int)):
        raise DTypeError(f"ldexp: the exponent must be an integer, got {_dt(x2)}")
    [x1] = promote_args_inexact("ldexp", x1)
    dt = _dt(x1)
    e = lax.convert_element_type(x2, dt) if not dtypes.is_weak_scalar(x2) else float(x2)
    # two steps keep 2**e finite when x1 * 2**e is (e.g. subnormal x1, large e)
    half = uf.floor_divide(e, 2.0)
    return uf.multiply(uf.multiply(x1, uf.exp2(half)), uf.exp2(uf.subtract(e, half)))


@library_jit
def frexp(x, /):
    [x] = promote_args_inexact("frexp", x)
    dt = _dt(x)
    ax = uf.abs(x)
    finite_nz = lax.bitwise_and(lax.is_finite(x), lax.ne(x, np.asarray(0, dt)[()]))
    safe = where(finite_nz, ax, np.asarray(1, dt)[()])
    e = uf.add(uf.floor(uf.log2(safe)), 1.0)
    m = uf.true_divide(x, uf.exp2(e))
    big = uf.greater_equal(uf.abs(m), 1.0)
    m, e = where(big, uf.true_divide(m, 2.0), m), where(big, uf.add(e, 1.0), e)
    small = lax.bitwise_and(uf.less(uf.abs(m), 0.5), finite_nz)
    m, e = where(small, uf.multiply(m, 2.0), m), where(small, uf.subtract(e, 1.0), e)
    idt = dtypes.int32
    e = where(finite_nz, lax.convert_element_type(e, idt), np.int32(0))
    m = where(finite_nz, m, x)
    return m, e


def modf(x, /, out=None):
    [x] = promote_args_inexact("modf", x)
    whole = uf.trunc(x)
    return uf.subtract(x, whole), whole


def _int_args(name, x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    if not dtypes.is_int(_dt(x1)):
        raise DTypeError(f"{name} needs integer arguments, got {_dt(x1)}")
    return x1, x2


@library_jit
def gcd(x1, x2, /):
    x1, x2 = _int_args("gcd", x1, x2)
    a, b = uf.abs(x1), uf.abs(x2)
    zero = lax.full_like(a, 0)

    def cond(ab):
        return lax.reduce_or(lax.ne(ab[1], zero), tuple(range(len(_shape(ab[1])))))

    def body(ab):  # one Euclid step where b != 0
        a, b = ab
        nz = lax.ne(b, zero)
        safe_b = where(nz, b, lax.full_like(b, 1))
        return where(nz, b, a), where(nz, lax.rem(a, safe_b), zero)
    return lax.while_loop(_Direct(cond), _Direct(body), (a, b))[0]


def _shape(x):
    return core.get_aval(x).shape


@library_jit
def lcm(x1, x2, /):
    x1, x2 = _int_args("lcm", x1, x2)
    d = gcd(x1, x2)
    zero = lax.full_like(d, 0)
    safe = where(lax.eq(d, zero), lax.full_like(d, 1), d)
    return where(lax.eq(d, zero), zero, uf.abs(uf.multiply(uf.floor_divide(x1, safe), x2)))


def angle(z, deg=False):
    z = asarray_operand(z)
    if dtypes.issubdtype(_dt(z), np.complexfloating):
        re, im = lax.real(z), lax.imag(z)
    else:
        [re] = promote_args_inexact("angle", z)
        im = lax.full_like(re, 0)
    out = lax.atan2(im, re)
    return uf.rad2deg(out) if deg else out


def iscomplex(x):
    x = asarray_operand(x)
    if dtypes.issubdtype(_dt(x), np.complexfloating):
        return lax.ne(lax.imag(x), np.asarray(0, dtypes.finfo(_dt(x)).dtype)[()])
    return uf.full_bool(x, False)


def isreal(x):
    return uf.logical_not(iscomplex(x))


def iscomplexobj(x):
    if x is None:
        return False
    try:
        dt = dtypes.dtype(x)
    except TypeError:
        dt = np.asarray(x).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def isscalar(element):
    if isinstance(element, (bool, int, float, complex, np.generic)):
        return True
    a = getattr(element, "aval", None)
    return a is not None and a.ndim == 0


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


def promote_types(a, b):
    """The JAX promotion of two dtypes (no x64 canonicalization, as jnp.promote_types)."""
    na, nb = dtypes._node(dtypes.dtype(a), False), dtypes._node(dtypes.dtype(b), False)
    return dtypes._FROM_KEY[dtypes._join(frozenset({na, nb}))]


def can_cast(from_, to, casting="safe"):
    f = dtypes.dtype(from_) if not hasattr(from_, "aval") else _dt(from_)
    return bool(np.can_cast(f, dtypes.dtype(to), casting))


_KINDS = {"bool": lambda d: d == dtypes.bool_,
          "signed integer": lambda d: dtypes.issubdtype(d, np.signedinteger),
          "unsigned integer": lambda d: dtypes.issubdtype(d, np.unsignedinteger),
          "integral": lambda d: dtypes.is_int(d),
          "real floating": lambda d: dtypes.is_float(d),
          "complex floating": lambda d: dtypes.issubdtype(d, np.complexfloating),
          "numeric": lambda d: d != dtypes.bool_}


def isdtype(dtype, kind):
    d = dtypes.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise ArgumentValueError(f"isdtype: unknown kind {k!r}")
            if _KINDS[k](d):
                return True
        elif d == dtypes.dtype(k):
            return True
    return False


def issubsctype(arg1, arg2):
    return dtypes.issubdtype(dtypes.dtype(arg1), arg2)


def count_nonzero(a, axis=None, keepdims=False):
    a = asarray_operand(a)
    return _sum(lax.ne(a, lax.full_like(a, 0)), axis=axis, keepdims=keepdims,
                dtype=dtypes.canonicalize(dtypes.dtype(int)))


def bitwise_count(x, /):
    x = asarray_operand(x)
    return lax.convert_element_type(lax.population_count(uf.abs(x)), dtypes.uint8)


def copy(a, order=None):
    return array(a, copy=True)


def spacing(x, /):
    [x] = promote_args_inexact("spacing", x)
    dt = _dt(x)
    toward = where(uf.signbit(x), np.asarray(-np.inf, dt)[()], np.asarray(np.inf, dt)[()])
    return uf.subtract(lax.nextafter(x, toward), x)


@library_jit
def i0(x):
    """Modified Bessel function of order 0 (power series; accurate for |x| <~ 10)."""
    [x] = promote_args_inexact("i0", x)
    ax = uf.abs(x)
    y = uf.multiply(ax, 0.5)
    y2 = uf.multiply(y, y)
    term = lax.full_like(x, 1)
    total = lax.full_like(x, 1)
    for k in range(1, 32):
        term = uf.multiply(term, uf.true_divide(y2, float(k * k)))
        total = uf.add(total, term)
    return total
