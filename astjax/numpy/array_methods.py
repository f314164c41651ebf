"""Operators and methods shared by staged values (`core.Tracer`) and device arrays
(`astjax.Array`), installed on both by the numpy layer, as JAX's
`jax/_src/numpy/array_methods.py` does. Everything delegates to `astjax.numpy`, so one
implementation serves eager execution, staging, and every transform.

This is one of the three places a higher layer installs something into a lower one
(docs/architecture.md): `astjax/numpy/__init__.py` calls `install(astjax.numpy)` once,
at the end of its import; `core` and `codegen` never import the numpy layer.

Tracers also get the NumPy protocols (NEP 13 / NEP 18): plain `np.sin(x)` or
`np.dot(x, w)` on a staged value runs the `astjax.numpy` function of the same name."""
from __future__ import annotations

import inspect

import numpy as np

from ..api import device_put as _device_put
from ..codegen.runtime import Array
from ..core import Tracer
from .. import lax as _lax
from ..errors import (ArgumentValueError, JAXAttributeError, JAXTypeError,
                      NotImplementedInAstjaxError, TracerArrayConversionError)
from .array_api import check_api_version
from .arraylike import check_arraylike as _check_arraylike
from .operands import jax_array_protocol
from ..primitives.structural import copy as _copy

_namespace = None  # the astjax.numpy module, set by `install`


def _jnp():
    return _namespace


_operators: dict = {}  # name -> the function an operator calls, bound by `install`


def _binop(name, reflected=False):
    def op(self, other):
        jnp = _jnp()
        other = jax_array_protocol(other)   # (JAX's operators accept `__jax_array__`)
        if not jnp._is_operand(other):
            return NotImplemented
        f = _operators[name]
        return f(other, self) if reflected else f(self, other)
    op.__name__ = name
    return op


def _bind_operators(jnp):
    """Operators call the elementwise functions directly, as JAX's bind `ufuncs.add`:
    for a `jnp.ufunc` (`jnp.add`) its plain function, without the ufunc object's call
    layer on the eager path."""
    names = {op.__name__ for op in vars(ArrayMethods).values() if callable(op)
             and getattr(op, "__qualname__", "").startswith("_binop.")}
    for name in names:
        f = getattr(jnp, name)
        _operators[name] = getattr(f, "_elementwise", None) or f


def _method(name, function=None):
    def m(self, *args, **kw):
        return getattr(_jnp(), name)(self, *args, **kw)
    m.__name__ = name
    if function is not None:   # the function's parameters, its array the method's `self`
        # (so a call with a keyword it lacks is reported at the user's line, as jnp's is)
        try:
            m.__signature__ = inspect.signature(function)
        except (TypeError, ValueError):
            pass
    return m


# Array methods that are the `astjax.numpy` function of the same name.
_METHODS = ("sum", "mean", "prod", "max", "min", "any", "all", "argmax", "argmin",
            "cumsum", "cumprod", "var", "std", "ravel", "flatten", "squeeze", "clip",
            "dot", "round", "conj", "conjugate", "nonzero", "sort", "argsort",
            "swapaxes", "repeat", "take", "trace", "diagonal", "ptp", "searchsorted",
            "choose", "argpartition")


class ArrayMethods:
    __slots__ = ()

    __add__, __radd__ = _binop("add"), _binop("add", True)
    __sub__, __rsub__ = _binop("subtract"), _binop("subtract", True)
    __mul__, __rmul__ = _binop("multiply"), _binop("multiply", True)
    __truediv__, __rtruediv__ = _binop("true_divide"), _binop("true_divide", True)
    __floordiv__, __rfloordiv__ = _binop("floor_divide"), _binop("floor_divide", True)
    __mod__, __rmod__ = _binop("remainder"), _binop("remainder", True)
    __pow__, __rpow__ = _binop("power"), _binop("power", True)
    __matmul__, __rmatmul__ = _binop("matmul"), _binop("matmul", True)
    __and__, __rand__ = _binop("bitwise_and"), _binop("bitwise_and", True)
    __or__, __ror__ = _binop("bitwise_or"), _binop("bitwise_or", True)
    __xor__, __rxor__ = _binop("bitwise_xor"), _binop("bitwise_xor", True)
    __lshift__, __rlshift__ = _binop("left_shift"), _binop("left_shift", True)
    __rshift__, __rrshift__ = _binop("right_shift"), _binop("right_shift", True)
    __lt__, __le__ = _binop("less"), _binop("less_equal")
    __gt__, __ge__ = _binop("greater"), _binop("greater_equal")
    __eq__, __ne__ = _binop("equal"), _binop("not_equal")
    __divmod__, __rdivmod__ = _binop("divmod"), _binop("divmod", True)

    def __neg__(self):
        return _jnp().negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _jnp().abs(self)

    def __invert__(self):
        return _jnp().invert(self)

    def __getitem__(self, idx):
        return _jnp()._getitem(self, idx)

    def __setitem__(self, idx, value):
        raise JAXTypeError("astjax arrays are immutable and do not support in-place item "
                           "assignment", hint="instead of x[idx] = y, write "
                           "x = x.at[idx].set(y) (or .add, .multiply, .min, .max)")

    def __delitem__(self, idx):
        raise JAXAttributeError("__delitem__: astjax arrays are immutable and do not support "
                                "deleting items",
                                hint="build the array you want, e.g. jnp.delete(x, idx)")

    def __format__(self, spec):
        if isinstance(self, Tracer) and spec:
            raise JAXTypeError(f"unsupported format string {spec!r} passed to a staged value: "
                               f"its value is only known when the function runs",
                               hint="format it outside the staged function, or print it with "
                                    "astjax.debug.print('{x}', x=x)")
        return object.__format__(self, spec) if isinstance(self, Tracer) else \
            format(self.__array__()[()], spec)

    def __len__(self):
        if not self.shape:
            raise JAXTypeError("len() of unsized object (a 0-d array)",
                               hint="a 0-d array has no length; use x.size or x.shape")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise JAXTypeError("iteration over a 0-d array",
                               hint="a 0-d array holds one value; there is nothing to iterate")
        return (self[i] for i in range(self.shape[0]))

    @property
    def T(self):
        return _jnp().transpose(self)

    @property
    def mT(self):
        return _jnp().swapaxes(self, -1, -2)

    @property
    def at(self):
        return _jnp()._IndexUpdateHelper(self)

    @property
    def real(self):
        return _jnp().real(self)

    @property
    def imag(self):
        return _jnp().imag(self)

    def astype(self, dtype, copy=False, device=None):
        return _jnp().astype(self, dtype, copy=copy, device=device)

    def compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
        """`jnp.compress(condition, self, axis, ...)`."""
        return _jnp().compress(condition, self, axis, out=out, size=size,
                               fill_value=fill_value)

    def view(self, dtype=None, type=None):  # noqa: A002
        """The same bytes read as `dtype`: the last axis grows (a smaller dtype) or
        shrinks (a larger one, whose size must divide the last axis's bytes)."""
        if type is not None:
            raise NotImplementedInAstjaxError("`type` argument of array.view() is not "
                                              "supported.")
        if dtype is None:
            return self
        x, src, dst = self, np.dtype(self.dtype), np.dtype(dtype)
        if src == dst:
            return x
        if src == np.bool_:
            x, src = _lax.convert_element_type(x, np.uint8), np.dtype(np.uint8)
        want = np.uint8 if dst == np.bool_ else dst
        n, m = src.itemsize, np.dtype(want).itemsize
        shape = x.shape
        if n < m:
            if not shape or (shape[-1] * n) % m:
                raise ArgumentValueError("When changing to a larger dtype, its size must be "
                                         "a divisor of the total size in bytes of the last "
                                         "axis of the array.")
            x = _lax.reshape(x, shape[:-1] + (shape[-1] * n // m, m // n))
        out = _lax.bitcast_convert_type(x, want)
        if n > m:
            out = _lax.reshape(out, shape[:-1] + (shape[-1] * n // m,) if shape else (n // m,))
        return _lax.ne(out, np.uint8(0)) if dst == np.bool_ else out

    def byteswap(self):
        """The elements with their bytes in reverse order (same dtype and shape); a
        complex element swaps its real and imaginary parts' bytes separately."""
        jnp = _jnp()
        if np.issubdtype(self.dtype, np.complexfloating):
            return _lax.complex(self.real.byteswap(), self.imag.byteswap())
        if self.dtype.itemsize == 1:
            return self.copy()
        raw = _lax.bitcast_convert_type(self, np.uint8)   # one more axis: the bytes
        return _lax.bitcast_convert_type(jnp.flip(raw, -1), self.dtype)

    def __contains__(self, other):
        """`other in x`, as JAX: `x` one-dimensional, `other` a scalar (None, strings
        and sequences are TypeErrors, other shapes ValueErrors, where NumPy compares)."""
        jnp = _jnp()
        if other is None or isinstance(other, str):
            raise JAXTypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
        _check_arraylike("Array.__contains__", other)
        if self.ndim != 1:
            raise ArgumentValueError("Array.__contains__: search array must be "
                                     f"one-dimensional, got arr.shape={self.shape}.")
        if np.ndim(other) != 0:
            raise ArgumentValueError("Array.__contains__: query value must be a scalar, got "
                                     f"query.shape={np.shape(other)}")
        return jnp.any(self == other)

    @property
    def global_shards(self):
        """Every device's part of the array (`Shard`s): in astjax's single process,
        the addressable ones."""
        return self.addressable_shards

    def tobytes(self, order="C"):
        """The array's bytes (NumPy's `tobytes`)."""
        return np.asarray(self).tobytes(order=order)

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace of this array: `astjax.numpy`."""
        check_api_version(api_version)
        return _jnp()

    @property
    def itemsize(self):
        """Bytes per element."""
        return self.dtype.itemsize

    def to_device(self, device, *, stream=None):
        """This array on `device` (a Device or Sharding); a staged value is returned
        as it is (placement inside a staged function is the program's)."""
        if stream is not None:
            raise JAXTypeError("to_device: astjax has no streams (stream must be None)")
        if isinstance(self, Tracer):
            return self
        return _device_put(self, device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The DLPack capsule of this array's data (CPU arrays: a host copy the
        capsule owns)."""
        host = self._dlpack_host()
        kw = {} if max_version is None else {"max_version": max_version}
        if dl_device is not None:
            kw["dl_device"] = dl_device
        return host.__dlpack__(stream=stream, copy=copy, **kw) if copy is not None \
            else host.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self):
        """(device type, device id) of the DLPack export: the CPU."""
        return self._dlpack_host().__dlpack_device__()

    def _dlpack_host(self):
        if isinstance(self, Tracer):
            raise TracerArrayConversionError("DLPack export of a staged value: it has no "
                                             "data while the function is staged")
        if self.device.platform != "cpu":
            raise JAXTypeError(f"DLPack export from {self.device.platform} is not supported "
                               "yet", hint="copy to the host with np.asarray(x) first")
        return np.array(self)

    def copy(self):
        """A copy of the array (JAX's `Array.copy`): a new array object."""
        return _copy(self)

    def __round__(self, ndigits=None):
        """`round(x)`: to the nearest integer (half to even) as an int array, as JAX;
        `round(x, n)`: to n decimals, same dtype."""
        jnp = _jnp()
        if ndigits is None:
            return jnp.round(self).astype(int)
        return jnp.round(self, ndigits)

    def reshape(self, *shape, order="C", copy=None, out_sharding=None):
        if len(shape) == 1:   # one argument is the shape (a tuple, an int, a 1-D array)
            shape = shape[0]
        return _jnp().reshape(self, shape, order=order, copy=copy, out_sharding=out_sharding)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return _jnp().transpose(self, axes or None)



# Plain NumPy on staged values: `np.sin(x)` / `np.dot(x, w)` inside a staged
# function run the `astjax.numpy` function of the same name (NEP 13 / NEP 18).
def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method != "__call__" or kwargs.get("out") is not None:
        return NotImplemented
    kwargs.pop("out", None)
    return _numpy_twin("numpy", ufunc.__name__)(*inputs, **kwargs)


def _array_function(self, func, types, args, kwargs):
    return _numpy_twin(getattr(func, "__module__", "numpy"), func.__name__)(*args, **kwargs)


def _numpy_twin(module: str, name: str):
    """The astjax.numpy function standing in for numpy's `module.name`."""
    target = _jnp()
    for part in module.split(".")[1:]:  # numpy.linalg -> jnp.linalg, ...
        target = getattr(target, part)
    return getattr(target, name)  # astjax.numpy raises a located NotImplemented error


_NOT_METHODS = ("__module__", "__qualname__", "__doc__", "__slots__", "__dict__",
                "__weakref__", "__firstlineno__", "__static_attributes__")


def install(jnp):
    """Give `Tracer` and `Array` the operators and methods of `ArrayMethods` (those a
    class does not define itself, as if it inherited them), delegating to `jnp`; and
    give `Tracer` the NumPy protocols. Called once, by `astjax/numpy/__init__.py`."""
    global _namespace
    _namespace = jnp
    _bind_operators(jnp)
    for cls in (Tracer, Array):
        for name, value in vars(ArrayMethods).items():
            if name not in _NOT_METHODS and name not in vars(cls):
                setattr(cls, name, value)
        for name in _METHODS:
            if name not in vars(cls):
                setattr(cls, name, _method(name, getattr(jnp, name)))
    Tracer.__array_ufunc__ = _array_ufunc
    Tracer.__array_function__ = _array_function
