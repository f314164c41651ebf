"""Dtypes, canonicalization (32-bit unless x64) and JAX's type-promotion lattice,
weak types included: Python scalars are weak, so `x * 2` keeps x's dtype."""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from . import user_warnings
from .config import config
from .errors import ArgumentTypeError, ArgumentValueError

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
bfloat16 = np.dtype(ml_dtypes.bfloat16)

_FLOAT_FAMILY = (np.floating, np.inexact, np.number, np.generic)
_SIGNED_FAMILY = (np.signedinteger, np.integer, np.number, np.generic)
_UNSIGNED_FAMILY = (np.unsignedinteger, np.integer, np.number, np.generic)
# ml_dtypes' narrow types -> the abstract NumPy categories they belong to (as in JAX)
_ML_DTYPE_FAMILY = {
    np.dtype(getattr(ml_dtypes, name)): family
    for names, family in (
        (("bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
          "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"), _FLOAT_FAMILY),
        (("int1", "int2", "int4"), _SIGNED_FAMILY), (("uint1", "uint2", "uint4"), _UNSIGNED_FAMILY))
    for name in names if hasattr(ml_dtypes, name)}
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
# float0: the tangent type of integer and boolean values (as in JAX).
float0 = np.dtype([("float0", np.void, 0)])


class _Float0Array(np.ndarray):
    """A host array of float0 zeros: what derivatives give for int / bool values, as
    JAX's `TypedNdArray`: a NumPy array that answers
    `.weak_type` (False) as arrays do."""

    @property
    def weak_type(self) -> bool:
        """Never weakly typed."""
        return False


def _float0_zeros(shape) -> _Float0Array:
    """The float0 tangent / cotangent of an int / bool value of `shape`."""
    return np.zeros(shape, float0).view(_Float0Array)

# The narrow types JAX computes with but never promotes to implicitly: float8/6/4
# variants and 2/4-bit integers (ml_dtypes), as long as this ml_dtypes has them.
NARROW_FLOATS = [d for d in _ML_DTYPE_FAMILY if d != bfloat16 and _ML_DTYPE_FAMILY[d] is _FLOAT_FAMILY]
NARROW_INTS = [d for d in _ML_DTYPE_FAMILY if _ML_DTYPE_FAMILY[d] is not _FLOAT_FAMILY]

SUPPORTED = [bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             bfloat16, float16, float32, float64, complex64, complex128,
             *NARROW_FLOATS, *NARROW_INTS]

_SHORT = {bool_: "bool", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
          uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64", bfloat16: "bf16",
          float16: "f16", float32: "f32", float64: "f64", complex64: "c64",
          complex128: "c128", float0: "float0",
          # JAX's short names: float8_e4m3fn -> f8_e4m3fn, int4 -> i4, uint4 -> u4
          **{d: d.name.replace("float", "f").replace("uint", "u").replace("int", "i")
             for d in NARROW_FLOATS + NARROW_INTS}}


def short_name(dtype) -> str:
    """The short MLIR-style name of a dtype (`float32` -> `'f32'`), or `str(dtype)`."""
    return _SHORT.get(np.dtype(dtype), str(dtype))


def dtype(x):
    """numpy dtype of a dtype-like or array-like (JAX's `jnp.dtype`)."""
    if isinstance(x, type) and x in _PY_DEFAULT:
        return canonicalize(_PY_DEFAULT[x]())
    if hasattr(x, "dtype") and not isinstance(x, (type, np.dtype)):
        return np.dtype(x.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return canonicalize(_PY_DEFAULT[type(x)]())
    return np.dtype(x)


def _default_int():
    return int64 if config.x64_enabled else int32


_PY_DEFAULT = {bool: lambda: bool_, int: _default_int,
               float: lambda: float64 if config.x64_enabled else float32,
               complex: lambda: complex128 if config.x64_enabled else complex64}

_NARROW = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


def canonicalize(dt, warn: bool = False) -> np.dtype:
    """The dtype astjax will actually use for `dt`: without x64, 64-bit types narrow.

    Args:
        dt: a dtype-like.
        warn: emit a UserWarning when the dtype is narrowed.

    Returns:
        A `numpy.dtype`.
    """
    dt = np.dtype(dt)
    if not config.x64_enabled and dt in _NARROW:
        if warn:
            user_warnings.warn(f"Explicitly requested dtype {dt} requested in astjax is not "
                               "available, and will be truncated to dtype "
                               f"{_NARROW[dt]}. To enable more dtypes, set the jax_enable_x64 "
                               "configuration option.", UserWarning)
        return _NARROW[dt]
    return dt


def is_weak_scalar(x) -> bool:
    """A Python int, float or complex (exact type): weakly typed, as in JAX. NumPy
    scalars (`np.float64` subclasses `float`) are not: they carry their dtype."""
    return type(x) in (int, float, complex)


def is_python_scalar(x) -> bool:
    """A Python bool, int, float or complex (exact type; never a NumPy scalar): the
    values `python_scalar_dtype` knows."""
    return type(x) in (bool, int, float, complex)


def python_scalar_dtype(x) -> np.dtype:
    """The default dtype of a Python bool/int/float/complex value (x64-aware)."""
    return _PY_DEFAULT[type(x)]()


def issubdtype(arg1, arg2) -> bool:
    """Whether dtype `arg1` lies under `arg2` in the dtype hierarchy (`np.issubdtype`-like).

    Unlike NumPy, knows `bfloat16` is a floating type and handles the extended
    dtypes of typed PRNG keys.

    Args:
        arg1: a dtype-like.
        arg2: a dtype-like or an abstract category such as `np.floating`.

    Returns:
        A bool.

    Example:
        >>> import astjax.numpy as jnp
        >>> from astjax import dtypes
        >>> dtypes.issubdtype(jnp.bfloat16, jnp.floating)
        True
        >>> dtypes.issubdtype(jnp.int32, jnp.floating)
        False
    """
    a, b = arg1, arg2
    if isinstance(a, ExtendedDType):  # an extended dtype instance (a typed key's dtype)
        a = a.type
    if isinstance(b, ExtendedDType):
        b = b.type
    if isinstance(b, type) and issubclass(b, extended):
        return isinstance(a, type) and issubclass(a, b)
    if isinstance(a, type) and issubclass(a, extended):
        return b is np.generic
    if b in (np.floating, np.integer, np.complexfloating, np.inexact, np.number,
             np.signedinteger, np.unsignedinteger, np.bool_, np.generic):
        a = np.dtype(a)
        family = _ML_DTYPE_FAMILY.get(a)
        if family is not None:  # NumPy sees ml_dtypes' types as opaque void types
            return b in family
        return np.issubdtype(a, b)
    return np.dtype(a) == np.dtype(b)


def is_user_extended(dt) -> bool:
    """Whether `dt` is an extended dtype declared with rules (JAX's user extended
    dtypes, `ExtendedDType._rules`), as opposed to astjax's typed PRNG keys."""
    return isinstance(dt, ExtendedDType) and getattr(dt, "_rules", None) is not None


def has_extended_dtype(x) -> bool:
    """Whether array-like `x` has an extended dtype (typed PRNG key arrays: their
    shape and indexing act on whole keys, and they take part in no arithmetic)."""
    return isinstance(getattr(x, "dtype", None), ExtendedDType)


def is_float(dt) -> bool:
    """True if `dt` is a real floating dtype (including bfloat16)."""
    return issubdtype(dt, np.floating)


def supports_inf(dt) -> bool:
    """Whether floating or complex dtype `dt` has infinities (float8_e4m3fn and the other
    finite-only narrow floats have none: the identity of a max is then its lowest value)."""
    dt = np.dtype(dt)
    if np.issubdtype(dt, np.complexfloating):
        return True
    return bool(np.isinf(np.array(np.inf, dtype=np.float32).astype(dt).astype(np.float32)))


def to_inexact(dt) -> np.dtype:
    """The inexact dtype JAX computes a non-inexact `dt` in: float32 for bool and the
    integers up to 32 bits, float64 for 64-bit integers (then canonicalized: float32
    without x64); an inexact `dt` itself."""
    dt = np.dtype(dt)
    if is_inexact(dt):
        return dt
    return canonicalize(np.float64 if dt.itemsize == 8 else np.float32)


def is_inexact(dt) -> bool:
    """True if `dt` is a floating or complex dtype."""
    return issubdtype(dt, np.inexact)


def is_int(dt) -> bool:
    """True if `dt` is a signed or unsigned integer dtype."""
    return issubdtype(dt, np.integer)


def finfo(dt):
    """Machine limits (eps, min, max, ...) of a floating dtype; bfloat16 included.

    Example:
        >>> import astjax.numpy as jnp
        >>> from astjax import dtypes
        >>> print(dtypes.finfo(jnp.float32).eps)
        1.1920929e-07
    """
    return _machine_info(ml_dtypes.finfo, dt, "finfo describes floating and complex dtypes; "
                         "jnp.iinfo gives the limits of an integer dtype")


def iinfo(dt):
    """Machine limits (min, max, bits) of an integer dtype.

    Example:
        >>> import astjax.numpy as jnp
        >>> from astjax import dtypes
        >>> print(dtypes.iinfo(jnp.int8).max)
        127
    """
    return _machine_info(ml_dtypes.iinfo, dt, "iinfo describes integer dtypes; "
                         "jnp.finfo gives the limits of a floating dtype")


def _machine_info(info, dt, hint):
    # NumPy's own error for a dtype of the wrong kind (the one JAX lets through),
    # re-raised at the user's call with a hint.
    try:
        return info(dt)
    except ValueError as e:
        raise ArgumentValueError(str(e), hint=hint) from None
    except TypeError as e:
        raise ArgumentTypeError(str(e), hint="pass a dtype, a scalar type or an array") from None


# JAX's promotion lattice. Weak categories: 'i*', 'f*', 'c*'.
_LATTICE = {
    "b1": ["i*"], "u8": ["i16", "u16"], "u16": ["i32", "u32"], "u32": ["i64", "u64"],
    "u64": ["f*"], "i*": ["u8", "i8"], "i8": ["i16"], "i16": ["i32"], "i32": ["i64"],
    "i64": ["f*"], "f*": ["c*", "bf16", "f16"], "bf16": ["f32"], "f16": ["f32"],
    "f32": ["f64", "c64"], "f64": ["c128"], "c*": ["c64"], "c64": ["c128"], "c128": [],
}
# Without x64 no promotion forms a 64-bit type from narrower inputs: JAX replaces the
# one such edge, u32 -> i64, by u32 -> i32.
_KEY = {bool_: "b1", uint8: "u8", uint16: "u16", uint32: "u32", uint64: "u64",
        int8: "i8", int16: "i16", int32: "i32", int64: "i64", bfloat16: "bf16",
        float16: "f16", float32: "f32", float64: "f64", complex64: "c64", complex128: "c128",
        **{d: d.name for d in NARROW_FLOATS + NARROW_INTS}}
# the narrow types sit just above their weak category and below nothing: a Python
# scalar adopts them, any other dtype has no implicit promotion path with them
_LATTICE["f*"] = _LATTICE["f*"] + [d.name for d in NARROW_FLOATS]
_LATTICE["i*"] = _LATTICE["i*"] + [d.name for d in NARROW_INTS]
_LATTICE.update({d.name: [] for d in NARROW_FLOATS + NARROW_INTS})
_LATTICE_32 = dict(_LATTICE, u32=["i32", "u64"])
_FROM_KEY = {v: k for k, v in _KEY.items()}


@functools.lru_cache(None)
def _upper_bounds(node, x64=True):
    out = {node}
    for n in (_LATTICE if x64 else _LATTICE_32)[node]:
        out |= _upper_bounds(n, x64)
    return frozenset(out)


def _join(nodes: frozenset):
    return _join_in(nodes, bool(config.x64_enabled))


@functools.lru_cache(None)
def _join_in(nodes: frozenset, x64: bool):
    common = frozenset.intersection(*(_upper_bounds(n, x64) for n in nodes))
    for c in common:  # the least element: every other common bound is above it
        if all(o in _upper_bounds(c, x64) for o in common):
            return c
    names = tuple(_FROM_KEY[n].name if n in _FROM_KEY else n for n in sorted(nodes))
    narrow_floats = [_FROM_KEY[n] for n in nodes if n in _FROM_KEY and _FROM_KEY[n] in NARROW_FLOATS]
    if narrow_floats:  # JAX names the widest of them: 8-, then 6-, then 4-bit floats
        bits = max(_float_bits(d) for d in narrow_floats)
        why, to = f"{bits}-bit floats do not support implicit promotion", "float32"
    elif any(n in _FROM_KEY and _FROM_KEY[n] in NARROW_INTS for n in nodes):
        why, to = "1-bit, 2-bit and 4-bit integers do not support implicit promotion", "int32"
    else:
        raise TypeError(f"no common type for {sorted(nodes)}")
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
        f"unintended promotion, {why}. If you'd like your inputs to be promoted to "
        f"another type, you can do so explicitly using e.g. x.astype('{to}')")


def _float_bits(dt) -> int:
    """8 for the float8 variants, 6 and 4 for float6_*/float4_* (their storage is a byte)."""
    return int(dt.name[len("float")]) if dt.name[len("float")].isdigit() else 8


def lattice_node(dt) -> str:
    """The promotion-lattice node of a (strong) dtype; outside the lattice (float0,
    strings, records) a ValueError, as JAX's promotion."""
    try:
        return _KEY[np.dtype(dt)]
    except KeyError:
        raise ArgumentValueError(f"dtype={dt} is not a valid dtype for type promotion",
                                 hint="float0 (the tangent type of ints and bools) and "
                                      "non-numeric dtypes take part in no arithmetic") from None


def _node(dt, weak):
    dt = np.dtype(dt)
    if weak:
        if dt == bool_:
            return "b1"
        if np.issubdtype(dt, np.complexfloating):
            return "c*"
        if is_float(dt):
            return "f*"
        return "i*"
    return lattice_node(canonicalize(dt))  # JAX canonicalizes first (u64 -> u32 without x64)


def promote(*pairs) -> tuple[np.dtype, bool]:
    """Join of (dtype, weak_type) pairs -> (dtype, weak_type), as jnp.result_type."""
    ext = [d for d, _ in pairs if isinstance(d, ExtendedDType)]
    if ext:   # (JAX: one extended dtype is its own result; it promotes with nothing)
        if len(ext) == len(pairs) and all(d == ext[0] for d in ext):
            return ext[0], False
        raise ArgumentValueError(f"dtype={ext[0]} is not a valid dtype for JAX type "
                                 f"promotion.", hint="an extended dtype (typed PRNG keys) "
                                 "combines with no other dtype")
    nodes = frozenset(_node(d, w) for d, w in pairs)
    j = _join(nodes)
    if j == "i*":
        return canonicalize(int64 if config.x64_enabled else int32), True
    if j == "f*":
        # a weak float keeps the widest weak float's dtype (e.g. weak f64 in x64 mode)
        return canonicalize(float64 if config.x64_enabled else float32), True
    if j == "c*":
        return canonicalize(complex128 if config.x64_enabled else complex64), True
    return canonicalize(_FROM_KEY[j]), False


def dtype_and_weak(x) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) of any array-like value as astjax would stage it."""
    aval = getattr(x, "aval", None)
    if aval is not None and hasattr(aval, "weak_type"):
        return aval.dtype, aval.weak_type
    if is_weak_scalar(x):
        return python_scalar_dtype(x), True
    if isinstance(x, bool):
        return bool_, False
    if hasattr(x, "dtype"):
        return canonicalize(x.dtype), False
    return canonicalize(np.asarray(x).dtype), False


def complex_to_real(x, dt, warn: bool = True) -> None:
    """The checks of a cast of complex `x` to the real or bool dtype `dt`, as JAX's:
    NumPy's ComplexWarning at the user's line (when `warn`: `astype` warns otherwise),
    and NumPy's TypeError (a located ArgumentTypeError) for a Python complex that
    NumPy cannot make a `dt` value.

    Args:
        x: the value cast (an array, a tracer or a scalar).
        dt: the target dtype.
        warn: whether to give the ComplexWarning.

    Returns:
        None.
    """
    if warn:
        user_warnings.warn_complex_to_real()
    if type(x) is complex:
        try:
            np.asarray(x, dtype=dt)
        except TypeError as e:
            raise ArgumentTypeError(str(e), hint="take jnp.real(x) or jnp.imag(x) first") \
                from None


def result_type(*args, return_weak_type_flag=False):
    """The dtype JAX's type promotion gives for combining `args`.

    Python scalars are weakly typed (they adopt the other operand's type
    category width); 64-bit results narrow unless x64 is enabled.

    Args:
        *args: dtypes, arrays or scalars.
        return_weak_type_flag: also return whether the result is weakly typed.

    Returns:
        A `numpy.dtype`, or `(dtype, weak)` with `return_weak_type_flag`.

    Example:
        >>> import numpy as np
        >>> from astjax import dtypes
        >>> dtypes.result_type(np.int32, np.float32)
        dtype('float32')
    """
    pairs = []
    for a in args:
        if isinstance(a, (np.dtype, type)) or isinstance(a, str):
            pairs.append((dtype(a), False))
        else:
            pairs.append(dtype_and_weak(a))
    dt, weak = promote(*pairs)
    return (dt, weak) if return_weak_type_flag else dt


# ---------------------------------------------------------------- `jax.dtypes` names


class extended(np.generic):
    """The abstract base JAX gives its extended dtypes (typed PRNG keys, ...): no
    NumPy dtype is a subdtype of it."""


class prng_key(extended):
    """The abstract dtype of typed PRNG key arrays."""


class ExtendedDType:
    """Base of extended dtype *instances* (JAX's `jax._src.dtypes.ExtendedDType`): a
    `type` (a subclass of `extended`, e.g. `prng_key`) and a `name`; typed PRNG key
    arrays carry one (`astjax.random.keys.KeyTy`). A library declares its own with
    `_rules` (flax's fp8 `fm32`): a class whose `physical_element_aval(dt)` gives the
    element's representation, `convert_to` / `convert_from` the dtypes
    `convert_element_type` joins it with, `add` / `zero` how derivatives accumulate
    (`astjax/primitives/edtypes.py`)."""
    type: type = extended
    name: str = "extended"
    aval_type = None   # its abstract values' class (a ShapedArray subclass), if any
    _rules = None      # a user extended dtype's rules (JAX's `_rules`)

    def __repr__(self):
        return getattr(self, "name", type(self).__name__)

    def physical(self, shape):
        """(shape, dtype) of the data an array of `shape` of this dtype is made of."""
        raise TypeError(f"{self!r} declares no physical layout")

    def from_physical(self, data):
        """The array of this dtype whose data is `data` (of `physical`'s type)."""
        raise TypeError(f"{self!r} declares no physical layout")


class TypePromotionError(ValueError):
    """Two dtypes that the promotion mode in force does not combine."""


def canonicalize_dtype(dt, allow_extended_dtype=False):
    """`dt` as astjax computes with it (64-bit types narrowed unless x64)."""
    if isinstance(dt, type) and issubclass(dt, extended):
        if allow_extended_dtype:
            return dt
        raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dt} with "
                         "allow_extended_dtype=False")
    return canonicalize(dtype(dt))


def scalar_type_of(x):
    """The Python scalar type of `x`'s dtype category: bool, int, float or complex."""
    dt = dtype(x)
    if dt == bool_:
        return bool
    if issubdtype(dt, np.integer):
        return int
    if issubdtype(dt, np.floating):
        return float
    if issubdtype(dt, np.complexfloating):
        return complex
    raise TypeError(f"Invalid scalar value {x}")


def itemsize_bits(dt) -> int:
    """The size of one element in bits (4 for the int4 types, 8 for bool)."""
    dt = np.dtype(dt)
    if dt.kind == "V":  # ml_dtypes' sub-byte and float8 types: ask ml_dtypes
        try:
            return ml_dtypes.iinfo(dt).bits
        except ValueError:
            return ml_dtypes.finfo(dt).bits
    return dt.itemsize * 8


def _host_int_cast(x, new_dtype, weak_type):
    """A finite float scalar (Python or NumPy) converted to a strong integer type as JAX
    does first, by NumPy (`np.asarray(x, dtype)`: np.float32(-2.5) -> 254 for uint8, in
    every mode); x itself where that cast refuses it (a Python float out of range) or
    another rule applies (the primitive's conversion: saturating op by op, inside a
    `jit` the host's cast)."""
    if (weak_type or not is_int(new_dtype) or type(x) is not float
            and not isinstance(x, np.floating) or not np.isfinite(x)):
        return x
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(x, dtype=new_dtype)
    except OverflowError:
        return x
