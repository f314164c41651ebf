"""Which `jnp` functions require array operands, and the check that enforces it.

JAX refuses Python lists and tuples where a `jnp` function expects an array
(`jnp.sum([1, 2, 3])` is a TypeError: a list silently converted element by element is
slow under `jit` and hides mistakes), while its constructors (`array`, `asarray`,
`stack`, `block`, ...) and the functions taking shapes or index lists accept them.
`ARRAYLIKE` says, for each public function that checks, the name JAX's message uses
and which leading operands are checked; `guard(namespace, prefix)` wraps those
functions of a namespace (`astjax.numpy`, `astjax.numpy.linalg`, `astjax.numpy.fft`)
so that a call with a list or tuple operand raises JAX's TypeError, with JAX's text,
as an `ArgumentTypeError` located at the user's call.

astjax's own modules import the functions from their defining modules and are not
affected; only calls through the public namespaces are checked.
"""
from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from ..codegen.runtime import Array
from ..core import Array as _ArrayABC, Tracer, WeakConst
from ..errors import ArgumentTypeError

# (the `Array` ABC covers typed key arrays, which register with it)
_ARRAY_TYPES = (np.ndarray, Array, Tracer, WeakConst, _ArrayABC)


# types seen array-like (the check's fast path: one dict lookup per operand)
_ARRAYLIKE_TYPES: dict[type, bool] = {}


def is_arraylike(x) -> bool:
    """True for what JAX calls array-like: arrays, staged values, NumPy and Python
    scalars, and objects with `__jax_array__` (not lists or tuples)."""
    if isinstance(x, _ARRAY_TYPES) or hasattr(x, "__jax_array__") or np.isscalar(x):
        _ARRAYLIKE_TYPES[type(x)] = True
        return True
    return False


def check_arraylike(fun_name: str, *args) -> None:
    """Raise JAX's TypeError (an `ArgumentTypeError`) naming the first of `args` that is
    not array-like and its position among `args`."""
    for pos, arg in enumerate(args):
        if not is_arraylike(arg):
            raise ArgumentTypeError(
                f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at "
                f"position {pos}.",
                hint="convert the sequence first, e.g. jnp.asarray(...) or jnp.array(...)")


# Functions whose first operand is checked, then those whose first two are; the name in
# the message is the function's own unless `_MESSAGE_NAME` gives the one JAX prints
# (the function JAX delegates to).
_FIRST = """abs absolute acos acosh all amax amin angle any arccos arccosh arcsin arcsinh
arctan arctanh argmax argmin argpartition argsort argwhere around array_split asin asinh
atan atanh bincount bitwise_count bitwise_invert
bitwise_not broadcast_to cbrt ceil clip conj conjugate copy corrcoef cos cosh
count_nonzero cov cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag
diag_indices_from diagflat diagonal diff ediff1d exp exp2 expand_dims expm1
fabs flatnonzero flip fliplr flipud floor frexp histogram histogram_bin_edges histogramdd
hsplit i0 imag insert invert iscomplex isfinite isinf isnan isneginf isposinf isreal log
log10 log1p log2 logical_not matrix_transpose max mean median min modf moveaxis
nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin
nanprod nanstd nansum nanvar negative nonzero packbits pad partition poly
polyder polyint positive prod ptp rad2deg radians ravel real reciprocal reshape resize
rint roll rollaxis roots rot90 round sign signbit sin sinc sinh sort sort_complex spacing
split sqrt square squeeze std sum swapaxes tan tanh tile trace transpose trapezoid tril
tril_indices_from trim_zeros triu triu_indices_from trunc unique unique_all unique_counts
unpackbits
unique_inverse unique_values unravel_index unstack unwrap vander var vsplit
linalg.cholesky linalg.cond linalg.det linalg.diagonal linalg.eig linalg.eigh
linalg.eigvals linalg.eigvalsh linalg.inv linalg.matrix_norm linalg.matrix_power
linalg.matrix_rank linalg.matrix_transpose linalg.norm linalg.pinv linalg.qr
linalg.slogdet linalg.svd linalg.svdvals linalg.trace linalg.vector_norm fft.fft fft.fft2
fft.fftn fft.fftshift fft.hfft fft.ifft fft.ifft2 fft.ifftn fft.ifftshift fft.irfft
fft.irfft2 fft.irfftn fft.rfft fft.rfft2 fft.rfftn""".split()
_FIRST_TWO = """add allclose arctan2 atan2 bitwise_and bitwise_left_shift bitwise_or
bitwise_right_shift bitwise_xor compress convolve copysign correlate cross digitize
divide divmod dot equal extract float_power floor_divide fmax fmin fmod gcd
greater greater_equal heaviside histogram2d hypot inner intersect1d isclose isin kron lcm
ldexp left_shift less less_equal linspace logaddexp logaddexp2 logical_and logical_or
logical_xor matmul matvec maximum minimum mod multiply nanpercentile nanquantile nextafter
not_equal outer percentile polyadd polydiv polyfit polymul polysub polyval pow power
quantile remainder repeat right_shift searchsorted setdiff1d setxor1d subtract take
take_along_axis tensordot true_divide union1d vdot vecdot vecmat linalg.cross
linalg.lstsq linalg.matmul linalg.outer linalg.solve linalg.tensordot linalg.tensorsolve
linalg.vecdot""".split()
_MESSAGE_NAME = {
    "abs": "absolute", "amax": "max", "amin": "min", "argpartition": "partition",
    "around": "round", "bitwise_right_shift": "right_shift", "conj": "conjugate",
    "degrees": "rad2deg", "radians": "deg2rad", "divide": "true_divide",
"extract": "extreact", "flatnonzero": "ravel",
    "fmax": "greater", "fmin": "less", "iscomplex": "imag", "isreal": "imag",
    "mod": "remainder", "pow": "power", "vecdot": "jnp.vecdot", "vecmat": "matvec",
    "linalg.cond": "cond", "linalg.tensorsolve": "tensorsolve",
    "linalg.cross": "jnp.linalg.outer", "fft.hfft": "conjugate",
    "fft.fftshift": "fftshift", "fft.ifftshift": "ifftshift",
}


def _message_name(qualname: str) -> str:
    if qualname in _MESSAGE_NAME:
        return _MESSAGE_NAME[qualname]
    if qualname.startswith("linalg."):
        return "jnp." + qualname
    if qualname.startswith("fft."):
        return "jax.numpy.fft." + qualname[4:]
    return qualname


# qualname -> (message name, how the operands are read): an int n checks the first n
# parameters together; a tuple of names checks those parameters together; "each"
# checks the first two one at a time (each message says position 0); "sequence"
# checks the elements of the first argument when it is a list or tuple; "varargs" the
# positional arguments; "where" / "select" are those functions' own readings; "like"
# (the `*_like` functions) skips a prototype with `shape` and `dtype` (duck typing:
# a ShapeDtypeStruct) and checks the fill value of `full_like`.
ARRAYLIKE: dict[str, tuple[str, object]] = {
    **{q: (_message_name(q), 1) for q in _FIRST},
    **{q: (_message_name(q), 2) for q in _FIRST_TWO},
    "interp": ("interp", 3),
    "full": ("full", ("fill_value",)),
    "append": ("ravel", "each"),
    "concatenate": ("concatenate", "sequence"),
    "concat": ("concat", "sequence"),
    "lexsort": ("lexsort", "sequence"),
    **{f: (f, "sequence") for f in ("stack", "vstack", "hstack", "dstack", "column_stack")},
    "broadcast_arrays": ("broadcast_arrays", "varargs"),
    "meshgrid": ("meshgrid", "varargs"),
    "atleast_1d": ("atleast_1d", "varargs"),
    "atleast_2d": ("atleast_2d", "varargs"),
    "atleast_3d": ("atleast_3d", "varargs"),
    "ix_": ("ix", "varargs"),
    "where": ("where", "where"),
    "zeros_like": ("zeros_like", "like"),
    "ones_like": ("ones_like", "like"),
    "empty_like": ("ones_like", "like"),
    "full_like": ("full_like", "like"),
    "select": ("select", "select"),
}


def _operands(how, names, args, kwargs):
    """The groups of operands `how` checks, each a tuple (one `check_arraylike` each)."""
    if how == "varargs":
        return [args]
    if how == "sequence":
        seq = args[0] if args else kwargs.get(names[0])
        return [tuple(seq)] if isinstance(seq, (list, tuple)) else []
    if how == "where":
        given = list(args[:3]) + [kwargs[k] for k in ("x", "y") if k in kwargs]
        both = len(given) == 3 and given[1] is not None and given[2] is not None
        return [tuple(given) if both else tuple(given[:1])]
    if how == "like":
        given = [args[i] if i < len(args) else kwargs[n] for i, n in enumerate(names[:2])
                 if i < len(args) or n in kwargs]
        fill = tuple(given[1:2]) if names[1:2] == ["fill_value"] else ()
        proto = given[0] if given else None
        duck = hasattr(proto, "dtype") and hasattr(proto, "shape")
        return [((0,) if duck else tuple(given[:1])) + fill]
    if how == "select":
        cond = args[0] if args else kwargs.get("condlist", ())
        choice = args[1] if len(args) > 1 else kwargs.get("choicelist", ())
        default = args[2] if len(args) > 2 else kwargs.get("default", 0)
        seqs = [tuple(v) if isinstance(v, (list, tuple)) else () for v in (cond, choice)]
        return [seqs[0] + seqs[1] + (default,)]
    picked = names[:how] if isinstance(how, int) else how if isinstance(how, tuple) \
        else names[:2]
    values = []
    for name in picked:
        i = names.index(name)
        if i < len(args):
            values.append(args[i])
        elif name in kwargs:
            values.append(kwargs[name])
    return [(v,) for v in values] if how == "each" else [tuple(values)]


class _CheckedCallable:
    """A callable object (a ufunc with `.at`, `.reduce`, ...) behind the array-like
    check: calls are checked, every other attribute is the object's own."""

    def __init__(self, fn, check):
        self.__wrapped__, self._check = fn, check
        functools.update_wrapper(self, fn, updated=())

    def __call__(self, *args, **kwargs):
        self._check(args, kwargs)
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.__wrapped__, name)


def _checked(fn, fun_name, how):
    """`fn` behind the array-like check: a function for a function (its attributes
    copied), a forwarding object for any other callable."""
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):   # no signature: the operands by position
        names = ["x1", "x2", "x3"]

    def check(args, kwargs):
        for group in _operands(how, names, args, kwargs):
            check_arraylike(fun_name, *group)

    if not isinstance(fn, types.FunctionType):
        return _CheckedCallable(fn, check)
    n, known = (how if isinstance(how, int) else 0), _ARRAYLIKE_TYPES

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if n and not kwargs:   # the common call: operands of types seen array-like
            for a in args[:n]:
                if type(a) not in known:
                    break
            else:
                return fn(*args)
        check(args, kwargs)
        return fn(*args, **kwargs)
    return call


def guard(namespace, prefix: str = "") -> None:
    """Wrap the functions of `namespace` (a module) that `ARRAYLIKE` lists under
    `prefix` ("", "linalg." or "fft.") with the array-like check, in place."""
    for qualname, (fun_name, how) in ARRAYLIKE.items():
        if not qualname.startswith(prefix) or "." in qualname[len(prefix):]:
            continue
        name = qualname[len(prefix):]
        fn = getattr(namespace, name, None)
        if fn is None or getattr(fn, "_arraylike_checked", False):
            continue
        wrapped = _checked(fn, fun_name, how)
        wrapped._arraylike_checked = True
        setattr(namespace, name, wrapped)
