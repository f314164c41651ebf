"""Arguments to operands, the entry of every `jnp` function: `jnp.array` /
`jnp.asarray` (host values become constants: literals under `jit`, device arrays
eagerly), dtype arguments, JAX's type promotion (weak Python scalars) and NumPy
broadcasting. The lowest module of the numpy layer after `util`: it uses only lax."""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes, hi_state, lax, tree_util, user_warnings
from ..codegen import sharded
from ..codegen.runtime import Array, device_put
from ..core import Tracer
from ..primitives.structural import copy as _structural_copy
from ..primitives.exported_call import dim_as_value
from ..shape_poly import DimExpr, canonical_dim, shape_entries as _shape_entries
from ..sharding_impls import (NamedSharding, PartitionSpec, context_mesh,
                              context_meshes as _context_meshes)
from ..errors import (ArgumentError, ArgumentTypeError, ArgumentValueError, ConcretizationError,
                      DTypeError, NotImplementedInAstjaxError, ScalarOverflowError, ShapeError,
                      ShapeValueError)
from .util import with_out_sharding
from .. import typing as _typing  # (`Array` here is the runtime class)

# ---------------------------------------------------------------- dtypes and shapes


def _static_shape(shape, name="shape"):
    """A static shape argument as a tuple of nonnegative ints (a located error otherwise)."""
    try:
        dims = tuple(canonical_dim(d) for d in _shape_entries(shape))   # (symbolic kept)
    except ConcretizationError:
        raise
    except TypeError:
        raise ArgumentTypeError(f"{name} must be a tuple of ints, got {shape!r:.60}") from None
    if any(d < 0 for d in dims):
        raise ShapeError(f"{name} must have every dimension nonnegative, got {dims}")
    return dims


def operator_index(d):
    """Convert `d` to a Python int via `__index__`.
    Args: d: int-like value.
    Returns: int.
    Vs NumPy: traced values raise: an index must be static."""
    return operator.index(d)


def _dtype(dtype, default=None):
    if dtype is None:
        return default
    try:
        dt = dtypes.dtype(dtype)
    except TypeError:
        raise DTypeError(f"{dtype!r:.60} is not a valid dtype",
                         hint="use e.g. jnp.float32, 'int32' or a NumPy dtype") from None
    if dt not in dtypes.SUPPORTED:
        raise DTypeError(f"dtype {dt} is not supported by astjax",
                         hint="supported: " + ", ".join(str(d) for d in dtypes.SUPPORTED))
    return dtypes.canonicalize(dt, warn=True)

# ------------------------------------------------------------------- array / asarray


_POSITIONAL = "Passing the copy, order, and ndmin arguments to jnp.array positionally is " \
    "deprecated. Use keyword arguments instead."


@with_out_sharding("jnp.array")
def array(object, dtype=None, *args, copy=True, order="K", ndmin=0) -> _typing.Array:  # noqa: A002
    """Create an array from `object` (a scalar, nested sequence or array).
    Args: object: data; dtype: optional dtype; copy: bool; order: 'K' (or None; JAX
        implements no other); ndmin: minimum rank; copy, order and ndmin given by
        position are deprecated, as in JAX.
    Returns: Array (or a Tracer under transformation).
    Vs NumPy: immutable result; Python floats become float32 unless x64.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.array([1, 2, 3])
    Array([1, 2, 3], dtype=int32)
    """
    obj = jax_array_protocol(object)
    if isinstance(obj, (list, tuple)) and _has_protocol(obj):
        obj = _protocol_leaves(obj)
    if args:
        if len(args) > 3:
            raise ArgumentTypeError(f"array() takes at most 5 positional arguments but "
                                    f"{len(args) + 2} were given")
        for i, name in enumerate(("copy", "order", "ndmin")):
            if i < len(args) and (copy, order, ndmin)[i] != (True, "K", 0)[i]:
                raise ArgumentTypeError(f"array() got multiple values for argument '{name}'")
        copy, order, ndmin = (list(args) + [copy, order, ndmin][len(args):])[:3]
        user_warnings.warn(_POSITIONAL, DeprecationWarning)
    if order is not None and order != "K":
        raise NotImplementedInAstjaxError("Only implemented for order='K'",
                                          hint="drop `order`: arrays have one layout")
    if dtypes.has_extended_dtype(obj) and dtype is None and ndmin == 0:
        return obj.copy() if copy else obj  # a typed-key array: a new key array, as JAX's
    if isinstance(obj, (Tracer, Array)):
        # copy=True (the default) is a new array, as JAX's `copy` equation: a donated
        # argument must not be the caller's buffer (equinox's `jnp.copy` before donation)
        out = _structural_copy(obj) if copy and not dtypes.has_extended_dtype(obj) else obj
        if dtype is not None:  # (no dtype: a weak value stays weak, as JAX)
            out = lax.convert_element_type(out, _dtype(dtype))
    elif isinstance(obj, (list, tuple)) and any(_has_staged(o) for o in obj):
        # a list is never weak, even of weak values (JAX)
        out = _stack_leading(obj, _dtype(dtype) if dtype is not None else
                             dtypes.result_type(*_list_leaves(obj)))
    else:
        if isinstance(obj, core.WeakConst):
            obj = obj.val
        if dtype is None and dtypes.is_python_scalar(obj):
            dt = dtypes.python_scalar_dtype(obj)
            check_python_ints(obj, dt)
            if dtypes.is_weak_scalar(obj) and ndmin == 0:
                return result(obj)  # a Python int/float/complex stays weakly typed, as JAX
            np_val = np.asarray(obj, dt)
        else:
            if obj is None:  # JAX's ValueError
                raise ArgumentValueError("None is not a valid value for jnp.array",
                                         hint="pass a number, a (nested) list of numbers or "
                                              "an array")
            try:
                np_val = np.asarray(obj)
            except ValueError as e:  # a ragged nested list: NumPy's (and JAX's) ValueError
                raise ArgumentValueError(f"cannot make an array from {obj!r:.60}: {e}",
                                         hint="every nested list must have the same length "
                                              "at each depth") from None
            if np_val.dtype == dtypes.float0 and dtype is None:
                return np.array(np_val, ndmin=ndmin)  # float0 stays a host array, as JAX's
            if np_val.dtype == np.object_:
                raise ArgumentTypeError(f"cannot make an array from {type(obj).__name__} "
                                    f"{obj!r:.60}")
            if dtype is not None:
                dt = _dtype(dtype)
            elif isinstance(obj, (list, tuple)) and np_val.size and np_val.dtype.kind in "biufc":
                dt = _infer_list_dtype(obj, np_val)
            else:
                dt = dtypes.canonicalize(np_val.dtype)
            check_python_ints(obj, dt)
            if np_val.dtype.kind == "c" and np.dtype(dt).kind not in "cb":
                np_val = _complex_host_to_real(obj, np_val, dt)
        out = _constant(np_val.astype(dt))
    missing = ndmin - core.get_aval(out).ndim
    return lax.expand_dims(out, tuple(range(missing))) if missing > 0 else out


def jax_array_protocol(x):
    """`x.__jax_array__()` for an object that defines it (JAX's protocol: flax's nnx
    `Variable`, a user's wrapper), else `x`: what `jnp.array` / `asarray` and the
    operators of arrays accept, as JAX's."""
    m = getattr(x, "__jax_array__", None)
    return x if m is None or isinstance(x, (Tracer, Array, DimExpr)) else m()


def _has_protocol(o):
    if isinstance(o, (list, tuple)):
        return any(_has_protocol(x) for x in o)
    return getattr(o, "__jax_array__", None) is not None and not isinstance(o, DimExpr)


def _protocol_leaves(o):
    """A nested list with each `__jax_array__` leaf converted (`jnp.array([v, w])`)."""
    if isinstance(o, (list, tuple)):
        return type(o)(_protocol_leaves(x) for x in o) if type(o) in (list, tuple) \
            else [_protocol_leaves(x) for x in o]
    return jax_array_protocol(o)


def _stack_leading(objs, dt):
    """`array` of a list `objs` holding staged values, staged as JAX stages it: each
    element in turn converted to the list's strong dtype `dt` and given a leading axis,
    then one concatenation (of concatenations of 16 for a longer list)."""
    parts = [lax.expand_dims(_strong(array(o, copy=False), dt), (0,)) for o in objs]
    shapes = {core.get_aval(a).shape for a in parts}
    if len(shapes) != 1:
        raise ShapeError(f"all input arrays must have the same shape, got "
                         f"{sorted(s[1:] for s in shapes)}")
    while len(parts) > 16:
        parts = [lax.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
    return lax.concatenate(parts, 0)


def _strong(a, dt):
    # (a typed-key array is not converted: JAX's `array(key, dtype=key's)` is the key)
    return a if dtypes.has_extended_dtype(a) else lax.convert_element_type(a, dt,
                                                                           weak_type=False)


def _list_leaves(o):
    return [x for e in o for x in _list_leaves(e)] if isinstance(o, (list, tuple)) else [o]


def _infer_list_dtype(obj, np_val):
    leaves = []

    def walk(o):
        if isinstance(o, (list, tuple)):
            for x in o:
                walk(x)
        else:
            leaves.append(o)
    walk(obj)
    del walk   # (the recursive closure's own cell: no cycle keeps the leaves alive)
    return dtypes.result_type(*[l if dtypes.is_python_scalar(l) else np.asarray(l)
                                for l in leaves])


def _complex_host_to_real(obj, np_val, dt):
    """The real part of complex host data `np_val` (from `obj`) made a real `dt` array,
    with JAX's ComplexWarning at the user's line; a Python complex in `obj` is NumPy's
    TypeError, as JAX's (NumPy converts `obj` there)."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif type(o) is complex:
            dtypes.complex_to_real(o, dt, warn=False)
    return user_warnings.warn_complex_to_real(np_val)


def check_python_ints(obj, dt):
    """JAX's OverflowError (a located `ScalarOverflowError`) when a Python int in `obj`
    (a scalar, or nested lists/tuples) does not fit the integer dtype `dt` it becomes;
    NumPy would wrap it around silently.
    Args: obj: value; dt: target dtype.
    Returns: None.
    Vs NumPy: NumPy would wrap or upcast; JAX raises OverflowError."""
    if np.dtype(dt).kind not in "iu":
        return
    info = np.iinfo(dt)
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif type(o) is int and not info.min <= o <= info.max:
            raise ScalarOverflowError(f"Python int {o} is out of bounds for {np.dtype(dt)}")


def _has_staged(o):
    if isinstance(o, (list, tuple)):
        return any(_has_staged(x) for x in o)
    return isinstance(o, (Tracer, Array)) or dtypes.has_extended_dtype(o)


def _const_builder():
    """The builder that stages a host constant: None eagerly and under
    `ensure_compile_time_eval` (JAX's constants are concrete arrays there)."""
    return None if core._state.compile_time_eval else core.current_builder()


def _constant(v: np.ndarray):
    """A host constant: staged as a literal/constvar under jit, a device array eagerly."""
    b = _const_builder()
    if b is not None:
        return b.const_tracer(v)
    if _context_meshes[0] and context_mesh() is not None:   # (JAX's `lax.stage`: on the
        return sharded.put(v, NamedSharding(context_mesh(), PartitionSpec()))   # mesh)
    return device_put(v)


@with_out_sharding("jnp.array")
def asarray(a, dtype=None, order=None, *, copy=None) -> _typing.Array:
    """Convert `a` to an array, reusing it when already one.
    Args: a: data; dtype: optional dtype; order: None or 'K' (JAX implements no other);
        copy: True for a new array even when `a` is one; device / out_sharding: where to
        put it (a Device or Sharding; a layout on an Explicit mesh).
    Returns: Array.
    Vs NumPy: returns arrays and Tracers unchanged when no `dtype` is given.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.asarray([1.5, 2.0])
    Array([1.5, 2. ], dtype=float32)
    """
    if order is not None and order != "K":
        raise NotImplementedInAstjaxError("Only implemented for order='K'",
                                          hint="drop `order`: arrays have one layout")
    if dtype is None and isinstance(a, (Tracer, Array)):
        if not (copy and dtypes.has_extended_dtype(a)):   # (keys: `array` copies them)
            return _structural_copy(a) if copy else a
    if dtype is None and dtypes.has_extended_dtype(a) and not copy:
        return a  # an array of an extended dtype (typed PRNG keys) is already an array
    return array(a, dtype=dtype, copy=bool(copy))


def result(x):
    """The exit of a jnp function that may hand back its operand unchanged (`positive`,
    `real`, `clip` without bounds, `squeeze` of a scalar, ...): a Python scalar, or the
    `WeakConst` that promotion makes of one, becomes a weak-typed 0-d array (as JAX's
    result of a weak operand), a NumPy value a constant, so every jnp function returns
    an Array or a Tracer (R7).
    Args: x: a jnp function's result.
    Returns: Array or Tracer.
    Vs NumPy: weak scalars become weak-typed 0-d arrays."""
    if isinstance(x, (Tracer, Array)):
        return x
    if dtypes.is_weak_scalar(x):
        x = core.WeakConst(np.asarray(x, dtypes.python_scalar_dtype(x)))
    if isinstance(x, core.WeakConst):
        b = _const_builder()
        return b.const_tracer(x) if b is not None else device_put(x.val, weak_type=True)
    return asarray(x)


def _strong_result(x):
    """`x` (an array) with its weak type dropped: the exit of a jnp function whose JAX
    counterpart builds its result from a strongly typed array (`zeros`, `eye`, `iota`,
    a list through `jnp.array`), so a weak operand gives a strong result there.
    Args: x: Array or Tracer.
    Returns: Array or Tracer of x's dtype, not weakly typed."""
    av = core.get_aval(x)
    return lax.convert_element_type(x, av.dtype, weak_type=False) if av.weak_type else x


def _pad_value(x, v=0):
    """The number `v` as a padding (or fill) value for `x`: x's dtype, weakly typed when
    x is, so `lax.pad` keeps x's weak type (its result is weak only when both are, as
    JAX's, and JAX's jnp functions convert their padding values with x's weak type).
    Args: x: Array or Tracer; v: a number.
    Returns: a 0-d constant of x's dtype."""
    av = core.get_aval(x)
    c = np.asarray(v, av.dtype)[()]
    return core.WeakConst(c) if av.weak_type else c

# ----------------------------------------------------------- operands and promotion


def _is_operand(x) -> bool:
    # (by class, not by attribute: an object forwarding every attribute to an array, as
    # flax's Cursor, is not one, and an operator returns NotImplemented for it as JAX's)
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex,
                          core.WeakConst, DimExpr))


def asarray_operand(x, name="argument"):
    """Validate and convert `x` as an operand of a jnp function.
    Args: x: array, scalar, list or tuple; name: what to call it in errors.
    Returns: `x` itself, or an Array built from a list/tuple.
    Vs NumPy: Python scalars stay as-is so they keep their weak type."""
    if _is_operand(x):
        return dim_as_value(x) if type(x) is DimExpr else x
    if isinstance(x, (list, tuple)):
        return asarray(x)
    if getattr(x, "__jax_array__", None) is not None:
        # JAX's jnp functions are jitted: a pytree node (nnx's `Variable`) reaches them
        # rebuilt around staged leaves and is converted, a hi value (nnx's hijax
        # Variable) as a hi value too; any other object is refused
        if (not tree_util.treedef_is_leaf(tree_util.tree_structure(x))
                or hi_state.hi_type(x) is not None):
            return jax_array_protocol(x)
        raise ArgumentValueError(
            "Triggering __jax_array__() during abstractification is no longer supported. To "
            "avoid this error, either explicitly convert your object using "
            "jax.numpy.array(), or register your object as a pytree.",
            hint=f"call jnp.asarray on the {type(x).__name__} first")
    raise ArgumentTypeError(f"{type(x).__name__} object is not a valid {name} for a jnp function",
                        hint="pass an array, a Python scalar, or call jnp.asarray first")


def broadcast_shapes(*shapes, error=ShapeValueError):
    """NumPy's broadcast of `shapes`; shapes that do not broadcast raise `error` (by
    default a ValueError, as `jnp.broadcast_shapes` / `broadcast_arrays` / `where`).
    Args: *shapes: tuples of ints; error: exception class.
    Returns: tuple, the broadcast shape.
    Vs NumPy: shapes must be static tuples.
    Example:
    >>> import astjax.numpy as jnp
    >>> jnp.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        dims = {s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise error("shapes " + ", ".join(str(tuple(s)) for s in shapes)
                        + " cannot be broadcast together")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def broadcast_to_shape(x, shape, out_sharding=None):
    """Broadcast operand `x` to the static shape `shape`.
    Args: x: array or tracer; shape: target shape; out_sharding: the result's layout
    (JAX's `broadcast_shardings` of `where`'s operands), or None.
    Returns: `x` itself, or a broadcast copy.
    Vs NumPy: a new array, never a view."""
    a = core.get_aval(x)
    if a.shape == tuple(shape) and out_sharding is None:
        return x
    if len(shape) < a.ndim or broadcast_shapes(a.shape, shape) != tuple(shape):
        raise ShapeValueError(f"cannot broadcast an array of shape {a.shape} to shape {tuple(shape)}")
    nd = len(shape)
    dims = tuple(range(nd - a.ndim, nd))
    # size-1 axes that broadcast are squeezed away first (broadcast_in_dim needs equal dims)
    keep = [i for i, d in enumerate(a.shape) if d == shape[dims[i]]]
    if len(keep) != a.ndim:
        x = lax.reshape(x, tuple(a.shape[i] for i in keep))
        dims = tuple(dims[i] for i in keep)
    return lax.broadcast_in_dim(x, shape, dims, out_sharding=out_sharding)


def _check_strict_promotion(args):
    """jax_numpy_dtype_promotion='strict': operands of different (non-weak) dtypes are
    an error, as in JAX."""
    strong = []
    for a in args:
        if dtypes.is_weak_scalar(a) or isinstance(a, core.WeakConst):
            continue
        av = core.get_aval(a)
        if not av.weak_type and av.dtype not in strong:
            strong.append(av.dtype)
    if len(strong) > 1:
        raise dtypes.TypePromotionError(
            f"Input dtypes {tuple(str(d) for d in strong)} have no available implicit dtype "
            "promotion path when jax_numpy_dtype_promotion=strict. Try explicitly casting "
            "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.")


def check_rank_promotion(name, *args):
    """jax_numpy_rank_promotion='warn' / 'raise': operands of different non-zero ranks
    (NumPy's implicit rank promotion) warn or raise, as in JAX.
    Args: name: function name for messages; *args: operands.
    Returns: None.
    Vs NumPy: controlled by JAX's jax_numpy_rank_promotion option."""
    mode = dtypes.config.read("jax_numpy_rank_promotion")
    if mode == "allow":
        return
    shapes = [core.get_aval(a).shape for a in args]
    if len({len(s) for s in shapes if s}) <= 1:
        return
    text = " ".join(str(tuple(s)) for s in shapes)
    if mode == "raise":
        raise ShapeValueError(
            f"Operands could not be broadcast together for {name} on shapes {text} and with "
            "the config option jax_numpy_rank_promotion='raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    user_warnings.warn(f"Following NumPy automatic rank promotion for {name} on shapes {text}. "
                       "Set the jax_numpy_rank_promotion config option to 'allow' to disable "
                       "this warning; for more information, see "
                       "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def check_no_float0(name, args):
    """A float0 operand (the tangent type of ints and bools) supports no operation: a
    TypeError, as JAX's, before promotion would call its dtype invalid.
    Args: name: function name for messages (None: unnamed); args: operands.
    Returns: None."""
    for a in args:
        if getattr(a, "dtype", None) == dtypes.float0:
            raise ArgumentTypeError(
                f"{name or 'a jnp function'} was called with a float0 array: float0 values "
                "(the tangents of integer and boolean inputs) support no operations",
                hint="use np.zeros(x.shape, dtype) for a regular array of zeros")


def promote_dtypes(*args):
    """Convert operands to their common dtype, each an array as JAX's (Python scalars
    weak-typed 0-d arrays, NumPy values constants): `.shape`, methods and a staged
    index into a promoted operand work under `jit` and `vmap`.
    Args: *args: operands.
    Returns: list of Arrays (Tracers under staging) of one dtype.
    Vs NumPy: uses JAX promotion (weak types), not NumPy's value-based rules."""
    out = promote_operands(args)
    # a weak scalar among strong operands is strong too (promote_operands leaves it weak:
    # a lax operation makes the same result of either)
    weak = all(core.get_aval(a).weak_type for a in out)
    return [result(a) if weak or not isinstance(a, core.WeakConst) else _constant(a.val)
            for a in out]


def _fits(v, dt) -> bool:
    """Whether Python scalar `v` converts to NumPy dtype `dt` exactly as XLA converts it
    (no overflow: a wrapped int, an infinity)."""
    if dt.kind in "iu":
        return type(v) is int and np.iinfo(dt).min <= v <= np.iinfo(dt).max
    if dt.type in (np.float16, np.float32, np.float64, np.complex64, np.complex128):
        top = float(np.finfo(dt).max)
        return all(abs(p) <= top or p != p for p in (v.real, v.imag))
    return False


def scalar_operand(value, dt, weak):
    """Python scalar `value` as an operand of dtype `dt` beside operands whose promoted
    result is `weak` or not: a 0-d `WeakConst`, or staged for a strong result a strong
    literal (a 0-d NumPy array), as JAX converts it -- so the transpose of `0.5 * x` at a
    weak cotangent is strong, as JAX's. (Eagerly the result's type is the same either
    way, and a `WeakConst` is a cached device scalar.)"""
    if weak or core.current_builder() is None:
        return core.WeakConst(np.asarray(value, dt))
    return np.asarray(value, dt)


def promote_operands(args):
    """`promote_dtypes` for operands that go straight into lax operations (the
    elementwise path): a Python scalar stays a 0-d `WeakConst` (a weak literal under
    staging; eagerly a cached device scalar, never a transfer per call).
    Args: args: operands.
    Returns: list of Arrays, Tracers or 0-d `WeakConst`s (staged for a strong result:
    0-d NumPy arrays) of one dtype."""
    check_no_float0(None, args)
    if dtypes.config.read("jax_numpy_dtype_promotion") == "strict":
        _check_strict_promotion(args)
    for a in args:
        if type(a) is int:  # a weak int must fit the default int, as in JAX
            check_python_ints(a, dtypes.python_scalar_dtype(a))
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    out = []
    for a in args:
        av = core.get_aval(a)
        if (av.dtype != dt and dtypes.is_weak_scalar(a) and core.current_builder() is None
                and _fits(a, dt)):
            # (eagerly a host value, as JAX's literal: no operation, none on set_mesh's mesh)
            a = core.WeakConst(np.asarray(a).astype(dt))
        elif av.dtype != dt or (av.weak_type != weak and not dtypes.is_weak_scalar(a)):
            a = lax.convert_element_type(a, dt, weak_type=weak)
        elif dtypes.is_weak_scalar(a):
            check_python_ints(a, dt)
            a = scalar_operand(a, dt, weak)
        elif isinstance(a, (np.ndarray, np.generic)):
            a = _constant(a)  # a jax Array, as JAX's: a staged index into it works
        out.append(a)
    return out


def promote_shapes(*args, name=None, ranks_only=False):
    """Broadcast the operands of an elementwise function to one shape. As in JAX,
    operands of one rank (or 0-d ones) that do not broadcast are a TypeError (the lax
    primitive's), operands of different ranks a ValueError (rank promotion).
    Args: *args: operands; name: function name for messages; ranks_only: only give
    the operands one rank (leading size-1 dimensions, JAX's `promote_shapes`), for a
    lax primitive that broadcasts size-1 dimensions itself.
    Returns: list of operands of one shape (0-d ones left as-is), or of one rank.
    Vs NumPy: rank promotion follows jax_numpy_rank_promotion."""
    shapes = [core.get_aval(a).shape for a in args]
    if all(s == shapes[0] for s in shapes):
        return list(args)
    one_rank = len({len(s) for s in shapes if s}) < 2
    try:
        shape = broadcast_shapes(*shapes, error=ShapeError if one_rank else ShapeValueError)
    except (ShapeError, ShapeValueError) as e:
        if name is None:
            raise
        raise type(e)(f"{name} got incompatible shapes for broadcasting: "
                      + ", ".join(str(tuple(s)) for s in shapes) + ".") from None
    if ranks_only:
        if len({len(s) for s in shapes if s}) < 2:
            return list(args)
        return [a if len(s) == len(shape) else lax.broadcast_in_dim(
            a, (1,) * (len(shape) - len(s)) + tuple(s),
            tuple(range(len(shape) - len(s), len(shape)))) for a, s in zip(args, shapes)]
    return [a if s == () or s == shape else broadcast_to_shape(a, shape)
            for a, s in zip(args, shapes)]


def promote_args(name, *args, ranks_only=False):
    """Promote operands to a common dtype, then a common shape.
    Args: name: function name for messages; *args: operands; ranks_only: see
    `promote_shapes`.
    Returns: list of promoted operands.
    Vs NumPy: JAX dtype and rank promotion rules."""
    args = [asarray_operand(a) for a in args]
    check_no_float0(name, args)
    check_rank_promotion(name, *args)
    return promote_shapes(*promote_operands(args), name=name, ranks_only=ranks_only)


def promote_args_inexact(name, *args, ranks_only=False, shapes=True):
    """Like `promote_args`, but ints and bools become floats.
    Args: name: function name for messages; *args: operands; ranks_only: see
    `promote_shapes`; shapes: False leaves the shapes as they are (for a function
    whose later ops broadcast, and report a mismatch, as JAX's).
    Returns: list of inexact operands of one shape.
    Vs NumPy: ints up to 32 bits and bools promote to float32, 64-bit ints to float64
    under x64 (as JAX's `to_inexact_dtype`)."""
    args = [asarray_operand(a) for a in args]
    check_no_float0(name, args)
    check_rank_promotion(name, *args)
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if not dtypes.is_inexact(dt):
        fdt = dtypes.to_inexact(dt)
        args = [lax.convert_element_type(a, fdt, weak_type=weak) for a in args]
    if not shapes:
        return promote_operands(args)
    return promote_shapes(*promote_operands(args), name=name, ranks_only=ranks_only)


def promote_dtypes_inexact(*args):
    """Common inexact dtype for the operands, without broadcasting their shapes.
    Args: *args: operands.
    Returns: list of Arrays (Tracers under staging) of one inexact dtype.
    Vs NumPy: ints up to 32 bits and bools promote to float32 (as JAX)."""
    args = [asarray_operand(a) for a in args]
    check_no_float0(None, args)
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if not dtypes.is_inexact(dt):
        fdt = dtypes.to_inexact(dt)
        args = [lax.convert_element_type(a, fdt, weak_type=weak) for a in args]
    return promote_dtypes(*args)
