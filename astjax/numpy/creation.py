"""Array creation: array/asarray, zeros/ones/full(_like), arange, linspace, eye, ..."""
from __future__ import annotations

import numpy as np

from .. import core, dtypes, lax
from ..core import Tracer
from ..errors import ArgumentError, ConcretizationError


def _static_shape(shape, name="shape"):
    if isinstance(shape, (int, np.integer)) or (hasattr(shape, "__index__") and not isinstance(shape, (tuple, list))):
        return (int(shape),)
    try:
        return tuple(int(operator_index(d)) for d in shape)
    except ConcretizationError:
        raise
    except TypeError:
        raise ArgumentError(f"{name} must be a tuple of ints, got {shape!r:.60}") from None


def operator_index(d):
    import operator
    return operator.index(d)


def _dtype(dtype, default=None):
    if dtype is None:
        return default
    try:
        dt = dtypes.dtype(dtype)
    except TypeError:
        from ..errors import DTypeError
        raise DTypeError(f"{dtype!r:.60} is not a valid dtype",
                         hint="use e.g. jnp.float32, 'int32' or a NumPy dtype") from None
    if dt not in dtypes.SUPPORTED:
        from ..errors import DTypeError
        raise DTypeError(f"dtype {dt} is not supported by astjax",
                         hint="supported: " + ", ".join(str(d) for d in dtypes.SUPPORTED))
    return dtypes.canonicalize(dt, warn=True)


def array(obj, dtype=None, copy=True, ndmin=0):
    if isinstance(obj, Tracer) or hasattr(obj, "_buf"):
        out = obj
        if dtype is not None:
            out = lax.convert_element_type(out, _dtype(dtype))
        elif getattr(out, "weak_type", False) and isinstance(out, Tracer):
            out = lax.convert_element_type(out, out.dtype, weak_type=False)
    elif isinstance(obj, (list, tuple)) and any(_has_staged(o) for o in obj):
        from .shapes import stack
        out = stack([array(o) for o in obj])
        if dtype is not None:
            out = lax.convert_element_type(out, _dtype(dtype))
    else:
        if isinstance(obj, core.WeakConst):
            obj = obj.val
        np_val = np.asarray(obj)
        if np_val.dtype == object:
            raise ArgumentError(f"cannot make an array from {type(obj).__name__} {obj!r:.60}")
        if dtype is not None:
            dt = _dtype(dtype)
        elif isinstance(obj, (bool, int, float, complex)):
            dt = dtypes.python_scalar_dtype(obj)
        elif isinstance(obj, (list, tuple)) and np_val.size and np_val.dtype.kind in "biufc":
            dt = _infer_list_dtype(obj, np_val)
        else:
            dt = dtypes.canonicalize(np_val.dtype)
        out = _constant(np_val.astype(dt))
    for _ in range(ndmin - core.get_aval(out).ndim):
        out = lax.expand_dims(out, (0,))
    return out


def _infer_list_dtype(obj, np_val):
    leaves = []

    def walk(o):
        if isinstance(o, (list, tuple)):
            for x in o:
                walk(x)
        else:
            leaves.append(o)
    walk(obj)
    return dtypes.result_type(*[np.asarray(l) if not isinstance(l, (bool, int, float, complex))
                                else l for l in leaves])


def _has_staged(o):
    if isinstance(o, (list, tuple)):
        return any(_has_staged(x) for x in o)
    return isinstance(o, Tracer) or hasattr(o, "_buf")


def _constant(v: np.ndarray):
    """A host constant: staged as a literal/constvar under jit, a device array eagerly."""
    b = core.current_builder()
    if b is not None:
        return b.const_tracer(v)
    from ..codegen.runtime import device_put
    return device_put(v)


def asarray(a, dtype=None, order=None, copy=None):
    if dtype is None and (isinstance(a, Tracer) or hasattr(a, "_buf")):
        return a
    return array(a, dtype=dtype)


def zeros(shape, dtype=None):
    return lax.full(_static_shape(shape), 0, _dtype(dtype, dtypes.dtype(float)))


def ones(shape, dtype=None):
    return lax.full(_static_shape(shape), 1, _dtype(dtype, dtypes.dtype(float)))


def empty(shape, dtype=None):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    fill_value = fill_value if dtype is not None or not isinstance(fill_value, (list, tuple)) \
        else array(fill_value)
    shape = _static_shape(shape)
    if dtype is None and not dtypes.is_weak_scalar(fill_value):
        from .ufuncs import broadcast_to_shape
        return broadcast_to_shape(asarray(fill_value), shape)
    dt = _dtype(dtype, dtypes.result_type(fill_value))
    aval = core.get_aval(fill_value)
    if aval.ndim:
        from .ufuncs import broadcast_to_shape
        return broadcast_to_shape(lax.convert_element_type(fill_value, dt), shape)
    return lax.full(shape, fill_value, dt)


def _like(name, value):
    def f(a, dtype=None, shape=None):
        av = core.get_aval(a) if not isinstance(a, (list, tuple)) else core.get_aval(np.asarray(a))
        return lax.full(av.shape if shape is None else _static_shape(shape), value,
                        _dtype(dtype, av.dtype))
    f.__name__ = name
    return f


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = zeros_like


def full_like(a, fill_value, dtype=None, shape=None):
    av = core.get_aval(a)
    return lax.full(av.shape if shape is None else _static_shape(shape), fill_value,
                    _dtype(dtype, av.dtype))


def arange(start, stop=None, step=None, dtype=None):
    for v in (start, stop, step):
        if isinstance(v, Tracer) and v.known is None:
            raise ConcretizationError("jnp.arange needs static start/stop/step: the length of "
                                      "the result is part of its shape")
    start = np.asarray(start).item() if hasattr(start, "__array__") else start
    stop = np.asarray(stop).item() if hasattr(stop, "__array__") else stop
    step = np.asarray(step).item() if hasattr(step, "__array__") else step
    if stop is None and step is None:
        start, stop = 0, start
    step = 1 if step is None else step
    default = dtypes.result_type(*(v for v in (start, stop, step) if v is not None))
    dt = _dtype(dtype, default)
    n = max(int(np.ceil((stop - start) / step)), 0)
    if start == 0 and step == 1:
        return lax.iota(dt, n)
    return _constant(np.arange(start, stop, step).astype(dt)[:n]) if n <= 0 else \
        _affine_iota(dt, n, start, step)


def _affine_iota(dt, n, start, step):
    r = lax.iota(dt, n)
    return lax.add(lax.mul(r, np.asarray(step, dt)[()]), np.asarray(start, dt)[()])


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    num = int(num)
    dt = _dtype(dtype, dtypes.dtype(float))
    comp_dt = dtypes.canonicalize(np.promote_types(dt, dtypes.dtype(float)))
    start = lax.convert_element_type(asarray(start), comp_dt)
    stop = lax.convert_element_type(asarray(stop), comp_dt)
    div = (num - 1) if endpoint else num
    step = lax.div(lax.sub(stop, start), np.asarray(max(div, 1), comp_dt)[()])
    sshape = core.get_aval(start).shape
    iota = lax.broadcasted_iota(comp_dt, (num,) + sshape, 0)
    from .ufuncs import broadcast_to_shape
    s = broadcast_to_shape(start, (num,) + sshape)
    out = lax.add(s, lax.mul(iota, broadcast_to_shape(step, (num,) + sshape)))
    if endpoint and num > 1:
        out = lax.concatenate([lax.slice_in_dim(out, 0, num - 1), lax.expand_dims(stop, (0,))], 0)
    if axis != 0:
        from .shapes import moveaxis
        out = moveaxis(out, 0, axis)
    out = lax.convert_element_type(out, dt)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    from .ufuncs import power
    return lax.convert_element_type(power(base, linspace(start, stop, num, endpoint, axis=axis)),
                                    _dtype(dtype, dtypes.dtype(float)))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    from .ufuncs import exp, log
    return lax.convert_element_type(exp(linspace(log(asarray(float(start)) if isinstance(start, (int, float)) else start),
                                                 log(asarray(float(stop)) if isinstance(stop, (int, float)) else stop),
                                                 num, endpoint, axis=axis)),
                                    _dtype(dtype, dtypes.dtype(float)))


def eye(N, M=None, k=0, dtype=None):
    M = N if M is None else M
    dt = _dtype(dtype, dtypes.dtype(float))
    r = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    c = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return lax.convert_element_type(lax.eq(lax.add(r, np.int32(k)), c), dt)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    M = N if M is None else M
    r = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    c = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return lax.convert_element_type(lax.ge(lax.add(r, np.int32(k)), c),
                                    _dtype(dtype, dtypes.dtype(float)))


def tril(m, k=0):
    from .ufuncs import where
    m = asarray(m)
    N, M = core.get_aval(m).shape[-2:]
    mask = lax.convert_element_type(tri(N, M, k), dtypes.bool_)
    return where(mask, m, lax.full_like(m, 0))


def triu(m, k=0):
    from .ufuncs import where
    m = asarray(m)
    N, M = core.get_aval(m).shape[-2:]
    mask = lax.convert_element_type(tri(N, M, k - 1), dtypes.bool_)
    return where(mask, lax.full_like(m, 0), m)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    from .ufuncs import broadcast_to_shape
    xi = [asarray(x) for x in xi]
    shapes = [core.get_aval(x).size for x in xi]
    if indexing == "xy" and len(xi) >= 2:
        shapes[0], shapes[1] = shapes[1], shapes[0]
    out = []
    for i, x in enumerate(xi):
        ax = i
        if indexing == "xy" and len(xi) >= 2 and i < 2:
            ax = 1 - i
        sh = [1] * len(xi)
        sh[ax] = core.get_aval(x).size
        y = lax.reshape(lax.reshape(x, (core.get_aval(x).size,)), tuple(sh))
        out.append(y if sparse else broadcast_to_shape(y, tuple(shapes)))
    return out
