"""Comparison, logic and small elementwise helpers: isclose/allclose, array_equal,
isin, select/piecewise, nan_to_num, ldexp/frexp/modf, gcd/lcm, angle, dtype
predicates (promote_types, can_cast, isdtype, iscomplexobj, ...)."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..ad_api import jvp
from ..batching_api import vmap
from ..custom_api import custom_jvp as _custom_jvp
from ..errors import ArgumentValueError
from . import ufuncs as uf
from .operands import array, asarray, broadcast_shapes, broadcast_to_shape, result
from .reductions import all as _all, any as _any, sum as _sum
from .shapes import ravel, _reshape as reshape
from .ufuncs import asarray_operand, promote_args, promote_args_inexact, where
from .util import _Direct, library_jit

__all__ = ["isclose", "allclose", "array_equal", "array_equiv", "isin", "select", "piecewise",
           "nan_to_num", "ldexp", "frexp", "modf", "gcd", "lcm", "angle", "iscomplex",
           "isreal", "iscomplexobj", "isrealobj", "isscalar", "iterable", "promote_types",
           "can_cast", "isdtype", "count_nonzero", "bitwise_count", "copy", "spacing",
           "i0"]


def _dt(x):
    return core.get_aval(x).dtype


@library_jit(static_argnums=(4,), static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise test of whether `a` and `b` agree within a tolerance.

    Args:
      a, b: arrays or scalars, broadcast together.
      rtol: relative tolerance, scaled by |b|.
      atol: absolute tolerance.
      equal_nan: (static) whether two NaNs count as close.

    Returns:
      A bool array: |a - b| <= atol + rtol * |b| (infinities must match exactly).

    Differences from NumPy: the operands are compared in their promoted inexact dtype
    (integers too, as JAX's) and the tolerances are cast to its real dtype, so in
    float32 they are rounded to float32.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.isclose(jnp.array([1.0, 1.1, jnp.nan]), 1.0)
      Array([ True, False, False], dtype=bool)
      >>> jnp.isclose(jnp.nan, jnp.nan, equal_nan=True)
      Array(True, dtype=bool)
    """
    if dtypes.has_extended_dtype(a) or dtypes.has_extended_dtype(b):
        return uf.equal(a, b)   # typed PRNG keys compare exactly, as JAX's
    # as JAX: integers too are compared in the inexact type (so 2**24 + 1 is close to
    # 2**24 in float32); equal, or |a - b| within the tolerance and b finite
    a, b = promote_args_inexact("isclose", *promote_args("isclose", a, b))
    dt = _dt(a)
    rdt = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)
    rtol = lax.convert_element_type(rtol, rdt)
    atol = lax.convert_element_type(atol, rdt)
    near = lax.le(uf.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, uf.abs(b))))
    out = uf.logical_or(lax.eq(a, b), uf.logical_and(uf.isfinite(b), near))
    if equal_nan:
        out = uf.logical_or(out, uf.logical_and(uf.isnan(a), uf.isnan(b)))
    return out


@library_jit(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element pair of `a` and `b` is close (`all(isclose(...))`).

    Args:
      a, b: arrays or scalars, broadcast together.
      rtol, atol, equal_nan: as for `isclose`.

    Returns:
      A 0-d bool Array (not a Python bool).

    Differences from NumPy: returns an Array, so it can be used under `jit`; converting it
    to a Python bool needs a concrete value.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.allclose(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0000001]))
      Array(True, dtype=bool)
    """
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether two arrays have the same shape and equal elements.

    Args:
      a1, a2: arrays or scalars.
      equal_nan: whether NaNs in the same positions count as equal.

    Returns:
      A 0-d bool Array; False when the shapes differ.

    Differences from NumPy: the result is an Array rather than a Python bool.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.array_equal(jnp.array([1, 2]), jnp.array([1, 2]))
      Array(True, dtype=bool)
    """
    if dtypes.has_extended_dtype(a1) or dtypes.has_extended_dtype(a2):   # typed keys
        return asarray(False) if np.shape(a1) != np.shape(a2) else _all(uf.equal(a1, a2))
    a1, a2 = asarray_operand(a1), asarray_operand(a2)
    if core.get_aval(a1).shape != core.get_aval(a2).shape:
        return asarray(False)
    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_inexact(_dt(a1)):
        eq = lax.bitwise_or(eq, lax.bitwise_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return _all(eq)


def array_equiv(a1, a2):
    """Whether two arrays are equal after broadcasting them together.

    Args:
      a1, a2: arrays or scalars.

    Returns:
      A 0-d bool Array; False when the shapes do not broadcast.

    Differences from NumPy: the result is an Array rather than a Python bool.
    """
    if not (dtypes.has_extended_dtype(a1) or dtypes.has_extended_dtype(a2)):  # (typed keys)
        a1, a2 = asarray_operand(a1), asarray_operand(a2)
    try:
        uf.broadcast_shapes(np.shape(a1), np.shape(a2))
    except Exception:
        return asarray(False)
    return _all(uf.equal(a1, a2))


@library_jit(static_argnames=("assume_unique", "invert", "method"))
def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Elementwise test of membership of `element` in `test_elements`.

    Args:
      element: an array of values to look up.
      test_elements: the values to look for (flattened).
      assume_unique: accepted for NumPy compatibility; ignored.
      invert: return the negated test.
      method: accepted for JAX compatibility; a broadcast comparison is always used.

    Returns:
      A bool array of element's shape.

    Differences from NumPy: computed as one (element.size x test_elements.size) comparison,
    so memory grows with the product of the sizes.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.isin(jnp.array([1, 2, 3]), jnp.array([2, 3]))
      Array([False,  True,  True], dtype=bool)
    """
    element = asarray_operand(element)
    t = ravel(asarray_operand(test_elements))
    e_shape = core.get_aval(element).shape
    e = reshape(element, e_shape + (1,))
    out = _any(uf.equal(e, t), axis=-1)
    return uf.logical_not(out) if invert else out


def select(condlist, choicelist, default=0):
    """Pick, per element, the value from the first choice whose condition is true.

    Args:
      condlist: a sequence of bool arrays.
      choicelist: a sequence of arrays/scalars, one per condition.
      default: the value where no condition holds.

    Returns:
      An array of the promoted dtype of the choices and `default`.

    Differences from NumPy: as in JAX, a condition of any dtype is taken (nonzero is
    true) and the lists must be non-empty; every choice is computed in full.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.select([jnp.array([True, False]), jnp.array([False, True])], [1, 2])
      Array([1, 2], dtype=int32, weak_type=True)
    """
    if len(condlist) != len(choicelist):
        raise ArgumentValueError("select: condlist and choicelist must have the same length, got "
                                 f"{len(condlist)} and {len(choicelist)}")
    if len(condlist) == 0:
        raise ArgumentValueError("select: condlist must not be empty")
    conds = [asarray_operand(c) for c in condlist]
    # JAX, unlike NumPy, takes conditions of any dtype: it stacks them (promoting them to
    # one dtype, where a weak 1e-30 beside float16 is 0) and tests them for nonzero
    common = dtypes.result_type(*conds)
    out = default
    for c, v in reversed(list(zip(conds, choicelist))):
        if common != dtypes.bool_:
            c = lax.ne(lax.convert_element_type(c, common), lax.full((), 0, common))
        out = where(c, v, out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluate a piecewise-defined function of `x`.

    Args:
      x: the input array.
      condlist: a bool array or a list of them, one per piece.
      funclist: one function or constant per condition, plus optionally a default one.
      *args, **kw: extra arguments passed to every function.

    Returns:
      An array of x's dtype and shape.

    Differences from NumPy: as JAX, `condlist` is read as one bool array whose leading
    entries are the conditions (where several hold, the last wins), and each function is
    mapped over the elements (it sees scalars); every function runs on every element,
    so the functions must be pure and safe on every input.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.piecewise(jnp.array([-1.0, 2.0]), [jnp.array([True, False])],
      ...               [lambda x: -x, lambda x: x * 10])
      Array([ 1., 20.], dtype=float32)
    """
    x = asarray_operand(x)
    conds = asarray(condlist, dtype=np.bool_)   # (as JAX: one condition per leading entry)
    n, nf = (core.get_aval(conds).shape or (1,))[0], len(funclist)
    if nf not in (n, n + 1):
        raise ArgumentValueError(f"with {n} condition(s), either {n} or {n + 1} functions "
                                 f"are expected; got {nf}")
    funclist = [funclist[-1], *funclist[:-1]] if nf == n + 1 else [0, *funclist]
    dt, shape = _dt(x), core.get_aval(x).shape
    # which piece each element takes: the last condition holding (0: the default)
    which = lax.full((), 0, np.int32)
    for i in range(n):
        which = where(lax.index_in_dim(conds, i, 0, False), np.int32(i + 1), which)
    shape = broadcast_shapes(shape, core.get_aval(which).shape)
    which, xs = broadcast_to_shape(which, shape), broadcast_to_shape(x, shape)

    def piece(f):
        if callable(f):
            return lambda v: lax.convert_element_type(asarray(f(v, *args, **kw)), dt)
        return lambda v: lax.convert_element_type(asarray(f), dt)
    pieces = [piece(f) for f in funclist]
    size = int(np.prod(shape, dtype=np.int64))
    # as JAX: each function sees one element at a time (a switch mapped over them)
    out = vmap(lambda i, v: lax.switch(i, pieces, v))(lax.reshape(which, (size,)),
                                                      lax.reshape(xs, (size,)))
    return lax.reshape(out, shape)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN and infinities by finite numbers.

    Args:
      x: an array.
      copy: accepted for NumPy compatibility; a new array is always returned.
      nan: the value for NaN.
      posinf, neginf: the values for +inf / -inf (default: the dtype's largest / lowest).

    Returns:
      An array of x's dtype; non-float inputs are returned unchanged.

    Differences from NumPy: never modifies `x` in place (`copy=False` still copies); the
    default replacements are the limits of x's dtype (float32 unless x64 is on).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf, 1.0]))
      Array([0.0000000e+00, 3.4028235e+38, 1.0000000e+00], dtype=float32)
    """
    if uf._is_key_array(x):   # (JAX: typed keys, like any non-float input, unchanged)
        return x
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


@library_jit
def ldexp(x1, x2, /):
    """Elementwise x1 * 2 ** x2.

    Args:
      x1: the mantissas (array or scalar).
      x2: the integer exponents.

    Returns:
      A floating array.

    Differences from NumPy: integer x1 becomes the default float (float32 without x64);
    a complex mantissa or an inexact exponent raises a ValueError (as JAX).
    """
    x1 = asarray_operand(x1)
    x2 = asarray_operand(x2)
    if dtypes.issubdtype(_dt(x1), np.complexfloating) or dtypes.is_inexact(_dt(x2)):
        raise ArgumentValueError(f"ldexp not supported for input types {(_dt(x1), _dt(x2))}",
                                 hint="ldexp takes real mantissas and integer exponents")
    [x1] = promote_args_inexact("ldexp", x1)
    dt = _dt(x1)
    e = lax.convert_element_type(x2, dt)   # (strong, as JAX's: the result is never weak)
    # two steps keep 2**e finite when x1 * 2**e is (e.g. subnormal x1, large e)
    half = uf.floor_divide(e, 2.0)
    return uf.multiply(uf.multiply(x1, uf.exp2(half)), uf.exp2(uf.subtract(e, half)))


@library_jit
def frexp(x, /):
    """Split each element into a mantissa in [0.5, 1) and a power of two.

    Args:
      x: an array or scalar.

    Returns:
      A tuple (mantissa, exponent) with x == mantissa * 2 ** exponent; the exponent is int32.

    Differences from NumPy: integer inputs become the default float; 0, inf and NaN give
    themselves as mantissa with exponent 0.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.frexp(jnp.array([8.0]))
      (Array([0.5], dtype=float32), Array([4], dtype=int32))
    """
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


@library_jit
def modf(x, /, out=None):
    """Split each element into its fractional and integral parts.

    Args:
      x: an array or scalar.
      out: accepted for NumPy compatibility only; astjax never writes in place.

    Returns:
      A tuple (fraction, whole), both floating, each with x's sign.

    Differences from NumPy: integer inputs become the default float (float32 without x64).
    """
    [x] = promote_args_inexact("modf", x)
    whole = uf.trunc(x)
    return uf.subtract(x, whole), whole


def _int_args(name, x1, x2):
    """Promoted and broadcast to one shape (the Euclid loop carries both)."""
    x1, x2 = promote_args(name, x1, x2)
    if not dtypes.is_int(_dt(x1)):  # JAX: a ValueError
        raise ArgumentValueError(f"Arguments to jax.numpy.{name} must be integers, got "
                                 f"{_dt(x1)}", hint="convert them with .astype(int)")
    shape = broadcast_shapes(_shape(x1), _shape(x2))
    return broadcast_to_shape(x1, shape), broadcast_to_shape(x2, shape)


@library_jit
def gcd(x1, x2):
    """Elementwise greatest common divisor of integer arrays.

    Args:
      x1, x2: integer arrays or scalars.

    Returns:
      A non-negative integer array of the promoted dtype; gcd(0, 0) is 0.

    Differences from NumPy: computed by an Euclid `while_loop` (traced once); non-integer
    inputs raise a ValueError (as JAX).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.gcd(jnp.array([12, 18]), jnp.array([8, 8]))
      Array([4, 2], dtype=int32)
    """
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
def lcm(x1, x2):
    """Elementwise least common multiple of integer arrays.

    Args:
      x1, x2: integer arrays or scalars.

    Returns:
      An integer array of the promoted dtype (non-negative unless the product overflows);
      0 when either input is 0.

    Differences from NumPy: overflow wraps around silently; non-integer inputs raise a
    ValueError (as JAX).
    """
    x1, x2 = _int_args("lcm", x1, x2)
    # as JAX: the absolute values multiply, so an overflowing product wraps (and may be
    # negative), not its absolute value
    x1, x2 = uf.abs(x1), uf.abs(x2)
    d = gcd(x1, x2)
    zero = lax.full_like(d, 0)
    safe = where(lax.eq(d, zero), lax.full_like(d, 1), d)
    return where(lax.eq(d, zero), zero, uf.multiply(x1, uf.floor_divide(x2, safe)))


@library_jit(static_argnames=("deg",))
def angle(z, deg=False):
    """The counterclockwise angle of each complex element.

    Args:
      z: an array or scalar (real values have angle 0 or pi).
      deg: return degrees instead of radians.

    Returns:
      A real floating array.

    Differences from NumPy: integer/real inputs are computed in the default float dtype
    (float32 without x64).
    """
    z = asarray_operand(z)
    re, im = uf.real(z), uf.imag(z)
    # as JAX: integers, and floating scalars, in the default float dtype (strong)
    if not dtypes.is_inexact(_dt(re)) or (dtypes.is_float(_dt(z)) and np.ndim(z) == 0):
        fdt = dtypes.canonicalize(dtypes.float64)
        re, im = lax.convert_element_type(re, fdt), lax.convert_element_type(im, fdt)
    out = lax.atan2(im, re)
    return uf.rad2deg(out) if deg else out


@library_jit
def iscomplex(x):
    """Elementwise test for a non-zero imaginary part.

    Args:
      x: an array or scalar.

    Returns:
      A bool array of x's shape (all False for real dtypes).

    Differences from NumPy: always returns an Array, also for scalars.
    """
    i = uf.imag(asarray_operand(x))
    return lax.ne(i, uf._lax_const(i, 0))  # weak for a weak 0-d x, as JAX


@library_jit
def isreal(x):
    """Elementwise test for a zero imaginary part (the negation of `iscomplex`).

    Args:
      x: an array or scalar.

    Returns:
      A bool array of x's shape.

    Differences from NumPy: always returns an Array, also for scalars.
    """
    i = uf.imag(asarray_operand(x))
    return lax.eq(i, uf._lax_const(i, 0))


def iscomplexobj(x):
    """Whether `x` has a complex dtype (the values are not inspected).

    Args:
      x: an array, scalar, dtype-like object or None.

    Returns:
      A Python bool.

    Differences from NumPy: the dtype is read through astjax's dtype rules, so Python
    scalars and Tracers work without materializing a value.
    """
    if x is None:
        return False
    try:
        dt = dtypes.dtype(x)
    except TypeError:
        dt = np.asarray(x).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    """Whether `x` does not have a complex dtype.

    Args:
      x: an array, scalar or dtype-like object.

    Returns:
      A Python bool.

    Differences from NumPy: as `iscomplexobj`, read from the dtype only.
    """
    return not iscomplexobj(x)


def isscalar(element):
    """Whether `element` is a scalar: a Python/NumPy number or a 0-d array.

    Args:
      element: any object.

    Returns:
      A Python bool.

    Differences from NumPy: 0-d arrays (NumPy's, Arrays, Tracers and objects with
    `__jax_array__`) count as scalars (JAX's rule); NumPy returns False for them.
    """
    if np.isscalar(element):
        return True
    a = getattr(element, "aval", None)
    if a is not None:
        return a.ndim == 0
    if isinstance(element, np.ndarray):
        return element.ndim == 0
    if getattr(element, "__jax_array__", None) is not None:
        return core.get_aval(asarray(element)).ndim == 0
    return False


def iterable(y):
    """Whether `y` can be iterated over.

    Args:
      y: any object.

    Returns:
      A Python bool.

    Differences from NumPy: none beyond 0-d Arrays, which are not iterable.
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True


def _promotion_node(t):
    """The lattice node of a dtype specifier: the Python types int, float and complex
    (the objects themselves) are weak, as JAX's; anything else is read as a dtype."""
    weak = {int: "i*", float: "f*", complex: "c*"}
    return next((n for typ, n in weak.items() if t is typ), None) or dtypes.lattice_node(
        dtypes.dtype(t))


def promote_types(a, b):
    """The dtype two dtypes promote to under JAX's promotion lattice.

    Args:
      a, b: dtype-like values.

    Returns:
      A NumPy dtype.

    Differences from NumPy: follows JAX's lattice, which also covers bfloat16 (bfloat16
    with float16 gives float32); the Python types int, float and complex are weak (`uint8`
    with `int` stays `uint8`); no x64 canonicalization is applied, but without x64
    uint32 with a signed integer gives int32 (as JAX: no 64-bit type from narrower ones).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.promote_types('int32', 'float32')
      dtype('float32')
    """
    j = dtypes._join(frozenset({_promotion_node(a), _promotion_node(b)}))
    # a join above every integer (u64 with a signed int) is the Python float's dtype
    return {"i*": dtypes.int64, "f*": dtypes.float64, "c*": dtypes.complex128}.get(
        j) or dtypes._FROM_KEY[j]


def can_cast(from_, to, casting="safe"):
    """Whether a value of dtype `from_` can be cast to `to` under `casting`.

    Args:
      from_: a dtype-like value or an array.
      to: the target dtype.
      casting: 'no', 'equiv', 'safe', 'same_kind' or 'unsafe'.

    Returns:
      A Python bool.

    Differences from NumPy: an array argument is judged by its dtype only, never by its
    value.
    """
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
    """Whether `dtype` belongs to `kind` (Array-API dtype classification).

    Args:
      dtype: a dtype-like value.
      kind: a dtype, a kind name ('bool', 'signed integer', 'unsigned integer',
        'integral', 'real floating', 'complex floating', 'numeric') or a tuple of these.

    Returns:
      A Python bool.

    Differences from NumPy: bfloat16 and the other ml_dtypes floats count as 'real
    floating'; an unknown kind raises an ArgumentValueError.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.isdtype(jnp.float32, 'real floating')
      True
    """
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


@library_jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims=False):
    """Count the non-zero elements of `a` over the given axes.

    Args:
      a: an array or scalar.
      axis: an int or tuple of ints (static); None counts over all elements.
      keepdims: keep the reduced axes as size-1 dimensions.

    Returns:
      An integer array of the default int dtype (int32 without x64).

    Differences from NumPy: the count is int32 unless x64 is enabled, and is always an
    Array (never a Python int).

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.count_nonzero(jnp.array([0, 1, 2]))
      Array(2, dtype=int32)
    """
    a = asarray_operand(a)
    return _sum(lax.ne(a, lax.full_like(a, 0)), axis=axis, keepdims=keepdims,
                dtype=dtypes.canonicalize(dtypes.dtype(int)))


@library_jit
def bitwise_count(x, /):
    """Count the set bits of the absolute value of each integer element.

    Args:
      x: an integer array or scalar.

    Returns:
      A uint8 array of x's shape.

    Differences from NumPy: none in values; the result is always uint8, as in NumPy.
    """
    [x] = uf._numeric([asarray_operand(x)])   # a bool as the default int, as JAX's
    return lax.convert_element_type(lax.population_count(uf.abs(x)), dtypes.uint8)


def copy(a, order=None):
    """Return a copy of `a` as a new Array.

    Args:
      a: an array or array-like value.
      order: accepted for NumPy compatibility; ignored (Arrays have no memory order).

    Returns:
      An Array with the same values and dtype.

    Differences from NumPy: Arrays are immutable, so a copy only matters for buffer
    donation; `order` and subclass options are not supported.
    """
    return array(a, copy=True)


@library_jit
def spacing(x, /):
    """Distance from each element to the next representable number away from 0.

    Args:
      x: an array or scalar.

    Returns:
      A floating array.

    Differences from NumPy: integer inputs become the default float (float32 without x64),
    so the spacing is float32's, not float64's.
    """
    [x] = promote_args_inexact("spacing", x)
    dt = _dt(x)
    if dtypes.issubdtype(dt, np.complexfloating):
        raise ArgumentValueError("jnp.spacing is not defined for complex inputs.",
                                 hint="take the spacing of the real and imaginary parts")
    inf = np.asarray(np.inf, dt)[()]
    if dt == np.float16:   # as JAX (NumPy's float16 rule): always toward +inf
        return uf.subtract(lax.nextafter(x, inf), x)
    out = uf.subtract(lax.nextafter(x, where(uf.signbit(x), -inf, inf)), x)
    tiny = np.asarray(dtypes.finfo(dt).smallest_subnormal, dt)[()]
    return where(uf.equal(out, 0), uf.copysign(tiny, x), out)


@library_jit
def i0(x):
    """Modified Bessel function of the first kind, order 0, elementwise.

    Args:
      x: an array or scalar.

    Returns:
      A floating array.

    Differences from NumPy: integer inputs become the default float; complex inputs
    are a ValueError (as JAX).
    """
    [x] = promote_args_inexact("i0", x)
    if not dtypes.is_float(core.get_aval(x).dtype):
        raise ArgumentValueError(f"Unsupported input type to jax.numpy.i0: "
                                 f"{core.get_aval(x).dtype}", hint="pass real values")
    return _i0(x)


def _i0_value(x):
    """exp(|x|) * i0e(|x|), as JAX computes i0 (exact for large |x| too)."""
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), lax.bessel_i0e(ax))


_i0 = _custom_jvp(_i0_value)


def _i0_jvp(primals, tangents):
    # (as JAX's: the derivative of |x| is taken as 0 at 0, where i0 is flat)
    out, t_out = jvp(_i0_value, primals, tangents)
    return out, where(lax.eq(primals[0], uf._lax_const(primals[0], 0)), 0.0, t_out)


_i0.defjvp(_i0_jvp)
